//! Source operation classes: kind × memory order × scope, all in vocabulary tags.
//!
//! Owns: `Class`, `ClassKind`, and `Class::of`, which reads the class of one source instruction
//! off its tags (which tag is an order and which a scope is the tag's `vocab::Role`). Uses: `vocab`.
use std::fmt;

pub use crate::vocab::Tag;
use crate::vocab::{self, Role};

/// What a source operation does to memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClassKind {
    /// A load.
    R,
    /// A store.
    W,
    /// A read-modify-write (a read and a write joined by `rmw`).
    Rmw,
    /// A fence.
    F,
}

impl ClassKind {
    /// The kind spelled `name` in a mapping file.
    pub(crate) fn parse(name: &str) -> Option<ClassKind> {
        match name {
            "R" => Some(ClassKind::R),
            "W" => Some(ClassKind::W),
            "RMW" => Some(ClassKind::Rmw),
            "F" => Some(ClassKind::F),
            _ => None,
        }
    }
    pub(crate) fn name(self) -> &'static str {
        match self {
            ClassKind::R => "R",
            ClassKind::W => "W",
            ClassKind::Rmw => "RMW",
            ClassKind::F => "F",
        }
    }
    /// The kind in words, for messages.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            ClassKind::R => "a load (R)",
            ClassKind::W => "a store (W)",
            ClassKind::Rmw => "a read-modify-write (RMW)",
            ClassKind::F => "a fence (F)",
        }
    }
    /// The kind in the plural, for messages.
    pub(crate) fn plural(self) -> &'static str {
        match self {
            ClassKind::R => "loads (R)",
            ClassKind::W => "stores (W)",
            ClassKind::Rmw => "read-modify-writes (RMW)",
            ClassKind::F => "fences (F)",
        }
    }
    /// Is it a memory access (as opposed to a fence)?
    pub(crate) fn is_access(self) -> bool {
        self != ClassKind::F
    }
}

/// One source operation class, e.g. `R.SC.GPU` or `W.NA`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Class {
    /// What the operation does to memory: load, store, RMW or fence.
    pub kind: ClassKind,
    /// The operation's memory-order tag (e.g. `SC`, `RLX`, `NA`).
    pub order: Tag,
    /// `None` for unscoped operations (non-atomic accesses, unscoped source languages).
    pub scope: Option<Tag>,
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.kind.name(), self.order)?;
        match self.scope {
            Some(s) => write!(f, ".{s}"),
            None => Ok(()),
        }
    }
}

/// A source instruction's tags, sorted by role.
#[derive(Debug, Default)]
pub(crate) struct SplitTags {
    pub(crate) orders: Vec<Tag>,
    pub(crate) scopes: Vec<Tag>,
    /// Every other tag (regions, barrier flavours, …).
    pub(crate) others: Vec<Tag>,
}

/// Sort tags into orders, scopes and the rest.
pub(crate) fn split_tags(tags: &[Tag]) -> SplitTags {
    let mut split = SplitTags::default();
    for &t in tags {
        match t.role() {
            Role::Order => split.orders.push(t),
            Role::Scope => split.scopes.push(t),
            Role::Region | Role::Proxy | Role::Flavour => split.others.push(t),
        }
    }
    split
}

impl Class {
    /// The class of a source instruction of `kind` carrying `tags` (its orders and scopes; the
    /// other tags are the caller's business).
    ///
    /// Reading: `V` (volatile) is the order whenever present — front ends tag a volatile access
    /// `RLX, SYS, V`, as the PTX front end does; otherwise there must be at most one order tag; a
    /// memory access with none is non-atomic (`NA`); a fence must have one. At most one scope tag.
    pub(crate) fn of(kind: ClassKind, tags: &[Tag]) -> Result<Class, String> {
        let split = split_tags(tags);
        let order = Self::order_of(kind, &split.orders)?;
        let scope = match split.scopes.as_slice() {
            [] => None,
            [s] => Some(*s),
            many => {
                return Err(format!(
                    "more than one scope tag ({})",
                    vocab::join(many, ", ")
                ))
            }
        };
        Ok(Class { kind, order, scope })
    }

    /// The tags a source instruction of this class carries: the inverse of `Class::of`
    /// (`NA` for a non-atomic access, `RLX, V` for a volatile one, then the scope).
    pub fn tags(&self) -> Vec<Tag> {
        let mut tags = match self.order {
            Tag::V => vec![Tag::Rlx, Tag::V],
            o => vec![o],
        };
        tags.extend(self.scope);
        tags
    }

    fn order_of(kind: ClassKind, orders: &[Tag]) -> Result<Tag, String> {
        if orders.contains(&Tag::V) {
            return Ok(Tag::V);
        }
        match orders {
            [] if kind.is_access() => Ok(Tag::Na),
            [] => Err("a fence without a memory-order tag".to_string()),
            [o] => Ok(*o),
            many => Err(format!(
                "more than one memory-order tag ({})",
                vocab::join(many, ", ")
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(ts: &[&str]) -> Vec<Tag> {
        ts.iter().map(|t| Tag::from_name(t).unwrap()).collect()
    }

    #[test]
    fn classes_read_off_tags() {
        let c = Class::of(ClassKind::R, &tags(&["ACQ", "GPU"])).unwrap();
        assert_eq!(c.to_string(), "R.ACQ.GPU");
        assert_eq!(
            Class::of(ClassKind::W, &tags(&[])).unwrap().to_string(),
            "W.NA"
        );
        assert_eq!(
            Class::of(ClassKind::R, &tags(&["RLX", "SYS", "V"]))
                .unwrap()
                .to_string(),
            "R.V.SYS"
        );
        assert!(Class::of(ClassKind::F, &tags(&["GPU"])).is_err());
        assert!(Class::of(ClassKind::R, &tags(&["ACQ", "SC"])).is_err());
        assert!(Class::of(ClassKind::R, &tags(&["ACQ", "GPU", "CTA"])).is_err());
    }

    #[test]
    fn tags_invert_of() {
        for ts in [
            &["ACQ", "GPU"][..],
            &["NA"],
            &["RLX", "V", "SYS"],
            &["SC", "WG"],
        ] {
            let c = Class::of(ClassKind::R, &tags(ts)).unwrap();
            assert_eq!(Class::of(ClassKind::R, &c.tags()).unwrap(), c);
            assert_eq!(c.tags(), tags(ts), "{c}");
        }
    }
}
