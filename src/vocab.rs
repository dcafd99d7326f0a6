//! The event vocabulary: every built-in set and relation a cat model may name.
//!
//! Owns: the closed list of base names as typed enums — `EventSet`, `Tag` (the annotation tags,
//! with each tag's role: order, scope, region, flavour; and scope level) and `Relation` — and
//! `Name`, any of them, each with its cat spelling, its kind and what it means; the scope levels
//! and placements (`level.rs`); and `Reading`
//! (`reading.rs`), the value of every built-in name in one execution, which `exec`, the search's
//! circuit view and the defaults of `eval` / `encode` implement. The cat lowering uses it to
//! resolve names and check kinds; litmus front ends attach only tags listed in `TAGS`. A new
//! architecture adds its tags here, never new Rust in the evaluator; a new name does not compile
//! until every reading gives it a meaning.
//!
//! Files:
//! - `vocab/level.rs`: `Level` (the `levels!` table), `SameScope` (`same_scopes!`), `Placement`.
//! - `vocab/reading.rs`: the `Reading` trait, `Partial` and `Defaulted`.

use std::collections::HashMap;

mod level;
mod reading;

pub(crate) use level::SAME_SCOPES;
pub use level::{Level, Placement, SameScope};
pub(crate) use reading::{Defaulted, Partial, Reading};

/// Whether a name denotes a set of events or a relation between events.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, serde::Serialize)]
pub enum Kind {
    /// A set of events (`R`, `ACQ`, `domain(r)`).
    Set,
    /// A relation between events (`po`, `rf`, `r ; s`).
    Rel,
}

