//! The SAT variables of a source program over one `Layout`, and its well-formedness: which
//! operation each event is (one-hot over the operation menu), its location, its guard (the
//! thread goes on past a read only if it read a chosen write: `if (r != v) goto END`), the
//! threads' labels at each searched scope level (`Mapping::searched_levels`), RMW halves
//! paired on adjacent events of one location, and each barrier (its id is its location label)
//! passed at most once per thread. Also the
//! program's facts no model reads differently: same thread, same scope instance, which guard
//! decides which event, which slot is at which location.
//!
//! Owns: `ProgramVariables`, `exactly_one`, `matrix`. Uses: `encode` (circuit, matrices),
//! `layout`, `operations`, `exec` (event kinds, scope levels).
use super::layout::{Layout, Role};
use super::operations::{Op, Part};
use crate::encode::{Circuit, Matrix, Node};
use crate::exec::EventKind;
use crate::vocab::{Level, Tag};

/// The variables of a source program and the nodes derived from them alone.
pub(super) struct ProgramVariables<'a> {
    pub(super) layout: Layout,
    pub(super) menu: &'a [Op],
    /// `op[e][o]`: source event `e` is operation `o` of the menu.
    pub(super) op: Vec<Vec<Node>>,
    /// `loc[e][l]`: event `e` accesses location `l` (fences sit at location 0, unused; a
    /// barrier's label is its id).
    pub(super) loc: Vec<Vec<Node>>,
    /// `guard[e][0]`: no guard after event `e`; `guard[e][1 + k]`: the thread stops after the
    /// instruction of read `e` unless it read from the write at slot `guard_slots[k]`.
    pub(super) guard: Vec<Vec<Node>>,
    /// The slots that may hold a write or a read: initial writes and main slots.
    pub(super) guard_slots: Vec<usize>,
    /// The scope levels threads are placed at, innermost first (`Mapping::searched_levels`).
    pub(super) levels: Vec<Level>,
    /// `labels[i][t][k]`: thread `t` is in instance `k` of level `levels[i]` (canonical
    /// labels, k ≤ t; a label names the instance in the whole test, not within its parent).
    pub(super) labels: Vec<Vec<Vec<Node>>>,
    /// `same[i][t][u]`: threads `t` and `u` have one label at level `levels[i]`.
    pub(super) same: Vec<Vec<Vec<Node>>>,
    /// Event `e` is the read half of an RMW.
    pub(super) rmw_read: Vec<Node>,
    pub(super) rmw: Matrix,
    /// Tag of every memory event and initial write (OpenCL's `GLOBAL`), and of source fences.
    pub(super) region: Option<Tag>,
}

impl<'a> ProgramVariables<'a> {
    /// The variables, with their well-formedness (to assert).
    pub(super) fn new(
        c: &mut Circuit,
        layout: Layout,
        menu: &'a [Op],
        region: Option<Tag>,
        levels: Vec<Level>,
    ) -> (ProgramVariables<'a>, Vec<Node>) {
        let mut structure = vec![];
        let events = layout.events.len();
        let n = layout.n();
        let mut inputs = |k: usize| -> Vec<Vec<Node>> {
            (0..events)
                .map(|_| (0..k).map(|_| c.input()).collect())
                .collect()
        };
        let op = inputs(menu.len());
        let loc = inputs(layout.locations);
        let guard_slots: Vec<usize> = (0..n)
            .filter(|&s| matches!(layout.slots[s].role, Role::Init(_) | Role::Main))
            .collect();
        let guard = inputs(1 + guard_slots.len());
        let labels: Vec<Vec<Vec<Node>>> =
            levels.iter().map(|_| labels(c, layout.threads())).collect();
        for v in op
            .iter()
            .chain(&loc)
            .chain(&guard)
            .chain(labels.iter().flatten())
        {
            structure.push(exactly_one(c, v));
        }
        let same = labels.iter().map(|l| same_label(c, l)).collect();
        let mut p = ProgramVariables {
            layout,
            menu,
            levels,
            op,
            loc,
            guard,
            guard_slots,
            labels,
            same,
            rmw_read: vec![],
            rmw: Matrix::empty(n),
            region,
        };
        p.rmw_read = (0..events)
            .map(|e| {
                let r = p.is(e, |o| o.part == Part::RmwRead);
                c.or(r)
            })
            .collect();
        p.rmw = p.rmw_pairs(c, &mut structure);
        p.barrier_once(c, &mut structure);
        (p, structure)
    }

