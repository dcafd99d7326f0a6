//! C11's and OpenCL's words for vocabulary tags: `memory_order_*`, `memory_scope_*` (OpenCL),
//! `thread_scope_*` (C11, CUDA's spelling), OpenCL fence flags and address spaces.
//!
//! Owns: the C tables. Read by the C front end (`litmus::c_calls`, `litmus::c`), the C printer
//! (`litmus::print_c`) and the OpenCL emitter (`gpu::opencl`).
use super::Words;
use crate::vocab::{Level, Tag};

/// The words of a thread's placement in a C11 test (`P0@cta 0, cluster 0, gpu 0`), innermost
/// first; a level not written is instance 0.
pub(crate) const C11_PLACEMENT: [(&str, Level); 3] = [
    ("cta", Level::Cta),
    ("cluster", Level::Cluster),
    ("gpu", Level::Gpu),
];

/// The words of a thread's placement in an OpenCL test (`P0@wg 0, dev 0`), innermost first.
pub(crate) const OPENCL_PLACEMENT: [(&str, Level); 2] = [("wg", Level::Cta), ("dev", Level::Gpu)];

/// `memory_order_*` words. NA has none: a non-atomic access is a plain one.
pub(crate) const MEMORY_ORDERS: Words = Words(&[
    ("memory_order_relaxed", Tag::Rlx),
    ("memory_order_consume", Tag::Con),
    ("memory_order_acquire", Tag::Acq),
    ("memory_order_release", Tag::Rel),
    ("memory_order_acq_rel", Tag::AcqRel),
    ("memory_order_seq_cst", Tag::Sc),
]);

/// OpenCL's `memory_scope_*` words (`memory_scope_all_devices` is an alias of
/// `memory_scope_all_svm_devices`).
pub(crate) const OPENCL_SCOPES: Words = Words(&[
    ("memory_scope_work_item", Tag::Wi),
    ("memory_scope_sub_group", Tag::Sg),
    ("memory_scope_work_group", Tag::Wg),
    ("memory_scope_device", Tag::Dev),
    ("memory_scope_all_svm_devices", Tag::All),
    ("memory_scope_all_devices", Tag::All),
]);

/// C11's scope words, spelled after CUDA's `cuda::thread_scope_*`.
pub(crate) const C11_SCOPES: Words = Words(&[
    ("thread_scope_thread", Tag::Wi),
    ("thread_scope_block", Tag::Cta),
    ("thread_scope_cluster", Tag::Cluster),
    ("thread_scope_device", Tag::Gpu),
    ("thread_scope_system", Tag::Sys),
]);

/// OpenCL fence flags: the regions a fence or barrier is about.
pub(crate) const FENCE_FLAGS: Words = Words(&[
    ("CLK_GLOBAL_MEM_FENCE", Tag::Global),
    ("CLK_LOCAL_MEM_FENCE", Tag::Local),
]);

/// OpenCL address-space qualifiers of a location parameter (`__global` and `__local` are
/// aliases).
pub(crate) const ADDRESS_SPACES: Words = Words(&[
    ("global", Tag::Global),
    ("local", Tag::Local),
    ("__global", Tag::Global),
    ("__local", Tag::Local),
]);

/// The scope words of a C11 (`opencl == false`) or an OpenCL test.
pub(crate) fn scopes(opencl: bool) -> &'static Words {
    if opencl {
        &OPENCL_SCOPES
    } else {
        &C11_SCOPES
    }
}

#[cfg(test)]
mod tests {
    use super::super::assert_round_trips;
    use super::*;

    #[test]
    fn memory_orders_round_trip() {
        assert_round_trips(&MEMORY_ORDERS, &[]);
    }

    #[test]
    fn opencl_scopes_round_trip() {
        assert_round_trips(&OPENCL_SCOPES, &["memory_scope_all_devices"]);
    }

    #[test]
    fn c11_scopes_round_trip() {
        assert_round_trips(&C11_SCOPES, &[]);
    }

    #[test]
    fn fence_flags_round_trip() {
        assert_round_trips(&FENCE_FLAGS, &[]);
    }

    #[test]
    fn address_spaces_round_trip() {
        assert_round_trips(&ADDRESS_SPACES, &["__global", "__local"]);
    }
}