/// Declares the tags: one row each (doc, variant, the set name models use, its role, and for a
/// scope tag its level after `at`). It generates the enum, `TAGS` (every tag, in the rows' order)
/// and `Tag::name`, `Tag::role` and `Tag::level`, so a tag is written once and cannot be left
/// out of a list.
macro_rules! tags {
    (@level) => { None };
    (@level $level:ident) => { Some(Level::$level) };
    ($($(#[doc = $doc:literal])* $variant:ident $name:literal $role:ident $(at $level:ident)?;)*) => {
        /// An annotation tag attached by the litmus front ends; each is also the set of events
        /// carrying it.
        ///
        /// Tags compare by name (`Ord`) and print as their name (`Display`; `Debug` quotes it),
        /// as the strings they replace did: sorted lists, `BTreeMap`s of classes and messages
        /// quoting instructions are unchanged.
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Tag {
            $($(#[doc = $doc])* $variant,)*
        }

        /// Every tag, in the vocabulary's order (the order of `all_names`).
        pub(crate) const TAGS: [Tag; [$(Tag::$variant),*].len()] = [$(Tag::$variant),*];

        impl Tag {
            /// The set name models use (`ACQ`).
            pub fn name(self) -> &'static str {
                match self {
                    $(Tag::$variant => $name,)*
                }
            }

            /// What the tag says about its event.
            pub(crate) fn role(self) -> Role {
                match self {
                    $(Tag::$variant => Role::$role,)*
                }
            }

            /// The scope level of a scope tag; `None` for every other tag.
            pub fn level(self) -> Option<Level> {
                match self {
                    $(Tag::$variant => tags!(@level $($level)?),)*
                }
            }
        }
    };
}

tags! {
    /// Non-atomic access (C, OpenCL).
    Na "NA" Order;
    /// PTX .weak access (no scope).
    Weak "WEAK" Order;
    /// Relaxed (C memory_order_relaxed, PTX .relaxed).
    Rlx "RLX" Order;
    /// Acquire.
    Acq "ACQ" Order;
    /// Release.
    Rel "REL" Order;
    /// Acquire-release.
    AcqRel "ACQ_REL" Order;
    /// Sequentially consistent (C seq_cst, PTX fence.sc).
    Sc "SC" Order;
    /// C memory_order_consume.
    Con "CON" Order;
    /// PTX .volatile access (treated as .relaxed.sys).
    V "V" Order;
    /// PTX red: an RMW with no destination register (forms no acquire pattern).
    Red "RED" Flavour;
    /// PTX .cta scope.
    Cta "CTA" Scope at Cta;
    /// PTX .cluster scope (PTX ISA 7.8+, sm_90), CUDA's `thread_scope_cluster`.
    Cluster "CLUSTER" Scope at Cluster;
    /// PTX .gpu scope.
    Gpu "GPU" Scope at Gpu;
    /// PTX .sys scope.
    Sys "SYS" Scope at System;
    /// OpenCL memory_scope_work_item.
    Wi "WI" Scope at Thread;
    /// OpenCL memory_scope_sub_group.
    Sg "SG" Scope at Subgroup;
    /// OpenCL memory_scope_work_group.
    Wg "WG" Scope at Cta;
    /// OpenCL memory_scope_device.
    Dev "DEV" Scope at Gpu;
    /// OpenCL memory_scope_all_svm_devices.
    All "ALL" Scope at System;
    /// Access to (or fence on) global memory.
    Global "GLOBAL" Region;
    /// Access to (or fence on) local memory.
    Local "LOCAL" Region;
    /// Barrier that waits (bar.cta.sync, OpenCL barrier).
    Sync "SYNC" Flavour;
    /// Barrier that only arrives (bar.cta.arrive).
    Arrive "ARRIVE" Flavour;
    /// PTX 7.5 surface proxy: sust / suld, fence.proxy.surface.
    Sur "SUR" Proxy;
    /// PTX 7.5 texture proxy: tld, fence.proxy.texture.
    Tex "TEX" Proxy;
    /// PTX 7.5 constant proxy: cold (ld.const), fence.proxy.constant.
    Const "CONST" Proxy;
    /// PTX 7.5 fence.proxy.alias (orders accesses through virtual aliases).
    Alias "ALIAS" Proxy;
    /// Vulkan QueueFamily scope (`.qf`).
    Qf "QF" Scope at Gpu;
    /// Vulkan Device scope (`.dv`): every thread of the test.
    Dv "DV" Scope at System;
    /// Vulkan atomic access (`ld.atom`, `st.atom`, `rmw.atom`).
    Atom "ATOM" Flavour;
    /// Vulkan non-private access: it takes part in inter-thread ordering (`.nonpriv`, `.av`,
    /// `.vis`, every atomic).
    Nonpriv "NONPRIV" Flavour;
    /// Vulkan write with an availability operation (`st.av`, every atomic write).
    Av "AV" Flavour;
    /// Vulkan read with a visibility operation (`ld.vis`, every atomic read).
    Vis "VIS" Flavour;
    /// Vulkan release whose semantics include MakeAvailable (`.semav`).
    Semav "SEMAV" Flavour;
    /// Vulkan acquire whose semantics include MakeVisible (`.semvis`).
    Semvis "SEMVIS" Flavour;
    /// Vulkan availability operation to the device domain (`avdevice`, issued by the host).
    Avdevice "AVDEVICE" Flavour;
    /// Vulkan visibility operation from the device domain (`visdevice`, issued by the host).
    Visdevice "VISDEVICE" Flavour;
    /// Vulkan storage class 0 of an access (`.sc0`).
    Sc0 "SC0" Region;
    /// Vulkan storage class 1 of an access (`.sc1`).
    Sc1 "SC1" Region;
    /// Vulkan storage class 2 of an access (`.sc2`).
    Sc2 "SC2" Region;
    /// Vulkan storage class 3 of an access (`.sc3`).
    Sc3 "SC3" Region;
    /// Vulkan memory semantics over storage class 0 (`.semsc0`).
    Semsc0 "SEMSC0" Region;
    /// Vulkan memory semantics over storage class 1 (`.semsc1`).
    Semsc1 "SEMSC1" Region;
    /// Vulkan memory semantics over storage class 2 (`.semsc2`).
    Semsc2 "SEMSC2" Region;
    /// Vulkan memory semantics over storage class 3 (`.semsc3`).
    Semsc3 "SEMSC3" Region;
}

/// What a tag says about its event.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub(crate) enum Role {
    /// A memory order (C, OpenCL) or PTX semantics: the order position of a mapping class.
    Order,
    /// A synchronisation scope: the scope position of a mapping class.
    Scope,
    /// The memory region (address space) an access or fence is about.
    Region,
    /// The instruction's flavour beyond its event kind: a reduction, a waiting or arriving barrier.
    Flavour,
    /// The PTX 7.5 proxy an access goes through or a proxy fence orders (no proxy tag: the
    /// generic proxy), or the alias proxy fence.
    Proxy,
}

impl Tag {
    /// The tag a model names `name`, if any.
    pub fn from_name(name: &str) -> Option<Tag> {
        TAGS.into_iter().find(|t| t.name() == name)
    }

    /// Every tag of `role`, in the vocabulary's order.
    pub(crate) fn with_role(role: Role) -> impl Iterator<Item = Tag> {
        TAGS.into_iter().filter(move |t| t.role() == role)
    }
}

/// The tags' names joined by `sep` (`ACQ, GPU`), as messages write a tag list.
pub(crate) fn join(tags: &[Tag], sep: &str) -> String {
    let names: Vec<&str> = tags.iter().map(|t| t.name()).collect();
    names.join(sep)
}

impl std::fmt::Display for Tag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::fmt::Debug for Tag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.name())
    }
}

