//! The PTX kernel file: the OpenCL harness's three kernels (`litmus_init`, `litmus_test`,
//! `litmus_classify`, same buffers, same `layout` and `KNOBS`, same histogram), written in PTX
//! so that every test access keeps the semantics, scope and `.global` the test gives it, plus
//! one function per test thread (`thread`), `stress` and `spin_barrier`.
//!
//! Differences from the OpenCL kernels: `litmus_test` takes two more arguments, the access table
//! (per access: its location and its tag, read at run time so ptxas cannot see that two accesses
//! share a location or fold the tag away; `events`) and an opaque zero (the mask of manufactured
//! dependencies). Helper accesses (stress, barrier, tables, results) are plain or relaxed and
//! untagged, so optcheck never mistakes them for test accesses.
use std::fmt::Write as _;

use super::events::{Event, Fence, Sem};
use super::thread::{self, NOT_WRITTEN};
use crate::diag::Result;
use crate::gpu::layout::{Layout, KNOBS};
use crate::gpu::outcome::{counted, Space};
use crate::litmus::{Litmus, Prop, Target};

pub const INIT_KERNEL: &str = "litmus_init";
pub const TEST_KERNEL: &str = "litmus_test";
pub const CLASSIFY_KERNEL: &str = "litmus_classify";

/// The whole `kernel.ptx`.
pub fn kernel_file(
    test: &Litmus,
    layout: &Layout,
    space: &Space,
    events: &[Vec<Event>],
) -> Result<String> {
    let mut s = header(test, space, events);
    s.push_str(STRESS);
    s.push_str(MIX);
    s.push_str(&barriers(layout.ctas, test.threads.len()));
    for (i, ev) in events.iter().enumerate() {
        let observed = thread::observed_registers(&space.targets, i);
        s.push_str(&thread::function(test, i, ev, &observed)?);
    }
    s.push_str(&init_kernel(layout, space));
    s.push_str(&test_kernel(test, layout, space, events));
    s.push_str(&classify_kernel(test, layout, space));
    Ok(s)
}

/// PTX 7.0 for sm_70 (the first with the scoped memory model), unless the test uses the light
/// fences `fence.acquire` / `fence.release` (PTX 8.6, sm_90).
fn header(test: &Litmus, space: &Space, events: &[Vec<Event>]) -> String {
    let light = events.iter().flatten().any(|e| {
        matches!(
            e,
            Event::Fence(Fence {
                sem: Sem::Acquire | Sem::Release,
                ..
            })
        )
    });
    let (version, target) = if light {
        ("8.6", "sm_90")
    } else {
        ("7.0", "sm_70")
    };
    format!(
        "// PTX harness for litmus test `{}`, written by `mapcheck gpu emit --target cuda`.\n\
         // Kernels: {INIT_KERNEL}, {TEST_KERNEL}, {CLASSIFY_KERNEL} (layout: src/gpu/layout.rs;\n\
         // decisions: docs/decisions/004-ptx-harness.md). Test thread i is function P<i>.\n\
         // Observed, in histogram-bin order (first least significant): {}.\n\
         .version {version}\n.target {target}\n.address_size 64\n\n",
        test.name,
        space.names.join(", ")
    )
}

