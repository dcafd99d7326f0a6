//! The CUDA target: a litmus test as a PTX harness that mapcheck writes itself (no nvcc), run
//! through the CUDA driver API, and checked from the SASS by `optcheck`.
//!
//! Files of a CUDA harness directory: `test.litmus` and `params.toml` (as for OpenCL,
//! `harness`), `kernel.ptx`. `run` regenerates the kernel from `test.litmus` and refuses a
//! `kernel.ptx` that differs: the test is the one source of truth.
//!
//! Module map: `events` (each thread's accesses and fences, with the tags that name them in the
//! SASS and the manufactured dependencies) → `thread` (a test thread as a PTX function) →
//! `kernel` (the file: `litmus_init`, `litmus_test`, `litmus_classify` over `layout` and
//! `KNOBS`, the OpenCL kernels' twins) → `host` (`cudarc`, libcuda loaded at run time).
//! Uses: `gpu::{layout, outcome, params, stats, harness, detect}`, `litmus`, `diag`. Decisions:
//! `docs/decisions/004-ptx-harness.md`.
//!
//! Threads the test puts on different GPUs run in different CTAs of the one device
//! (`Layout::of`).
mod events;
mod host;
mod kernel;
mod thread;

use std::path::{Path, PathBuf};

pub use events::{events, tag_of, Access, AtomOp, Event, Fence, Op, Scope, Sem, Strength};
pub use host::{module_for, run, Module, Run};
pub use kernel::{CLASSIFY_KERNEL, INIT_KERNEL, TEST_KERNEL};
pub(crate) use thread::name as thread_function;

use super::harness::{load_checked, write_dir};
use super::layout::Layout;
use super::outcome::Space;
use super::params::Params;
use crate::diag::{Error, Result};
use crate::litmus::Litmus;

/// Name of the PTX file of a CUDA harness directory.
pub const KERNEL_FILE: &str = "kernel.ptx";

/// The most threads a CUDA block has on every device since sm_20.
pub(crate) const MAX_BLOCK: u32 = 1024;

/// A test ready to run on CUDA: its layout, outcome space, events and PTX.
#[derive(Clone, Debug)]
pub struct PtxHarness {
    /// The harness directory (or test name), for messages.
    pub(crate) name: String,
    pub(crate) test: Litmus,
    pub(crate) layout: Layout,
    pub(crate) space: Space,
    /// Per thread, its memory events as emitted (what optcheck expects in the SASS).
    pub events: Vec<Vec<Event>>,
    /// The whole `kernel.ptx` text: the init, test and classify kernels.
    pub kernel: String,
}

impl PtxHarness {
    /// Build the CUDA harness of `test`: layout, outcome space, memory events and PTX; `name` is
    /// used in messages. An error if the test accesses no memory or has an instruction the harness
    /// cannot emit.
    pub fn new(name: &str, test: Litmus) -> Result<PtxHarness> {
        let layout = Layout::of(&test)?;
        if layout.locations.is_empty() {
            return Err(Error::file(&test.name, "the test accesses no memory"));
        }
        let space = Space::of(&test)?;
        let events = events(&test)?;
        let kernel = kernel::kernel_file(&test, &layout, &space, &events)?;
        Ok(PtxHarness {
            name: name.to_string(),
            test,
            layout,
            space,
            events,
            kernel,
        })
    }

    /// The harness in `dir`, its `kernel.ptx` checked against the one `test.litmus` gives.
    pub fn load(dir: &Path) -> Result<PtxHarness> {
        load_checked(dir, KERNEL_FILE, "cuda", PtxHarness::new, |h| &h.kernel)
    }
}

/// Write the CUDA harness of `test` (its condition already selected) into `dir`:
/// `test.litmus`, `params.toml`, `kernel.ptx`. The parameters must fit the test (enough testing
/// work-groups for its CTAs, unless they are sized to the device at run time; blocks large
/// enough for its threads per CTA).
pub fn emit(test: &Litmus, params: &Params, dir: &Path) -> Result<Vec<PathBuf>> {
    let harness = PtxHarness::new(&dir.display().to_string(), test.clone())?;
    // Counts sized to the device at run time are checked there.
    if params.workgroups_per_compute_unit == 0 {
        harness.layout.testing_workgroups(params)?;
    }
    harness.layout.max_workgroup_size(params, MAX_BLOCK)?;
    let optcheck_files = super::optcheck::FILES;
    write_dir(
        dir,
        test,
        params,
        KERNEL_FILE,
        &harness.kernel,
        &optcheck_files,
    )
}
