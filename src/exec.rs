//! Concrete candidate executions and the base relations a model reads from them.
//!
//! Owns: `Event`, `Execution` (events, `po`, `rf`, `co`, `rmw`, dependencies, barrier instances,
//! thread placement), its `vocab::Reading` (what each built-in name is on it) and
//! `Execution::base`, which computes every name of `vocab` for the evaluator.
//! Uses: `rel`, `vocab`, `litmus::Placement`, `eval::Base`. Knows nothing of models or of SAT.
use crate::eval::{Base, Value};
use crate::litmus::Placement;
use crate::rel::{Rel, Set};
use crate::vocab::{EventSet, Level, Name, Reading, Relation, Tag};

#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize)]
pub(crate) enum EventKind {
    Read,
    Write,
    Fence,
    Barrier,
}

/// Which part of its barrier a barrier event is. mapcheck gives a barrier one event; a model
/// that names `EF` or `XF` (Dartagnan's OpenCL barrier) gets two, its entry fence and, right
/// after it in `po`, its exit fence (docs/decisions/008).
#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize)]
pub(crate) enum BarrierPart {
    /// The whole barrier: its entry and its exit.
    Whole,
    /// The entry fence: the thread arrives.
    Entry,
    /// The exit fence: the thread leaves, after every thread of its generation arrived.
    Exit,
}

impl BarrierPart {
    /// Is the event where its thread arrives at the barrier (and may block)?
    pub(crate) fn arrives(self) -> bool {
        self != BarrierPart::Exit
    }
}

/// One event of a candidate execution.
#[derive(Clone, PartialEq, Eq, Debug, serde::Serialize)]
pub(crate) struct Event {
    /// Thread index, `None` for initial writes.
    pub(crate) thread: Option<usize>,
    pub(crate) kind: EventKind,
    /// Location index into `Execution::locations` (memory events only): the physical location.
    pub(crate) loc: Option<usize>,
    /// Virtual address index (memory events only; indices are the runner's, compared only with
    /// each other): the address the access names. Differs from `loc` only through a PTX 7.5
    /// generic alias (`y @ generic aliases x`: `y` is another address of `x`'s location).
    pub(crate) vloc: Option<usize>,
    /// Value read or written (0 for fences and barriers).
    pub(crate) value: i64,
    /// Vocabulary tags.
    pub(crate) tags: Vec<Tag>,
    /// Barrier instance (`id`) of a barrier event, and which part of the barrier it is.
    pub(crate) barrier: Option<(i64, BarrierPart)>,
}

/// A candidate execution: events with `po`, `rf`, `co` and the structural relations.
#[derive(Clone, Debug)]
pub struct Execution {
    pub(crate) events: Vec<Event>,
    pub(crate) locations: Vec<String>,
    /// Placement of each thread in the scope tree.
    pub(crate) placements: Vec<Placement>,
    /// Program order: strict, per thread, (earlier, later) pairs; initial writes are in none.
    pub po: Rel,
    /// Reads-from: (write, read) pairs of the same location, the read taking the write's value.
    pub rf: Rel,
    /// Coherence: a transitive order on each location's writes (total or partial, per the model).
    pub co: Rel,
    pub(crate) rmw: Rel,
    pub(crate) addr: Rel,
    pub(crate) data: Rel,
    pub(crate) ctrl: Rel,
    /// Barrier events that synchronise with each other (same barrier generation).
    pub(crate) syncbar: Rel,
    /// Vulkan system-synchronizes-with: every event of a thread to every event of a thread the
    /// test declares it synchronises with.
    pub(crate) ssw: Rel,
}

impl Execution {
    /// Number of events, initial writes included; events are `0..n`.
    pub fn n(&self) -> usize {
        self.events.len()
    }

    /// The barrier events that are `part` of their barrier, or the whole of it.
    fn barrier_parts(&self, part: BarrierPart) -> Set {
        self.set_where(|e| {
            e.barrier
                .is_some_and(|(_, p)| p == part || p == BarrierPart::Whole)
        })
    }

    /// The events carrying a predicate.
    fn set_where(&self, p: impl Fn(&Event) -> bool) -> Set {
        Set::from_iter(
            self.events
                .iter()
                .enumerate()
                .filter(|(_, e)| p(e))
                .map(|(i, _)| i),
        )
    }

    /// The pairs of events related by a predicate.
    fn rel_where(&self, p: impl Fn(&Event, &Event) -> bool) -> Rel {
        let n = self.n();
        let mut r = Rel::empty(n);
        for (a, ea) in self.events.iter().enumerate() {
            for (b, eb) in self.events.iter().enumerate() {
                if p(ea, eb) {
                    r.insert(a, b);
                }
            }
        }
        r
    }

