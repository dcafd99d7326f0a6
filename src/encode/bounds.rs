//! Bounds are data (Kodkod's `Bounds`): for each vocabulary name over a universe of `n` event
//! slots, a lower and an upper tuple set. A tuple in the lower set is in the name's value, one
//! outside the upper set is not, and each tuple in between is a fresh variable.
//!
//! Owns: `Bounds`, `BoundsError`. Uses: `rel` (tuple sets), `vocab` (names and kinds). Reads no
//! formula: symmetry breaking and the later search read bounds alone.
use std::collections::BTreeMap;
use std::fmt;

use crate::rel::{Rel, Set, MAX_EVENTS};
use crate::vocab::{self, Kind};

/// Lower and upper bounds of the vocabulary names over `n` slots. A name without bounds is
/// empty, except `E` and `_` (all slots) and `id` (the identity on `E`), as in the evaluator.
#[derive(Clone, Debug, Default)]
pub struct Bounds {
    n: usize,
    sets: BTreeMap<&'static str, (Set, Set)>,
    rels: BTreeMap<&'static str, (Rel, Rel)>,
}

/// A bound that cannot be set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoundsError {
    /// The name is not a set or relation of the event vocabulary.
    UnknownName(String),
    /// The name is a vocabulary name of the other kind (a set bounded as a relation, or the
    /// reverse).
    WrongKind {
        /// The vocabulary name.
        name: &'static str,
        /// The kind the bound was for (`Set` for `bound_set`, `Rel` for `bound_rel`).
        expected: Kind,
    },
    /// The lower bound of the name has a tuple outside its upper bound.
    LowerNotInUpper(&'static str),
    /// A bound names an event slot outside the universe `0..n`, or a relation is over another
    /// number of events.
    OutsideUniverse(&'static str),
}

impl fmt::Display for BoundsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoundsError::UnknownName(n) => write!(f, "`{n}` is not a name of the event vocabulary"),
            BoundsError::WrongKind { name, expected } => {
                write!(f, "`{name}` is not a {expected:?}")
            }
            BoundsError::LowerNotInUpper(n) => {
                write!(f, "the lower bound of `{n}` is not inside its upper bound")
            }
            BoundsError::OutsideUniverse(n) => {
                write!(f, "a bound of `{n}` names an event outside the universe")
            }
        }
    }
}

impl std::error::Error for BoundsError {}

impl Bounds {
    /// No bounds yet over `n` slots (`n` at most `rel::MAX_EVENTS`).
    pub fn new(n: usize) -> Bounds {
        assert!(n <= MAX_EVENTS, "a universe has at most {MAX_EVENTS} slots");
        Bounds {
            n,
            ..Bounds::default()
        }
    }

    pub(crate) fn n(&self) -> usize {
        self.n
    }

    /// Bound a set name: `lower ⊆ value ⊆ upper`.
    pub fn bound_set(&mut self, name: &str, lower: Set, upper: Set) -> Result<(), BoundsError> {
        let name = vocab_name(name, Kind::Set)?;
        if !lower.diff(upper).is_empty() {
            return Err(BoundsError::LowerNotInUpper(name));
        }
        if !upper.diff(Set::full(self.n)).is_empty() {
            return Err(BoundsError::OutsideUniverse(name));
        }
        self.sets.insert(name, (lower, upper));
        Ok(())
    }

    /// Bound a relation name: `lower ⊆ value ⊆ upper`.
    pub fn bound_rel(&mut self, name: &str, lower: Rel, upper: Rel) -> Result<(), BoundsError> {
        let name = vocab_name(name, Kind::Rel)?;
        if lower.size() != self.n || upper.size() != self.n {
            return Err(BoundsError::OutsideUniverse(name));
        }
        if !lower.diff(&upper).is_empty() {
            return Err(BoundsError::LowerNotInUpper(name));
        }
        self.rels.insert(name, (lower, upper));
        Ok(())
    }

    /// Fix a set name to one value.
    pub fn exact_set(&mut self, name: &str, value: Set) -> Result<(), BoundsError> {
        self.bound_set(name, value, value)
    }

    /// Fix a relation name to one value.
    pub fn exact_rel(&mut self, name: &str, value: &Rel) -> Result<(), BoundsError> {
        self.bound_rel(name, value.clone(), value.clone())
    }

    /// The bounds of a set name, if set.
    pub(crate) fn set_bounds(&self, name: &str) -> Option<(Set, Set)> {
        self.sets.get(name).copied()
    }

    /// The bounds of a relation name, if set.
    pub(crate) fn rel_bounds(&self, name: &str) -> Option<&(Rel, Rel)> {
        self.rels.get(name)
    }

    /// Tuples left open (each becomes one variable).
    pub fn open_tuples(&self) -> usize {
        let sets = self.sets.values().map(|(l, u)| u.diff(*l).len());
        let rels = self.rels.values().map(|(l, u)| u.diff(l).pairs().count());
        sets.chain(rels).sum()
    }
}

fn vocab_name(name: &str, expected: Kind) -> Result<&'static str, BoundsError> {
    let known = vocab::all_names()
        .find(|n| *n == name)
        .ok_or_else(|| BoundsError::UnknownName(name.into()))?;
    if vocab::kind_of(known) != Some(expected) {
        return Err(BoundsError::WrongKind {
            name: known,
            expected,
        });
    }
    Ok(known)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_checked() {
        let mut b = Bounds::new(3);
        assert!(b.exact_set("R", Set::singleton(1)).is_ok());
        assert_eq!(
            b.exact_set("nope", Set::EMPTY),
            Err(BoundsError::UnknownName("nope".into()))
        );
        assert!(matches!(
            b.exact_set("po", Set::EMPTY),
            Err(BoundsError::WrongKind { .. })
        ));
        assert_eq!(
            b.bound_set("W", Set::singleton(0), Set::EMPTY),
            Err(BoundsError::LowerNotInUpper("W"))
        );
        assert_eq!(
            b.exact_set("W", Set::singleton(5)),
            Err(BoundsError::OutsideUniverse("W"))
        );
        let upper = Rel::from_pairs(3, [(0, 1), (1, 2)]);
        assert!(b.bound_rel("po", Rel::empty(3), upper).is_ok());
        assert_eq!(b.open_tuples(), 2);
    }
}