    /// A thread passes each barrier (id: the location label) at most once, so every arrival at
    /// a barrier falls in one generation (see `runner::enumerate::combinations`): the search's
    /// `syncbar` is then "same id, same CTA". Pushed on `structure`.
    fn barrier_once(&self, c: &mut Circuit, structure: &mut Vec<Node>) {
        if !self.menu.iter().any(|o| o.kind == EventKind::Barrier) {
            return;
        }
        let events = self.layout.events.len();
        let barrier: Vec<Node> = (0..events)
            .map(|e| {
                let b = self.is(e, |o| o.kind == EventKind::Barrier);
                c.or(b)
            })
            .collect();
        for e in 0..events {
            for f in e + 1..events {
                if self.layout.events[e].0 != self.layout.events[f].0 {
                    continue;
                }
                let same = self.same_label(c, self.layout.main[e], self.layout.main[f]);
                let twice = c.and([barrier[e], barrier[f], same]);
                structure.push(!twice);
            }
        }
    }

    /// The variables of event `e` being one of the operations `pred` selects.
    pub(super) fn is(&self, e: usize, pred: impl Fn(&Op) -> bool) -> Vec<Node> {
        self.menu
            .iter()
            .enumerate()
            .filter(|(_, o)| pred(o))
            .map(|(i, _)| self.op[e][i])
            .collect()
    }

    /// The read half of an RMW class at event `e` iff its write half is at `e + 1`, same thread,
    /// same location: the `rmw` relation, its constraints pushed on `structure`.
    fn rmw_pairs(&self, c: &mut Circuit, structure: &mut Vec<Node>) -> Matrix {
        let n = self.layout.n();
        let mut rmw = vec![Node::FALSE; n * n];
        for e in 0..self.layout.events.len() {
            let (t, pos) = self.layout.events[e];
            let next = (pos + 1 < self.layout.sizes[t]).then_some(e + 1);
            for (i, o) in self.menu.iter().enumerate() {
                if o.part != Part::RmwRead {
                    continue;
                }
                let w = self
                    .menu
                    .iter()
                    .position(|x| x.part == Part::RmwWrite && x.class == o.class)
                    .expect("menu lists both halves");
                match next {
                    Some(f) => {
                        let both = c.iff(self.op[e][i], self.op[f][w]);
                        structure.push(both);
                    }
                    None => structure.push(!self.op[e][i]),
                }
                if pos == 0 {
                    structure.push(!self.op[e][w]);
                }
            }
            if let Some(f) = next {
                let r = self.is(e, |o| o.part == Part::RmwRead);
                let pair = c.or(r);
                rmw[self.layout.main[e] * n + self.layout.main[f]] = pair;
                for l in 0..self.layout.locations {
                    let same = c.iff(self.loc[e][l], self.loc[f][l]);
                    let ok = c.implies(pair, same);
                    structure.push(ok);
                }
            }
        }
        matrix(n, rmw)
    }

    /// Is slot `s` at location label `l` (a memory event at that location, or a barrier with
    /// that id; the same on both sides)?
    pub(super) fn slot_loc(&self, s: usize, l: usize) -> Node {
        match (self.layout.slots[s].role, self.layout.slots[s].event) {
            (Role::Init(k), _) => Node::constant(k == l),
            (Role::Main, Some(e)) => self.loc[e][l],
            _ => Node::FALSE,
        }
    }