    fn placement(&self, e: &Event) -> Option<Placement> {
        e.thread.map(|t| self.placements[t])
    }

    /// Do `a` and `b` lie in the same instance of scope `level`?
    fn same_instance(&self, level: Level, a: &Event, b: &Event) -> bool {
        // Initial writes are in no thread, CTA or GPU.
        match (level, self.placement(a), self.placement(b)) {
            (Level::System, _, _) => true,
            (Level::Thread, _, _) => a.thread.is_some() && a.thread == b.thread,
            (_, Some(pa), Some(pb)) => pa.same_instance(pb, level),
            _ => false,
        }
    }

    fn level_of(e: &Event) -> Option<Level> {
        e.tags.iter().find_map(|t| t.level())
    }

    /// `incl`: both scoped, and each one's scope instance contains the other's thread.
    fn incl(&self) -> Rel {
        self.rel_where(|a, b| match (Self::level_of(a), Self::level_of(b)) {
            (Some(la), Some(lb)) => self.same_instance(la, a, b) && self.same_instance(lb, a, b),
            _ => false,
        })
    }

    /// `sr`: same scope tag, same instance of it.
    fn sr(&self) -> Rel {
        self.rel_where(|a, b| match (Self::level_of(a), Self::level_of(b)) {
            (Some(la), Some(lb)) => la == lb && self.same_instance(la, a, b),
            _ => false,
        })
    }

    /// `rf^-1; co` — from-reads.
    pub(crate) fn fr(&self) -> Rel {
        self.rf.inverse().seq(&self.co)
    }

    /// Every vocabulary name's value on this execution.
    pub fn base(&self) -> Base {
        let mut base = Base {
            n: self.n(),
            ..Base::default()
        };
        let mut reading = self;
        for name in Name::all() {
            base.insert(name, reading.name(name));
        }
        base
    }

    fn same_thread(a: &Event, b: &Event) -> bool {
        a.thread.is_some() && a.thread == b.thread
    }
}

/// What each built-in name is on a concrete execution.
impl Reading for &Execution {
    type Set = Set;
    type Rel = Rel;
    type Value = Value;

    fn event_set(&mut self, set: EventSet) -> Set {
        use EventKind::*;
        let is = |kind: EventKind| self.set_where(move |e| e.kind == kind);
        match set {
            EventSet::Wildcard | EventSet::E => Set::full(self.n()),
            EventSet::R => is(Read),
            EventSet::W => is(Write),
            EventSet::M => is(Read).union(is(Write)),
            EventSet::F => is(Fence),
            EventSet::Bar => is(Barrier),
            EventSet::EntryFence => self.barrier_parts(BarrierPart::Entry),
            EventSet::ExitFence => self.barrier_parts(BarrierPart::Exit),
            EventSet::Iw => self.set_where(|e| e.thread.is_none()),
            EventSet::Rmw => self.rmw.domain().union(self.rmw.range()),
        }
    }

    fn tag(&mut self, tag: Tag) -> Set {
        self.set_where(|e| e.tags.contains(&tag))
    }

