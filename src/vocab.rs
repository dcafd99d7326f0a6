//! The event vocabulary: every built-in set and relation a cat model may name.
//!
//! Owns: the closed list of base names, their kinds, and what each means. The cat lowering uses it
//! to resolve names and check kinds; the execution builder (`exec`) computes exactly these names for
//! each concrete execution; litmus front ends attach only tags listed in `TAGS`. A new architecture
//! adds its tags here, never new Rust in the evaluator.

/// Whether a name denotes a set of events or a relation between events.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, serde::Serialize)]
pub enum Kind {
    Set,
    Rel,
}

/// Event kinds and structural sets, computed from the execution's shape.
pub const EVENT_SETS: &[(&str, &str)] = &[
    ("_", "all events (herd's wildcard)"),
    ("E", "all events"),
    ("R", "reads (including the read of an RMW)"),
    (
        "W",
        "writes (including initial writes and the write of an RMW)",
    ),
    ("M", "memory events, R | W"),
    ("F", "fences"),
    (
        "BAR",
        "execution-barrier events (bar.cta.sync / bar.cta.arrive, OpenCL barrier)",
    ),
    ("IW", "initial writes"),
    ("RMW", "the read and the write of every read-modify-write"),
];

/// Annotation tags attached by the litmus front ends; each is also the set of events carrying it.
pub const TAGS: &[(&str, &str)] = &[
    // Memory orders / PTX semantics.
    ("NA", "non-atomic access (C, OpenCL)"),
    ("WEAK", "PTX .weak access (no scope)"),
    ("RLX", "relaxed (C memory_order_relaxed, PTX .relaxed)"),
    ("ACQ", "acquire"),
    ("REL", "release"),
    ("ACQ_REL", "acquire-release"),
    ("SC", "sequentially consistent (C seq_cst, PTX fence.sc)"),
    ("CON", "C memory_order_consume"),
    ("V", "PTX .volatile access (treated as .relaxed.sys)"),
    (
        "RED",
        "PTX red: an RMW with no destination register (forms no acquire pattern)",
    ),
    // PTX scopes.
    ("CTA", "PTX .cta scope"),
    ("GPU", "PTX .gpu scope"),
    ("SYS", "PTX .sys scope"),
    // OpenCL scopes and memory regions.
    ("WI", "OpenCL memory_scope_work_item"),
    ("SG", "OpenCL memory_scope_sub_group"),
    ("WG", "OpenCL memory_scope_work_group"),
    ("DEV", "OpenCL memory_scope_device"),
    ("ALL", "OpenCL memory_scope_all_svm_devices"),
    ("GLOBAL", "access to (or fence on) global memory"),
    ("LOCAL", "access to (or fence on) local memory"),
    // Barrier flavours.
    ("SYNC", "barrier that waits (bar.cta.sync, OpenCL barrier)"),
    ("ARRIVE", "barrier that only arrives (bar.cta.arrive)"),
];

/// Built-in relations.
pub const RELATIONS: &[(&str, &str)] = &[
    ("id", "identity on all events"),
    (
        "po",
        "program order (strict, per thread; initial writes are not in po)",
    ),
    (
        "rf",
        "reads-from: write to read of the same location and value",
    ),
    (
        "co",
        "coherence order (transitive; total per location or partial, as the model declares)",
    ),
    ("fr", "from-reads, rf^-1; co"),
    ("loc", "same location (memory events)"),
    ("int", "same thread"),
    ("ext", "different threads (initial writes are in no thread)"),
    ("rmw", "read of an RMW to its write"),
    ("addr", "address dependency"),
    ("data", "data dependency"),
    ("ctrl", "control dependency"),
    (
        "syncbar",
        "barrier events of the same barrier instance (same id, same CTA / work-group)",
    ),
    (
        "scta",
        "same CTA (threads placed in the same cta of the same gpu)",
    ),
    ("sgpu", "same GPU"),
    ("swg", "same work-group (OpenCL name for scta)"),
    ("sdv", "same device (OpenCL name for sgpu)"),
    ("sr", "same scope tag and same scope instance"),
    (
        "incl",
        "both events scoped, and each one's scope instance contains the other's thread",
    ),
];

/// The kind of a built-in name, or `None` if the vocabulary does not have it.
pub fn kind_of(name: &str) -> Option<Kind> {
    let in_list = |l: &[(&str, &str)]| l.iter().any(|(n, _)| *n == name);
    if in_list(EVENT_SETS) || in_list(TAGS) {
        Some(Kind::Set)
    } else if in_list(RELATIONS) {
        Some(Kind::Rel)
    } else {
        None
    }
}

/// The vocabulary tag spelled `name`, if there is one (as a `'static` name).
pub fn tag(name: &str) -> Option<&'static str> {
    TAGS.iter().map(|(t, _)| *t).find(|t| *t == name)
}

/// Is `tag` an annotation a front end may attach?
pub fn is_tag(tag: &str) -> bool {
    self::tag(tag).is_some()
}

/// All built-in names (for "did you mean" suggestions).
pub fn all_names() -> impl Iterator<Item = &'static str> {
    EVENT_SETS
        .iter()
        .chain(TAGS)
        .chain(RELATIONS)
        .map(|(n, _)| *n)
}