    /// Are slots `a` and `b` at one location label (two memory events at one location, or two
    /// barriers with one id)?
    pub(super) fn same_label(&self, c: &mut Circuit, a: usize, b: usize) -> Node {
        let same: Vec<Node> = (0..self.layout.locations)
            .map(|l| {
                let (x, y) = (self.slot_loc(a, l), self.slot_loc(b, l));
                c.and2(x, y)
            })
            .collect();
        c.or(same)
    }

    /// Does the guard after event `d` decide whether event `e` executes? (Every later event of
    /// the thread, except the write half of `d`'s own RMW.)
    pub(super) fn affects(&self, d: usize, e: usize) -> Node {
        let (td, pd) = self.layout.events[d];
        let (te, pe) = self.layout.events[e];
        match (td == te, pe.cmp(&(pd + 1))) {
            (false, _) | (true, std::cmp::Ordering::Less) => Node::FALSE,
            (true, std::cmp::Ordering::Equal) => !self.rmw_read[d],
            (true, std::cmp::Ordering::Greater) => Node::TRUE,
        }
    }

    /// Are slots `a` and `b` in the same thread (initial writes are in none)?
    pub(super) fn same_thread(&self, a: usize, b: usize) -> bool {
        let (ta, tb) = (self.layout.slots[a].thread, self.layout.slots[b].thread);
        ta.is_some() && ta == tb
    }

    /// Do slots `a` and `b` lie in the same instance of scope `level`?
    pub(super) fn same_instance(&self, level: Level, a: usize, b: usize) -> Node {
        let (ta, tb) = (self.layout.slots[a].thread, self.layout.slots[b].thread);
        // The innermost searched level at or outside `level` (one instance of an unsearched
        // level per instance of the next searched one outside it).
        let searched = self.levels.iter().position(|&l| l >= level);
        // Initial writes are in no thread, CTA or GPU.
        match (level, searched, ta, tb) {
            (Level::Thread, _, _, _) => Node::constant(self.same_thread(a, b)),
            (_, None, _, _) => Node::TRUE,
            (_, Some(i), Some(t), Some(u)) => self.same[i][t][u],
            _ => Node::FALSE,
        }
    }

    /// The free inputs that fix a program.
    pub(super) fn program_nodes(&self) -> Vec<Node> {
        let vars = self.op.iter().chain(&self.loc).chain(&self.guard);
        vars.chain(self.labels.iter().flatten())
            .flatten()
            .copied()
            .collect()
    }
}

/// Exactly one of `xs` (pairwise at-most-one).
pub(super) fn exactly_one(c: &mut Circuit, xs: &[Node]) -> Node {
    let mut parts = vec![c.or(xs.iter().copied())];
    for i in 0..xs.len() {
        for j in i + 1..xs.len() {
            let both = c.and2(xs[i], xs[j]);
            parts.push(!both);
        }
    }
    c.and(parts)
}

/// One-hot label variables per thread: thread `t` may take labels `0..=t`.
fn labels(c: &mut Circuit, threads: usize) -> Vec<Vec<Node>> {
    (0..threads)
        .map(|t| (0..=t).map(|_| c.input()).collect())
        .collect()
}

/// `same[t][u]`: threads `t` and `u` have the same label.
fn same_label(c: &mut Circuit, labels: &[Vec<Node>]) -> Vec<Vec<Node>> {
    let t = labels.len();
    (0..t)
        .map(|a| {
            (0..t)
                .map(|b| {
                    if a == b {
                        return Node::TRUE;
                    }
                    let k = labels[a].len().min(labels[b].len());
                    let same: Vec<Node> =
                        (0..k).map(|l| c.and2(labels[a][l], labels[b][l])).collect();
                    c.or(same)
                })
                .collect()
        })
        .collect()
}

/// The matrix of row-major cells.
pub(super) fn matrix(n: usize, cells: Vec<Node>) -> Matrix {
    Matrix::from_fn(n, |i, j| cells[i * n + j])
}
