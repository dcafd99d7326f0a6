//! The search's program space, enumerated by brute force: every program of N events that
//! `search::check` explores with natural counting (threads of instructions of the mapping's
//! classes, an RMW two events; each access at one of the search's locations; after a load or RMW
//! that is not its thread's last instruction, maybe a guard `if (r != v) goto END` on the value
//! of a write to the same location (not the read's own RMW write), 0 for the initial write; stores and RMWs write 1, 2, 3, … in
//! event order; any nesting of the threads into CTAs and GPUs; where the mapping declares
//! `locations typed`, no location both non-atomic and atomic; every memory event, fence and
//! initial write in the search's memory region, `Mapping::region`). No symmetry reduction:
//! `canonical` gives one program per renaming class.
//!
//! Used by `search_exhaustive.rs` (the search against this enumeration judged by the runner) and
//! `coq_searched_equivalence.rs` (the exported `searched` against this enumeration).

use std::collections::{BTreeMap, BTreeSet};

use mapcheck::litmus::{
    Arch, CmpOp, Cond, Condition, Expr, Instr, Litmus, Placement, Prop, Quantifier, RmwOp, Thread,
};
use mapcheck::mapping::{ClassKind, Mapping};
use mapcheck::search::LOCATIONS;
use mapcheck::vocab::Level;

/// The number in environment variable `var`, or `default` when it is unset.
pub fn setting(var: &str, default: usize) -> usize {
    std::env::var(var).map_or(default, |v| {
        v.parse().unwrap_or_else(|_| panic!("{var}: a number"))
    })
}

/// The write a guard names: the initial write of the read's location, or the store / RMW that is
/// instruction `i` of thread `t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Guard {
    Init,
    Write(usize, usize),
}

/// One source instruction: a class (index into `Mapping::classes()`), a location (0 for
/// fences), and the guard after it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ins {
    pub class: usize,
    pub loc: usize,
    pub guard: Option<Guard>,
}

/// A program: threads of instructions, and each thread's (CTA, GPU) label.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Prog {
    pub threads: Vec<Vec<Ins>>,
    pub place: Vec<(usize, usize)>,
}

/// The index of a class of the mapping, by its name (`W.REL.GPU`).
pub fn class_index(m: &Mapping, name: &str) -> usize {
    m.classes()
        .iter()
        .position(|c| c.to_string() == name)
        .unwrap_or_else(|| panic!("no class {name}"))
}

pub fn kind(m: &Mapping, ins: &Ins) -> ClassKind {
    m.classes()[ins.class].kind
}

pub fn events_of(k: ClassKind) -> usize {
    if k == ClassKind::Rmw {
        2
    } else {
        1
    }
}

pub fn writes(k: ClassKind) -> bool {
    matches!(k, ClassKind::W | ClassKind::Rmw)
}

pub fn reads(k: ClassKind) -> bool {
    matches!(k, ClassKind::R | ClassKind::Rmw)
}

/// The value each store / RMW writes: 1, 2, 3, … in event order (threads in order).
pub fn values(m: &Mapping, p: &Prog) -> BTreeMap<(usize, usize), i64> {
    let mut out = BTreeMap::new();
    for (t, th) in p.threads.iter().enumerate() {
        for (i, ins) in th.iter().enumerate() {
            if writes(kind(m, ins)) {
                let v = out.len() as i64 + 1;
                out.insert((t, i), v);
            }
        }
    }
    out
}

