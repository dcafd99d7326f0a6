//! A source program and a target execution of its compilation as circuit nodes, over one
//! `Layout`: which operation each event is (one-hot over the menu), its location, its guard (the
//! thread goes on past a read only if it read a chosen write: `if (r != v) goto END`), the
//! threads' places in the scope tree, and `rf`, `co` (and the source's `mo` when it must extend a
//! partial `co`). From these, the value of every vocabulary name for the source model and for
//! the target model (`View::base`), computed the way `Execution::base` computes them on a
//! concrete execution — including which events execute at all, which depends on `rf`.
//!
//! Owns: `Program` (the variables and their well-formedness), `Side` (one model's reading of an
//! operation at each slot), `View` (one execution of the program, for one model), `Choice` (a
//! solution read back). Uses: `encode` (circuit, matrices), `layout`, `exec` (scope levels),
//! `vocab`.
use std::collections::BTreeMap;

use super::layout::{Layout, Op, Part, Role};
use crate::encode::{Circuit, Matrix, Node, Sat, Value, Vector};
use crate::exec::EventKind;
use crate::ir::CoKind;
use crate::rel::Rel;
use crate::vocab::{self, Kind, Level, Tag};

const LEVELS: [Level; 4] = [Level::Thread, Level::Cta, Level::Gpu, Level::System];

/// One model's reading of the operation at each slot, before asking whether it executes: is
/// there an event, its kind, its tags, its scope level.
pub struct Side {
    pub present: Vector,
    pub reads: Vector,
    pub writes: Vector,
    pub fences: Vector,
    tags: BTreeMap<&'static str, Vector>,
    /// Per slot and scope level (`LEVELS` order): the event's scope is at that level.
    levels: Vec<[Node; 4]>,
}

/// The variables of one query and the nodes derived from them.
pub struct Program<'a> {
    pub layout: Layout,
    pub menu: &'a [Op],
    /// `op[e][o]`: source event `e` is operation `o` of the menu.
    pub op: Vec<Vec<Node>>,
    /// `loc[e][l]`: event `e` accesses location `l` (fences sit at location 0, unused).
    pub loc: Vec<Vec<Node>>,
    /// `guard[e][0]`: no guard after event `e`; `guard[e][1 + k]`: the thread stops after the
    /// instruction of read `e` unless it read from the write at slot `guard_slots[k]`.
    pub guard: Vec<Vec<Node>>,
    /// The slots that may hold a write or a read: initial writes and main slots.
    pub guard_slots: Vec<usize>,
    /// `cta[t][k]`, `gpu[t][k]`: thread `t` is in CTA `k` / GPU `k` (canonical labels, k ≤ t).
    pub cta: Vec<Vec<Node>>,
    pub gpu: Vec<Vec<Node>>,
    same_cta: Vec<Vec<Node>>,
    same_gpu: Vec<Vec<Node>>,
    /// Event `e` is the read half of an RMW.
    rmw_read: Vec<Node>,
    pub rf: Matrix,
    pub co: Matrix,
    /// The source model's coherence: `co` itself, or a total order containing it.
    pub mo: Matrix,
    pub loc_rel: Matrix,
    pub rmw: Matrix,
    pub source: Side,
    pub target: Side,
    /// Which events of the found execution execute.
    pub alive: Vec<Node>,
    /// Tag of every memory event and initial write (OpenCL's `GLOBAL`), and of source fences.
    region: Option<Tag>,
    /// Well-formedness of all the above, to assert.
    pub structure: Vec<Node>,
}

/// A solution: the program and the target execution, over the layout's slots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// Menu index per event.
    pub op: Vec<usize>,
    /// Location per event (0 for fences).
    pub loc: Vec<usize>,
    /// Guard per event: the slot of the write the thread must have read to go on.
    pub guard: Vec<Option<usize>>,
    /// Does the event execute in the found execution?
    pub alive: Vec<bool>,
    /// (CTA, GPU) label per thread.
    pub place: Vec<(usize, usize)>,
    pub rf: Rel,
    pub co: Rel,
    pub mo: Rel,
}

/// Options of the encoding that come from the models and the counting.
pub struct Setup {
    pub target_co: CoKind,
    pub source_co: CoKind,
    pub region: Option<Tag>,
    /// Alloy counting: at most this many scopes (threads + CTAs + GPUs + the system).
    pub scope_budget: Option<usize>,
    /// No location takes both atomic and non-atomic accesses (`Mapping::typed_locations`).
    pub typed_locations: bool,
}

