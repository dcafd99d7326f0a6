//! The runner's word on what the solver found: a solution becomes a concrete source test (and,
//! through the mapping, its target test), and the runner — not the encoder — decides whether it
//! is a counterexample: the program has a meaning (some consistent source execution, none of
//! which raises a flag: race-free),
//! the target model allows the compiled execution, and every source execution with the lifted
//! `rf` and a coherence order extending the lifted `co` is inconsistent.
//!
//! Owns: `Key` (events named independently of slot numbers), `source_test`, `Found` (one
//! solution as tests and key relations), `validate` and its `Verdict`, and `cycle`: why the
//! lifted source execution breaks an axiom, as `CycleStep`s (`eval::explain` in source keys).
//! Uses: `runner`, `mapping` (compile_program), `litmus`, `exec`, `eval`, `layout`, `symbolic`.
use std::collections::BTreeSet;

use super::layout::Op;
use super::layout::{Layout, Part, Role};
use super::symbolic::Choice;
use crate::eval;
use crate::exec::{EventKind, Execution};
use crate::ir::Model;
use crate::litmus::{
    Arch, CmpOp, Cond, Condition, Expr, Instr, Litmus, Placement, Prop, Quantifier, RmwOp, Target,
    Thread,
};
use crate::mapping::Mapping;
use crate::rel::Rel;
use crate::runner::{self, Candidate};
use crate::vocab::Tag;

/// Location names, in label order.
pub const LOCATIONS: [&str; 8] = ["x", "y", "z", "w", "u", "v", "s", "t"];

/// An event named by its place in the test: an initial write by location, or the `k`-th event
/// of a thread in program order (an RMW is two events).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Key {
    Init(String),
    Event(usize, usize),
}

pub type KeyRel = BTreeSet<(Key, Key)>;

/// A solution as two tests with the execution in keys.
#[derive(Clone, Debug)]
pub struct Found {
    pub source: Litmus,
    pub target: Litmus,
    /// Target `rf` / `co` in target keys; the same in source keys; the source's coherence.
    pub target_rf: KeyRel,
    pub target_co: KeyRel,
    pub source_rf: KeyRel,
    pub source_co: KeyRel,
    pub source_mo: KeyRel,
    /// Source key of each slot (`None` for target-only fences), target key of each slot.
    pub source_keys: Vec<Option<Key>>,
    pub target_keys: Vec<Option<Key>>,
}

/// What the runner says of a solution.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// A counterexample: the named axiom fails on the lifted execution, and so does some axiom
    /// for every other coherence order extending the lifted one.
    Confirmed { failed: Vec<String> },
    /// The source program is racy: a consistent execution (its events, rf and co in source
    /// keys) raises a flag.
    Racy {
        events: BTreeSet<Key>,
        rf: KeyRel,
        co: KeyRel,
    },
    /// Another coherence order extending the lifted one makes the source execution consistent.
    Explained,
    /// The source model gives the program no consistent execution at all: no meaning, so no
    /// counterexample (a model that does this to a program is suspect; see decision 002).
    Meaningless,
    /// The runner contradicts the encoder: a bug, reported loudly.
    Disagree(String),
}