/// The program as a source litmus test, in the form `search::decode::source_test` writes.
pub fn to_litmus(m: &Mapping, p: &Prog) -> Litmus {
    let value = values(m, p);
    let mut used = BTreeSet::new();
    let threads = p
        .threads
        .iter()
        .enumerate()
        .map(|(t, th)| {
            let mut code = vec![];
            let mut open = 0;
            for (i, ins) in th.iter().enumerate() {
                let class = m.classes()[ins.class];
                let tags = class.tags();
                let loc = LOCATIONS[ins.loc].to_string();
                let reg = format!("r{i}");
                if class.kind != ClassKind::F {
                    used.insert(ins.loc);
                }
                code.push(match class.kind {
                    ClassKind::R => Instr::Load {
                        dst: reg.clone(),
                        loc,
                        tags,
                    },
                    ClassKind::W => Instr::Store {
                        loc,
                        value: Expr::Const(value[&(t, i)]),
                        tags,
                    },
                    ClassKind::Rmw => Instr::Rmw {
                        dst: Some(reg.clone()),
                        loc,
                        op: RmwOp::Exch(Expr::Const(value[&(t, i)])),
                        tags,
                        fail_tags: None,
                    },
                    ClassKind::F => Instr::Fence {
                        tags: tags.into_iter().chain(m.region()).collect(),
                    },
                });
                if let Some(g) = ins.guard {
                    let v = match g {
                        Guard::Init => 0,
                        Guard::Write(u, j) => value[&(u, j)],
                    };
                    code.push(Instr::BranchIf {
                        cond: Cond {
                            op: CmpOp::Ne,
                            lhs: Expr::Reg(reg),
                            rhs: Expr::Const(v),
                        },
                        target: format!("%L{open}"),
                    });
                    open += 1;
                }
            }
            code.extend((0..open).rev().map(|k| Instr::Label(format!("%L{k}"))));
            Thread {
                name: format!("P{t}"),
                placement: Placement::default()
                    .with(Level::Cta, p.place[t].0 as i64)
                    .with(Level::Gpu, p.place[t].1 as i64),
                code,
                unsequenced: vec![],
            }
        })
        .collect();
    Litmus {
        arch: Arch::C11,
        name: "exhaustive".into(),
        init_mem: used
            .iter()
            .map(|&l| (LOCATIONS[l].to_string(), 0))
            .collect(),
        init_regs: vec![],
        ssw: vec![],
        filter: None,
        loc_tags: match m.region() {
            Some(r) => used
                .iter()
                .map(|&l| (LOCATIONS[l].to_string(), vec![r]))
                .collect(),
            None => vec![],
        },
        aliases: vec![],
        threads,
        condition: Condition {
            quantifier: Quantifier::Exists,
            prop: Prop::True,
        },
        locations: vec![],
    }
}

/// A source litmus test written by the search, read back as a `Prog` (guards by the write they
/// name). A guard after a thread's last instruction guards nothing and is dropped.
pub fn from_litmus(m: &Mapping, test: &Litmus) -> Prog {
    let loc = |l: &str| {
        LOCATIONS
            .iter()
            .position(|x| *x == l)
            .expect("a search location")
    };
    let mut by_value: BTreeMap<i64, (usize, usize)> = BTreeMap::new();
    let mut threads: Vec<Vec<Ins>> = vec![];
    let mut guards: Vec<(usize, usize, i64)> = vec![];
    for (t, th) in test.threads.iter().enumerate() {
        let mut code: Vec<Ins> = vec![];
        for instr in &th.code {
            let (k, tags, l, v) = match instr {
                Instr::Load { loc: l, tags, .. } => (ClassKind::R, tags, loc(l), None),
                Instr::Store {
                    loc: l,
                    value: Expr::Const(v),
                    tags,
                } => (ClassKind::W, tags, loc(l), Some(*v)),
                Instr::Rmw {
                    loc: l,
                    op: RmwOp::Exch(Expr::Const(v)),
                    tags,
                    ..
                } => (ClassKind::Rmw, tags, loc(l), Some(*v)),
                Instr::Fence { tags } => (ClassKind::F, tags, 0, None),
                Instr::BranchIf {
                    cond:
                        Cond {
                            op: CmpOp::Ne,
                            rhs: Expr::Const(v),
                            ..
                        },
                    ..
                } => {
                    guards.push((t, code.len() - 1, *v));
                    continue;
                }
                Instr::Label(_) => continue,
                other => panic!("not an instruction of the search space: {other:?}"),
            };
            let class = m.classify(k, tags).expect("a class of the mapping");
            let class = m.classes().iter().position(|c| *c == class).unwrap();
            if let Some(v) = v {
                by_value.insert(v, (t, code.len()));
            }
            code.push(Ins {
                class,
                loc: l,
                guard: None,
            });
        }
        threads.push(code);
    }
    for (t, i, v) in guards {
        if i + 1 < threads[t].len() {
            threads[t][i].guard = Some(if v == 0 {
                Guard::Init
            } else {
                Guard::Write(by_value[&v].0, by_value[&v].1)
            });
        }
    }
    let place = test
        .threads
        .iter()
        .map(|th| {
            (
                th.placement.id(Level::Cta) as usize,
                th.placement.id(Level::Gpu) as usize,
            )
        })
        .collect();
    Prog { threads, place }
}

