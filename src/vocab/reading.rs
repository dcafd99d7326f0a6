//! `Reading`: the value of every built-in name in one execution, one method per kind of name,
//! so that each reading gives each name its meaning in an exhaustive `match` and a new name does
//! not compile until every reading has given it one.
//!
//! Owns: `Reading`, and `Defaulted`, the reading of a `Partial` one (values given for some names):
//! what `E`, `_` and `id` are when nothing gives them, written once.
use super::{EventSet, Name, Relation, Tag};

/// The value of every built-in name in one execution.
pub(crate) trait Reading {
    /// The value of a set of events.
    type Set;
    /// The value of a relation between events.
    type Rel;
    /// Either kind of value.
    type Value: From<Self::Set> + From<Self::Rel>;

    fn event_set(&mut self, set: EventSet) -> Self::Set;

    /// The events carrying `tag`.
    fn tag(&mut self, tag: Tag) -> Self::Set;

    fn relation(&mut self, rel: Relation) -> Self::Rel;

    /// The value of `name`.
    fn name(&mut self, name: Name) -> Self::Value {
        match name {
            Name::Set(s) => self.event_set(s).into(),
            Name::Tag(t) => self.tag(t).into(),
            Name::Rel(r) => self.relation(r).into(),
        }
    }
}

/// Values given for some names (by a caller, or by bounds); `Defaulted` reads the others.
pub(crate) trait Partial {
    type Set: Clone;
    type Rel;
    type Value: From<Self::Set> + From<Self::Rel>;

    /// The value given for set or tag `name`, if any.
    fn given_set(&mut self, name: Name) -> Option<Self::Set>;

    /// The value given for relation `name`, if any.
    fn given_rel(&mut self, name: Name) -> Option<Self::Rel>;

    /// Every event of the execution (the default of `E` and `_`).
    fn events(&mut self) -> Self::Set;

    fn no_events(&mut self) -> Self::Set;

    /// The identity on `events`.
    fn identity(&mut self, events: &Self::Set) -> Self::Rel;

    fn no_pairs(&mut self) -> Self::Rel;
}

/// A partial reading completed by each name's default: `E` and `_` are every event, `id` the
/// identity on them, every other name is empty.
pub(crate) struct Defaulted<P>(pub P);

impl<P: Partial> Reading for Defaulted<P> {
    type Set = P::Set;
    type Rel = P::Rel;
    type Value = P::Value;

    fn event_set(&mut self, set: EventSet) -> P::Set {
        if let Some(v) = self.0.given_set(Name::Set(set)) {
            return v;
        }
        match set {
            EventSet::Wildcard | EventSet::E => self.0.events(),
            EventSet::R
            | EventSet::W
            | EventSet::M
            | EventSet::F
            | EventSet::Bar
            | EventSet::EntryFence
            | EventSet::ExitFence
            | EventSet::Iw
            | EventSet::Rmw => self.0.no_events(),
        }
    }

    fn tag(&mut self, tag: Tag) -> P::Set {
        match self.0.given_set(Name::Tag(tag)) {
            Some(v) => v,
            None => self.0.no_events(),
        }
    }

    fn relation(&mut self, rel: Relation) -> P::Rel {
        if let Some(v) = self.0.given_rel(Name::Rel(rel)) {
            return v;
        }
        match rel {
            Relation::Id => {
                let events = self.0.events();
                self.0.identity(&events)
            }
            Relation::Po
            | Relation::Rf
            | Relation::Co
            | Relation::Fr
            | Relation::Loc
            | Relation::Vloc
            | Relation::Int
            | Relation::Ext
            | Relation::Rmw
            | Relation::Addr
            | Relation::Data
            | Relation::Ctrl
            | Relation::Syncbar
            | Relation::Same(_)
            | Relation::Ssw
            | Relation::Sr
            | Relation::Incl => self.0.no_pairs(),
        }
    }
}
