//! Concrete candidate executions and the base relations a model reads from them.
//!
//! Owns: `Event`, `Execution` (events, `po`, `rf`, `co`, `rmw`, dependencies, barrier instances,
//! thread placement) and `Execution::base`, which computes every name of `vocab` for the evaluator.
//! Uses: `rel`, `vocab`, `litmus::Placement`, `eval::Base`. Knows nothing of models or of SAT.
use std::collections::HashMap;

use crate::eval::Base;
use crate::litmus::Placement;
use crate::rel::{Rel, Set};
use crate::vocab::{self, Level, Tag};

#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize)]
pub enum EventKind {
    Read,
    Write,
    Fence,
    Barrier,
}

/// One event of a candidate execution.
#[derive(Clone, PartialEq, Eq, Debug, serde::Serialize)]
pub struct Event {
    /// Thread index, `None` for initial writes.
    pub thread: Option<usize>,
    pub kind: EventKind,
    /// Location index into `Execution::locations` (memory events only).
    pub loc: Option<usize>,
    /// Value read or written (0 for fences and barriers).
    pub value: i64,
    /// Vocabulary tags.
    pub tags: Vec<Tag>,
    /// Barrier instance (`id`) of a barrier event.
    pub barrier: Option<i64>,
}

impl Event {
    pub fn is_memory(&self) -> bool {
        matches!(self.kind, EventKind::Read | EventKind::Write)
    }
}

/// A candidate execution: events with `po`, `rf`, `co` and the structural relations.
#[derive(Clone, Debug)]
pub struct Execution {
    pub events: Vec<Event>,
    pub locations: Vec<String>,
    /// Placement of each thread in the scope tree.
    pub placements: Vec<Placement>,
    pub po: Rel,
    pub rf: Rel,
    pub co: Rel,
    pub rmw: Rel,
    pub addr: Rel,
    pub data: Rel,
    pub ctrl: Rel,
    /// Barrier events that synchronise with each other (same barrier generation).
    pub syncbar: Rel,
}

impl Execution {
    pub fn n(&self) -> usize {
        self.events.len()
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
        match (level, self.placement(a), self.placement(b)) {
            (Level::System, _, _) => true,
            (Level::Thread, _, _) => a.thread.is_some() && a.thread == b.thread,
            (Level::Cta, Some(pa), Some(pb)) => pa == pb,
            (Level::Gpu, Some(pa), Some(pb)) => pa.gpu == pb.gpu,
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
    pub fn fr(&self) -> Rel {
        self.rf.inverse().seq(&self.co)
    }

    fn structural_sets(&self) -> HashMap<&'static str, Set> {
        use EventKind::*;
        let mut sets = HashMap::new();
        let all = Set::full(self.n());
        let reads = self.set_where(|e| e.kind == Read);
        let writes = self.set_where(|e| e.kind == Write);
        let rmw = self.rmw.domain().union(self.rmw.range());
        for (name, s) in [
            ("_", all),
            ("E", all),
            ("R", reads),
            ("W", writes),
            ("M", reads.union(writes)),
            ("F", self.set_where(|e| e.kind == Fence)),
            ("BAR", self.set_where(|e| e.kind == Barrier)),
            ("IW", self.set_where(|e| e.thread.is_none())),
            ("RMW", rmw),
        ] {
            sets.insert(name, s);
        }
        for tag in vocab::TAGS {
            sets.insert(tag.name(), self.set_where(|e| e.tags.contains(&tag)));
        }
        sets
    }

    fn structural_rels(&self) -> HashMap<&'static str, Rel> {
        let same_thread = |a: &Event, b: &Event| a.thread.is_some() && a.thread == b.thread;
        let same_cta = |a: &Event, b: &Event| self.same_instance(Level::Cta, a, b);
        let same_gpu = |a: &Event, b: &Event| self.same_instance(Level::Gpu, a, b);
        let n = self.n();
        let mut rels = HashMap::new();
        rels.insert("id", Rel::id_on(n, Set::full(n)));
        rels.insert("po", self.po.clone());
        rels.insert("rf", self.rf.clone());
        rels.insert("co", self.co.clone());
        rels.insert("fr", self.fr());
        rels.insert(
            "loc",
            self.rel_where(|a, b| a.loc.is_some() && a.loc == b.loc),
        );
        rels.insert("int", self.rel_where(same_thread));
        rels.insert("ext", self.rel_where(|a, b| !same_thread(a, b)));
        rels.insert("rmw", self.rmw.clone());
        rels.insert("addr", self.addr.clone());
        rels.insert("data", self.data.clone());
        rels.insert("ctrl", self.ctrl.clone());
        rels.insert("syncbar", self.syncbar.clone());
        for name in ["scta", "swg"] {
            rels.insert(name, self.rel_where(same_cta));
        }
        for name in ["sgpu", "sdv"] {
            rels.insert(name, self.rel_where(same_gpu));
        }
        rels.insert("sr", self.sr());
        rels.insert("incl", self.incl());
        rels
    }

    /// Every vocabulary name's value on this execution.
    pub fn base(&self) -> Base {
        Base {
            n: self.n(),
            sets: self.structural_sets(),
            rels: self.structural_rels(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(thread: Option<usize>, kind: EventKind, loc: Option<usize>, tags: &[Tag]) -> Event {
        Event {
            thread,
            kind,
            loc,
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
        }
    }

    #[test]
    fn incl_is_hierarchical() {
        // P0@cta 0,gpu 0 and P1@cta 0,gpu 1 are in different CTAs and different GPUs.
        let p = vec![
            Placement { cta: 0, gpu: 0 },
            Placement { cta: 0, gpu: 1 },
            Placement { cta: 1, gpu: 0 },
        ];
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
