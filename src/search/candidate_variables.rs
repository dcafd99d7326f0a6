//! A candidate counterexample as circuit nodes: the program (`ProgramVariables`, its symmetry
//! broken), both models' readings of it (`ModelReading`), and the target execution: `rf`, `co`
//! (and the source's `mo` when it must extend a partial `co`) and which events execute under
//! `rf`, with their well-formedness — the `loc` relation and typed locations, guards naming a
//! same-location write, each executing read reading one same-location write, `co` a strict order
//! of same-location writes with initial writes first. Also the sequential executions the race
//! check asks the source model about, and another source execution over fresh variables (a
//! program's meaning).
//!
//! Owns: `CandidateVariables`, `CandidateSettings`. Uses: `program_variables`, `symmetry`,
//! `model_reading`, `layout`, `encode`, `ir` (coherence kinds).
use super::layout::{Layout, Role};
use super::model_reading::ModelReading;
use super::operations::Op;
use super::program_variables::{exactly_one, matrix, ProgramVariables};
use super::symmetry::symmetry_breaking;
use crate::encode::{Circuit, Matrix, Node, Vector};
use crate::exec::EventKind;
use crate::ir::CoKind;
use crate::vocab::{Level, Tag};

/// Settings of the variables that come from the models and the counting.
pub(super) struct CandidateSettings {
    pub(super) target_co: CoKind,
    pub(super) source_co: CoKind,
    pub(super) region: Option<Tag>,
    /// The scope levels threads are placed at (`Mapping::searched_levels`).
    pub(super) levels: Vec<Level>,
    /// Alloy counting: at most this many scopes (threads + CTAs + GPUs + the system).
    pub(super) scope_budget: Option<usize>,
    /// No location takes both atomic and non-atomic accesses (`Mapping::typed_locations`).
    pub(super) typed_locations: bool,
}

/// The variables of one query and the nodes derived from them.
pub(super) struct CandidateVariables<'a> {
    pub(super) program: ProgramVariables<'a>,
    pub(super) source: ModelReading,
    pub(super) target: ModelReading,
    pub(super) rf: Matrix,
    pub(super) co: Matrix,
    /// The source model's coherence: `co` itself, or a total order containing it.
    pub(super) mo: Matrix,
    pub(super) loc_rel: Matrix,
    /// Which events of the found execution execute.
    pub(super) alive: Vec<Node>,
    /// Well-formedness of all the above, to assert.
    pub(super) structure: Vec<Node>,
    /// How many of `structure`'s constraints come first and are about the program alone.
    program_constraints: usize,
}