/// One execution of the program read by one model: the side's vectors restricted to the
/// events that execute under `rf`, with `rf`, `co` and the control dependencies of the guards.
pub struct View<'p, 'a> {
    p: &'p Program<'a>,
    pub present: Vector,
    pub reads: Vector,
    pub writes: Vector,
    pub fences: Vector,
    tags: BTreeMap<&'static str, Vector>,
    rf: Matrix,
    co: Matrix,
    /// Per event: it executes.
    pub alive: Vec<Node>,
    source: bool,
}

impl<'a> Program<'a> {
    pub fn new(c: &mut Circuit, layout: Layout, menu: &'a [Op], setup: &Setup) -> Program<'a> {
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
        let (cta, gpu) = (labels(c, layout.threads()), labels(c, layout.threads()));
        for v in op.iter().chain(&loc).chain(&guard).chain(&cta).chain(&gpu) {
            structure.push(exactly_one(c, v));
        }
        let same_cta = same_label(c, &cta);
        let same_gpu = same_label(c, &gpu);
        let mut p = Program {
            layout,
            menu,
            op,
            loc,
            guard,
            guard_slots,
            cta,
            gpu,
            same_cta,
            same_gpu,
            rmw_read: vec![],
            rf: Matrix::empty(n),
            co: Matrix::empty(n),
            mo: Matrix::empty(n),
            loc_rel: Matrix::empty(n),
            rmw: Matrix::empty(n),
            source: empty_side(n),
            target: empty_side(n),
            alive: vec![],
            region: setup.region,
            structure,
        };
        p.rmw_read = (0..events)
            .map(|e| {
                let r = p.is(e, |o| o.part == Part::RmwRead);
                c.or(r)
            })
            .collect();
        p.rmw_pairs(c);
        p.canonical_labels(c);
        p.sorted_threads(c);
        if let Some(budget) = setup.scope_budget {
            p.scope_count(c, budget);
        }
        p.source = p.side(c, true);
        p.target = p.side(c, false);
        p.loc_rel = p.location_relation(c);
        if setup.typed_locations {
            p.typed_locations(c);
        }
        p.guards(c);
        p.rf = p.rf_inputs(c);
        let rf = p.rf.clone();
        p.alive = p.alive_under(c, &rf);
        let (reads, writes) = (p.mask(c, &p.target.reads), p.mask(c, &p.target.writes));
        p.reads_from(c, &reads, &writes);
        p.co = p.coherence(c, setup.target_co, None, &writes);
        p.mo = match (setup.source_co, setup.target_co) {
            (CoKind::Total, CoKind::Partial) => {
                let co = p.co.clone();
                p.coherence(c, CoKind::Total, Some(&co), &writes)
            }
            _ => p.co.clone(),
        };
        p
    }

    /// The variables of event `e` being one of the operations `pred` selects.
    fn is(&self, e: usize, pred: impl Fn(&Op) -> bool) -> Vec<Node> {
        self.menu
            .iter()
            .enumerate()
            .filter(|(_, o)| pred(o))
            .map(|(i, _)| self.op[e][i])
            .collect()
    }

    /// The read half of an RMW class at event `e` iff its write half is at `e + 1`, same thread,
    /// same location.
    fn rmw_pairs(&mut self, c: &mut Circuit) {
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
                        self.structure.push(both);
                    }
                    None => self.structure.push(!self.op[e][i]),
                }
                if pos == 0 {
                    self.structure.push(!self.op[e][w]);
                }
            }
            if let Some(f) = next {
                let r = self.is(e, |o| o.part == Part::RmwRead);
                let pair = c.or(r);
                rmw[self.layout.main[e] * n + self.layout.main[f]] = pair;
                for l in 0..self.layout.locations {
                    let same = c.iff(self.loc[e][l], self.loc[f][l]);
                    let ok = c.implies(pair, same);
                    self.structure.push(ok);
                }
            }
        }
        self.rmw = matrix(n, rmw);
    }

    /// Locations, CTAs and GPUs are interchangeable: each label is used only after the one
    /// before it (locations in event order, CTAs and GPUs in thread order). Fences sit at
    /// location 0. Threads of one CTA are in one GPU.
    fn canonical_labels(&mut self, c: &mut Circuit) {
        for e in 0..self.loc.len() {
            let fence = self.is(e, |o| o.kind == EventKind::Fence);
            let fence = c.or(fence);
            let at0 = c.implies(fence, self.loc[e][0]);
            self.structure.push(at0);
            for l in 1..self.loc[e].len() {
                let before: Vec<Node> = (0..e).map(|d| self.loc[d][l - 1]).collect();
                let before = c.or(before);
                let ok = c.implies(self.loc[e][l], before);
                self.structure.push(ok);
            }
        }
        for labels in [&self.cta, &self.gpu] {
            for t in 0..labels.len() {
                for k in 1..labels[t].len() {
                    let before: Vec<Node> = (0..t)
                        .filter(|&u| labels[u].len() > k - 1)
                        .map(|u| labels[u][k - 1])
                        .collect();
                    let before = c.or(before);
                    let ok = c.implies(labels[t][k], before);
                    self.structure.push(ok);
                }
            }
        }
        for t in 0..self.cta.len() {
            for u in 0..t {
                let ok = c.implies(self.same_cta[t][u], self.same_gpu[t][u]);
                self.structure.push(ok);
            }
        }
    }

    /// Threads of one size are interchangeable: their first events' operations are in menu
    /// order.
    fn sorted_threads(&mut self, c: &mut Circuit) {
        let l = &self.layout;
        let first = |t: usize| l.events.iter().position(|&(u, k)| u == t && k == 0);
        for t in 1..l.threads() {
            if l.sizes[t] != l.sizes[t - 1] {
                continue;
            }
            let (Some(a), Some(b)) = (first(t - 1), first(t)) else {
                continue;
            };
            for i in 0..self.menu.len() {
                let later = c.or(self.op[b][i..].iter().copied());
                let ok = c.implies(self.op[a][i], later);
                self.structure.push(ok);
            }
        }
    }

    /// At most `budget` scopes, counted as the Alloy artifact's scope tree does: the threads
    /// plus one node per distinct set of threads among the CTAs, the GPUs and the system (a CTA
    /// alone in its GPU is the same node as the GPU). Placements are few: the allowed ones are
    /// listed and one of them asserted.
    fn scope_count(&mut self, c: &mut Circuit, budget: usize) {
        let mut allowed = vec![];
        for (cta, gpu) in placements(self.layout.threads()) {
            if self.layout.threads() + scope_nodes(&cta, &gpu) > budget {
                continue;
            }
            let fixed: Vec<Node> = (0..cta.len())
                .flat_map(|t| [self.cta[t][cta[t]], self.gpu[t][gpu[t]]])
                .collect();
            allowed.push(c.and(fixed));
        }
        let one = c.or(allowed);
        self.structure.push(one);
    }

    /// The source (`source == true`) or the target view of the slots.
    fn side(&self, c: &mut Circuit, source: bool) -> Side {
        let n = self.layout.n();
        let mut side = empty_side(n);
        let mut tag_cells: BTreeMap<&'static str, Vec<Vec<Node>>> = BTreeMap::new();
        let mut kinds: [Vec<Vec<Node>>; 3] = Default::default();
        for (s, slot) in self.layout.slots.iter().enumerate() {
            // (kind, tags) of the event at this slot under each operation, with that operation's
            // variable.
            let mut options: Vec<(Node, EventKind, Vec<Tag>)> = vec![];
            match (slot.role, slot.event) {
                (Role::Init(_), _) => options.push((
                    Node::TRUE,
                    EventKind::Write,
                    self.region.into_iter().collect(),
                )),
                (role, Some(e)) => {
                    for (i, o) in self.menu.iter().enumerate() {
                        if let Some((kind, tags)) = self.event_at(o, role, source) {
                            options.push((self.op[e][i], kind, tags));
                        }
                    }
                }
                (_, None) => unreachable!("thread slots belong to an event"),
            }
            let present: Vec<Node> = options.iter().map(|x| x.0).collect();
            side.present.0[s] = c.or(present);
            for k in kinds.iter_mut() {
                k.push(vec![]);
            }
            for (var, kind, tags) in &options {
                let k = match kind {
                    EventKind::Read => 0,
                    EventKind::Write => 1,
                    _ => 2,
                };
                kinds[k][s].push(*var);
                for t in tags {
                    tag_cells.entry(t.name()).or_insert_with(|| vec![vec![]; n])[s].push(*var);
                }
            }
        }
        let or_all = |c: &mut Circuit, cells: &[Vec<Node>]| {
            Vector(cells.iter().map(|v| c.or(v.iter().copied())).collect())
        };
        side.reads = or_all(c, &kinds[0]);
        side.writes = or_all(c, &kinds[1]);
        side.fences = or_all(c, &kinds[2]);
        for (t, cells) in tag_cells {
            side.tags.insert(t, or_all(c, &cells));
        }
        side.levels = (0..n)
            .map(|s| {
                LEVELS.map(|level| {
                    let at: Vec<Node> = side
                        .tags
                        .iter()
                        .filter(|(t, _)| Tag::from_name(t).and_then(Tag::level) == Some(level))
                        .map(|(_, v)| v.0[s])
                        .collect();
                    c.or(at)
                })
            })
            .collect();
        side
    }

    /// The kind and tags of the event that operation `o` puts at a slot of `role`, if any.
    fn event_at(&self, o: &Op, role: Role, source: bool) -> Option<(EventKind, Vec<Tag>)> {
        let with_region = |mut tags: Vec<Tag>| {
            tags.extend(self.region);
            tags
        };
        match (role, source) {
            (Role::Main, true) => Some((o.kind, with_region(o.tags.clone()))),
            (Role::Main, false) => o.main.clone().map(|(kind, tags)| match kind {
                EventKind::Fence => (kind, tags),
                _ => (kind, with_region(tags)),
            }),
            (Role::Pre(i), false) => {
                let pad = self.layout.pre - o.pre.len();
                (i >= pad).then(|| (EventKind::Fence, o.pre[i - pad].clone()))
            }
            (Role::Post(i), false) => o.post.get(i).map(|t| (EventKind::Fence, t.clone())),
            _ => None,
        }
    }

    /// Is slot `s` a memory event (the same on both sides), and at which location?
    fn slot_loc(&self, s: usize, l: usize) -> Node {
        match (self.layout.slots[s].role, self.layout.slots[s].event) {
            (Role::Init(k), _) => Node::constant(k == l),
            (Role::Main, Some(e)) => self.loc[e][l],
            _ => Node::FALSE,
        }
    }

    fn location_relation(&self, c: &mut Circuit) -> Matrix {
        let n = self.layout.n();
        let memory: Vec<Node> = (0..n)
            .map(|s| {
                let (r, w) = (self.source.reads.0[s], self.source.writes.0[s]);
                c.or2(r, w)
            })
            .collect();
        let mut m = vec![Node::FALSE; n * n];
        for a in 0..n {
            for b in 0..n {
                let same: Vec<Node> = (0..self.layout.locations)
                    .map(|l| {
                        let (x, y) = (self.slot_loc(a, l), self.slot_loc(b, l));
                        c.and2(x, y)
                    })
                    .collect();
                let same = c.or(same);
                m[a * n + b] = c.and([memory[a], memory[b], same]);
            }
        }
        matrix(n, m)
    }

    /// Two accesses to one location are both non-atomic or both atomic.
    fn typed_locations(&mut self, c: &mut Circuit) {
        let events = self.layout.events.len();
        let na: Vec<Node> = (0..events)
            .map(|e| {
                let plain = self.is(e, |o| o.class.order == Tag::Na);
                c.or(plain)
            })
            .collect();
        for a in 0..events {
            for b in a + 1..events {
                let same = self.loc_rel.get(self.layout.main[a], self.layout.main[b]);
                let agree = c.iff(na[a], na[b]);
                let ok = c.implies(same, agree);
                self.structure.push(ok);
            }
        }
    }

    /// A guard follows a read and names a write to its location; the last instruction of a
    /// thread has none (it would guard nothing).
    fn guards(&mut self, c: &mut Circuit) {
        for e in 0..self.layout.events.len() {
            let (t, pos) = self.layout.events[e];
            let last = pos + 1 == self.layout.sizes[t];
            let reads = self.is(e, |o| o.kind == EventKind::Read);
            let read = c.or(reads);
            let m = self.layout.main[e];
            for (k, &w) in self.guard_slots.iter().enumerate() {
                let g = self.guard[e][1 + k];
                if last || w == m {
                    self.structure.push(!g);
                    continue;
                }
                // An RMW that ends its thread guards nothing either.
                let ends = if pos + 2 == self.layout.sizes[t] {
                    self.rmw_read[e]
                } else {
                    Node::FALSE
                };
                let ok = c.and([read, !ends, self.source.writes.0[w], self.loc_rel.get(w, m)]);
                let ok = c.implies(g, ok);
                self.structure.push(ok);
            }
        }
    }

    /// Does the guard after event `d` decide whether event `e` executes? (Every later event of
    /// the thread, except the write half of `d`'s own RMW.)
    fn affects(&self, d: usize, e: usize) -> Node {
        let (td, pd) = self.layout.events[d];
        let (te, pe) = self.layout.events[e];
        match (td == te, pe.cmp(&(pd + 1))) {
            (false, _) | (true, std::cmp::Ordering::Less) => Node::FALSE,
            (true, std::cmp::Ordering::Equal) => !self.rmw_read[d],
            (true, std::cmp::Ordering::Greater) => Node::TRUE,
        }
    }

    /// Which events execute when the reads read as `rf` says: those no failed guard precedes.
    pub fn alive_under(&self, c: &mut Circuit, rf: &Matrix) -> Vec<Node> {
        let events = self.layout.events.len();
        let go_on: Vec<Node> = (0..events)
            .map(|d| {
                let m = self.layout.main[d];
                let mut ok = vec![self.guard[d][0]];
                for (k, &w) in self.guard_slots.iter().enumerate() {
                    ok.push(c.and2(self.guard[d][1 + k], rf.get(w, m)));
                }
                c.or(ok)
            })
            .collect();
        (0..events)
            .map(|e| {
                let needs: Vec<Node> = (0..e)
                    .map(|d| {
                        let a = self.affects(d, e);
                        c.implies(a, go_on[d])
                    })
                    .collect();
                c.and(needs)
            })
            .collect()
    }

    /// The sequential execution that runs whole threads one after another in `order`: each
    /// read reads the last earlier write to its location, coherence is execution order. It is
    /// exact (no free choice), so a model can be asked about it in both polarities.
    pub fn sequential(&self, c: &mut Circuit, order: &[usize]) -> (Matrix, Matrix) {
        let (n, l) = (self.layout.n(), &self.layout);
        let side = &self.source;
        let events: Vec<usize> = order
            .iter()
            .flat_map(|&t| (0..l.events.len()).filter(move |&e| l.events[e].0 == t))
            .collect();
        // Slots that may write, in execution order.
        let mut seq: Vec<usize> = (0..l.locations).collect();
        let mut alive = vec![Node::FALSE; l.events.len()];
        let mut go_on = vec![Node::FALSE; l.events.len()];
        let mut rf = vec![Node::FALSE; n * n];
        let writes = |c: &mut Circuit, s: usize, alive: &[Node]| match l.slots[s].event {
            Some(e) => c.and2(side.writes.0[s], alive[e]),
            None => Node::TRUE,
        };
        for &e in &events {
            let needs: Vec<Node> = (0..e)
                .map(|d| {
                    let a = self.affects(d, e);
                    c.implies(a, go_on[d])
                })
                .collect();
            alive[e] = c.and(needs);
            let m = l.main[e];
            let reads = c.and2(side.reads.0[m], alive[e]);
            for (k, &w) in seq.iter().enumerate() {
                let mut last = vec![reads, self.loc_rel.get(w, m)];
                last.push(writes(c, w, &alive));
                for &v in &seq[k + 1..] {
                    let wv = writes(c, v, &alive);
                    let shadows = c.and2(wv, self.loc_rel.get(v, m));
                    last.push(!shadows);
                }
                rf[w * n + m] = c.and(last);
            }
            let mut ok = vec![self.guard[e][0]];
            for (k, &w) in self.guard_slots.iter().enumerate() {
                ok.push(c.and2(self.guard[e][1 + k], rf[w * n + m]));
            }
            go_on[e] = c.or(ok);
            seq.push(m);
        }
        let mut co = vec![Node::FALSE; n * n];
        for (i, &a) in seq.iter().enumerate() {
            for &b in &seq[i + 1..] {
                let (wa, wb) = (writes(c, a, &alive), writes(c, b, &alive));
                co[a * n + b] = c.and([wa, wb, self.loc_rel.get(a, b)]);
            }
        }
        (matrix(n, rf), matrix(n, co))
    }

    /// A slot's vector restricted to the slots of executing events (initial writes always).
    fn mask(&self, c: &mut Circuit, v: &Vector) -> Vector {
        self.mask_with(c, v, &self.alive)
    }

    fn mask_with(&self, c: &mut Circuit, v: &Vector, alive: &[Node]) -> Vector {
        Vector(
            (0..self.layout.n())
                .map(|s| match self.layout.slots[s].event {
                    Some(e) => c.and2(v.0[s], alive[e]),
                    None => v.0[s],
                })
                .collect(),
        )
    }

    /// The `rf` variables: from any initial write or main slot to any other main slot.
    fn rf_inputs(&self, c: &mut Circuit) -> Matrix {
        let n = self.layout.n();
        let mut rf = vec![Node::FALSE; n * n];
        for &b in &self.layout.main {
            for &a in &self.guard_slots {
                if a != b {
                    rf[a * n + b] = c.input();
                }
            }
        }
        matrix(n, rf)
    }

    /// `rf` joins a write to a same-location read, both executing; each executing read reads
    /// from exactly one write.
    fn reads_from(&mut self, c: &mut Circuit, reads: &Vector, writes: &Vector) {
        for &b in &self.layout.main {
            let mut sources = vec![];
            for &a in &self.guard_slots {
                if a == b {
                    continue;
                }
                let x = self.rf.get(a, b);
                let ok = c.and([writes.0[a], reads.0[b], self.loc_rel.get(a, b)]);
                let wf = c.implies(x, ok);
                self.structure.push(wf);
                sources.push(x);
            }
            let one = exactly_one(c, &sources);
            let ok = c.implies(reads.0[b], one);
            self.structure.push(ok);
        }
    }

    /// A coherence order over executing same-location writes, initial writes first: a strict
    /// partial order, total per location for `CoKind::Total`, containing `inner` when given.
    fn coherence(
        &mut self,
        c: &mut Circuit,
        kind: CoKind,
        inner: Option<&Matrix>,
        w: &Vector,
    ) -> Matrix {
        let n = self.layout.n();
        let mut cells = vec![Node::FALSE; n * n];
        let slots = self.guard_slots.clone();
        for &a in &slots {
            for &b in &self.layout.main {
                if a == b {
                    continue;
                }
                let same = c.and([w.0[a], w.0[b], self.loc_rel.get(a, b)]);
                let cell = match self.layout.slots[a].role {
                    Role::Init(_) => same,
                    _ => {
                        let x = c.input();
                        let wf = c.implies(x, same);
                        self.structure.push(wf);
                        x
                    }
                };
                cells[a * n + b] = cell;
            }
        }
        let co = matrix(n, cells);
        for &a in &self.layout.main {
            for &b in &self.layout.main {
                if a >= b {
                    continue;
                }
                let (ab, ba) = (co.get(a, b), co.get(b, a));
                let both = c.and2(ab, ba);
                self.structure.push(!both);
                if kind == CoKind::Total {
                    let same = c.and([w.0[a], w.0[b], self.loc_rel.get(a, b)]);
                    let either = c.or2(ab, ba);
                    let total = c.implies(same, either);
                    self.structure.push(total);
                }
            }
        }
        for &a in &slots {
            for &b in &self.layout.main {
                for &d in &self.layout.main {
                    if a != b && b != d && a != d {
                        let chain = c.and2(co.get(a, b), co.get(b, d));
                        let trans = c.implies(chain, co.get(a, d));
                        self.structure.push(trans);
                    }
                }
            }
        }
        if let Some(inner) = inner {
            for k in 0..n * n {
                let (a, b) = (k / n, k % n);
                let sub = c.implies(inner.get(a, b), co.get(a, b));
                self.structure.push(sub);
            }
        }
        co
    }

    /// Are slots `a` and `b` in the same thread (initial writes are in none)?
    fn same_thread(&self, a: usize, b: usize) -> bool {
        let (ta, tb) = (self.layout.slots[a].thread, self.layout.slots[b].thread);
        ta.is_some() && ta == tb
    }

    /// Do slots `a` and `b` lie in the same instance of scope `level`?
    fn same_instance(&self, level: Level, a: usize, b: usize) -> Node {
        let (ta, tb) = (self.layout.slots[a].thread, self.layout.slots[b].thread);
        match (level, ta, tb) {
            (Level::System, _, _) => Node::TRUE,
            (Level::Thread, _, _) => Node::constant(self.same_thread(a, b)),
            (Level::Cta, Some(t), Some(u)) => self.same_cta[t][u],
            (Level::Gpu, Some(t), Some(u)) => self.same_gpu[t][u],
            _ => Node::FALSE,
        }
    }

    /// The execution with `rf` and `co`, read by the source (`source == true`) or the target
    /// model.
    pub fn view<'p>(
        &'p self,
        c: &mut Circuit,
        source: bool,
        rf: &Matrix,
        co: &Matrix,
    ) -> View<'p, 'a> {
        let side = if source { &self.source } else { &self.target };
        let alive = self.alive_under(c, rf);
        let mut mask = |v: &Vector| self.mask_with(c, v, &alive);
        let (present, reads, writes, fences) = (
            mask(&side.present),
            mask(&side.reads),
            mask(&side.writes),
            mask(&side.fences),
        );
        let tags = side.tags.iter().map(|(t, v)| (*t, mask(v))).collect();
        View {
            p: self,
            present,
            reads,
            writes,
            fences,
            tags,
            rf: rf.clone(),
            co: co.clone(),
            alive,
            source,
        }
    }

    /// Read a solution back.
    pub fn read(&self, sat: &Sat) -> Choice {
        let pick = |v: &[Node]| sat.read(v).iter().position(|b| *b).unwrap_or(0);
        Choice {
            op: self.op.iter().map(|v| pick(v)).collect(),
            loc: self.loc.iter().map(|v| pick(v)).collect(),
            guard: self
                .guard
                .iter()
                .map(|v| pick(v).checked_sub(1).map(|k| self.guard_slots[k]))
                .collect(),
            alive: sat.read(&self.alive),
            place: (0..self.cta.len())
                .map(|t| (pick(&self.cta[t]), pick(&self.gpu[t])))
                .collect(),
            rf: sat.read_rel(&self.rf),
            co: sat.read_rel(&self.co),
            mo: sat.read_rel(&self.mo),
        }
    }

    /// The free inputs that fix a program.
    pub fn program_nodes(&self) -> Vec<Node> {
        let vars = self.op.iter().chain(&self.loc).chain(&self.guard);
        vars.chain(&self.cta)
            .chain(&self.gpu)
            .flatten()
            .copied()
            .collect()
    }

    /// The free inputs that fix a program and a target execution (to block one solution).
    pub fn decision_nodes(&self) -> Vec<Node> {
        let mut v = self.program_nodes();
        v.extend(self.rf.cells().iter().chain(self.co.cells()).copied());
        v
    }
}