/// Labels renumbered in order of first use.
pub fn first_use(labels: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut seen: Vec<usize> = vec![];
    labels
        .map(|l| match seen.iter().position(|&x| x == l) {
            Some(k) => k,
            None => {
                seen.push(l);
                seen.len() - 1
            }
        })
        .collect()
}

/// The least program, over thread orders and location renamings, equal to `p` up to renaming
/// (CTA and GPU ids numbered in order of first use; CTA ids global: the same CTA id in two GPUs
/// is two CTAs). For one thread order the least renaming of the locations is their order of
/// first use: instructions compare by class first, and a location's first use decides every
/// later comparison of it.
pub fn canonical(m: &Mapping, p: &Prog) -> Prog {
    let mut best: Option<Prog> = None;
    for perm in permutations(p.threads.len()) {
        let q = reordered(m, p, &perm);
        if best.as_ref().is_none_or(|b| q < *b) {
            best = Some(q);
        }
    }
    best.unwrap()
}

/// Whether `p` is the program `canonical` gives for its renaming class.
pub fn is_canonical(m: &Mapping, p: &Prog) -> bool {
    permutations(p.threads.len())
        .iter()
        .all(|perm| reordered(m, p, perm) >= *p)
}

/// `p` with its threads in the order `perm` (`perm[new] = old`), locations, CTAs and GPUs
/// numbered in order of first use.
fn reordered(m: &Mapping, p: &Prog, perm: &[usize]) -> Prog {
    let mut new_of = vec![0; perm.len()];
    for (new, &old) in perm.iter().enumerate() {
        new_of[old] = new;
    }
    let mut location_of: Vec<usize> = vec![];
    let threads: Vec<Vec<Ins>> = perm
        .iter()
        .map(|&old| {
            p.threads[old]
                .iter()
                .map(|ins| Ins {
                    class: ins.class,
                    loc: if kind(m, ins) == ClassKind::F {
                        0
                    } else {
                        location_of
                            .iter()
                            .position(|&l| l == ins.loc)
                            .unwrap_or_else(|| {
                                location_of.push(ins.loc);
                                location_of.len() - 1
                            })
                    },
                    guard: ins.guard.map(|g| match g {
                        Guard::Init => Guard::Init,
                        Guard::Write(u, j) => Guard::Write(new_of[u], j),
                    }),
                })
                .collect()
        })
        .collect();
    let places: Vec<(usize, usize)> = perm.iter().map(|&old| p.place[old]).collect();
    let cta = first_use(places.iter().map(|&(c, g)| c * 64 + g));
    let gpu = first_use(places.iter().map(|&(_, g)| g));
    Prog {
        threads,
        place: cta.into_iter().zip(gpu).collect(),
    }
}