const STRESS: &str = r#"// Memory stress: `iterations` times the two accesses of `pattern` (bit 1: first is a load,
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
const MIX: &str = r#"// A hash of the launch seed, the instance and the thread: the kernels' randomness.
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
fn barriers(ctas: usize, threads: usize) -> String {
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

fn knob_index(name: &str) -> usize {
    KNOBS
        .iter()
        .position(|k| *k == name)
        .expect("KNOBS lists every knob the kernels read")
}

/// A kernel body under construction: its text and the helpers every kernel uses.
struct Body {
    s: String,
}

impl Body {
    fn new() -> Body {
        Body { s: String::new() }
    }
    fn line(&mut self, text: &str) {
        let _ = writeln!(self.s, "  {text}");
    }
    fn label(&mut self, l: &str) {
        let _ = writeln!(self.s, "{l}:");
    }
    /// `.param .u64` pointers, loaded and converted to global addresses.
    fn pointers(&mut self, names: &[&str]) {
        let regs: Vec<String> = names.iter().map(|n| format!("%{n}")).collect();
        self.line(&format!(".reg .b64 {};", regs.join(", ")));
        for n in names {
            self.line(&format!("ld.param.u64 %{n}, [{n}];"));
            self.line(&format!("cvta.to.global.u64 %{n}, %{n};"));
        }
    }
    /// `dst = table[index]` (32-bit words).
    fn word(&mut self, dst: &str, table: &str, index: &str) {
        self.line(&format!("mul.wide.u32 %off, {index}, 4;"));
        self.line(&format!("add.u64 %addr, %{table}, %off;"));
        self.line(&format!("ld.global.u32 {dst}, [%addr];"));
    }
    /// `table[index] = value`.
    fn store_word(&mut self, table: &str, index: &str, value: &str) {
        self.line(&format!("mul.wide.u32 %off, {index}, 4;"));
        self.line(&format!("add.u64 %addr, %{table}, %off;"));
        self.line(&format!("st.global.u32 [%addr], {value};"));
    }
    /// `table[index] += 1`, atomically.
    fn count(&mut self, table: &str, index: &str) {
        self.line(&format!("mul.wide.u32 %off, {index}, 4;"));
        self.line(&format!("add.u64 %addr, %{table}, %off;"));
        self.line("red.global.add.u32 [%addr], 1;");
    }
    fn knob(&mut self, dst: &str, name: &str) {
        self.line(&format!(
            "ld.global.u32 {dst}, [%knobs+{}];",
            4 * knob_index(name)
        ));
    }
    /// `%ptr = &mem[regions[instance * LOCATIONS + loc] * MEM_STRIDE + offsets[loc]]`.
    fn location(&mut self, layout: &Layout, instance: &str, loc: &str) {
        self.line(&format!(
            "mad.lo.u32 %l0, {instance}, {}, {loc};",
            layout.locations.len()
        ));
        self.word("%l0", "regions", "%l0");
        self.word("%l1", "offsets", loc);
        self.knob("%l2", "MEM_STRIDE");
        self.line("mad.lo.u32 %l0, %l0, %l2, %l1;");
        self.line("mul.wide.u32 %off, %l0, 4;");
        self.line("add.u64 %ptr, %mem, %off;");
    }
    /// `%instance = global id`.
    fn global_id(&mut self) {
        self.line("mov.u32 %x, %ctaid.x;");
        self.line("mov.u32 %y, %ntid.x;");
        self.line("mov.u32 %z, %tid.x;");
        self.line("mad.lo.u32 %instance, %x, %y, %z;");
    }
    /// Return when `%instance` is past the launch's instances.
    fn return_past_instances(&mut self) {
        self.knob("%x", "INSTANCES");
        self.line("setp.ge.u32 %p, %instance, %x;");
        self.line("@%p bra $done;");
    }
    /// Scratch registers every kernel body uses.
    fn scratch(&mut self) {
        self.line(".reg .b64 %addr, %off, %ptr;");
        self.line(".reg .b32 %x, %y, %z, %l0, %l1, %l2, %instance;");
        self.line(".reg .pred %p;");
    }
    fn kernel(self, name: &str, params: &[&str], scalars: &[&str]) -> String {
        let decls: Vec<String> = params
            .iter()
            .map(|p| format!(".param .u64 {p}"))
            .chain(scalars.iter().map(|p| format!(".param .u32 {p}")))
            .collect();
        format!(
            ".visible .entry {name}(\n  {})\n{{\n{}$done:\n  ret;\n}}\n\n",
            decls.join(",\n  "),
            self.s
        )
    }
}

/// Per instance: initial values, `NOT_WRITTEN` results, a cleared barrier.
fn init_kernel(layout: &Layout, space: &Space) -> String {
    let params = [
        "mem", "results", "barriers", "gates", "knobs", "regions", "offsets",
    ];
    let mut b = Body::new();
    b.pointers(&params);
    b.scratch();
    b.global_id();
    b.knob("%x", "TESTING_WGS");
    b.line(&format!("div.u32 %x, %x, {};", layout.ctas));
    b.line("setp.lt.u32 %p, %instance, %x;");
    b.line("mul.wide.u32 %off, %instance, 8;");
    b.line("add.u64 %addr, %gates, %off;");
    b.line("@%p st.relaxed.gpu.global.u32 [%addr], 0;");
    b.line("@%p st.relaxed.gpu.global.u32 [%addr+4], 0;");
    b.return_past_instances();
    for (l, (name, init)) in layout.locations.iter().enumerate() {
        b.line(&format!("mov.u32 %y, {l}; // {name}"));
        b.location(layout, "%instance", "%y");
        b.line(&format!(
            "st.relaxed.gpu.global.u32 [%ptr], {};",
            *init as i32
        ));
    }
    let regs = space.registers();
    for k in 0..regs {
        b.line(&format!("mad.lo.u32 %y, %instance, {regs}, {k};"));
        b.store_word("results", "%y", &NOT_WRITTEN.to_string());
    }
    b.store_word("barriers", "%instance", "0");
    b.kernel(INIT_KERNEL, &params, &[])
}

/// Testing work-items run their test thread of their instance; stressing work-groups stress.
fn test_kernel(test: &Litmus, layout: &Layout, space: &Space, events: &[Vec<Event>]) -> String {
    let params = [
        "mem",
        "results",
        "barriers",
        "gates",
        "scratch",
        "knobs",
        "workgroup_table",
        "local_table",
        "instance_table",
        "regions",
        "offsets",
        "stress_targets",
        "accesses",
    ];
    let mut b = Body::new();
    b.pointers(&params);
    b.scratch();
    b.line(".reg .b32 %zero, %wg, %testing, %lid, %slot, %cta, %role, %thread;");
    b.line(".reg .b64 %gate;");
    b.line("ld.param.u32 %zero, [zero];");
    b.line("mov.u32 %x, %ctaid.x;");
    b.word("%wg", "workgroup_table", "%x");
    b.knob("%testing", "TESTING_WGS");
    b.line("setp.ge.u32 %p, %wg, %testing;");
    b.line("@%p bra $stressing;");
    testing_work_item(&mut b, layout);
    pre_stress_and_barrier(&mut b);
    for t in 0..test.threads.len() {
        b.line(&format!("setp.eq.u32 %p, %thread, {t};"));
        b.line(&format!("@%p bra $thread{t};"));
    }
    b.line("bra.uni $done;");
    for (t, ev) in events.iter().enumerate() {
        call_thread(&mut b, test, layout, space, t, ev);
    }
    stressing_work_group(&mut b);
    b.kernel(TEST_KERNEL, &params, &["zero"])
}

/// Slot, role (index into `role_thread`) and instance of a testing work-item; idle ones return.
fn testing_work_item(b: &mut Body, layout: &Layout) {
    let (ctas, roles) = (layout.ctas, layout.roles_per_workgroup);
    b.line(&format!("div.u32 %x, %wg, {ctas};"));
    b.line("mul.wide.u32 %off, %x, 8;");
    b.line("add.u64 %gate, %gates, %off;");
    b.line("mov.u32 %x, %tid.x;");
    b.line("setp.eq.u32 %p, %x, 0;");
    b.line("@%p red.relaxed.gpu.global.add.u32 [%gate], 1;");
    b.word("%lid", "local_table", "%x");
    b.line(&format!("div.u32 %slot, %lid, {roles};"));
    b.knob("%x", "SLOTS");
    b.line("setp.ge.u32 %p, %slot, %x;");
    b.line("@%p bra $done;");
    b.line(&format!("rem.u32 %cta, %wg, {ctas};"));
    b.line(&format!("rem.u32 %role, %lid, {roles};"));
    b.line(&format!("mad.lo.u32 %role, %cta, {roles}, %role;"));
    b.line("mov.u32 %thread, -1;");
    for (role, thread) in layout.role_thread.iter().enumerate() {
        if let Some(t) = thread {
            b.line(&format!("setp.eq.u32 %p, %role, {role};"));
            b.line(&format!("@%p mov.u32 %thread, {t};"));
        }
    }
    b.line("setp.eq.u32 %p, %thread, -1;");
    b.line("@%p bra $done;");
    b.knob("%x", "INSTANCES");
    b.line("mul.lo.u32 %y, %cta, %x;");
    b.line(&format!("div.u32 %z, %wg, {ctas};"));
    b.knob("%x", "SLOTS");
    b.line("mad.lo.u32 %y, %z, %x, %y;");
    b.line("add.u32 %y, %y, %slot;");
    b.word("%instance", "instance_table", "%y");
}

/// `stress(&scratch[word], iterations, pattern)` with the three in `%x`, `%y`, `%z`.
fn call_stress(b: &mut Body) {
    b.line("mul.wide.u32 %off, %x, 4;");
    b.line("add.u64 %ptr, %scratch, %off;");
    b.line("{");
    b.line(".param .u64 word;");
    b.line(".param .b32 iterations;");
    b.line(".param .b32 pattern;");
    b.line("st.param.u64 [word], %ptr;");
    b.line("st.param.b32 [iterations], %y;");
    b.line("st.param.b32 [pattern], %z;");
    b.line("call stress, (word, iterations, pattern);");
    b.line("}");
}

fn pre_stress_and_barrier(b: &mut Body) {
    b.knob("%x", "PRE_STRESS");
    b.line("setp.eq.u32 %p, %x, 0;");
    b.line("@%p bra $barrier;");
    b.knob("%y", "STRESS_TARGET_LINES");
    b.line("rem.u32 %y, %wg, %y;");
    b.word("%x", "stress_targets", "%y");
    b.knob("%y", "PRE_STRESS_ITERATIONS");
    b.knob("%z", "PRE_STRESS_PATTERN");
    call_stress(b);
    b.label("$barrier");
    b.knob("%x", "BARRIER");
    b.line("setp.eq.u32 %p, %x, 0;");
    b.line("@%p bra $dispatch;");
    b.line("{");
    b.line(".param .u64 gate;");
    b.line(".param .u64 knobs_arg;");
    b.line(".param .b32 started;");
    b.line("st.param.u64 [gate], %gate;");
    b.line("st.param.u64 [knobs_arg], %knobs;");
    b.line("call (started), block_started, (gate, knobs_arg);");
    b.line("ld.param.b32 %x, [started];");
    b.line("}");
    b.line("setp.eq.u32 %p, %x, 0;");
    b.line("@%p bra $dispatch;");
    b.line("mul.wide.u32 %off, %instance, 4;");
    b.line("add.u64 %ptr, %barriers, %off;");
    b.line("{");
    b.line(".param .u64 count;");
    b.line(".param .u64 knobs_arg;");
    b.line(".param .b32 instance;");
    b.line(".param .b32 thread;");
    b.line("st.param.u64 [count], %ptr;");
    b.line("st.param.u64 [knobs_arg], %knobs;");
    b.line("st.param.b32 [instance], %instance;");
    b.line("st.param.b32 [thread], %thread;");
    b.line("call spin_barrier, (count, knobs_arg, instance, thread);");
    b.line("}");
    b.label("$dispatch");
}

/// Thread `t` of `%instance`: its access pointers, the call, its registers to `results`.
fn call_thread(
    b: &mut Body,
    test: &Litmus,
    layout: &Layout,
    space: &Space,
    t: usize,
    events: &[Event],
) {
    let accesses: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            Event::Access(a) => Some(a.number),
            Event::Fence(_) => None,
        })
        .collect();
    let observed = thread::observed_registers(&space.targets, t);
    b.label(&format!("$thread{t}"));
    b.line(&format!("{{ // {}", test.threads[t].name));
    for k in 0..accesses.len() {
        b.line(&format!(".param .u64 a{k};"));
    }
    b.line(".param .b32 zero_arg;");
    if !observed.is_empty() {
        b.line(&format!(
            ".param .align 4 .b8 observed[{}];",
            4 * observed.len()
        ));
    }
    for (k, number) in accesses.iter().enumerate() {
        b.line(&format!(
            "ld.global.u32 %y, [%accesses+{}]; // location",
            8 * number
        ));
        b.location(layout, "%instance", "%y");
        b.line(&format!(
            "ld.global.u32 %y, [%accesses+{}]; // tag",
            8 * number + 4
        ));
        b.line("cvt.u64.u32 %off, %y;");
        b.line("sub.u64 %ptr, %ptr, %off;");
        b.line(&format!("st.param.u64 [a{k}], %ptr;"));
    }
    b.line("st.param.b32 [zero_arg], %zero;");
    let args: Vec<String> = (0..accesses.len())
        .map(|k| format!("a{k}"))
        .chain(std::iter::once("zero_arg".to_string()))
        .collect();
    let ret = if observed.is_empty() {
        ""
    } else {
        "(observed), "
    };
    b.line(&format!(
        "call {ret}{}, ({});",
        thread::name(t),
        args.join(", ")
    ));
    let regs = space.registers();
    for (j, reg) in observed.iter().enumerate() {
        let k = space
            .index_of(&Target::Reg {
                thread: t,
                reg: reg.clone(),
            })
            .expect("observed registers are in the space");
        b.line(&format!("ld.param.b32 %x, [observed+{}];", 4 * j));
        b.line(&format!("mad.lo.u32 %y, %instance, {regs}, {k};"));
        b.store_word("results", "%y", "%x");
    }
    b.line("}");
    b.line("bra.uni $done;");
}