impl View<'_, '_> {
    /// The value of vocabulary name `name` in this execution.
    pub fn base(&self, c: &mut Circuit, name: &str) -> Value {
        let p = self.p;
        let side = if self.source { &p.source } else { &p.target };
        let n = p.layout.n();
        let pres = &self.present;
        let pair = |c: &mut Circuit, f: &dyn Fn(&mut Circuit, usize, usize) -> Node| {
            let mut m = vec![Node::FALSE; n * n];
            for a in 0..n {
                for b in 0..n {
                    let both = c.and2(pres.0[a], pres.0[b]);
                    if both == Node::FALSE {
                        continue;
                    }
                    let v = f(c, a, b);
                    m[a * n + b] = c.and2(both, v);
                }
            }
            matrix(n, m)
        };
        if vocab::kind_of(name) == Some(Kind::Set) {
            let v = match name {
                "_" => pres.clone(),
                "R" => self.reads.clone(),
                "W" => self.writes.clone(),
                "F" => self.fences.clone(),
                "M" => self.reads.union(c, &self.writes),
                "IW" => Vector(
                    (0..n)
                        .map(|s| Node::constant(matches!(p.layout.slots[s].role, Role::Init(_))))
                        .collect(),
                ),
                "RMW" => {
                    let rmw = self.rmw(c);
                    let (d, r) = (rmw.domain(c), rmw.range(c));
                    d.union(c, &r)
                }
                tag => self
                    .tags
                    .get(tag)
                    .cloned()
                    .unwrap_or_else(|| Vector(vec![Node::FALSE; n])),
            };
            return Value::Set(v);
        }
        let levels = &side.levels;
        let m = match name {
            "id" => Matrix::id_on(pres),
            "po" => pair(c, &|_, a, b| Node::constant(p.same_thread(a, b) && a < b)),
            "rf" => self.rf.clone(),
            "co" => self.co.clone(),
            "fr" => self.rf.inverse().seq(c, &self.co),
            "loc" => pair(c, &|_, a, b| p.loc_rel.get(a, b)),
            "rmw" => self.rmw(c),
            "ctrl" => pair(c, &|c, a, b| self.ctrl(c, a, b)),
            "int" => pair(c, &|_, a, b| Node::constant(p.same_thread(a, b))),
            "ext" => pair(c, &|_, a, b| Node::constant(!p.same_thread(a, b))),
            "scta" | "swg" => pair(c, &|_, a, b| p.same_instance(Level::Cta, a, b)),
            "sgpu" | "sdv" => pair(c, &|_, a, b| p.same_instance(Level::Gpu, a, b)),
            "sr" => pair(c, &|c, a, b| {
                let per: Vec<Node> = (0..4)
                    .map(|k| {
                        let si = p.same_instance(LEVELS[k], a, b);
                        c.and([levels[a][k], levels[b][k], si])
                    })
                    .collect();
                c.or(per)
            }),
            "incl" => pair(c, &|c, a, b| {
                let la: Vec<Node> = (0..4)
                    .map(|k| {
                        let si = p.same_instance(LEVELS[k], a, b);
                        c.and2(levels[a][k], si)
                    })
                    .collect();
                let lb: Vec<Node> = (0..4)
                    .map(|k| {
                        let si = p.same_instance(LEVELS[k], a, b);
                        c.and2(levels[b][k], si)
                    })
                    .collect();
                let (la, lb) = (c.or(la), c.or(lb));
                c.and2(la, lb)
            }),
            _ => Matrix::empty(n), // addr, data, syncbar: values are constants, no barriers
        };
        Value::Rel(m)
    }

