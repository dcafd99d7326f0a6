//! The CUDA host of a PTX harness, on `cudarc` with the driver library loaded at run time (the
//! binary builds and starts without CUDA). It loads the cubin that ptxas built and optcheck
//! passed for the device's architecture (`module_for`: the one `gpu emit` wrote for sm_90, or one
//! assembled and checked at run time for another architecture), and only when the bundled ptxas
//! cannot build that architecture (or is not at hand) `kernel.ptx` through the driver's JIT, with
//! a warning in the report. It sizes the parameters to the device (SM count and the occupancy
//! calculator's resident blocks, `Params::scaled_to`), allocates the buffers once at their
//! largest (checked sizes, `layout::InstanceSizes`), and runs the launches as the OpenCL host
//! does: per launch, fresh iteration parameters from the seed's generator (`layout::Launch`),
//! then `litmus_init`, `litmus_test`, `litmus_classify`, and the histogram read back into a
//! `stats::Tally`.
//!
//! Owns: `run`, `Run`, `module_for`, `Module`. Without `libcuda.so.1`, or without a device, `run` says so
//! (`Run::Unavailable`) and touches nothing else: cudarc panics when asked to load a library
//! that is missing, so `detect::cuda_driver` is asked first.
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;
use rand::rngs::StdRng;
use rand::SeedableRng;

use super::events::Event;
use super::harness::{Harness, MAX_BLOCK};
use super::kernel::{CLASSIFY_KERNEL, INIT_KERNEL, TEST_KERNEL};
use super::optcheck;
use crate::diag::{Error, Result};
use crate::gpu::detect;
use crate::gpu::layout::{InstanceSizes, Launch, KNOBS, SCRATCH_WORDS};
use crate::gpu::params::{DeviceLimits, Params};
use crate::gpu::results::RunContext;
use crate::gpu::stats::Tally;

/// What a CUDA run came to.
#[derive(Clone, Debug)]
pub enum Run {
    /// Nothing to run on: why (no driver library, no device).
    Unavailable(String),
    /// The launches ran: what ran where, and the tally.
    Ran {
        /// The device, its driver, the module loaded, notes.
        context: RunContext,
        /// The parameters the launches ran with (sized to the device).
        params: Params,
        /// Counts over the launches.
        tally: Tally,
    },
}

/// What the host hands the driver: the cubin optcheck passed, or the PTX for the driver's JIT.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Module {
    /// A cubin ptxas built and optcheck passed, for the device's architecture.
    Cubin {
        /// Where it was read from.
        path: PathBuf,
        /// Its bytes, exactly as loaded.
        bytes: Vec<u8>,
    },
    /// `kernel.ptx` for the driver's JIT, and why no checked cubin could be had.
    Jit {
        /// Why not a cubin (reported as a warning).
        why: String,
    },
}

impl Module {
    fn describe(&self) -> String {
        match self {
            Module::Cubin { path, .. } => {
                format!("{} (assembled by ptxas, passed optcheck)", path.display())
            }
            Module::Jit { why } => format!(
                "kernel.ptx through the driver's JIT: WARNING: {why}; optcheck's properties are \
                 unverified for the code that ran"
            ),
        }
    }
}

