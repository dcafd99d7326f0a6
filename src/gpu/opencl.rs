//! The OpenCL target: a litmus test as OpenCL C kernels (`kernel.cl`), run on any OpenCL device
//! through `opencl3`.
//!
//! Module map: `atomics` (which order, scope and C atomic each tag becomes; their words are
//! `isa::c`'s) → `thread` (a test thread as a C function) → `kernel` (the file: `litmus_init`,
//! `litmus_test`, `litmus_classify`) → `host` (the `opencl3` runner on a device `detect` found).
//! This file: the `Harness` of a test, the directory `write` and `load`, and the run's context.
//! Decisions: `docs/decisions/003-gpu-harness.md`.
//!
//! Files:
//! - `opencl/kernel.rs`: `kernel_source`, the three OpenCL C kernels.
//! - `opencl/thread.rs`: one test thread as a C function.
//! - `opencl/atomics.rs`: which order, scope and C atomic each tag becomes.
//! - `opencl/host.rs`: the OpenCL host, on `opencl3`.
mod atomics;
mod host;
mod kernel;
mod thread;

use std::path::{Path, PathBuf};

use crate::output::OutputDir;

pub use host::run;
pub use kernel::kernel_source;

use super::detect::Device;
use super::harness::{load_checked, write_dir};
use super::layout::Layout;
use super::outcome::Space;
use super::params::Params;
use super::results::RunContext;
use crate::diag::Result;
use crate::litmus::Litmus;

/// Name of the OpenCL C file of an OpenCL harness directory.
pub const KERNEL_FILE: &str = "kernel.cl";

/// A test ready to run: its layout, its outcome space and its OpenCL C kernels.
#[derive(Clone, Debug)]
pub struct Harness {
    /// The harness directory (or test name), for messages.
    pub(crate) name: String,
    /// The test, its condition selected.
    pub test: Litmus,
    /// Where each thread and location of the test sits in a launch.
    pub layout: Layout,
    /// The observable states the kernels classify instances into.
    pub space: Space,
    pub(crate) kernel: String,
}

impl Harness {
    /// Build the harness of `test`: its layout, outcome space and OpenCL C kernel source; `name` is
    /// used in messages.
    pub fn new(name: &str, test: Litmus) -> Result<Harness> {
        let layout = Layout::of(&test)?;
        let space = Space::of(&test)?;
        let kernel = kernel::kernel_source(&test, &layout, &space)?;
        Ok(Harness {
            name: name.to_string(),
            test,
            layout,
            space,
            kernel,
        })
    }

    /// The harness in `dir`, its `kernel.cl` checked against the one `test.litmus` gives.
    pub(crate) fn load(dir: &Path) -> Result<Harness> {
        load_checked(dir, KERNEL_FILE, "opencl", Harness::new, |h| &h.kernel)
    }
}

/// Write the OpenCL harness of `test` (its condition already selected) into `dir`, returned held.
pub(crate) fn write(
    test: &Litmus,
    params: &Params,
    dir: &Path,
) -> Result<(Vec<PathBuf>, OutputDir)> {
    let harness = Harness::new(&dir.display().to_string(), test.clone())?;
    write_dir(dir, test, params, KERNEL_FILE, &harness.kernel, &[])
}

/// What ran where, for a run's result: the OpenCL device and its platform.
pub fn context(device: &Device) -> RunContext {
    RunContext {
        target: "opencl",
        device: device.name.clone(),
        driver: format!(
            "{} {}, -cl-std={}",
            device.platform,
            device.platform_version,
            device.cl_std.unwrap_or("?")
        ),
        cpu: device.kind == "CPU",
        module: None,
        notes: vec![],
    }
}