    /// `rmw` between executing events.
    fn rmw(&self, c: &mut Circuit) -> Matrix {
        let p = self.p;
        let n = p.layout.n();
        let pres = &self.present.0;
        let cells = (0..n * n)
            .map(|k| c.and([p.rmw.get(k / n, k % n), pres[k / n], pres[k % n]]))
            .collect();
        matrix(n, cells)
    }

    /// `ctrl`: from a guarded read to every event its guard decides (the runner's reading of
    /// `if (r != v) goto END`: every later event depends on the read).
    fn ctrl(&self, c: &mut Circuit, a: usize, b: usize) -> Node {
        let p = self.p;
        let (sa, sb) = (p.layout.slots[a], p.layout.slots[b]);
        match (sa.role, sa.event, sb.event) {
            (Role::Main, Some(d), Some(e)) => {
                let guarded = !p.guard[d][0];
                let decides = p.affects(d, e);
                c.and2(guarded, decides)
            }
            _ => Node::FALSE,
        }
    }
}

fn empty_side(n: usize) -> Side {
    Side {
        present: Vector(vec![Node::FALSE; n]),
        reads: Vector(vec![Node::FALSE; n]),
        writes: Vector(vec![Node::FALSE; n]),
        fences: Vector(vec![Node::FALSE; n]),
        tags: BTreeMap::new(),
        levels: vec![[Node::FALSE; 4]; n],
    }
}

