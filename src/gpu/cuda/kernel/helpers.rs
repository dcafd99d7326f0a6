//! The PTX functions every kernel file has besides the test threads: `stress` (memory stress on
//! one word), `mix` (the kernels' randomness), `block_started` (the block gate) and
//! `spin_barrier` (an instance's threads meet, then a jitter) — as in the OpenCL harness.
use super::*;

pub(super) const STRESS: &str = r#"// Memory stress: `iterations` times the two accesses of `pattern` (bit 1: first is a load,
// bit 0: second is a load) on one word.
.func stress(.param .u64 word, .param .b32 iterations, .param .b32 pattern)
{
  .reg .b64 %w;
  .reg .b32 %n, %pat, %i, %v;
  .reg .pred %p, %first_load, %second_load;
  ld.param.u64 %w, [word];
  ld.param.b32 %n, [iterations];
  ld.param.b32 %pat, [pattern];
  and.b32 %v, %pat, 2;
  setp.ne.u32 %first_load, %v, 0;
  and.b32 %v, %pat, 1;
  setp.ne.u32 %second_load, %v, 0;
  mov.u32 %i, 0;
$stress_loop:
  setp.ge.u32 %p, %i, %n;
  @%p bra $stress_done;
  @%first_load ld.relaxed.gpu.global.u32 %v, [%w];
  @!%first_load st.relaxed.gpu.global.u32 [%w], %i;
  add.u32 %i, %i, 1;
  @%second_load ld.relaxed.gpu.global.u32 %v, [%w];
  @!%second_load st.relaxed.gpu.global.u32 [%w], %i;
  bra.uni $stress_loop;
$stress_done:
  ret;
}

"#;

/// The OpenCL harness's `mix`: a hash of the launch seed, the instance and the thread.
pub(super) const MIX: &str = r#"// A hash of the launch seed, the instance and the thread: the kernels' randomness.
.func (.param .b32 hash) mix(.param .b32 seed, .param .b32 instance, .param .b32 thread)
{
  .reg .b32 %h, %x;
  ld.param.b32 %h, [seed];
  ld.param.b32 %x, [instance];
  mul.lo.u32 %x, %x, 0x9E3779B9;
  xor.b32 %h, %h, %x;
  ld.param.b32 %x, [thread];
  mul.lo.u32 %x, %x, 0x85EBCA6B;
  xor.b32 %h, %h, %x;
  shr.u32 %x, %h, 16;
  xor.b32 %h, %h, %x;
  mul.lo.u32 %h, %h, 0x7FEB352D;
  shr.u32 %x, %h, 15;
  xor.b32 %h, %h, %x;
  mul.lo.u32 %h, %h, 0x846CA68B;
  shr.u32 %x, %h, 16;
  xor.b32 %h, %h, %x;
  st.param.b32 [hash], %h;
  ret;
}

"#;

/// The block gate and the instance barrier, as in the OpenCL harness: `block_started` (have the
/// block's CTAS work-groups all started? give up after the barrier timeout, and tell the block),
/// `spin_barrier` (the instance's threads meet, or give up after the timeout; then each spins a
/// jitter drawn from 0..=BARRIER_JITTER).
pub(super) fn barriers(ctas: usize, threads: usize) -> String {
    let timeout = 4 * knob_index("BARRIER_TIMEOUT");
    let jitter = 4 * knob_index("BARRIER_JITTER");
    let seed = 4 * knob_index("SEED");
    format!(
        r#"// Have the {ctas} work-groups of this block of testing work-groups all started?
.func (.param .b32 started) block_started(.param .u64 gate, .param .u64 knobs)
{{
  .reg .b64 %g, %k;
  .reg .b32 %limit, %i, %seen;
  .reg .pred %p;
  ld.param.u64 %g, [gate];
  ld.param.u64 %k, [knobs];
  ld.global.u32 %limit, [%k+{timeout}];
  mov.u32 %i, 0;
$gate_wait:
  setp.ge.u32 %p, %i, %limit;
  @%p bra $gate_give_up;
  ld.relaxed.gpu.global.u32 %seen, [%g];
  setp.ge.u32 %p, %seen, {ctas};
  @%p bra $gate_open;
  ld.relaxed.gpu.global.u32 %seen, [%g+4];
  setp.ne.u32 %p, %seen, 0;
  @%p bra $gate_closed;
  add.u32 %i, %i, 1;
  bra.uni $gate_wait;
$gate_give_up:
  st.relaxed.gpu.global.u32 [%g+4], 1;
$gate_closed:
  st.param.b32 [started], 0;
  ret;
$gate_open:
  st.param.b32 [started], 1;
  ret;
}}

// An instance's {threads} threads meet here, or give up after the timeout; then a jitter.
.func spin_barrier(.param .u64 count, .param .u64 knobs, .param .b32 instance, .param .b32 thread)
{{
  .reg .b64 %c, %k;
  .reg .b32 %limit, %i, %seen, %jitter;
  .reg .pred %p;
  ld.param.u64 %c, [count];
  ld.param.u64 %k, [knobs];
  ld.global.u32 %limit, [%k+{timeout}];
  red.relaxed.gpu.global.add.u32 [%c], 1;
  mov.u32 %i, 0;
$spin:
  setp.ge.u32 %p, %i, %limit;
  @%p bra $met;
  ld.relaxed.gpu.global.u32 %seen, [%c];
  setp.ge.u32 %p, %seen, {threads};
  @%p bra $met;
  add.u32 %i, %i, 1;
  bra.uni $spin;
$met:
  {{
  .param .b32 seed;
  .param .b32 inst;
  .param .b32 thr;
  .param .b32 hash;
  ld.global.u32 %i, [%k+{seed}];
  st.param.b32 [seed], %i;
  ld.param.b32 %i, [instance];
  st.param.b32 [inst], %i;
  ld.param.b32 %i, [thread];
  st.param.b32 [thr], %i;
  call (hash), mix, (seed, inst, thr);
  ld.param.b32 %jitter, [hash];
  }}
  ld.global.u32 %limit, [%k+{jitter}];
  add.u32 %limit, %limit, 1;
  rem.u32 %jitter, %jitter, %limit;
  mov.u32 %i, 0;
$jitter:
  setp.ge.u32 %p, %i, %jitter;
  @%p bra $done;
  ld.relaxed.gpu.global.u32 %seen, [%c];
  add.u32 %i, %i, 1;
  bra.uni $jitter;
$done:
  ret;
}}

"#
    )
}
