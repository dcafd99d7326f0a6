//! The vocabulary over circuits: one execution of the candidate program, read by one model, as
//! the value of every built-in name (`ExecutionView::base`, a `vocab::Reading`), computed the way
//! `Execution`'s reading computes them on a concrete execution — including which events execute at all, which
//! depends on `rf`.
//!
//! Owns: `ExecutionView`. Uses: `candidate_variables`, `model_reading` (scope levels),
//! `program_variables`, `layout`, `encode`, `vocab`, `exec` (scope levels).
use std::collections::BTreeMap;

use super::candidate_variables::CandidateVariables;
use super::layout::Role;
use super::program_variables::matrix;
use crate::encode::{Circuit, Matrix, Node, Value, Vector};
use crate::vocab::{EventSet, Level, Name, Reading, Relation, Tag};

/// One execution of the program read by one model: the model's reading restricted to the
/// events that execute under `rf`, with `rf`, `co` and the control dependencies of the guards.
pub(super) struct ExecutionView<'p, 'a> {
    vars: &'p CandidateVariables<'a>,
    pub(super) present: Vector,
    pub(super) reads: Vector,
    pub(super) writes: Vector,
    fences: Vector,
    barriers: Vector,
    tags: BTreeMap<&'static str, Vector>,
    rf: Matrix,
    co: Matrix,
    /// Per event: it executes.
    pub(super) alive: Vec<Node>,
    source: bool,
}

impl<'p, 'a> ExecutionView<'p, 'a> {
    /// The execution of `vars`'s program with `rf` and `co`, read by the source
    /// (`source == true`) or the target model.
    pub(super) fn new(
        c: &mut Circuit,
        vars: &'p CandidateVariables<'a>,
        source: bool,
        rf: &Matrix,
        co: &Matrix,
    ) -> ExecutionView<'p, 'a> {
        let side = if source { &vars.source } else { &vars.target };
        let alive = vars.alive_under(c, rf);
        let mut mask = |v: &Vector| vars.mask_with(c, v, &alive);
        let (present, reads, writes, fences, barriers) = (
            mask(&side.present),
            mask(&side.reads),
            mask(&side.writes),
            mask(&side.fences),
            mask(&side.barriers),
        );
        let tags = side.tags.iter().map(|(t, v)| (*t, mask(v))).collect();
        ExecutionView {
            vars,
            present,
            reads,
            writes,
            fences,
            barriers,
            tags,
            rf: rf.clone(),
            co: co.clone(),
            alive,
            source,
        }
    }

    /// The value of vocabulary name `name` in this execution.
    pub(super) fn base(&self, c: &mut Circuit, name: Name) -> Value {
        ViewReading { view: self, c }.name(name)
    }

    /// The relation `f(c, a, b)` between executing events.
    fn pairs(&self, c: &mut Circuit, f: &dyn Fn(&mut Circuit, usize, usize) -> Node) -> Matrix {
        let n = self.vars.program.layout.n();
        let pres = &self.present;
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
    }

    /// The scope levels the model reads off each event's tags.
    fn levels(&self) -> &[[Node; Level::ALL.len()]] {
        let side = if self.source {
            &self.vars.source
        } else {
            &self.vars.target
        };
        &side.levels
    }

    /// `sr`: both events scoped at the same level, in the same instance of it.
    fn sr(&self, c: &mut Circuit, a: usize, b: usize) -> Node {
        let (p, levels) = (&self.vars.program, self.levels());
        let per: Vec<Node> = (0..Level::ALL.len())
            .map(|k| {
                let si = p.same_instance(Level::ALL[k], a, b);
                c.and([levels[a][k], levels[b][k], si])
            })
            .collect();
        c.or(per)
    }

    /// `incl`: each event's scope instance holds the other's thread.
    fn incl(&self, c: &mut Circuit, a: usize, b: usize) -> Node {
        let (p, levels) = (&self.vars.program, self.levels());
        let mut within = |e: usize| {
            let per: Vec<Node> = (0..Level::ALL.len())
                .map(|k| {
                    let si = p.same_instance(Level::ALL[k], a, b);
                    c.and2(levels[e][k], si)
                })
                .collect();
            c.or(per)
        };
        let (la, lb) = (within(a), within(b));
        c.and2(la, lb)
    }

    fn no_events(&self) -> Vector {
        Vector(vec![Node::FALSE; self.vars.program.layout.n()])
    }

    /// `rmw` between executing events.
    fn rmw(&self, c: &mut Circuit) -> Matrix {
        let p = &self.vars.program;
        let n = p.layout.n();
        let pres = &self.present.0;
        let cells = (0..n * n)
            .map(|k| c.and([p.rmw.get(k / n, k % n), pres[k / n], pres[k % n]]))
            .collect();
        matrix(n, cells)
    }