/// Stressing work-group `wg - testing`: its stress line (round-robin or chunking), then stress.
fn stressing_work_group(b: &mut Body) {
    b.label("$stressing");
    b.knob("%x", "MEM_STRESS");
    b.line("setp.eq.u32 %p, %x, 0;");
    b.line("@%p bra $done;");
    b.line("sub.u32 %y, %wg, %testing;");
    b.knob("%x", "STRESS_TARGET_LINES");
    b.knob("%z", "STRESS_CHUNKING");
    b.line("setp.ne.u32 %p, %z, 0;");
    b.line("@%p bra $chunking;");
    b.line("rem.u32 %y, %y, %x;");
    b.line("bra.uni $stress_line;");
    b.label("$chunking");
    b.knob("%z", "STRESSING_WGS");
    b.line("add.u32 %z, %z, %x;");
    b.line("sub.u32 %z, %z, 1;");
    b.line("div.u32 %z, %z, %x;");
    b.line("div.u32 %y, %y, %z;");
    b.label("$stress_line");
    b.word("%x", "stress_targets", "%y");
    b.knob("%y", "MEM_STRESS_ITERATIONS");
    b.knob("%z", "MEM_STRESS_PATTERN");
    call_stress(b);
}

/// Per instance: its observed values, its bin, and whether it shows the counted outcome.
fn classify_kernel(test: &Litmus, layout: &Layout, space: &Space) -> String {
    let params = ["mem", "results", "knobs", "regions", "offsets", "histogram"];
    let mut b = Body::new();
    b.pointers(&params);
    b.scratch();
    let n = space.targets.len();
    b.line(&format!(".reg .b32 %v<{n}>, %digit, %bin;"));
    let prop = counted(&test.condition);
    b.line(&format!(".reg .pred %c<{}>;", predicate_count(&prop)));
    b.global_id();
    b.return_past_instances();
    let regs = space.registers();
    for (k, target) in space.targets.iter().enumerate() {
        match target {
            Target::Reg { .. } => {
                b.line(&format!(
                    "mad.lo.u32 %y, %instance, {regs}, {k}; // {}",
                    space.names[k]
                ));
                b.word(&format!("%v{k}"), "results", "%y");
            }
            Target::Mem(l) => {
                let loc = layout.location_index(l).expect("layout has every location");
                b.line(&format!("mov.u32 %y, {loc}; // {l}"));
                b.location(layout, "%instance", "%y");
                b.line(&format!("ld.relaxed.gpu.global.u32 %v{k}, [%ptr];"));
            }
        }
    }
    bin(&mut b, space);
    let mut next = 0;
    let counted_pred = predicate(&mut b, space, &prop, &mut next);
    b.line(&format!(
        "@{counted_pred} red.global.add.u32 [%histogram+{}], 1;",
        4 * (space.bins() + 1)
    ));
    b.kernel(CLASSIFY_KERNEL, &params, &[])
}