/// Exactly one of `xs` (pairwise at-most-one).
fn exactly_one(c: &mut Circuit, xs: &[Node]) -> Node {
    let mut parts = vec![c.or(xs.iter().copied())];
    for i in 0..xs.len() {
        for j in i + 1..xs.len() {
            let both = c.and2(xs[i], xs[j]);
            parts.push(!both);
        }
    }
    c.and(parts)
}

/// Every canonical placement of `threads` threads: (CTA label, GPU label) per thread, labels
/// numbered in order of first use, threads of one CTA in one GPU.
pub fn placements(threads: usize) -> Vec<(Vec<usize>, Vec<usize>)> {
    let mut out = vec![(vec![], vec![])];
    for _ in 0..threads {
        let mut next = vec![];
        for (cta, gpu) in out {
            let fresh_cta = cta.iter().max().map_or(0, |m| m + 1);
            let fresh_gpu = gpu.iter().max().map_or(0, |m| m + 1);
            for k in 0..=fresh_cta {
                let gpus: Vec<usize> = match cta.iter().position(|&x| x == k) {
                    Some(u) => vec![gpu[u]],
                    None => (0..=fresh_gpu).collect(),
                };
                for g in gpus {
                    let (mut c2, mut g2) = (cta.clone(), gpu.clone());
                    c2.push(k);
                    g2.push(g);
                    next.push((c2, g2));
                }
            }
        }
        out = next;
    }
    out
}

