//! Source operation classes: kind × memory order × scope, all in vocabulary tags.
//!
//! Owns: `Class`, `ClassKind`, which vocabulary tags are memory orders and which are scopes, and
//! `Class::of`, which reads the class of one source instruction off its tags. Uses: `vocab`.
use std::fmt;

/// A vocabulary tag (one of `vocab::TAGS`).
pub type Tag = &'static str;

/// Tags that name a memory order (the order position of a class).
pub const ORDERS: &[Tag] = &[
    "NA", "WEAK", "RLX", "CON", "ACQ", "REL", "ACQ_REL", "SC", "V",
];

/// Tags that name a scope (the scope position of a class).
pub const SCOPES: &[Tag] = &["WI", "SG", "WG", "CTA", "DEV", "GPU", "ALL", "SYS"];

pub use crate::vocab::tag;

pub fn is_order(t: &str) -> bool {
    ORDERS.contains(&t)
}

pub fn is_scope(t: &str) -> bool {
    SCOPES.contains(&t)
}

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
    pub fn parse(name: &str) -> Option<ClassKind> {
        match name {
            "R" => Some(ClassKind::R),
            "W" => Some(ClassKind::W),
            "RMW" => Some(ClassKind::Rmw),
            "F" => Some(ClassKind::F),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            ClassKind::R => "R",
            ClassKind::W => "W",
            ClassKind::Rmw => "RMW",
            ClassKind::F => "F",
        }
    }
    /// The kind in words, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            ClassKind::R => "a load (R)",
            ClassKind::W => "a store (W)",
            ClassKind::Rmw => "a read-modify-write (RMW)",
            ClassKind::F => "a fence (F)",
        }
    }
    /// The kind in the plural, for messages.
    pub fn plural(self) -> &'static str {
        match self {
            ClassKind::R => "loads (R)",
            ClassKind::W => "stores (W)",
            ClassKind::Rmw => "read-modify-writes (RMW)",
            ClassKind::F => "fences (F)",
        }
    }
    /// Is it a memory access (as opposed to a fence)?
    pub fn is_access(self) -> bool {
        self != ClassKind::F
    }
}

/// One source operation class, e.g. `R.SC.GPU` or `W.NA`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Class {
    pub kind: ClassKind,
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
pub struct SplitTags {
    pub orders: Vec<Tag>,
    pub scopes: Vec<Tag>,
    /// Every other tag (regions, barrier flavours, …).
    pub others: Vec<String>,
}

/// Sort tags into orders, scopes and the rest.
pub fn split_tags(tags: &[String]) -> SplitTags {
    let mut split = SplitTags::default();
    for t in tags {
        match tag(t) {
            Some(v) if is_order(v) => split.orders.push(v),
            Some(v) if is_scope(v) => split.scopes.push(v),
            _ => split.others.push(t.clone()),
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
    pub fn of(kind: ClassKind, tags: &[String]) -> Result<Class, String> {
        let split = split_tags(tags);
        let order = Self::order_of(kind, &split.orders)?;
        let scope = match split.scopes.as_slice() {
            [] => None,
            [s] => Some(*s),
            many => return Err(format!("more than one scope tag ({})", many.join(", "))),
        };
        Ok(Class { kind, order, scope })
    }

    /// The tags a source instruction of this class carries: the inverse of `Class::of`
    /// (`NA` for a non-atomic access, `RLX, V` for a volatile one, then the scope).
    pub fn tags(&self) -> Vec<Tag> {
        let mut tags = match self.order {
            "V" => vec!["RLX", "V"],
            o => vec![o],
        };
        tags.extend(self.scope);
        tags
    }

    fn order_of(kind: ClassKind, orders: &[Tag]) -> Result<Tag, String> {
        if orders.contains(&"V") {
            return Ok("V");
        }
        match orders {
            [] if kind.is_access() => Ok("NA"),
            [] => Err("a fence without a memory-order tag".to_string()),
            [o] => Ok(o),
            many => Err(format!(
                "more than one memory-order tag ({})",
                many.join(", ")
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(ts: &[&str]) -> Vec<String> {
        ts.iter().map(|t| t.to_string()).collect()
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
            assert_eq!(Class::of(ClassKind::R, &tags(&c.tags())).unwrap(), c);
            assert_eq!(c.tags(), ts.to_vec(), "{c}");
        }
    }

    #[test]
    fn every_order_and_scope_is_a_vocabulary_tag() {
        for t in ORDERS.iter().chain(SCOPES) {
            assert!(crate::vocab::is_tag(t), "{t}");
        }
    }
}