/// `%bin` (mixed radix over the domains, the first target least significant; `bins()` outside)
/// and its count.
fn bin(b: &mut Body, space: &Space) {
    b.line("mov.u32 %bin, 0;");
    for (k, domain) in space.domains.iter().enumerate().rev() {
        b.line(&format!("mov.u32 %digit, {};", domain.len()));
        for (i, v) in domain.iter().enumerate() {
            b.line(&format!("setp.eq.s32 %p, %v{k}, {v};"));
            b.line(&format!("@%p mov.u32 %digit, {i};"));
        }
        b.line(&format!("setp.eq.u32 %p, %digit, {};", domain.len()));
        b.line("@%p bra $outside;");
        b.line(&format!("mad.lo.u32 %bin, %bin, {}, %digit;", domain.len()));
    }
    b.line("bra.uni $count;");
    b.label("$outside");
    b.line(&format!("mov.u32 %bin, {};", space.bins()));
    b.label("$count");
    b.count("histogram", "%bin");
}

/// A predicate register holding `p` over the `%v` values; `next` numbers the `%c` registers.
fn predicate(b: &mut Body, space: &Space, p: &Prop, next: &mut usize) -> String {
    let var = |t: &Target| {
        let k = space
            .index_of(t)
            .expect("the space observes every target of the condition");
        format!("%v{k}")
    };
    let mut node = |b: &mut Body, text: &dyn Fn(&str) -> String| {
        let c = format!("%c{next}");
        *next += 1;
        b.line(&text(&c));
        c
    };
    match p {
        Prop::True => node(b, &|c| format!("setp.eq.u32 {c}, %x, %x;")),
        Prop::False => node(b, &|c| format!("setp.ne.u32 {c}, %x, %x;")),
        Prop::Eq(t, v) => node(b, &|c| format!("setp.eq.s32 {c}, {}, {v};", var(t))),
        Prop::EqTargets(x, y) => node(b, &|c| format!("setp.eq.s32 {c}, {}, {};", var(x), var(y))),
        Prop::Not(a) => {
            let a = predicate(b, space, a, next);
            let c = format!("%c{next}");
            *next += 1;
            b.line(&format!("not.pred {c}, {a};"));
            c
        }
        Prop::And(x, y) | Prop::Or(x, y) | Prop::Implies(x, y) => {
            let x = predicate(b, space, x, next);
            let y = predicate(b, space, y, next);
            let c = format!("%c{next}");
            *next += 1;
            match p {
                Prop::And(..) => b.line(&format!("and.pred {c}, {x}, {y};")),
                Prop::Or(..) => b.line(&format!("or.pred {c}, {x}, {y};")),
                _ => {
                    b.line(&format!("not.pred {c}, {x};"));
                    b.line(&format!("or.pred {c}, {c}, {y};"));
                }
            }
            c
        }
    }
}

/// Predicate registers `predicate` uses for `p`: one per node.
fn predicate_count(p: &Prop) -> usize {
    1 + match p {
        Prop::Not(a) => predicate_count(a),
        Prop::And(x, y) | Prop::Or(x, y) | Prop::Implies(x, y) => {
            predicate_count(x) + predicate_count(y)
        }
        _ => 0,
    }
}