/// The non-thread nodes of the scope tree a placement needs: distinct thread sets among the
/// CTAs, the GPUs and the whole system.
pub fn scope_nodes(cta: &[usize], gpu: &[usize]) -> usize {
    let group = |labels: &[usize], k: usize| -> Vec<usize> {
        (0..labels.len()).filter(|&t| labels[t] == k).collect()
    };
    let mut sets: Vec<Vec<usize>> = vec![(0..cta.len()).collect()];
    for labels in [cta, gpu] {
        for k in 0..=labels.iter().copied().max().unwrap_or(0) {
            let g = group(labels, k);
            if !g.is_empty() && !sets.contains(&g) {
                sets.push(g);
            }
        }
    }
    sets.len()
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
fn matrix(n: usize, cells: Vec<Node>) -> Matrix {
    Matrix::from_fn(n, |i, j| cells[i * n + j])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placements_are_nested_partitions() {
        // Two threads: same CTA; two CTAs of one GPU; two GPUs.
        assert_eq!(placements(2).len(), 3);
        // Scope trees of 2 threads: {01} → 1 node; CTAs {0},{1} in GPU {01} → 3; GPUs → 3.
        let nodes: Vec<usize> = placements(2)
            .iter()
            .map(|(c, g)| scope_nodes(c, g))
            .collect();
        assert_eq!(nodes, vec![1, 3, 3]);
        assert_eq!(scope_nodes(&[0, 0, 1], &[0, 0, 0]), 3);
    }
}
