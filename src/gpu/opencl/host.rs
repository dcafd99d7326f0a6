//! The OpenCL host of a harness (`opencl3`): builds the kernels for one device with the
//! `-cl-std=` it supports, allocates the buffers once at their largest (sizes as checked
//! products, `layout::InstanceSizes`: a size that overflows is an error, not a wrap), and runs
//! the launches — per launch, fresh iteration parameters from the seed's generator
//! (`layout::Launch`), then `litmus_init`, `litmus_test`, `litmus_classify` and the read-back of
//! the histogram.
//!
//! Owns: `run`. Uses: `detect` (the device), the `Harness` (kernel source, layout, space), `stats`
//! (the tally). OpenCL failures become `diag::Error`s naming the harness directory.
use std::ptr;
use std::time::Instant;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::Device as ClDevice;
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::{cl_int, cl_uint, CL_BLOCKING, CL_NON_BLOCKING};
use rand::rngs::StdRng;
use rand::SeedableRng;

use super::kernel::{CLASSIFY_KERNEL, INIT_KERNEL, TEST_KERNEL};
use super::Harness;
use crate::diag::{Error, Result};
use crate::gpu::detect::Device;
use crate::gpu::layout::{InstanceSizes, Launch, KNOBS, SCRATCH_WORDS};
use crate::gpu::params::Params;
use crate::gpu::stats::Tally;

/// Run `params.iterations` launches of the harness on `device`.
pub fn run(harness: &Harness, device: &Device, params: &Params) -> Result<Tally> {
    let fail = |what: &str, e: opencl3::error_codes::ClError| {
        Error::file(&harness.name, format!("OpenCL: {what} failed: {e}"))
    };
    let cl_std = device.cl_std.ok_or_else(|| {
        Error::file(
            &harness.name,
            format!("device {} has no OpenCL C 2.0 or 3.0: the harness needs atomics with memory order and scope", device.name),
        )
    })?;
    let context = Context::from_device(&ClDevice::new(device.id))
        .map_err(|e| fail("creating a context", e))?;
    // An in-order queue: each launch's commands run one after another.
    let queue = CommandQueue::create_default_with_properties(&context, 0, 0)
        .map_err(|e| fail("creating a command queue", e))?;
    let program = build(harness, &context, device, cl_std)?;
    let kernels = Kernels::create(&program).map_err(|e| fail("creating the kernels", e))?;
    let max_size = harness
        .layout
        .max_workgroup_size(params, device.max_workgroup_size)?;
    let sizes = Sizes {
        max_size,
        per_instance: harness
            .layout
            .instance_sizes(params, max_size, harness.space.registers())?,
        blocks: harness.layout.blocks(params)? as usize,
    };
    let mut buffers = Buffers::create(&context, harness, params, &sizes)
        .map_err(|e| fail("allocating buffers", e))?;
    let mut rng = StdRng::seed_from_u64(params.seed);
    let mut tally = Tally::new(&harness.space);
    for _ in 0..params.iterations {
        let launch = Launch::draw(&harness.layout, params, max_size, &mut rng)?;
        let start = Instant::now();
        let histogram = buffers
            .launch(&queue, &kernels, &launch, params)
            .map_err(|e| fail("a launch", e))?;
        tally.add_launch(&histogram, launch.instances, start.elapsed().as_secs_f64());
    }
    Ok(tally)
}

/// The program built for the device; a build failure carries the compiler's log.
fn build(harness: &Harness, context: &Context, device: &Device, cl_std: &str) -> Result<Program> {
    let mut program = Program::create_from_source(context, &harness.kernel).map_err(|e| {
        Error::file(
            &harness.name,
            format!("OpenCL: creating the program failed: {e}"),
        )
    })?;
    let options = format!("-cl-std={cl_std}");
    program.build(&[device.id], &options).map_err(|e| {
        let log = program.get_build_log(device.id).unwrap_or_default();
        Error::file(
            &harness.name,
            format!(
                "OpenCL: building kernel.cl with {options} for {} failed: {e}",
                device.name
            ),
        )
        .with_note(log.trim().to_string())
    })?;
    Ok(program)
}

