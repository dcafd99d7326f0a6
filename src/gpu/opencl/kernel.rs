//! The OpenCL C kernels of a harness: three kernels in one source file.
//!
//! `litmus_init` (one work-item per instance) writes the initial values and clears the results,
//! the barrier counters, the arrival counter and the block gates; `litmus_test` runs the
//! instances (the first work-groups to arrive) and the memory stress (the later ones), placed as
//! `layout` describes; `litmus_classify` (one work-item per instance) reads the instance's
//! registers and final memory, and counts its histogram bin and whether it shows the counted
//! outcome (`classify`).
//!
//! Owns: `kernel_source` and the translation of the test's instructions to OpenCL C 2.0/3.0
//! atomics (decisions in `docs/decisions/003-gpu-harness.md`): memory orders as tagged; scopes
//! `.cta`/work_group → `memory_scope_work_group`, `.gpu`/device → `memory_scope_device`,
//! `.sys`/all_svm_devices → `memory_scope_device` (one device, plain buffers: the two scopes
//! contain the same threads); weak and non-atomic accesses → `volatile` plain accesses; fences
//! → `atomic_work_item_fence`. Refused: execution barriers, work-item and sub-group scopes,
//! local-memory locations, multiplication RMWs. Each test thread is written by `thread`.
use std::fmt::Write as _;

use super::thread::ThreadWriter;
use crate::diag::{Error, Result};
use crate::gpu::classify::{classify_statements, value_var};
use crate::gpu::layout::{Layout, KNOBS, SCRATCH_WORDS};
use crate::gpu::outcome::Space;
use crate::litmus::{Litmus, Target};
use crate::vocab::Tag;

pub(crate) const INIT_KERNEL: &str = "litmus_init";
pub(crate) const TEST_KERNEL: &str = "litmus_test";
pub(crate) const CLASSIFY_KERNEL: &str = "litmus_classify";

/// Backward jumps one thread may take before it gives up (its registers then read as
/// `NOT_WRITTEN`, which no domain holds: the instance lands in the outside bin).
const JUMP_LIMIT: u32 = 1 << 16;

/// The whole kernel file.
pub fn kernel_source(test: &Litmus, layout: &Layout, space: &Space) -> Result<String> {
    refuse_local_locations(test)?;
    if layout.locations.is_empty() {
        return Err(Error::file(&test.name, "the test accesses no memory"));
    }
    let mut s = preamble(test, layout, space);
    for (i, t) in test.threads.iter().enumerate() {
        s.push_str(&ThreadWriter::new(test, layout, space, i).function(t)?);
    }
    s.push_str(&kernels(test, layout, space));
    Ok(s)
}

fn refuse_local_locations(test: &Litmus) -> Result<()> {
    match test
        .loc_tags
        .iter()
        .find(|(_, tags)| tags.contains(&Tag::Local))
    {
        Some((loc, _)) => Err(Error::file(
            &test.name,
            format!("location `{loc}` is in local memory; the harness places every location in global memory"),
        )),
        None => Ok(()),
    }
}