/// The module for a device of architecture `arch` (`sm_90`): the cubin `gpu emit` wrote and
/// optcheck passed (`kernel.<arch>.cubin`, written only when it passed); else one assembled and
/// checked now (where ptxas and nvdisasm are found), in a temporary directory; else, when ptxas
/// cannot build `arch` or is not at hand, the PTX JIT with the reason. A cubin that fails
/// optcheck is an error, as at `gpu emit`.
pub fn module_for(dir: &Path, arch: &str) -> Result<Module> {
    let emitted = dir.join(optcheck::cubin_file(arch));
    if emitted.exists() {
        let bytes = std::fs::read(&emitted)
            .map_err(|e| Error::file(emitted.display().to_string(), e.to_string()))?;
        return Ok(Module::Cubin {
            path: emitted,
            bytes,
        });
    }
    let tools = match optcheck::find_tools() {
        Ok(t) => t,
        Err(why) => {
            return Ok(Module::Jit {
                why: format!("no cubin for {arch} in the harness and {why}"),
            })
        }
    };
    let scratch =
        tempfile::tempdir().map_err(|e| Error::file("a temporary directory", e.to_string()))?;
    match optcheck::check_for(dir, &tools, arch, scratch.path())? {
        optcheck::Checked::Unsupported(why) => Ok(Module::Jit {
            why: format!("the bundled ptxas cannot build {arch}: {why}"),
        }),
        optcheck::Checked::Report(report) if !report.passed() => Err(Error::file(
            dir.display().to_string(),
            format!("optcheck failed for {arch}: ptxas did not keep the test's accesses\n{report}"),
        )),
        optcheck::Checked::Report(_) => {
            let path = scratch.path().join(optcheck::cubin_file(arch));
            let bytes = std::fs::read(&path)
                .map_err(|e| Error::file(path.display().to_string(), e.to_string()))?;
            Ok(Module::Cubin {
                path: dir.join(format!(
                    "{} (assembled at run time)",
                    optcheck::cubin_file(arch)
                )),
                bytes,
            })
        }
    }
}

/// Threads per block of the per-instance kernels (`litmus_init`, `litmus_classify`).
const INSTANCE_BLOCK: u32 = 256;

/// Run `params.iterations` launches of the CUDA harness `h` (read from `dir`) on device
/// `device` (the driver's ordinal; 0 by default), its parameters sized to the device
/// (`Params::scaled_to`).
pub fn run(h: &Harness, dir: &Path, params: &Params, device: Option<usize>) -> Result<Run> {
    if !detect::cuda_driver() {
        let lib = detect::CUDA_DRIVER.to_string_lossy();
        return Ok(Run::Unavailable(format!(
            "no CUDA driver ({lib} cannot be loaded)"
        )));
    }
    let fail =
        |what: &str, e: DriverError| Error::file(&h.name, format!("CUDA: {what} failed: {e}"));
    let ordinal = device.unwrap_or(0);
    match CudaContext::device_count() {
        Ok(n) if n as usize > ordinal => {}
        Ok(n) => {
            return Ok(Run::Unavailable(format!(
                "the CUDA driver sees {n} devices, no device {ordinal}"
            )))
        }
        Err(e) => return Ok(Run::Unavailable(format!("the CUDA driver reports {e}"))),
    }
    let ctx = CudaContext::new(ordinal).map_err(|e| fail("opening the device", e))?;
    let name = ctx.name().map_err(|e| fail("reading the device name", e))?;
    let (major, minor) = ctx
        .compute_capability()
        .map_err(|e| fail("reading the compute capability", e))?;
    let module = module_for(dir, &format!("sm_{major}{minor}"))?;
    let stream = ctx.default_stream();
    let loaded = match &module {
        Module::Cubin { bytes, .. } => ctx.load_module(Ptx::from_binary(bytes.clone())),
        Module::Jit { .. } => ctx.load_module(Ptx::from_src(h.kernel.clone())),
    }
    .map_err(|e| fail("loading the module", e))?;
    let load = |name: &str| {
        loaded
            .load_function(name)
            .map_err(|e| fail(&format!("finding {name}"), e))
    };
    let kernels = Kernels {
        init: load(INIT_KERNEL)?,
        test: load(TEST_KERNEL)?,
        classify: load(CLASSIFY_KERNEL)?,
    };
    let attribute = |a, what: &str| {
        ctx.attribute(a)
            .map(|v| u32::try_from(v).unwrap_or(0))
            .map_err(|e| fail(what, e))
    };
    let block = attribute(
        CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        "reading the largest block",
    )?;
    let sms = attribute(
        CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        "reading the SM count",
    )?;
    let max_size = h
        .layout
        .max_workgroup_size(params, block.clamp(1, MAX_BLOCK))?;
    let per_sm = kernels
        .test
        .occupancy_max_active_blocks_per_multiprocessor(max_size, 0, None)
        .map_err(|e| fail("asking the occupancy calculator", e))?;
    let (scaled, cut) = params.scaled_to(DeviceLimits {
        compute_units: sms,
        resident_workgroups: Some(per_sm.saturating_mul(sms)),
    });
    let params = &scaled;
    let sizes = h
        .layout
        .instance_sizes(params, max_size, h.space.registers())?;
    let blocks = h.layout.testing_workgroups(params)? as usize / h.layout.ctas;
    let mut buffers = Buffers::create(&stream, h, params, max_size, &sizes, blocks)
        .map_err(|e| fail("allocating buffers", e))?;
    let mut rng = StdRng::seed_from_u64(params.seed);
    let mut tally = Tally::new(&h.space);
    for _ in 0..params.iterations {
        let launch = Launch::draw(&h.layout, params, max_size, &mut rng)?;
        let start = Instant::now();
        let histogram = buffers
            .launch(&stream, &kernels, &launch, params)
            .map_err(|e| fail("a launch", e))?;
        tally.add_launch(&histogram, launch.instances, start.elapsed().as_secs_f64());
    }
    let mut notes = vec![format!(
        "{sms} SMs, {per_sm} blocks of {max_size} threads resident per SM: {} testing and up to {} work-groups per launch",
        params.testing_workgroups, params.max_workgroups
    )];
    notes.extend(cut);
    let context = RunContext {
        target: "cuda",
        device: format!("{name} (device {ordinal}, sm_{major}{minor})"),
        driver: driver_version(),
        cpu: false,
        module: Some(module.describe()),
        notes,
    };
    Ok(Run::Ran {
        context,
        params: scaled.clone(),
        tally,
    })
}