struct Kernels {
    init: Kernel,
    test: Kernel,
    classify: Kernel,
}

impl Kernels {
    fn create(program: &Program) -> opencl3::Result<Kernels> {
        Ok(Kernels {
            init: Kernel::create(program, INIT_KERNEL)?,
            test: Kernel::create(program, TEST_KERNEL)?,
            classify: Kernel::create(program, CLASSIFY_KERNEL)?,
        })
    }
}

/// The largest launch: work-group size, the per-instance buffers' sizes (checked products),
/// blocks of testing work-groups.
#[derive(Clone, Copy)]
struct Sizes {
    max_size: u32,
    per_instance: InstanceSizes,
    blocks: usize,
}

/// The device buffers, at the largest size any launch needs.
struct Buffers {
    mem: Buffer<cl_int>,
    results: Buffer<cl_int>,
    barriers: Buffer<cl_int>,
    /// Work-groups arrived; then per block of testing work-groups: how many started, and
    /// whether someone gave up waiting.
    gates: Buffer<cl_int>,
    scratch: Buffer<cl_int>,
    knobs: Buffer<cl_uint>,
    workgroup_table: Buffer<cl_uint>,
    local_table: Buffer<cl_uint>,
    instance_table: Buffer<cl_uint>,
    regions: Buffer<cl_uint>,
    offsets: Buffer<cl_uint>,
    stress_targets: Buffer<cl_uint>,
    histogram: Buffer<cl_uint>,
    bins: usize,
    /// Work-group size of the per-instance kernels; their global size is rounded up to it (the
    /// kernels skip work-items past the last instance).
    group: usize,
}

impl Buffers {
    fn create(
        context: &Context,
        h: &Harness,
        params: &Params,
        sizes: &Sizes,
    ) -> opencl3::Result<Buffers> {
        let Sizes {
            max_size,
            per_instance: n,
            blocks,
        } = *sizes;
        let locations = h.layout.locations.len();
        let bins = h.space.bins() + 2;
        Ok(Buffers {
            mem: buffer(context, n.mem)?,
            results: buffer(context, n.results)?,
            barriers: buffer(context, n.instances)?,
            gates: buffer(context, 1 + 2 * blocks)?,
            scratch: buffer(context, SCRATCH_WORDS as usize)?,
            knobs: buffer(context, KNOBS.len())?,
            workgroup_table: buffer(context, params.max_workgroups as usize)?,
            local_table: buffer(context, max_size as usize)?,
            instance_table: buffer(context, n.instance_table)?,
            regions: buffer(context, n.regions)?,
            offsets: buffer(context, locations)?,
            stress_targets: buffer(context, params.stress_target_lines as usize)?,
            histogram: buffer(context, bins)?,
            bins,
            group: PER_INSTANCE_GROUP.min(max_size) as usize,
        })
    }