/// The source test a solution describes: threads of loads, stores, RMWs and fences, each store
/// and RMW writing a value of its own, a guard `if (r == v) { … rest of the thread }` after a read where the
/// solution has one, and a final condition that pins the reads and final memory.
pub fn source_test(
    layout: &Layout,
    menu: &[Op],
    choice: &Choice,
    region: Option<Tag>,
    name: &str,
) -> Litmus {
    let mut threads: Vec<Thread> = layout
        .sizes
        .iter()
        .enumerate()
        .map(|(t, _)| Thread {
            name: format!("P{t}"),
            placement: Placement {
                cta: choice.place[t].0 as i64,
                gpu: choice.place[t].1 as i64,
            },
            code: vec![],
        })
        .collect();
    let value = write_values(layout, menu, choice);
    // Each guard opens an `if` that closes at the end of the thread (the C front end's
    // lowering of `if (r == v) { … }`, with its label names).
    let mut open: Vec<Vec<String>> = vec![vec![]; layout.threads()];
    for (e, &(t, pos)) in layout.events.iter().enumerate() {
        let o = &menu[choice.op[e]];
        let loc = LOCATIONS[choice.loc[e]].to_string();
        let tags = o.tags.clone();
        let reg = format!("r{pos}");
        let instr = match (o.part, o.kind) {
            (Part::RmwWrite, _) => continue,
            (Part::RmwRead, _) => Instr::Rmw {
                dst: Some(reg),
                loc,
                op: RmwOp::Exch(Expr::Const(value[e + 1])),
                tags,
                fail_tags: None,
            },
            (_, EventKind::Read) => Instr::Load {
                dst: reg,
                loc,
                tags,
            },
            (_, EventKind::Write) => Instr::Store {
                loc,
                value: Expr::Const(value[e]),
                tags,
            },
            _ => Instr::Fence {
                tags: tags.into_iter().chain(region).collect(),
            },
        };
        threads[t].code.push(instr);
        if let Some(w) = choice.guard[e] {
            let expected = layout.slots[w].event.map_or(0, |d| value[d]);
            let label = format!("%L{}", open[t].len());
            threads[t].code.push(Instr::BranchIf {
                cond: Cond {
                    op: CmpOp::Ne,
                    lhs: Expr::Reg(format!("r{pos}")),
                    rhs: Expr::Const(expected),
                },
                target: label.clone(),
            });
            open[t].push(label);
        }
    }
    for (th, labels) in threads.iter_mut().zip(open) {
        th.code.extend(labels.into_iter().rev().map(Instr::Label));
    }
    let used: BTreeSet<usize> = (0..layout.events.len())
        .filter(|&e| menu[choice.op[e]].kind != EventKind::Fence)
        .map(|e| choice.loc[e])
        .collect();
    Litmus {
        arch: if region.is_some() {
            Arch::OpenCl
        } else {
            Arch::C11
        },
        name: name.to_string(),
        init_mem: used
            .iter()
            .map(|&l| (LOCATIONS[l].to_string(), 0))
            .collect(),
        init_regs: vec![],
        loc_tags: match region {
            Some(r) => used
                .iter()
                .map(|&l| (LOCATIONS[l].to_string(), vec![r]))
                .collect(),
            None => vec![],
        },
        threads,
        condition: Condition {
            quantifier: Quantifier::Exists,
            prop: observation(layout, menu, choice, &value),
        },
    }
}

/// The value each write event stores: 1, 2, 3, … in event order (0 for other events).
fn write_values(layout: &Layout, menu: &[Op], choice: &Choice) -> Vec<i64> {
    let mut next = 0;
    (0..layout.events.len())
        .map(|e| match menu[choice.op[e]].kind {
            EventKind::Write => {
                next += 1;
                next
            }
            _ => 0,
        })
        .collect()
}

/// "Each read returned what its `rf` source wrote, and each location ends with the value of its
/// last write in the source coherence order."
fn observation(layout: &Layout, menu: &[Op], choice: &Choice, value: &[i64]) -> Prop {
    let slot_value = |s: usize| layout.slots[s].event.map_or(0, |e| value[e]);
    let mut atoms = vec![];
    for (e, &(t, pos)) in layout.events.iter().enumerate() {
        if menu[choice.op[e]].kind != EventKind::Read || !choice.alive[e] {
            continue;
        }
        let m = layout.main[e];
        if let Some(w) = (0..layout.n()).find(|&w| choice.rf.contains(w, m)) {
            atoms.push(Prop::Eq(
                Target::Reg {
                    thread: t,
                    reg: format!("r{pos}"),
                },
                slot_value(w),
            ));
        }
    }
    for l in 0..layout.locations {
        let writes: Vec<usize> = (0..layout.n())
            .filter(|&s| choice.mo.contains(l, s) || s == l)
            .collect();
        let last: Vec<usize> = writes
            .iter()
            .copied()
            .filter(|&a| writes.iter().all(|&b| !choice.mo.contains(a, b)))
            .collect();
        if let ([w], true) = (last.as_slice(), writes.len() > 1) {
            atoms.push(Prop::Eq(
                Target::Mem(LOCATIONS[l].to_string()),
                slot_value(*w),
            ));
        }
    }
    atoms
        .into_iter()
        .reduce(|a, b| Prop::And(Box::new(a), Box::new(b)))
        .unwrap_or(Prop::True)
}