impl<'a> CandidateVariables<'a> {
    pub(super) fn new(
        c: &mut Circuit,
        layout: Layout,
        menu: &'a [Op],
        setup: &CandidateSettings,
    ) -> CandidateVariables<'a> {
        let (program, mut structure) =
            ProgramVariables::new(c, layout, menu, setup.region, setup.levels.clone());
        structure.extend(symmetry_breaking(c, &program, setup.scope_budget));
        let source = ModelReading::new(c, &program, true);
        let target = ModelReading::new(c, &program, false);
        let n = program.layout.n();
        let mut p = CandidateVariables {
            program,
            source,
            target,
            rf: Matrix::empty(n),
            co: Matrix::empty(n),
            mo: Matrix::empty(n),
            loc_rel: Matrix::empty(n),
            alive: vec![],
            structure,
            program_constraints: 0,
        };
        p.loc_rel = p.location_relation(c);
        if setup.typed_locations {
            p.typed_locations(c);
        }
        p.guards(c);
        p.program_constraints = p.structure.len();
        let mut structure = std::mem::take(&mut p.structure);
        let (rf, co, alive, writes) = p.execution(c, false, setup.target_co, &mut structure);
        p.mo = match (setup.source_co, setup.target_co) {
            (CoKind::Total, CoKind::Partial) => {
                p.coherence(c, CoKind::Total, Some(&co), &writes, &mut structure)
            }
            _ => co.clone(),
        };
        (p.rf, p.co, p.alive, p.structure) = (rf, co, alive, structure);
        p
    }

    /// A candidate execution of the program as the source (`source == true`) or the target
    /// model reads it, over fresh `rf` and `co` variables (`co` of coherence `kind`): `rf`,
    /// `co`, which events execute, and the executing writes; its well-formedness pushed on
    /// `structure`.
    fn execution(
        &self,
        c: &mut Circuit,
        source: bool,
        kind: CoKind,
        structure: &mut Vec<Node>,
    ) -> (Matrix, Matrix, Vec<Node>, Vector) {
        let side = if source { &self.source } else { &self.target };
        let rf = self.rf_inputs(c);
        let alive = self.alive_under(c, &rf);
        let reads = self.mask_with(c, &side.reads, &alive);
        let writes = self.mask_with(c, &side.writes, &alive);
        self.reads_from(c, &rf, &reads, &writes, structure);
        let co = self.coherence(c, kind, None, &writes, structure);
        (rf, co, alive, writes)
    }

    /// The well-formedness of the program alone (its symmetry breaking included), without the
    /// target execution's.
    pub(super) fn program_structure(&self) -> &[Node] {
        &self.structure[..self.program_constraints]
    }

    /// Some execution of the program the source model reads, with its well-formedness (to
    /// assert), over fresh variables: `rf`, and `co` of the source model's coherence.
    pub(super) fn another_source_execution(
        &self,
        c: &mut Circuit,
        kind: CoKind,
    ) -> (Matrix, Matrix, Vec<Node>) {
        let mut structure = vec![];
        let (rf, co, _, _) = self.execution(c, true, kind, &mut structure);
        (rf, co, structure)
    }

    /// The `loc` relation: memory events (of the source reading) at one location.
    fn location_relation(&self, c: &mut Circuit) -> Matrix {
        let n = self.program.layout.n();
        let memory: Vec<Node> = (0..n)
            .map(|s| {
                let (r, w) = (self.source.reads.0[s], self.source.writes.0[s]);
                c.or2(r, w)
            })
            .collect();
        let mut m = vec![Node::FALSE; n * n];
        for a in 0..n {
            for b in 0..n {
                let same = self.program.same_label(c, a, b);
                m[a * n + b] = c.and([memory[a], memory[b], same]);
            }
        }
        matrix(n, m)
    }

    /// Two accesses to one location are both non-atomic or both atomic.
    fn typed_locations(&mut self, c: &mut Circuit) {
        let events = self.program.layout.events.len();
        let na: Vec<Node> = (0..events)
            .map(|e| {
                let plain = self
                    .program
                    .is(e, |o| o.class.is_some_and(|c| c.order == Tag::Na));
                c.or(plain)
            })
            .collect();
        for a in 0..events {
            for b in a + 1..events {
                let same = self
                    .loc_rel
                    .get(self.program.layout.main[a], self.program.layout.main[b]);
                let agree = c.iff(na[a], na[b]);
                let ok = c.implies(same, agree);
                self.structure.push(ok);
            }
        }
    }

    /// A guard follows a read and names a write to its location; the last instruction of a
    /// thread has none (it would guard nothing).
    fn guards(&mut self, c: &mut Circuit) {
        for e in 0..self.program.layout.events.len() {
            let (t, pos) = self.program.layout.events[e];
            let last = pos + 1 == self.program.layout.sizes[t];
            let reads = self.program.is(e, |o| o.kind == EventKind::Read);
            let read = c.or(reads);
            let m = self.program.layout.main[e];
            for (k, &w) in self.program.guard_slots.iter().enumerate() {
                let g = self.program.guard[e][1 + k];
                if last || w == m {
                    self.structure.push(!g);
                    continue;
                }
                // An RMW that ends its thread guards nothing either.
                let ends = if pos + 2 == self.program.layout.sizes[t] {
                    self.program.rmw_read[e]
                } else {
                    Node::FALSE
                };
                let ok = c.and([read, !ends, self.source.writes.0[w], self.loc_rel.get(w, m)]);
                let ok = c.implies(g, ok);
                self.structure.push(ok);
            }
        }
    }

    /// Which events execute when the reads read as `rf` says: those no failed guard precedes.
    pub(super) fn alive_under(&self, c: &mut Circuit, rf: &Matrix) -> Vec<Node> {
        let events = self.program.layout.events.len();
        let go_on: Vec<Node> = (0..events)
            .map(|d| {
                let m = self.program.layout.main[d];
                let mut ok = vec![self.program.guard[d][0]];
                for (k, &w) in self.program.guard_slots.iter().enumerate() {
                    ok.push(c.and2(self.program.guard[d][1 + k], rf.get(w, m)));
                }
                c.or(ok)
            })
            .collect();
        (0..events)
            .map(|e| {
                let needs: Vec<Node> = (0..e)
                    .map(|d| {
                        let a = self.program.affects(d, e);
                        c.implies(a, go_on[d])
                    })
                    .collect();
                c.and(needs)
            })
            .collect()
    }

    /// The sequentially consistent execution that runs the events in `order` (an interleaving:
    /// every event once, each thread's in program order, an RMW's halves adjacent): each read
    /// reads the last earlier write to its location, coherence is execution order. It is exact
    /// (no free choice), so a model can be asked about it in both polarities.
    pub(super) fn sequential(&self, c: &mut Circuit, events: &[usize]) -> (Matrix, Matrix) {
        let (n, l) = (self.program.layout.n(), &self.program.layout);
        let side = &self.source;
        // Slots that may write, in execution order.
        let mut seq: Vec<usize> = (0..l.locations).collect();
        let mut alive = vec![Node::FALSE; l.events.len()];
        let mut go_on = vec![Node::FALSE; l.events.len()];
        let mut rf = vec![Node::FALSE; n * n];
        let writes = |c: &mut Circuit, s: usize, alive: &[Node]| match l.slots[s].event {
            Some(e) => c.and2(side.writes.0[s], alive[e]),
            None => Node::TRUE,
        };
        for &e in events {
            let needs: Vec<Node> = (0..e)
                .map(|d| {
                    let a = self.program.affects(d, e);
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
            let mut ok = vec![self.program.guard[e][0]];
            for (k, &w) in self.program.guard_slots.iter().enumerate() {
                ok.push(c.and2(self.program.guard[e][1 + k], rf[w * n + m]));
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

    /// A slot's vector restricted to the slots of events that `alive` says execute (initial
    /// writes always).
    pub(super) fn mask_with(&self, c: &mut Circuit, v: &Vector, alive: &[Node]) -> Vector {
        Vector(
            (0..self.program.layout.n())
                .map(|s| match self.program.layout.slots[s].event {
                    Some(e) => c.and2(v.0[s], alive[e]),
                    None => v.0[s],
                })
                .collect(),
        )
    }

    /// The `rf` variables: from any initial write or main slot to any other main slot.
    fn rf_inputs(&self, c: &mut Circuit) -> Matrix {
        let n = self.program.layout.n();
        let mut rf = vec![Node::FALSE; n * n];
        for &b in &self.program.layout.main {
            for &a in &self.program.guard_slots {
                if a != b {
                    rf[a * n + b] = c.input();
                }
            }
        }
        matrix(n, rf)
    }

    /// `rf` joins a write to a same-location read, both executing; each executing read reads
    /// from exactly one write.
    fn reads_from(
        &self,
        c: &mut Circuit,
        rf: &Matrix,
        reads: &Vector,
        writes: &Vector,
        structure: &mut Vec<Node>,
    ) {
        for &b in &self.program.layout.main {
            let mut sources = vec![];
            for &a in &self.program.guard_slots {
                if a == b {
                    continue;
                }
                let x = rf.get(a, b);
                let ok = c.and([writes.0[a], reads.0[b], self.loc_rel.get(a, b)]);
                let wf = c.implies(x, ok);
                structure.push(wf);
                sources.push(x);
            }
            let one = exactly_one(c, &sources);
            let ok = c.implies(reads.0[b], one);
            structure.push(ok);
        }
    }

    /// A coherence order over executing same-location writes, initial writes first: a strict
    /// partial order, total per location for `CoKind::Total`, containing `inner` when given.
    fn coherence(
        &self,
        c: &mut Circuit,
        kind: CoKind,
        inner: Option<&Matrix>,
        w: &Vector,
        structure: &mut Vec<Node>,
    ) -> Matrix {
        let n = self.program.layout.n();
        let mut cells = vec![Node::FALSE; n * n];
        let slots = self.program.guard_slots.clone();
        for &a in &slots {
            for &b in &self.program.layout.main {
                if a == b {
                    continue;
                }
                let same = c.and([w.0[a], w.0[b], self.loc_rel.get(a, b)]);
                let cell = match self.program.layout.slots[a].role {
                    Role::Init(_) => same,
                    _ => {
                        let x = c.input();
                        let wf = c.implies(x, same);
                        structure.push(wf);
                        x
                    }
                };
                cells[a * n + b] = cell;
            }
        }
        let co = matrix(n, cells);
        for &a in &self.program.layout.main {
            for &b in &self.program.layout.main {
                if a >= b {
                    continue;
                }
                let (ab, ba) = (co.get(a, b), co.get(b, a));
                let both = c.and2(ab, ba);
                structure.push(!both);
                if kind == CoKind::Total {
                    let same = c.and([w.0[a], w.0[b], self.loc_rel.get(a, b)]);
                    let either = c.or2(ab, ba);
                    let total = c.implies(same, either);
                    structure.push(total);
                }
            }
        }
        for &a in &slots {
            for &b in &self.program.layout.main {
                for &d in &self.program.layout.main {
                    if a != b && b != d && a != d {
                        let chain = c.and2(co.get(a, b), co.get(b, d));
                        let trans = c.implies(chain, co.get(a, d));
                        structure.push(trans);
                    }
                }
            }
        }
        if let Some(inner) = inner {
            for k in 0..n * n {
                let (a, b) = (k / n, k % n);
                let sub = c.implies(inner.get(a, b), co.get(a, b));
                structure.push(sub);
            }
        }
        co
    }

    /// The free inputs that fix a program and a target execution (to block one solution).
    pub(super) fn decision_nodes(&self) -> Vec<Node> {
        let mut v = self.program.program_nodes();
        v.extend(self.rf.cells().iter().chain(self.co.cells()).copied());
        v
    }
}