    /// One launch: tables in, three kernels, histogram out (bins, outside bin, counted).
    fn launch(
        &mut self,
        queue: &CommandQueue,
        k: &Kernels,
        launch: &Launch,
        params: &Params,
    ) -> opencl3::Result<Vec<cl_uint>> {
        let knobs = launch.knobs(params);
        let zeros = vec![0; self.bins];
        // Declared after the host data the writes read (`knobs`, `zeros`; `launch` is the
        // caller's), so dropped — the queue waited for — before that data is freed, also when a
        // `?` below returns early or `set_arg` panics with writes still queued.
        let _drain = Drain(queue);
        // SAFETY: every write fits its buffer (sized for the largest launch in `create`) and its
        // data outlives the writes: the final blocking read waits for them, and on an early exit
        // `_drain` does; the kernels' arguments are the buffers in the order the kernel source
        // declares them.
        unsafe {
            write(queue, &mut self.knobs, &knobs)?;
            write(queue, &mut self.workgroup_table, &launch.workgroup_table)?;
            write(queue, &mut self.local_table, &launch.local_table)?;
            write(queue, &mut self.instance_table, &launch.instance_table)?;
            write(queue, &mut self.regions, &launch.regions)?;
            write(queue, &mut self.offsets, &launch.offsets)?;
            write(queue, &mut self.stress_targets, &launch.stress_targets)?;
            write(queue, &mut self.histogram, &zeros)?;
            let per_instance = (launch.instances as usize).div_ceil(self.group) * self.group;
            ExecuteKernel::new(&k.init)
                .set_arg(&self.mem)
                .set_arg(&self.results)
                .set_arg(&self.barriers)
                .set_arg(&self.gates)
                .set_arg(&self.knobs)
                .set_arg(&self.regions)
                .set_arg(&self.offsets)
                .set_global_work_size(per_instance)
                .set_local_work_size(self.group)
                .enqueue_nd_range(queue)?;
            ExecuteKernel::new(&k.test)
                .set_arg(&self.mem)
                .set_arg(&self.results)
                .set_arg(&self.barriers)
                .set_arg(&self.gates)
                .set_arg(&self.scratch)
                .set_arg(&self.knobs)
                .set_arg(&self.workgroup_table)
                .set_arg(&self.local_table)
                .set_arg(&self.instance_table)
                .set_arg(&self.regions)
                .set_arg(&self.offsets)
                .set_arg(&self.stress_targets)
                .set_global_work_size(launch.workgroups as usize * launch.workgroup_size as usize)
                .set_local_work_size(launch.workgroup_size as usize)
                .enqueue_nd_range(queue)?;
            ExecuteKernel::new(&k.classify)
                .set_arg(&self.mem)
                .set_arg(&self.results)
                .set_arg(&self.knobs)
                .set_arg(&self.regions)
                .set_arg(&self.offsets)
                .set_arg(&self.histogram)
                .set_global_work_size(per_instance)
                .set_local_work_size(self.group)
                .enqueue_nd_range(queue)?;
            let mut out = vec![0; self.bins];
            queue.enqueue_read_buffer(&self.histogram, CL_BLOCKING, 0, &mut out, &[])?;
            Ok(out)
        }
    }
}

/// Waits, when dropped, until `queue` has run every command enqueued on it.
///
/// `launch`'s writes are asynchronous and read host memory until they run. Returning on an
/// enqueue error (a kernel refusing its work-group size, say) or unwinding from a panic would
/// otherwise free that memory while the device (PoCL: its worker threads) may still copy from
/// it; after a successful launch the queue is already empty (its last command was a blocking
/// read).
struct Drain<'q>(&'q CommandQueue);

impl Drop for Drain<'_> {
    fn drop(&mut self) {
        // A failed clFinish means the queue itself is lost; there is nothing left to wait for
        // and no way to report it from here (the launch's own error is on its way out).
        let _ = self.0.finish();
    }
}

/// Largest work-group of the per-instance kernels (`litmus_init`, `litmus_classify`): their size
/// is fixed, so that a device that compiles per work-group size (PoCL) compiles them once.
const PER_INSTANCE_GROUP: u32 = 64;

/// A read-write buffer of `n` elements (at least one: OpenCL refuses empty buffers).
fn buffer<T>(context: &Context, n: usize) -> opencl3::Result<Buffer<T>> {
    // SAFETY: no host pointer is passed.
    unsafe { Buffer::create(context, CL_MEM_READ_WRITE, n.max(1), ptr::null_mut()) }
}

/// An asynchronous write of `data` at the start of `buffer`, done before any later command of
/// the in-order queue starts.
///
/// # Safety
/// `data` must fit the buffer and live until the queue has run the write (`launch` ends with a
/// blocking read, after which every earlier command has completed, and holds a `Drain` for the
/// ways out before it).
unsafe fn write<T>(
    queue: &CommandQueue,
    buffer: &mut Buffer<T>,
    data: &[T],
) -> opencl3::Result<()> {
    if !data.is_empty() {
        unsafe { queue.enqueue_write_buffer(buffer, CL_NON_BLOCKING, 0, data, &[])? };
    }
    Ok(())
}