/// Header comment, sizes, knob indices, constant tables and helper functions.
fn preamble(test: &Litmus, layout: &Layout, space: &Space) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// OpenCL C harness for litmus test `{}`, written by `mapcheck gpu emit`.\n\
         // Regenerated from test.litmus on every `mapcheck gpu run`: edit the test, not this file.\n\
         // Kernels: {INIT_KERNEL} (per instance), {TEST_KERNEL} (testing and stressing\n\
         // work-groups), {CLASSIFY_KERNEL} (per instance); layout: src/gpu/layout.rs.\n\
         // Observed, in histogram-bin order (first least significant): {}.",
        test.name,
        space.names.join(", ")
    );
    let defines = [
        ("THREADS", test.threads.len()),
        ("CTAS", layout.ctas),
        ("ROLES_PER_WG", layout.roles_per_workgroup),
        ("LOCATIONS", layout.locations.len()),
        ("OBSERVED_REGS", space.registers()),
        ("BINS", space.bins()),
        ("SCRATCH_WORDS", SCRATCH_WORDS as usize),
        ("JUMP_LIMIT", JUMP_LIMIT as usize),
    ];
    for (name, v) in defines {
        let _ = writeln!(s, "#define {name} {v}");
    }
    s.push_str("#define NOT_WRITTEN (-2147483647 - 1)\n");
    for (i, k) in KNOBS.iter().enumerate() {
        let _ = writeln!(s, "#define K_{k} {i}");
    }
    let roles: Vec<String> = layout
        .role_thread
        .iter()
        .map(|r| r.map_or(-1, |t| t as i64).to_string())
        .collect();
    let inits: Vec<String> = layout
        .locations
        .iter()
        .map(|(_, v)| v.to_string())
        .collect();
    let _ = writeln!(
        s,
        "constant int ROLE_THREAD[] = {{{}}};\nconstant int INIT[] = {{{}}}; // {}\n",
        roles.join(", "),
        inits.join(", "),
        layout
            .locations
            .iter()
            .map(|(l, _)| l.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    s.push_str(HELPERS);
    s
}

const HELPERS: &str = r#"#if __OPENCL_C_VERSION__ >= 300 && \
    !(defined(__opencl_c_atomic_order_seq_cst) && defined(__opencl_c_atomic_scope_device))
#error "the harness needs the OpenCL C 3.0 features __opencl_c_atomic_order_seq_cst and __opencl_c_atomic_scope_device"
#endif
#define RLX memory_order_relaxed
#define DEV memory_scope_device

// The word of location `loc` of `instance`: its region (XYSTRIDE words each) and offset. The
// indices are ulong: region × XYSTRIDE passes 2^32 within the parameter ranges (the host keeps
// instance × LOCATIONS, the region numbers, below 2^32).
static global atomic_int* location(global atomic_int* mem, global const uint* knobs,
                                   global const uint* regions, global const uint* offsets,
                                   uint instance, uint loc) {
  ulong region = regions[(ulong)instance * LOCATIONS + loc];
  return &mem[region * knobs[K_MEM_STRIDE] + offsets[loc]];
}

// Memory stress: `iterations` times the two accesses of `pattern` (bit 1: first is a load,
// bit 0: second is a load) on one word.
static void stress(global atomic_int* word, uint iterations, uint pattern) {
  for (uint i = 0; i < iterations; i++) {
    if (pattern & 2) (void)atomic_load_explicit(word, RLX, DEV);
    else atomic_store_explicit(word, (int)i, RLX, DEV);
    if (pattern & 1) (void)atomic_load_explicit(word, RLX, DEV);
    else atomic_store_explicit(word, (int)i + 1, RLX, DEV);
  }
}

// The stress line of stressing work-group `s` (round-robin or chunking).
static uint stress_line(uint s, global const uint* knobs) {
  uint lines = knobs[K_STRESS_TARGET_LINES];
  if (!knobs[K_STRESS_CHUNKING]) return s % lines;
  uint chunk = (knobs[K_STRESSING_WGS] + lines - 1) / lines;
  return s / chunk;
}

// A hash of the launch seed, the instance and the thread: the kernels' randomness.
static uint mix(uint seed, uint instance, uint thread) {
  uint h = seed ^ (instance * 0x9E3779B9u) ^ (thread * 0x85EBCA6Bu);
  h ^= h >> 16; h *= 0x7FEB352Du; h ^= h >> 15; h *= 0x846CA68Bu; h ^= h >> 16;
  return h;
}

// The block gate: have the CTAS work-groups of this block of testing work-groups all started?
// Each counts itself in gate[0] as it starts (its work-item 0); a work-item waits for the count
// up to the barrier timeout. Giving up sets gate[1], after which nobody in the block waits: its
// work-groups do not run at the same time (a CPU device may run them one after another), and
// every instance barrier would only time out.
static int block_started(global atomic_int* gate, global const uint* knobs) {
  for (uint i = 0; i < knobs[K_BARRIER_TIMEOUT]; i++) {
    if (atomic_load_explicit(&gate[0], RLX, DEV) >= CTAS) return 1;
    if (atomic_load_explicit(&gate[1], RLX, DEV)) return 0;
  }
  atomic_store_explicit(&gate[1], 1, RLX, DEV);
  return 0;
}

// The instance's threads meet here, or give up after `timeout` spins; then each spins a
// jitter drawn from 0..=K_BARRIER_JITTER, so that the last to arrive does not always run first.
static void spin_barrier(global atomic_int* count, global const uint* knobs, uint instance, int thread) {
  atomic_fetch_add_explicit(count, 1, RLX, DEV);
  for (uint i = 0; i < knobs[K_BARRIER_TIMEOUT]; i++)
    if (atomic_load_explicit(count, RLX, DEV) >= THREADS) break;
  uint jitter = mix(knobs[K_SEED], instance, (uint)thread) % (knobs[K_BARRIER_JITTER] + 1);
  for (uint i = 0; i < jitter; i++) (void)atomic_load_explicit(count, RLX, DEV);
}

"#;

/// The word of the observed register `k` (a C expression) of `instance` in `results`, its index
/// a `ulong`: instances × observed registers may pass 2^32.
pub(super) fn result(k: impl std::fmt::Display) -> String {
    format!("results[(ulong)instance * OBSERVED_REGS + {k}]")
}

/// The kernels (see the module doc).
fn kernels(test: &Litmus, layout: &Layout, space: &Space) -> String {
    let cases: String = (0..test.threads.len())
        .map(|i| {
            format!(
                "  case {i}: thread_{i}(mem, results, knobs, regions, offsets, instance); break;\n"
            )
        })
        .collect();
    let values: String = space
        .targets
        .iter()
        .enumerate()
        .map(|(k, t)| match t {
            Target::Reg { .. } => format!("  int {} = {};\n", value_var(k), result(k)),
            Target::Mem(l) => format!(
                "  int {} = atomic_load_explicit(location(mem, knobs, regions, offsets, instance, {}), RLX, DEV);\n",
                value_var(k),
                layout.location_index(l).expect("layout has every location")
            ),
        })
        .collect();
    let result_k = result("k");
    let classify: String = classify_statements(space, &test.condition)
        .lines()
        .map(|l| format!("  {l}\n"))
        .collect();
    format!(
        r#"kernel void {INIT_KERNEL}(global atomic_int* mem, global int* results, global atomic_int* barriers,
                        global atomic_int* gates, global const uint* knobs, global const uint* regions,
                        global const uint* offsets) {{
  uint instance = get_global_id(0);
  if (instance == 0) atomic_store_explicit(&gates[0], 0, RLX, DEV);
  if (instance < knobs[K_TESTING_WGS] / CTAS) {{
    atomic_store_explicit(&gates[1 + 2 * instance], 0, RLX, DEV);
    atomic_store_explicit(&gates[2 + 2 * instance], 0, RLX, DEV);
  }}
  if (instance >= knobs[K_INSTANCES]) return;
  for (uint l = 0; l < LOCATIONS; l++)
    atomic_store_explicit(location(mem, knobs, regions, offsets, instance, l), INIT[l], RLX, DEV);
  for (uint k = 0; k < OBSERVED_REGS; k++) {result_k} = NOT_WRITTEN;
  atomic_store_explicit(&barriers[instance], 0, RLX, DEV);
}}

kernel void {TEST_KERNEL}(global atomic_int* mem, global int* results, global atomic_int* barriers,
                        global atomic_int* gates, global atomic_int* scratch, global const uint* knobs,
                        global const uint* workgroup_table, global const uint* local_table,
                        global const uint* instance_table, global const uint* regions,
                        global const uint* offsets, global const uint* stress_targets) {{
  // The first work-groups to arrive test (gates[0] counts arrivals), each playing the CTA and
  // block the shuffled table gives its place; later ones stress. On a device that runs some
  // work-groups only after others (a CPU), the first to arrive waits at its block gate while
  // its partners arrive elsewhere.
  local uint arrival;
  if (get_local_id(0) == 0) arrival = (uint)atomic_fetch_add_explicit(&gates[0], 1, RLX, DEV);
  barrier(CLK_LOCAL_MEM_FENCE);
  uint testing = knobs[K_TESTING_WGS];
  uint wg = workgroup_table[arrival];
  if (wg >= testing) {{
    if (knobs[K_MEM_STRESS])
      stress(&scratch[stress_targets[stress_line(wg - testing, knobs)]],
             knobs[K_MEM_STRESS_ITERATIONS], knobs[K_MEM_STRESS_PATTERN]);
    return;
  }}
  global atomic_int* gate = &gates[1 + 2 * (wg / CTAS)];
  if (get_local_id(0) == 0) atomic_fetch_add_explicit(&gate[0], 1, RLX, DEV);
  uint lid = local_table[get_local_id(0)];
  uint slot = lid / ROLES_PER_WG;
  if (slot >= knobs[K_SLOTS]) return;
  uint cta = wg % CTAS;
  int thread = ROLE_THREAD[cta * ROLES_PER_WG + lid % ROLES_PER_WG];
  if (thread < 0) return;
  // A uint index: below CTAS × instances ≤ testing work-groups × their size (2^24).
  uint instance = instance_table[cta * knobs[K_INSTANCES] + (wg / CTAS) * knobs[K_SLOTS] + slot];
  if (knobs[K_PRE_STRESS])
    stress(&scratch[stress_targets[wg % knobs[K_STRESS_TARGET_LINES]]],
           knobs[K_PRE_STRESS_ITERATIONS], knobs[K_PRE_STRESS_PATTERN]);
  if (knobs[K_BARRIER] && block_started(gate, knobs))
    spin_barrier(&barriers[instance], knobs, instance, thread);
  switch (thread) {{
{cases}  default: break;
  }}
}}

kernel void {CLASSIFY_KERNEL}(global atomic_int* mem, global const int* results,
                            global const uint* knobs, global const uint* regions,
                            global const uint* offsets, global atomic_uint* histogram) {{
  uint instance = get_global_id(0);
  if (instance >= knobs[K_INSTANCES]) return;
{values}{classify}  atomic_fetch_add_explicit(&histogram[bin], 1u, RLX, DEV);
  if (counted) atomic_fetch_add_explicit(&histogram[BINS + 1], 1u, RLX, DEV);
}}
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::litmus::parse_str;

    #[test]
    fn per_instance_indices_are_ulong() {
        let test = parse_str(
            "mp.litmus",
            "PTX MP\n{ x=0; y=0; }\n\
             P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n\
             st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, y ;\n\
             st.relaxed.gpu y, 1 | ld.relaxed.gpu r1, x ;\n\
             exists (1:r0=1 /\\ 1:r1=0)\n",
        )
        .unwrap();
        let layout = Layout::of(&test).unwrap();
        let space = Space::of(&test).unwrap();
        let c = kernel_source(&test, &layout, &space).unwrap();
        // The region number is read as a ulong before it meets the stride: region × XYSTRIDE
        // passes 2^32 words at the largest parameters.
        assert!(
            c.contains("ulong region = regions[(ulong)instance * LOCATIONS + loc];"),
            "{c}"
        );
        assert!(
            c.contains("return &mem[region * knobs[K_MEM_STRIDE] + offsets[loc]];"),
            "{c}"
        );
        // Every `results` index (init, the threads' write-back, classify) is a ulong product.
        let uses = c.matches("results[").count();
        let wide = c
            .matches("results[(ulong)instance * OBSERVED_REGS + ")
            .count();
        assert!(uses >= 4 && uses == wide, "{uses} uses, {wide} wide:\n{c}");
        assert!(!c.contains("[instance * "), "{c}");
    }
}