impl PartialOrd for Tag {
    fn partial_cmp(&self, other: &Tag) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Tag {
    fn cmp(&self, other: &Tag) -> std::cmp::Ordering {
        self.name().cmp(other.name())
    }
}

impl serde::Serialize for Tag {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Declares the built-in event sets, one row each (doc, variant, the name models use). It
/// generates `EventSet`, `EVENT_SETS` (in the rows' order) and `EventSet::name`, so a set cannot
/// be left out of the list; every reading (`Reading`) gives each variant its value in its own
/// arm.
macro_rules! event_sets {
    ($($(#[doc = $doc:literal])* $variant:ident $name:literal;)*) => {
        /// A built-in set of events, computed from the execution's shape.
        #[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
        pub enum EventSet {
            $($(#[doc = $doc])* $variant,)*
        }

        /// Every built-in event set, in the vocabulary's order.
        pub(crate) const EVENT_SETS: [EventSet; [$(EventSet::$variant),*].len()] =
            [$(EventSet::$variant),*];

        impl EventSet {
            /// The name models use (`R`).
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $(EventSet::$variant => $name,)*
                }
            }
        }
    };
}

event_sets! {
    /// All events (herd's wildcard).
    Wildcard "_";
    /// All events.
    E "E";
    /// Reads (including the read of an RMW).
    R "R";
    /// Writes (including initial writes and the write of an RMW).
    W "W";
    /// Memory events, R | W.
    M "M";
    /// Fences.
    F "F";
    /// Execution-barrier events (bar.cta.sync / bar.cta.arrive, OpenCL barrier).
    Bar "BAR";
    /// A barrier's entry fence (Dartagnan's `EF`). A model that names it or `XF` gets two
    /// events per barrier, entry then exit; otherwise a barrier is one event, both.
    EntryFence "EF";
    /// A barrier's exit fence (Dartagnan's `XF`); see `EntryFence`.
    ExitFence "XF";
    /// Initial writes.
    Iw "IW";
    /// The read and the write of every read-modify-write.
    Rmw "RMW";
}

/// Declares the built-in relations, one row each (doc, variant, the name models use); the row
/// `Same same_scopes(SameScope)` stands for every same-instance relation of `level.rs`
/// (`SAME_SCOPES`, named there), at its place in the order. It
/// generates `Relation`, `relations()` (in the rows' order) and `Relation::name`.
macro_rules! relations {
    (@name $r:expr, same_scopes) => { match $r { Relation::Same(s) => s.name(), _ => unreachable!() } };
    (@name $r:expr, $name:literal) => { $name };
    (@each Same) => { SAME_SCOPES.map(Relation::Same).to_vec() };
    (@each $variant:ident) => { vec![Relation::$variant] };
    (@pattern Same) => { Relation::Same(_) };
    (@pattern $variant:ident) => { Relation::$variant };
    ($($(#[doc = $doc:literal])* $variant:ident $name:tt $(($inner:ty))?;)*) => {
        /// A built-in relation between events.
        ///
        /// Like `Tag`, it is one table (`relations!`): its name is one exhaustive `match`
        /// (`name`, documented on each variant), `relations()` lists every one, and every reading
        /// (`Reading`) gives each variant its value in its own arm.
        #[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
        pub enum Relation {
            $($(#[doc = $doc])* $variant $(($inner))?,)*
        }

        /// Every built-in relation, in the vocabulary's order (built once: the runner asks for
        /// it on every execution).
        pub(crate) fn relations() -> impl Iterator<Item = Relation> {
            static ALL: std::sync::OnceLock<Vec<Relation>> = std::sync::OnceLock::new();
            let all = ALL.get_or_init(|| {
                let rows: Vec<Vec<Relation>> = vec![$(relations!(@each $variant)),*];
                rows.into_iter().flatten().collect()
            });
            all.iter().copied()
        }

        impl Relation {
            /// The name models use (`po`).
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $(_relation @ relations!(@pattern $variant) => relations!(@name _relation, $name),)*
                }
            }
        }
    };
}

relations! {
    /// Identity on all events.
    Id "id";
    /// Program order (strict, per thread; initial writes are not in po).
    Po "po";
    /// Reads-from: write to read of the same location and value.
    Rf "rf";
    /// Coherence order (transitive; total per location or partial, as the model declares;
    /// initial writes first).
    Co "co";
    /// From-reads, rf^-1; co.
    Fr "fr";
    /// Same (physical) location (memory events).
    Loc "loc";
    /// Same virtual address (memory events): as loc, except that a PTX 7.5 generic alias
    /// (`y @ generic aliases x`) is another address of x's location (a surface, texture or
    /// constant alias is x's own address through another proxy).
    Vloc "vloc";
    /// Same thread.
    Int "int";
    /// Different threads (initial writes are in no thread).
    Ext "ext";
    /// Read of an RMW to its write.
    Rmw "rmw";
    /// Address dependency.
    Addr "addr";
    /// Data dependency.
    Data "data";
    /// Control dependency.
    Ctrl "ctrl";
    /// Barrier events of the same barrier instance (same id, same CTA / work-group).
    Syncbar "syncbar";
    /// Same instance of a scope level (`scta`, `swg`, `sgpu`, …; `level.rs` lists them).
    Same same_scopes(SameScope);
    /// Vulkan system-synchronizes-with: from every event of a thread to every event of a thread
    /// the test's `ssw` block declares after it (host-side synchronisation, such as a semaphore).
    Ssw "ssw";
    /// Same scope tag and same scope instance.
    Sr "sr";
    /// Both events scoped, and each one's scope instance contains the other's thread.
    Incl "incl";
}

impl Relation {
    /// The relation a model names `name`, if any.
    pub(crate) fn from_name(name: &str) -> Option<Relation> {
        match Name::from_name(name)? {
            Name::Rel(r) => Some(r),
            Name::Set(_) | Name::Tag(_) => None,
        }
    }
}

/// Any built-in name: an event set, a tag (the set of events carrying it) or a relation.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Name {
    /// A built-in event set (`R`, `W`, `F`, …).
    Set(EventSet),
    /// A tag: the set of events carrying it (`ACQ`, `GPU`, …).
    Tag(Tag),
    /// A built-in relation (`po`, `rf`, `co`, …).
    Rel(Relation),
}

impl Name {
    /// Every built-in name: the event sets, the tags, the relations, each in its order.
    pub(crate) fn all() -> impl Iterator<Item = Name> {
        let sets = EVENT_SETS.into_iter().map(Name::Set);
        let tags = TAGS.into_iter().map(Name::Tag);
        sets.chain(tags).chain(relations().map(Name::Rel))
    }

    /// The name models use.
    pub fn name(self) -> &'static str {
        match self {
            Name::Set(s) => s.name(),
            Name::Tag(t) => t.name(),
            Name::Rel(r) => r.name(),
        }
    }

    /// The built-in a model names `name`, if any (a table built once: the evaluator looks names
    /// up on every execution).
    pub(crate) fn from_name(name: &str) -> Option<Name> {
        static BY_NAME: std::sync::OnceLock<HashMap<&'static str, Name>> =
            std::sync::OnceLock::new();
        let by_name = BY_NAME.get_or_init(|| {
            let mut by_name = HashMap::new();
            for n in Name::all() {
                by_name.entry(n.name()).or_insert(n);
            }
            by_name
        });
        by_name.get(name).copied()
    }

    /// Whether the name denotes a set of events or a relation.
    pub(crate) fn kind(self) -> Kind {
        match self {
            Name::Set(_) | Name::Tag(_) => Kind::Set,
            Name::Rel(_) => Kind::Rel,
        }
    }
}

/// The kind of a built-in name, or `None` if the vocabulary does not have it.
pub fn kind_of(name: &str) -> Option<Kind> {
    Name::from_name(name).map(Name::kind)
}

/// Is `name` an annotation a front end may attach?
pub fn is_tag(name: &str) -> bool {
    Tag::from_name(name).is_some()
}

/// All built-in names (for "did you mean" suggestions).
pub fn all_names() -> impl Iterator<Item = &'static str> {
    Name::all().map(Name::name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scope tag at a level the readings do not list would be no scope to the search.
    #[test]
    fn every_scope_tag_has_a_listed_level() {
        for t in TAGS {
            assert_eq!(t.level().is_some(), t.role() == Role::Scope, "{t}");
            assert!(t.level().is_none_or(|l| Level::ALL.contains(&l)), "{t}");
        }
    }

    #[test]
    fn names_read_back() {
        for t in TAGS {
            assert_eq!(Tag::from_name(t.name()), Some(t));
        }
        assert_eq!(Tag::from_name("acq"), None);
        for n in Name::all() {
            assert_eq!(Name::from_name(n.name()), Some(n));
        }
    }

    #[test]
    fn scopes_and_only_scopes_have_a_level() {
        for t in TAGS {
            assert_eq!(t.level().is_some(), t.role() == Role::Scope, "{t}");
        }
    }
}