/// The CUDA driver's version (`CUDA driver 12.8`).
fn driver_version() -> String {
    let mut v: std::ffi::c_int = 0;
    // SAFETY: the driver library is loaded (checked by the caller); one int written.
    let ok = unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut v) };
    if ok == cudarc::driver::sys::CUresult::CUDA_SUCCESS {
        format!("CUDA driver {}.{}", v / 1000, (v % 1000) / 10)
    } else {
        "CUDA driver (version unknown)".into()
    }
}

struct Kernels {
    init: CudaFunction,
    test: CudaFunction,
    classify: CudaFunction,
}

/// The access table `litmus_test` reads: per access, its location's index and its tag.
fn access_table(h: &Harness) -> Vec<u32> {
    h.events
        .iter()
        .flatten()
        .filter_map(|e| match e {
            Event::Access(a) => Some(a),
            Event::Fence(_) => None,
        })
        .flat_map(|a| {
            let loc = h.layout.location_index(&a.location).unwrap_or(0) as u32;
            [loc, a.tag]
        })
        .collect()
}

/// The device buffers, at the largest size any launch needs.
struct Buffers {
    mem: CudaSlice<i32>,
    results: CudaSlice<i32>,
    barriers: CudaSlice<i32>,
    gates: CudaSlice<i32>,
    scratch: CudaSlice<i32>,
    knobs: CudaSlice<u32>,
    workgroup_table: CudaSlice<u32>,
    local_table: CudaSlice<u32>,
    instance_table: CudaSlice<u32>,
    regions: CudaSlice<u32>,
    offsets: CudaSlice<u32>,
    stress_targets: CudaSlice<u32>,
    accesses: CudaSlice<u32>,
    histogram: CudaSlice<u32>,
}