    fn relation(&mut self, rel: Relation) -> Rel {
        let x: &Execution = self;
        let same = |level: Level| x.rel_where(move |a, b| x.same_instance(level, a, b));
        match rel {
            Relation::Id => Rel::id_on(self.n(), Set::full(self.n())),
            Relation::Po => self.po.clone(),
            Relation::Rf => self.rf.clone(),
            Relation::Co => self.co.clone(),
            Relation::Fr => self.fr(),
            Relation::Loc => self.rel_where(|a, b| a.loc.is_some() && a.loc == b.loc),
            Relation::Vloc => self.rel_where(|a, b| a.vloc.is_some() && a.vloc == b.vloc),
            Relation::Int => self.rel_where(Execution::same_thread),
            Relation::Ext => self.rel_where(|a, b| !Execution::same_thread(a, b)),
            Relation::Rmw => self.rmw.clone(),
            Relation::Addr => self.addr.clone(),
            Relation::Data => self.data.clone(),
            Relation::Ctrl => self.ctrl.clone(),
            Relation::Syncbar => self.syncbar.clone(),
            Relation::Ssw => self.ssw.clone(),
            Relation::Same(s) => same(s.level()),
            Relation::Sr => self.sr(),
            Relation::Incl => self.incl(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::{self, SameScope};

    fn ev(thread: Option<usize>, kind: EventKind, loc: Option<usize>, tags: &[Tag]) -> Event {
        Event {
            thread,
            kind,
            loc,
            vloc: loc,
            value: 0,
            tags: tags.to_vec(),
            barrier: None,
        }
    }

    fn exec(events: Vec<Event>, placements: Vec<Placement>) -> Execution {
        let n = events.len();
        Execution {
            events,
            locations: vec!["x".into()],
            placements,
            po: Rel::empty(n),
            rf: Rel::empty(n),
            co: Rel::empty(n),
            rmw: Rel::empty(n),
            addr: Rel::empty(n),
            data: Rel::empty(n),
            ctrl: Rel::empty(n),
            syncbar: Rel::empty(n),
            ssw: Rel::empty(n),
        }
    }

    /// A thread in subgroup `subgroup` of CTA `cta` of GPU `gpu`.
    fn at(subgroup: i64, cta: i64, gpu: i64) -> Placement {
        let p = Placement::default().with(Level::Subgroup, subgroup);
        p.with(Level::Cta, cta).with(Level::Gpu, gpu)
    }

    #[test]
    fn incl_is_hierarchical() {
        // P0@cta 0,gpu 0 and P1@cta 0,gpu 1 are in different CTAs and different GPUs.
        let p = vec![at(0, 0, 0), at(0, 0, 1), at(0, 1, 0)];
        let x = exec(
            vec![
                ev(Some(0), EventKind::Write, Some(0), &[Tag::Rlx, Tag::Cta]),
                ev(Some(1), EventKind::Read, Some(0), &[Tag::Rlx, Tag::Sys]),
                ev(Some(2), EventKind::Read, Some(0), &[Tag::Rlx, Tag::Gpu]),
                ev(Some(2), EventKind::Read, Some(0), &[Tag::Weak]),
            ],
            p,
        );
        let incl = x.incl();
        assert!(!incl.contains(0, 1), "cta scope does not reach another gpu");
        assert!(!incl.contains(0, 2), "cta scope does not reach another cta");
        assert!(
            !incl.contains(1, 2) && !incl.contains(2, 1),
            "gpu scope of P2 does not include gpu 1"
        );
        assert!(incl.contains(2, 2));
        assert!(!incl.contains(3, 3), "weak accesses have no scope");
        let sys_and_self = exec(
            vec![ev(Some(0), EventKind::Write, Some(0), &[Tag::Sys])],
            vec![Placement::default()],
        );
        assert!(sys_and_self.incl().contains(0, 0));
    }

    /// Vulkan's subgroups: `ssg` and the SG scope separate two subgroups of one work-group,
    /// which `swg` and the WG scope join; QF reaches the queue family, DV everything.
    #[test]
    fn subgroups_lie_inside_work_groups() {
        let x = exec(
            vec![
                ev(Some(0), EventKind::Write, Some(0), &[Tag::Sg]),
                ev(Some(1), EventKind::Read, Some(0), &[Tag::Sg]),
                ev(Some(1), EventKind::Read, Some(0), &[Tag::Wg]),
                ev(Some(0), EventKind::Read, Some(0), &[Tag::Wg]),
                ev(Some(2), EventKind::Read, Some(0), &[Tag::Qf]),
                ev(Some(1), EventKind::Read, Some(0), &[Tag::Qf]),
                ev(Some(3), EventKind::Read, Some(0), &[Tag::Dv]),
                ev(Some(0), EventKind::Read, Some(0), &[Tag::Dv]),
            ],
            vec![at(0, 0, 0), at(1, 0, 0), at(0, 1, 0), at(0, 0, 1)],
        );
        let mut reading = &x;
        let (ssg, swg, sqf) = (
            reading.relation(Relation::Same(SameScope::Ssg)),
            reading.relation(Relation::Same(SameScope::Swg)),
            reading.relation(Relation::Same(SameScope::Sqf)),
        );
        assert!(!ssg.contains(0, 1) && swg.contains(0, 1) && sqf.contains(0, 1));
        assert!(!swg.contains(0, 4) && sqf.contains(0, 4) && !sqf.contains(0, 6));
        let incl = x.incl();
        assert!(!incl.contains(0, 1), "two subgroups");
        assert!(incl.contains(2, 3), "one work-group");
        assert!(
            incl.contains(4, 5) && !incl.contains(4, 6),
            "one queue family"
        );
        assert!(incl.contains(6, 7), "the device");
    }

    #[test]
    fn base_names_cover_the_vocabulary() {
        let x = exec(vec![ev(None, EventKind::Write, Some(0), &[])], vec![]);
        let base = x.base();
        for name in vocab::all_names() {
            let present = match vocab::kind_of(name) {
                Some(vocab::Kind::Set) => base.sets.contains_key(name),
                Some(vocab::Kind::Rel) => base.rels.contains_key(name),
                None => false,
            };
            assert!(present, "{name} missing from Execution::base");
        }
        assert_eq!(base.sets["IW"], Set::singleton(0));
    }
}
