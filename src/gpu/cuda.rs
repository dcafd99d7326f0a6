//! The CUDA target: a litmus test as a PTX harness that mapcheck writes itself (no nvcc), run
//! through the CUDA driver API, and checked from the SASS by `optcheck`.
//!
//! Files of a CUDA harness directory: `test.litmus` and `params.toml` (`gpu::harness`),
//! `kernel.ptx`. `run` regenerates the kernel from `test.litmus` and refuses a `kernel.ptx` that
//! differs: the test is the one source of truth.
//!
//! Module map: `events` (each thread's accesses and fences, with the tags that name them in the
//! SASS and the manufactured dependencies) → `thread` (a test thread as a PTX function) →
//! `kernel` (the file: `litmus_init`, `litmus_test`, `litmus_classify` over `layout` and
//! `KNOBS`, the OpenCL kernels' twins) → `harness` (a test's `Harness`, `emit`, `load`) →
//! `optcheck` (ptxas and nvdisasm: did every access and fence of the test survive in the SASS?)
//! → `host` (`cudarc`, libcuda loaded at run time). Decisions: `docs/decisions/004-ptx-harness.md`.
//!
//! Threads the test puts on different GPUs run in different CTAs of the one device
//! (`Layout::of`).
//!
//! Files:
//! - `cuda/harness.rs`: `Harness`, `emit`, the CUDA directory's files.
//! - `cuda/events.rs`: each thread's accesses and fences, their tags and dependencies.
//! - `cuda/thread.rs`: one test thread as a PTX function.
//! - `cuda/kernel.rs`: the PTX kernel file's assembly, its header and `Body`.
//! - `cuda/host.rs`: the CUDA host, on `cudarc`; `module_for`.
//! - `cuda/optcheck.rs`: did ptxas keep the test? `check_dir`, `check_sass`, `Report`.
/// The architecture optcheck assembles for, a macro for the file names (`OPTCHECK_FILES`).
macro_rules! arch {
    () => {
        "sm_90"
    };
}

mod events;
mod harness;
mod host;
mod kernel;
pub mod optcheck;
mod thread;

pub use events::{events, Access, AtomOp, Event, Fence, Op, Scope, Sem, Strength};
pub(crate) use harness::emit_held;
pub use harness::{emit, Harness, KERNEL_FILE};
pub use host::{module_for, run, Module, Run};
pub use kernel::{CLASSIFY_KERNEL, INIT_KERNEL, TEST_KERNEL};