    /// `syncbar`: two barrier events of different threads with one id (the location label of
    /// their slots) in one CTA. A thread passes each barrier at most once
    /// (`ProgramVariables::barrier_once`), so all arrivals at one are one generation, as the
    /// runner pairs them.
    fn syncbar(&self, c: &mut Circuit, a: usize, b: usize) -> Node {
        let p = &self.vars.program;
        if p.same_thread(a, b) {
            return Node::FALSE;
        }
        let same_id = p.same_label(c, a, b);
        let cta = p.same_instance(Level::Cta, a, b);
        c.and([self.barriers.0[a], self.barriers.0[b], same_id, cta])
    }

    /// `ctrl`: from a guarded read to every event its guard decides (the runner's reading of
    /// `if (r != v) goto END`: every later event depends on the read).
    fn ctrl(&self, c: &mut Circuit, a: usize, b: usize) -> Node {
        let p = &self.vars.program;
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

/// An execution view with the circuit its values are built in.
struct ViewReading<'v, 'p, 'a, 'c> {
    view: &'v ExecutionView<'p, 'a>,
    c: &'c mut Circuit,
}

/// What each built-in name is in the circuit: as `Execution`'s reading, over the events that
/// execute.
impl Reading for ViewReading<'_, '_, '_, '_> {
    type Set = Vector;
    type Rel = Matrix;
    type Value = Value;

    fn event_set(&mut self, set: EventSet) -> Vector {
        let (x, c) = (self.view, &mut *self.c);
        let p = &x.vars.program;
        match set {
            EventSet::Wildcard | EventSet::E => x.present.clone(),
            EventSet::R => x.reads.clone(),
            EventSet::W => x.writes.clone(),
            EventSet::F => x.fences.clone(),
            EventSet::M => x.reads.union(c, &x.writes),
            // A barrier the search places is one event, its entry and its exit (`compare`
            // places none for a model that names `EF` or `XF`: `Model::splits_barriers`).
            EventSet::Bar | EventSet::EntryFence | EventSet::ExitFence => x.barriers.clone(),
            EventSet::Iw => Vector(
                (p.layout.slots.iter())
                    .map(|s| Node::constant(matches!(s.role, Role::Init(_))))
                    .collect(),
            ),
            EventSet::Rmw => {
                let rmw = x.rmw(c);
                let (d, r) = (rmw.domain(c), rmw.range(c));
                d.union(c, &r)
            }
        }
    }

    fn tag(&mut self, tag: Tag) -> Vector {
        let x = self.view;
        x.tags
            .get(tag.name())
            .cloned()
            .unwrap_or_else(|| x.no_events())
    }

    fn relation(&mut self, rel: Relation) -> Matrix {
        let (x, c) = (self.view, &mut *self.c);
        let p = &x.vars.program;
        let n = p.layout.n();
        match rel {
            Relation::Id => Matrix::id_on(&x.present),
            Relation::Po => x.pairs(c, &|_, a, b| Node::constant(p.same_thread(a, b) && a < b)),
            Relation::Rf => x.rf.clone(),
            Relation::Co => x.co.clone(),
            Relation::Fr => x.rf.inverse().seq(c, &x.co),
            // The searched programs declare no aliases: every address is its location's own.
            Relation::Loc | Relation::Vloc => x.pairs(c, &|_, a, b| x.vars.loc_rel.get(a, b)),
            Relation::Int => x.pairs(c, &|_, a, b| Node::constant(p.same_thread(a, b))),
            Relation::Ext => x.pairs(c, &|_, a, b| Node::constant(!p.same_thread(a, b))),
            Relation::Rmw => x.rmw(c),
            // Values are constants: no read feeds an address or a written value.
            Relation::Addr | Relation::Data => Matrix::empty(n),
            Relation::Ctrl => x.pairs(c, &|c, a, b| x.ctrl(c, a, b)),
            Relation::Syncbar => x.pairs(c, &|c, a, b| x.syncbar(c, a, b)),
            // The searched programs place one subgroup per CTA and declare no `ssw`.
            Relation::Ssw => Matrix::empty(n),
            Relation::Same(s) => x.pairs(c, &|_, a, b| p.same_instance(s.level(), a, b)),
            Relation::Sr => x.pairs(c, &|c, a, b| x.sr(c, a, b)),
            Relation::Incl => x.pairs(c, &|c, a, b| x.incl(c, a, b)),
        }
    }
}