/// The key of each slot on the source side and on the target side.
fn slot_keys(
    layout: &Layout,
    menu: &[Op],
    choice: &Choice,
) -> (Vec<Option<Key>>, Vec<Option<Key>>) {
    let mut source = vec![None; layout.n()];
    let mut target = vec![None; layout.n()];
    let mut next = vec![0; layout.threads()];
    for (s, slot) in layout.slots.iter().enumerate() {
        let (role, Some(e)) = (slot.role, slot.event) else {
            if let Role::Init(l) = slot.role {
                source[s] = Some(Key::Init(LOCATIONS[l].to_string()));
                target[s] = source[s].clone();
            }
            continue;
        };
        let (t, pos) = layout.events[e];
        let o = &menu[choice.op[e]];
        if !choice.alive[e] {
            continue;
        }
        let present = match role {
            Role::Main => {
                source[s] = Some(Key::Event(t, pos));
                o.main.is_some()
            }
            Role::Pre(i) => i + o.pre.len() >= layout.pre,
            Role::Post(i) => i < o.post.len(),
            Role::Init(_) => false,
        };
        if present {
            target[s] = Some(Key::Event(t, next[t]));
            next[t] += 1;
        }
    }
    (source, target)
}

fn key_rel(r: &Rel, keys: &[Option<Key>]) -> KeyRel {
    r.pairs()
        .filter_map(|(a, b)| Some((keys[a].clone()?, keys[b].clone()?)))
        .collect()
}

/// A solution as tests and key relations.
pub fn found(
    mapping: &Mapping,
    layout: &Layout,
    menu: &[Op],
    choice: &Choice,
    region: Option<Tag>,
    name: &str,
) -> Result<Found, String> {
    let source = source_test(layout, menu, choice, region, name);
    let compiled = mapping
        .compile_program(&source)
        .map_err(|e| format!("compiling the solution: {}", e.message))?;
    let (source_keys, target_keys) = slot_keys(layout, menu, choice);
    Ok(Found {
        target_rf: key_rel(&choice.rf, &target_keys),
        target_co: key_rel(&choice.co, &target_keys),
        source_rf: key_rel(&choice.rf, &source_keys),
        source_co: key_rel(&choice.co, &source_keys),
        source_mo: key_rel(&choice.mo, &source_keys),
        source,
        target: compiled.target,
        source_keys,
        target_keys,
    })
}

/// The keys of a runner execution's events.
pub fn execution_keys(x: &Execution) -> Vec<Key> {
    (0..x.n())
        .map(|i| match x.events[i].thread {
            None => Key::Init(
                x.locations[x.events[i].loc.expect("initial writes have a location")].clone(),
            ),
            Some(t) => {
                let k = (0..x.n()).filter(|&j| x.po.contains(j, i)).count();
                Key::Event(t, k)
            }
        })
        .collect()
}

fn keyed(r: &Rel, keys: &[Key]) -> KeyRel {
    r.pairs()
        .map(|(a, b)| (keys[a].clone(), keys[b].clone()))
        .collect()
}

/// The runner's verdict on a solution for source axiom `axiom`.
pub fn validate(mapping: &Mapping, f: &Found, axiom: &str) -> Verdict {
    let opts = runner::Options::default();
    let source = match SourceRun::of(&mapping.source, f, &opts) {
        Ok(s) => s,
        Err(e) => {
            return Verdict::Disagree(format!("the runner rejects the source test: {}", e.message))
        }
    };
    if let Some(racy) = source.racy {
        return racy;
    }
    if !source.any_consistent {
        return Verdict::Meaningless;
    }
    if let Some(problem) = target_problem(&mapping.target, f, &opts) {
        return Verdict::Disagree(problem);
    }
    match source.lifted_failed {
        None => Verdict::Disagree("the runner has no source execution with the lifted rf and co".into()),
        Some(fs) if !fs.iter().any(|n| n == axiom) => Verdict::Disagree(format!(
            "the solver says {axiom} fails on the lifted execution; the runner says it holds (failed: {fs:?})"
        )),
        Some(_) if source.explained => Verdict::Explained,
        Some(fs) => Verdict::Confirmed { failed: fs },
    }
}

/// What one pass of the runner over the source test's executions says.
struct SourceRun {
    any_consistent: bool,
    /// A consistent execution that raises a flag, as a `Racy` verdict.
    racy: Option<Verdict>,
    /// Some execution with the lifted `rf` and a coherence order extending the lifted `co` is
    /// consistent.
    explained: bool,
    /// The checks failing on the lifted execution itself (`None`: the runner has no such
    /// execution).
    lifted_failed: Option<Vec<String>>,
}

