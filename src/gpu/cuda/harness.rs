//! A CUDA harness: a test's layout, outcome space, memory events and PTX (`kernel.ptx`), and
//! the directory `emit` writes and `load` reads back.
use std::path::{Path, PathBuf};

use crate::output::OutputDir;

use super::events::{events, Event};
use super::kernel;
use crate::diag::{Error, Result};
use crate::gpu::harness::{load_checked, write_dir};
use crate::gpu::layout::Layout;
use crate::gpu::outcome::Space;
use crate::gpu::params::Params;
use crate::litmus::Litmus;

/// Name of the PTX file of a CUDA harness directory.
pub const KERNEL_FILE: &str = "kernel.ptx";

/// The files optcheck writes into a harness directory (`optcheck::check_dir`): the cubin (only
/// when optcheck passed) and its SASS.
pub const OPTCHECK_FILES: [&str; 2] = [
    concat!("kernel.", arch!(), ".cubin"),
    concat!("kernel.", arch!(), ".sass"),
];

/// The name of a harness's cubin for `arch` (`kernel.sm_90.cubin`).
pub(crate) fn cubin_file(arch: &str) -> String {
    format!("kernel.{arch}.cubin")
}

/// The most threads a CUDA block has on every device since sm_20.
pub(crate) const MAX_BLOCK: u32 = 1024;

/// A test ready to run on CUDA: its layout, outcome space, events and PTX.
#[derive(Clone, Debug)]
pub struct Harness {
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

impl Harness {
    /// Build the CUDA harness of `test`: layout, outcome space, memory events and PTX; `name` is
    /// used in messages. An error if the test accesses no memory or has an instruction the harness
    /// cannot emit.
    pub fn new(name: &str, test: Litmus) -> Result<Harness> {
        let layout = Layout::of(&test)?;
        if layout.locations.is_empty() {
            return Err(Error::file(&test.name, "the test accesses no memory"));
        }
        let space = Space::of(&test)?;
        let events = events(&test)?;
        let kernel = kernel::kernel_file(&test, &layout, &space, &events)?;
        Ok(Harness {
            name: name.to_string(),
            test,
            layout,
            space,
            events,
            kernel,
        })
    }

    /// The harness in `dir`, its `kernel.ptx` checked against the one `test.litmus` gives.
    pub fn load(dir: &Path) -> Result<Harness> {
        load_checked(dir, KERNEL_FILE, "cuda", Harness::new, |h| &h.kernel)
    }
}

/// Write the CUDA harness of `test` (its condition already selected) into `dir`:
/// `test.litmus`, `params.toml`, `kernel.ptx`. The parameters must fit the test (enough testing
/// work-groups for its CTAs, unless they are sized to the device at run time; blocks large
/// enough for its threads per CTA).
pub fn emit(test: &Litmus, params: &Params, dir: &Path) -> Result<Vec<PathBuf>> {
    emit_held(test, params, dir).map(|(files, _)| files)
}

/// `emit`, the directory returned still held.
pub(crate) fn emit_held(
    test: &Litmus,
    params: &Params,
    dir: &Path,
) -> Result<(Vec<PathBuf>, OutputDir)> {
    let harness = Harness::new(&dir.display().to_string(), test.clone())?;
    // Counts sized to the device at run time are checked there.
    if params.workgroups_per_compute_unit == 0 {
        harness.layout.testing_workgroups(params)?;
    }
    harness.layout.max_workgroup_size(params, MAX_BLOCK)?;
    write_dir(
        dir,
        test,
        params,
        KERNEL_FILE,
        &harness.kernel,
        &OPTCHECK_FILES,
    )
}