pub fn permutations(k: usize) -> Vec<Vec<usize>> {
    if k == 0 {
        return vec![vec![]];
    }
    let mut out = vec![];
    for p in permutations(k - 1) {
        for i in 0..k {
            let mut q = p.clone();
            q.insert(i, k - 1);
            out.push(q);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Enumeration

/// Ordered thread sizes: 1..=threads parts, each ≥ 1, summing to `total`.
pub fn compositions(total: usize, threads: usize) -> Vec<Vec<usize>> {
    if total == 0 {
        return vec![vec![]];
    }
    if threads == 0 {
        return vec![];
    }
    let mut out = vec![];
    for k in 1..=total {
        for rest in compositions(total - k, threads - 1) {
            let mut v = vec![k];
            v.extend(rest);
            out.push(v);
        }
    }
    out
}

/// Class sequences of exactly `events` events (an RMW counts two).
pub fn class_sequences(m: &Mapping, events: usize) -> Vec<Vec<usize>> {
    if events == 0 {
        return vec![vec![]];
    }
    let mut out = vec![];
    for (c, class) in m.classes().iter().enumerate() {
        let e = events_of(class.kind);
        if e <= events {
            for rest in class_sequences(m, events - e) {
                let mut v = vec![c];
                v.extend(rest);
                out.push(v);
            }
        }
    }
    out
}

/// Every nesting of `t` threads into CTAs and GPUs, as (CTA, GPU) labels numbered in order of
/// first use (threads of one CTA share its GPU).
pub fn nestings(t: usize) -> Vec<Vec<(usize, usize)>> {
    let mut out: Vec<Vec<(usize, usize)>> = vec![vec![]];
    for _ in 0..t {
        let mut next = vec![];
        for p in out {
            let ctas = p.iter().map(|x| x.0 + 1).max().unwrap_or(0);
            let gpus = p.iter().map(|x| x.1 + 1).max().unwrap_or(0);
            for c in 0..=ctas {
                let options: Vec<usize> = match p.iter().find(|x| x.0 == c) {
                    Some(x) => vec![x.1],
                    None => (0..=gpus).collect(),
                };
                for g in options {
                    let mut q = p.clone();
                    q.push((c, g));
                    next.push(q);
                }
            }
        }
        out = next;
    }
    out
}

/// Cartesian product of option lists.
pub fn product<T: Clone>(lists: &[Vec<T>]) -> Vec<Vec<T>> {
    let mut out = vec![vec![]];
    for l in lists {
        out = out
            .into_iter()
            .flat_map(|p: Vec<T>| {
                l.iter().map(move |x| {
                    let mut q = p.clone();
                    q.push(x.clone());
                    q
                })
            })
            .collect();
    }
    out
}

/// No location of `p` takes both a non-atomic access and an atomic one.
pub fn locations_typed(m: &Mapping, p: &Prog) -> bool {
    let mut order_at: BTreeMap<usize, BTreeSet<bool>> = BTreeMap::new();
    for ins in p.threads.iter().flatten() {
        let class = m.classes()[ins.class];
        if class.kind != ClassKind::F {
            let plain = class.order == mapcheck::vocab::Tag::Na;
            order_at.entry(ins.loc).or_default().insert(plain);
        }
    }
    order_at.values().all(|kinds| kinds.len() == 1)
}

/// Every program of exactly `n` events, at most `threads` threads and `locs` locations (typed,
/// where the mapping declares it).
pub fn programs(m: &Mapping, n: usize, threads: usize, locs: usize) -> Vec<Prog> {
    programs_with(m, n, threads, locs, m.typed_locations)
}

/// Every program of exactly `n` events, at most `threads` threads and `locs` locations; with
/// `typed`, only those whose locations are typed.
pub fn programs_with(m: &Mapping, n: usize, threads: usize, locs: usize, typed: bool) -> Vec<Prog> {
    let mut out = vec![];
    let shape = Shape {
        events: n,
        threads,
        locs,
        typed,
        locations_in_first_use: false,
    };
    for_each_program(m, &shape, &mut |p| out.push(p));
    out
}

/// Which programs `for_each_program` gives.
pub struct Shape {
    pub events: usize,
    pub threads: usize,
    pub locs: usize,
    /// Only programs whose locations are typed.
    pub typed: bool,
    /// Only location assignments numbered in order of first use (in thread order): one per
    /// renaming of the locations.
    pub locations_in_first_use: bool,
}

/// Each program of `shape`, given to `f` (none is kept).
pub fn for_each_program(m: &Mapping, shape: &Shape, f: &mut dyn FnMut(Prog)) {
    let (n, threads, locs, typed) = (shape.events, shape.threads, shape.locs, shape.typed);
    for sizes in compositions(n, threads) {
        let per_thread: Vec<Vec<Vec<usize>>> =
            sizes.iter().map(|&k| class_sequences(m, k)).collect();
        for classes in product(&per_thread) {
            // Instructions in program order, with their (thread, index).
            let slots: Vec<(usize, usize)> = classes
                .iter()
                .enumerate()
                .flat_map(|(t, th)| (0..th.len()).map(move |i| (t, i)))
                .collect();
            let kind_at = |t: usize, i: usize| m.classes()[classes[t][i]].kind;
            let loc_options: Vec<Vec<usize>> = slots
                .iter()
                .map(|&(t, i)| {
                    if kind_at(t, i) == ClassKind::F {
                        vec![0]
                    } else {
                        (0..locs).collect()
                    }
                })
                .collect();
            for locs in product(&loc_options) {
                if shape.locations_in_first_use && !in_first_use(&slots, &locs, &kind_at) {
                    continue;
                }
                let loc_of =
                    |t: usize, i: usize| locs[slots.iter().position(|&s| s == (t, i)).unwrap()];
                let guard_options: Vec<Vec<Option<Guard>>> = slots
                    .iter()
                    .map(|&(t, i)| {
                        let mut g = vec![None];
                        if reads(kind_at(t, i)) && i + 1 < classes[t].len() {
                            g.push(Some(Guard::Init));
                            for &(u, j) in &slots {
                                // Never the write of the read's own RMW (the search's guards
                                // never name it).
                                let own = (u, j) == (t, i);
                                if !own && writes(kind_at(u, j)) && loc_of(u, j) == loc_of(t, i) {
                                    g.push(Some(Guard::Write(u, j)));
                                }
                            }
                        }
                        g
                    })
                    .collect();
                for guards in product(&guard_options) {
                    let mut threads: Vec<Vec<Ins>> = classes.iter().map(|_| vec![]).collect();
                    for (k, &(t, i)) in slots.iter().enumerate() {
                        threads[t].push(Ins {
                            class: classes[t][i],
                            loc: locs[k],
                            guard: guards[k],
                        });
                    }
                    let unplaced = Prog {
                        threads: threads.clone(),
                        place: vec![],
                    };
                    if typed && !locations_typed(m, &unplaced) {
                        continue;
                    }
                    for place in nestings(sizes.len()) {
                        f(Prog {
                            threads: threads.clone(),
                            place,
                        });
                    }
                }
            }
        }
    }
}

/// The memory accesses' locations, in slot order, each at most one above the largest before it.
fn in_first_use(
    slots: &[(usize, usize)],
    locs: &[usize],
    kind_at: &dyn Fn(usize, usize) -> ClassKind,
) -> bool {
    let mut next = 0;
    for (k, &(t, i)) in slots.iter().enumerate() {
        if kind_at(t, i) == ClassKind::F {
            continue;
        }
        if locs[k] > next {
            return false;
        }
        next = next.max(locs[k] + 1);
    }
    true
}

/// A random program of the space of exactly `events` events, at most `threads` threads and
/// `locs` locations (typed where the mapping declares it), drawn by `next` (a source of random
/// numbers): each thread gets an instruction, then random threads get random instructions until
/// the events are used up; each access a random location; a read that is not its thread's last
/// instruction a guard one time in three.
pub fn random_program(
    m: &Mapping,
    events: usize,
    threads: usize,
    locs: usize,
    next: &mut dyn FnMut() -> u64,
) -> Prog {
    let mut pick = |n: usize| (next() % n as u64) as usize;
    loop {
        let t = 1 + pick(threads.min(events));
        let mut code: Vec<Vec<Ins>> = vec![vec![]; t];
        let mut left = events;
        let mut th = 0;
        while left > 0 {
            let fits: Vec<usize> = (0..m.classes().len())
                .filter(|&c| events_of(m.classes()[c].kind) <= left)
                .collect();
            let class = fits[pick(fits.len())];
            left -= events_of(m.classes()[class].kind);
            let loc = if m.classes()[class].kind == ClassKind::F {
                0
            } else {
                pick(locs)
            };
            code[th].push(Ins {
                class,
                loc,
                guard: None,
            });
            th = if th + 1 < t && code[th + 1].is_empty() {
                th + 1
            } else {
                pick(t)
            };
        }
        if code.iter().any(Vec::is_empty) {
            continue;
        }
        let writes: Vec<(usize, usize)> = (0..t)
            .flat_map(|u| (0..code[u].len()).map(move |j| (u, j)))
            .filter(|&(u, j)| writes(m.classes()[code[u][j].class].kind))
            .collect();
        for u in 0..t {
            for j in 0..code[u].len().saturating_sub(1) {
                let ins = &code[u][j];
                if !reads(m.classes()[ins.class].kind) || pick(3) != 0 {
                    continue;
                }
                let mut options = vec![Guard::Init];
                options.extend(
                    writes
                        .iter()
                        .filter(|&&(a, b)| code[a][b].loc == ins.loc && (a, b) != (u, j))
                        .map(|&(a, b)| Guard::Write(a, b)),
                );
                code[u][j].guard = Some(options[pick(options.len())]);
            }
        }
        let p = Prog {
            threads: code,
            place: vec![],
        };
        if m.typed_locations && !locations_typed(m, &p) {
            continue;
        }
        let places = nestings(t);
        let place = places[pick(places.len())].clone();
        return Prog { place, ..p };
    }
}
