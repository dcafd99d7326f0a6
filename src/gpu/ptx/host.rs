//! The CUDA host of a PTX harness, on `cudarc` with the driver library loaded at run time (the
//! binary builds and starts without CUDA). It loads `kernel.ptx` (the driver JIT-compiles it
//! for the device with its ptxas at -O3, the level optcheck checks), allocates the buffers once
//! at their largest (checked sizes, `layout::InstanceSizes`), and runs the launches as the
//! OpenCL host does: per launch, fresh iteration parameters from the seed's generator
//! (`layout::Launch`), then `litmus_init`, `litmus_test`, `litmus_classify`, and the histogram
//! read back into a `stats::Tally`.
//!
//! Owns: `run`, `Run`. Without `libcuda.so.1`, or without a device, `run` says so
//! (`Run::Unavailable`) and touches nothing else: cudarc panics when asked to load a library
//! that is missing, so `detect::cuda_driver` is asked first.
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;
use rand::rngs::StdRng;
use rand::SeedableRng;

use super::kernel::{CLASSIFY_KERNEL, INIT_KERNEL, TEST_KERNEL};
use super::{Event, PtxHarness, MAX_BLOCK};
use crate::diag::{Error, Result};
use crate::gpu::detect;
use crate::gpu::layout::{InstanceSizes, Launch, KNOBS, SCRATCH_WORDS};
use crate::gpu::params::Params;
use crate::gpu::stats::{self, Tally};
use crate::runner;

/// What a CUDA run came to.
#[derive(Clone, Debug)]
pub enum Run {
    /// Nothing to run on: why (no driver library, no device).
    Unavailable(String),
    /// The launches ran: the device, the tally, and the printed report (`stats::render`).
    Ran {
        /// The device's name.
        device: String,
        /// Counts over the launches.
        tally: Tally,
        /// The report `stats::render` printed.
        report: String,
    },
}

/// Threads per block of the per-instance kernels (`litmus_init`, `litmus_classify`).
const INSTANCE_BLOCK: u32 = 256;

/// Run `params.iterations` launches of the CUDA harness in `dir` on device 0.
pub fn run(dir: &Path, params: &Params) -> Result<Run> {
    let h = PtxHarness::load(dir)?;
    if !detect::cuda_driver() {
        let lib = detect::CUDA_DRIVER.to_string_lossy();
        return Ok(Run::Unavailable(format!(
            "no CUDA driver ({lib} cannot be loaded)"
        )));
    }
    let fail =
        |what: &str, e: DriverError| Error::file(&h.name, format!("CUDA: {what} failed: {e}"));
    match CudaContext::device_count() {
        Ok(n) if n > 0 => {}
        Ok(_) => return Ok(Run::Unavailable("the CUDA driver sees no device".into())),
        Err(e) => return Ok(Run::Unavailable(format!("the CUDA driver reports {e}"))),
    }
    let ctx = CudaContext::new(0).map_err(|e| fail("opening device 0", e))?;
    let device = ctx.name().map_err(|e| fail("reading the device name", e))?;
    let stream = ctx.default_stream();
    let module = ctx
        .load_module(Ptx::from_src(h.kernel.clone()))
        .map_err(|e| fail("loading kernel.ptx (JIT)", e))?;
    let load = |name: &str| {
        module
            .load_function(name)
            .map_err(|e| fail(&format!("finding {name}"), e))
    };
    let kernels = Kernels {
        init: load(INIT_KERNEL)?,
        test: load(TEST_KERNEL)?,
        classify: load(CLASSIFY_KERNEL)?,
    };
    let block = ctx
        .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
        .map_err(|e| fail("reading the largest block", e))?;
    let max_size = h.layout.max_workgroup_size(
        params,
        u32::try_from(block).unwrap_or(MAX_BLOCK).min(MAX_BLOCK),
    )?;
    let sizes = h
        .layout
        .instance_sizes(params, max_size, h.space.registers())?;
    let blocks = h.layout.testing_workgroups(params)? as usize / h.layout.ctas;
    let mut buffers = Buffers::create(&stream, &h, params, max_size, &sizes, blocks)
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
    let report = format!(
        "test {} on {device} (CUDA)\nparameters: seed {}, {} launches\n{}",
        h.test.name,
        params.seed,
        params.iterations,
        stats::render(
            &h.space,
            &h.test.condition,
            &runner::render_condition(&h.test),
            &tally
        )
    );
    Ok(Run::Ran {
        device,
        tally,
        report,
    })
}

struct Kernels {
    init: CudaFunction,
    test: CudaFunction,
    classify: CudaFunction,
}

/// The access table `litmus_test` reads: per access, its location's index and its tag.
fn access_table(h: &PtxHarness) -> Vec<u32> {
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
        h: &PtxHarness,
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
