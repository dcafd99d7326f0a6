//! Vulkan's words for vocabulary tags, as the Khronos Vulkan memory-model litmus tests write
//! them (`ld.atom.acq.wg.sc0.semsc0.semvis r0, x`): memory orders, scopes, storage classes, the
//! storage classes a barrier's semantics cover, and the flags (atomicity, non-private,
//! availability and visibility).
//!
//! Owns: the Vulkan tables. Read by the Vulkan litmus front end (`litmus::vulkan`), which decides
//! which qualifiers each instruction takes.
use super::Words;
use crate::vocab::{Level, Tag};

/// The words of a thread's placement in a test's header (`P0@sg 0,wg 0,qf 0`), innermost first.
pub(crate) const PLACEMENT: [(&str, Level); 3] = [
    ("sg", Level::Subgroup),
    ("wg", Level::Cta),
    ("qf", Level::Gpu),
];

/// Memory orders (`.acq`, `.rel`, `.acq_rel`); an atomic without one is relaxed.
pub(crate) const ORDERS: Words = Words(&[
    ("acq", Tag::Acq),
    ("rel", Tag::Rel),
    ("acq_rel", Tag::AcqRel),
]);

/// Scopes: subgroup, workgroup, queue family, device.
pub(crate) const SCOPES: Words = Words(&[
    ("sg", Tag::Sg),
    ("wg", Tag::Wg),
    ("qf", Tag::Qf),
    ("dv", Tag::Dv),
]);

/// The storage class an access is to.
pub(crate) const STORAGE_CLASSES: Words = Words(&[
    ("sc0", Tag::Sc0),
    ("sc1", Tag::Sc1),
    ("sc2", Tag::Sc2),
    ("sc3", Tag::Sc3),
]);

/// The storage classes whose accesses an acquire or release orders (its storage-class semantics).
pub(crate) const SEMANTICS_CLASSES: Words = Words(&[
    ("semsc0", Tag::Semsc0),
    ("semsc1", Tag::Semsc1),
    ("semsc2", Tag::Semsc2),
    ("semsc3", Tag::Semsc3),
]);

/// Flags: an atomic access, a non-private one, a per-instruction availability (`st.av`) or
/// visibility (`ld.vis`) operation, and the MakeAvailable / MakeVisible semantics of a release or
/// acquire.
pub(crate) const FLAGS: Words = Words(&[
    ("atom", Tag::Atom),
    ("nonpriv", Tag::Nonpriv),
    ("av", Tag::Av),
    ("vis", Tag::Vis),
    ("semav", Tag::Semav),
    ("semvis", Tag::Semvis),
]);

#[cfg(test)]
mod tests {
    use super::super::assert_round_trips;
    use super::*;

    #[test]
    fn tables_round_trip() {
        for table in [
            &ORDERS,
            &SCOPES,
            &STORAGE_CLASSES,
            &SEMANTICS_CLASSES,
            &FLAGS,
        ] {
            assert_round_trips(table, &[]);
        }
    }
}
