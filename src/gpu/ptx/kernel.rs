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
//!
//! This file: the file's assembly, its header and `Body` (a kernel body under construction). The
//! parts: `helpers` (`stress`, `mix`, the block gate and the instance barrier), one file per
//! kernel (`litmus_init`, `litmus_test`, `litmus_classify`).
mod helpers;
mod litmus_classify;
mod litmus_init;
mod litmus_test;

use std::fmt::Write as _;

use super::events::{Event, Fence, Sem};
use super::thread::{self, NOT_WRITTEN};
use crate::diag::Result;
use crate::gpu::layout::{Layout, KNOBS};
use crate::gpu::outcome::{counted, Space};
use crate::litmus::{Litmus, Prop, Target};
use helpers::{barriers, MIX, STRESS};
use litmus_classify::classify_kernel;
use litmus_init::init_kernel;
use litmus_test::test_kernel;

/// Entry point that initialises each instance: initial values, `NOT_WRITTEN` results, a cleared
/// barrier.
pub const INIT_KERNEL: &str = "litmus_init";
/// Entry point in which testing work-items run their test thread and stressing work-groups stress.
pub const TEST_KERNEL: &str = "litmus_test";
/// Entry point that reads each instance's observed values, counts it in its histogram bin and notes
/// whether it shows the counted outcome.
pub const CLASSIFY_KERNEL: &str = "litmus_classify";

/// The whole `kernel.ptx`.
pub(crate) fn kernel_file(
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