impl SourceRun {
    fn of(model: &Model, f: &Found, opts: &runner::Options) -> crate::diag::Result<SourceRun> {
        let mut run = SourceRun {
            any_consistent: false,
            racy: None,
            explained: false,
            lifted_failed: None,
        };
        runner::for_each_candidate(model, &f.source, opts, &mut |cand: &Candidate| {
            let keys = execution_keys(cand.execution);
            let consistent = cand.is_consistent();
            run.any_consistent |= consistent;
            let (rf, co) = (
                keyed(&cand.execution.rf, &keys),
                keyed(&cand.execution.co, &keys),
            );
            if run.racy.is_none() && consistent && !cand.judgement.flags.is_empty() {
                let events = keys.iter().cloned().collect();
                run.racy = Some(Verdict::Racy {
                    events,
                    rf: rf.clone(),
                    co: co.clone(),
                });
            }
            if rf != f.source_rf || !f.source_co.is_subset(&co) {
                return;
            }
            run.explained |= consistent;
            if co == f.source_mo {
                run.lifted_failed = Some(cand.judgement.failed.clone());
            }
        })?;
        Ok(run)
    }
}

/// Why the runner does not confirm the target execution as consistent, if it does not.
fn target_problem(model: &Model, f: &Found, opts: &runner::Options) -> Option<String> {
    let target_ok = matching(model, &f.target, &f.target_rf, &f.target_co, opts, |c| {
        c.is_consistent()
    });
    match target_ok {
        Err(e) => Some(format!("the runner rejects the target test: {}", e.message)),
        Ok(None) => Some(
            "the runner has no candidate execution of the target test with the solver's rf and co"
                .into(),
        ),
        Ok(Some(false)) => {
            Some("the target model rejects the execution the solver found consistent".into())
        }
        Ok(Some(true)) => None,
    }
}

/// `pick` of the runner's candidate execution of `test` with this `rf` and `co` (in keys).
fn matching<T>(
    model: &Model,
    test: &Litmus,
    rf: &KeyRel,
    co: &KeyRel,
    opts: &runner::Options,
    pick: impl Fn(&Candidate) -> T,
) -> crate::diag::Result<Option<T>> {
    let mut found = None;
    runner::for_each_candidate(model, test, opts, &mut |cand: &Candidate| {
        let keys = execution_keys(cand.execution);
        if found.is_none()
            && keyed(&cand.execution.rf, &keys) == *rf
            && keyed(&cand.execution.co, &keys) == *co
        {
            found = Some(pick(cand));
        }
    })?;
    Ok(found)
}

/// The compiled execution of a solution and the source execution it lifts to (with the
/// solution's coherence order), as the runner builds them; `None` if the runner has either not.
pub fn executions(
    mapping: &Mapping,
    f: &Found,
) -> crate::diag::Result<Option<(Execution, Execution)>> {
    let opts = runner::Options::default();
    let copy = |c: &Candidate| c.execution.clone();
    let target = matching(
        &mapping.target,
        &f.target,
        &f.target_rf,
        &f.target_co,
        &opts,
        copy,
    )?;
    let source = matching(
        &mapping.source,
        &f.source,
        &f.source_rf,
        &f.source_mo,
        &opts,
        copy,
    )?;
    Ok(target.zip(source))
}

/// One edge of a violated axiom's cycle, in source keys: `(from, to)` lies in `via` (see
/// `eval::Edge` for the labels).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleStep {
    pub from: Key,
    pub via: String,
    pub to: Key,
}

/// Why the source execution a solution lifts to (the runner's, from `executions`) breaks source
/// axiom `axiom`: for `acyclic` and `irreflexive` a cycle, its last step ending where the first
/// begins; for `empty` a path between the two events of one offending pair (`eval::explain`).
/// An error when the runner has no such execution, the source model no such axiom, or the axiom
/// holds on it.
pub fn cycle(mapping: &Mapping, f: &Found, axiom: &str) -> crate::diag::Result<Vec<CycleStep>> {
    let err = |msg: String| crate::diag::Error::file(&mapping.path, msg);
    let model = &mapping.source;
    let check = model
        .checks
        .iter()
        .position(|c| c.name == axiom)
        .ok_or_else(|| err(format!("the source model has no axiom {axiom}")))?;
    let (_, source) = executions(mapping, f)?
        .ok_or_else(|| err("the runner has no execution of the solution".into()))?;
    let edges = eval::explain(model, &source.base(), check).ok_or_else(|| {
        err(format!(
            "{axiom} holds on the runner's source execution of the solution"
        ))
    })?;
    let keys = execution_keys(&source);
    Ok(edges
        .into_iter()
        .map(|e| CycleStep {
            from: keys[e.from].clone(),
            via: e.via,
            to: keys[e.to].clone(),
        })
        .collect())
}