impl Buffers {
    fn create(
        stream: &Arc<CudaStream>,
        h: &Harness,
        params: &Params,
        max_size: u32,
        n: &InstanceSizes,
        blocks: usize,
    ) -> std::result::Result<Buffers, DriverError> {
        let locations = h.layout.locations.len();
        // A zero-length allocation is an error for the driver: every buffer has a word at least.
        let words = |n: usize| n.max(1);
        Ok(Buffers {
            mem: stream.alloc_zeros(words(n.mem))?,
            results: stream.alloc_zeros(words(n.results))?,
            barriers: stream.alloc_zeros(words(n.instances))?,
            gates: stream.alloc_zeros(words(2 * blocks))?,
            scratch: stream.alloc_zeros(SCRATCH_WORDS as usize)?,
            knobs: stream.alloc_zeros(KNOBS.len())?,
            workgroup_table: stream.alloc_zeros(words(params.max_workgroups as usize))?,
            local_table: stream.alloc_zeros(words(max_size as usize))?,
            instance_table: stream.alloc_zeros(words(n.instance_table))?,
            regions: stream.alloc_zeros(words(n.regions))?,
            offsets: stream.alloc_zeros(words(locations))?,
            stress_targets: stream.alloc_zeros(words(params.stress_target_lines as usize))?,
            accesses: stream.clone_htod(&access_table(h))?,
            histogram: stream.alloc_zeros(h.space.bins() + 2)?,
        })
    }

    /// One launch: tables in, three kernels, histogram out (bins, outside bin, counted).
    fn launch(
        &mut self,
        stream: &Arc<CudaStream>,
        k: &Kernels,
        launch: &Launch,
        params: &Params,
    ) -> std::result::Result<Vec<u32>, DriverError> {
        stream.memcpy_htod(&launch.knobs(params), &mut self.knobs)?;
        stream.memcpy_htod(&launch.workgroup_table, &mut self.workgroup_table)?;
        stream.memcpy_htod(&launch.local_table, &mut self.local_table)?;
        stream.memcpy_htod(&launch.instance_table, &mut self.instance_table)?;
        stream.memcpy_htod(&launch.regions, &mut self.regions)?;
        stream.memcpy_htod(&launch.offsets, &mut self.offsets)?;
        stream.memcpy_htod(&launch.stress_targets, &mut self.stress_targets)?;
        stream.memset_zeros(&mut self.histogram)?;
        let per_instance = LaunchConfig {
            grid_dim: (launch.instances.div_ceil(INSTANCE_BLOCK).max(1), 1, 1),
            block_dim: (INSTANCE_BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        let testing = LaunchConfig {
            grid_dim: (launch.workgroups, 1, 1),
            block_dim: (launch.workgroup_size, 1, 1),
            shared_mem_bytes: 0,
        };
        let zero = 0u32;
        // SAFETY: the arguments are the buffers in the order kernel.ptx declares them, each
        // sized for the largest launch in `create`; the launches run in stream order.
        unsafe {
            let mut init = stream.launch_builder(&k.init);
            init.arg(&mut self.mem)
                .arg(&mut self.results)
                .arg(&mut self.barriers)
                .arg(&mut self.gates)
                .arg(&self.knobs)
                .arg(&self.regions)
                .arg(&self.offsets);
            init.launch(per_instance)?;
            let mut test = stream.launch_builder(&k.test);
            test.arg(&mut self.mem)
                .arg(&mut self.results)
                .arg(&mut self.barriers)
                .arg(&mut self.gates)
                .arg(&mut self.scratch)
                .arg(&self.knobs)
                .arg(&self.workgroup_table)
                .arg(&self.local_table)
                .arg(&self.instance_table)
                .arg(&self.regions)
                .arg(&self.offsets)
                .arg(&self.stress_targets)
                .arg(&self.accesses)
                .arg(&zero);
            test.launch(testing)?;
            let mut classify = stream.launch_builder(&k.classify);
            classify
                .arg(&self.mem)
                .arg(&self.results)
                .arg(&self.knobs)
                .arg(&self.regions)
                .arg(&self.offsets)
                .arg(&mut self.histogram);
            classify.launch(per_instance)?;
        }
        let histogram = stream.clone_dtoh(&self.histogram)?;
        stream.synchronize()?;
        Ok(histogram)
    }
}
