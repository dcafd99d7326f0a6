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
//!
//! Files:
//! - `kernel/helpers.rs`: `stress`, `mix`, the block gate, `spin_barrier`.
//! - `kernel/litmus_init.rs`: per instance, initial values and cleared results.
//! - `kernel/litmus_test.rs`: the testing and stressing work-items.
//! - `kernel/litmus_classify.rs`: per instance, its bin and the counted outcome.
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
use crate::vocab::Tag;
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
                sem: Sem(Tag::Acq | Tag::Rel),
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
    /// `dst = table[index]` (32-bit words; a 32-bit index, for the tables no product of
    /// parameters takes past 2^32 — the others go through `wide_index`).
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
    /// `%idx = a * b + c` in 64 bits, from 32-bit `a` (a register), `b` and `c` (registers or
    /// immediates): an index into a table whose size is a product of parameters, which may pass
    /// 2^32 (`layout::InstanceSizes`).
    fn wide_index(&mut self, a: &str, b: impl std::fmt::Display, c: impl std::fmt::Display) {
        let c = c.to_string();
        if c.starts_with('%') {
            self.line(&format!("cvt.u64.u32 %idx, {c};"));
            self.line(&format!("mad.wide.u32 %idx, {a}, {b}, %idx;"));
        } else {
            self.line(&format!("mul.wide.u32 %idx, {a}, {b};"));
            self.line(&format!("add.u64 %idx, %idx, {c};"));
        }
    }
    /// `dst = &table[%idx]` (32-bit words).
    fn wide_address(&mut self, dst: &str, table: &str) {
        self.line("shl.b64 %off, %idx, 2;");
        self.line(&format!("add.u64 {dst}, %{table}, %off;"));
    }
    /// `results[instance * registers + k] = value`, the index in 64 bits.
    fn store_result(&mut self, registers: usize, k: usize, value: &str) {
        self.wide_index("%instance", registers, k);
        self.wide_address("%addr", "results");
        self.line(&format!("st.global.u32 [%addr], {value};"));
    }
    /// `dst = results[instance * registers + k]`, the index in 64 bits.
    fn load_result(&mut self, dst: &str, registers: usize, k: usize) {
        self.wide_index("%instance", registers, k);
        self.wide_address("%addr", "results");
        self.line(&format!("ld.global.u32 {dst}, [%addr];"));
    }
    /// `%ptr = &mem[regions[instance * LOCATIONS + loc] * MEM_STRIDE + offsets[loc]]`, both
    /// indices in 64 bits: instance × LOCATIONS stays below 2^32 (`Layout::regions`, so each
    /// region number fits the 32-bit table), but region × MEM_STRIDE does not.
    fn location(&mut self, layout: &Layout, instance: &str, loc: &str) {
        self.wide_index(instance, layout.locations.len(), loc);
        self.wide_address("%addr", "regions");
        self.line("ld.global.u32 %l0, [%addr];");
        self.word("%l1", "offsets", loc);
        self.knob("%l2", "MEM_STRIDE");
        self.wide_index("%l0", "%l2", "%l1");
        self.wide_address("%ptr", "mem");
    }
    /// `%instance = global id` (32 bits: below `MAX_WORKGROUPS × MAX_WORKGROUP_SIZE` of
    /// `params`, 2^24, plus one block's rounding).
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
        self.line(".reg .b64 %addr, %off, %ptr, %idx;");
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::cuda::{events::events, harness::MAX_BLOCK};
    use crate::gpu::params::Params;
    use crate::litmus::parse_str;
    use std::collections::HashMap;

    /// One CTA, one thread, four locations: 2^22 instances in a CUDA launch at the largest
    /// parameters.
    const FOUR_LOCATIONS: &str = "PTX t\n{ a=0; b=0; c=0; d=0; }\nP0@cta 0,gpu 0 ;\n\
         st.relaxed.gpu a, 1 ;\nst.relaxed.gpu b, 1 ;\nst.relaxed.gpu c, 1 ;\n\
         ld.relaxed.gpu r0, d ;\nexists (0:r0=0)\n";

    /// Table bases far apart, so that a load's table and index follow from its address.
    const BASES: [(&str, u64); 4] = [
        ("%mem", 0),
        ("%regions", 1 << 60),
        ("%offsets", 2 << 60),
        ("%knobs", 3 << 60),
    ];

    /// Runs the straight-line integer PTX that `Body` emits for addresses; a load reads
    /// `load(table, word index)`. Registers hold `u64`; 32-bit instructions see their low half.
    fn simulate(ptx: &str, regs: &mut HashMap<String, u64>, load: &dyn Fn(&str, u64) -> u64) {
        for line in ptx.lines().map(str::trim).filter(|l| !l.starts_with("//")) {
            let (op, rest) = line.split_once(' ').unwrap();
            let args: Vec<&str> = rest.trim_end_matches(';').split(", ").collect();
            let val = |a: &str, regs: &HashMap<String, u64>| {
                regs.get(a)
                    .copied()
                    .unwrap_or_else(|| a.parse().unwrap_or_else(|_| panic!("{a} in {line}")))
            };
            let v = |i: usize| val(args[i], regs);
            let lo = |i: usize| v(i) & 0xffff_ffff;
            let out = match op {
                "cvt.u64.u32" => lo(1),
                "mul.wide.u32" => lo(1) * lo(2),
                "mad.wide.u32" => (lo(1) * lo(2)).wrapping_add(v(3)),
                "mad.lo.u32" => (lo(1) * lo(2) + lo(3)) & 0xffff_ffff,
                "add.u64" => v(1).wrapping_add(v(2)),
                "shl.b64" => v(1) << v(2),
                "ld.global.u32" => {
                    let operand = args[1].trim_matches(|c| c == '[' || c == ']');
                    let (base, imm) = operand.split_once('+').unwrap_or((operand, "0"));
                    let addr = val(base, regs) + imm.parse::<u64>().unwrap();
                    let (table, start) = BASES.iter().rev().find(|(_, b)| addr >= *b).unwrap();
                    load(table, (addr - start) / 4)
                }
                _ => panic!("the simulator has no `{op}`"),
            };
            regs.insert(args[0].to_string(), out);
        }
    }

    #[test]
    fn location_addresses_are_64_bit_past_two_to_the_32_words() {
        let test = parse_str("t.litmus", FOUR_LOCATIONS).unwrap();
        let layout = Layout::of(&test).unwrap();
        let params = Params {
            testing_workgroups: 4096,
            max_workgroups: 4096,
            max_workgroup_size: 4096,
            mem_stride: 512,
            ..Params::defaults()
        };
        let sizes = layout.instance_sizes(&params, MAX_BLOCK, 1).unwrap();
        assert!(sizes.mem > u32::MAX as usize, "{sizes:?}");
        let (instances, locations) = (sizes.instances as u64, layout.locations.len() as u64);
        let stride = u64::from(params.mem_stride);

        let mut b = Body::new();
        b.location(&layout, "%instance", "%y");
        assert!(
            b.s.contains("mad.wide.u32 %idx, %l0, %l2, %idx;"),
            "{}",
            b.s
        );
        assert!(!b.s.contains("mad.lo"), "{}", b.s);

        // The last location of the last instance, in the last region, at the last offset.
        let mut regs: HashMap<String, u64> =
            BASES.iter().map(|(r, b)| (r.to_string(), *b)).collect();
        regs.insert("%instance".into(), instances - 1);
        regs.insert("%y".into(), locations - 1);
        let mem_stride = knob_index("MEM_STRIDE") as u64;
        simulate(&b.s, &mut regs, &|table, i| match table {
            "%regions" => i,
            "%offsets" => stride - 1,
            "%knobs" if i == mem_stride => stride,
            _ => panic!("load of {table}[{i}]"),
        });
        let word = (instances * locations - 1) * stride + stride - 1;
        assert!(word > u64::from(u32::MAX));
        assert_eq!(regs["%ptr"], 4 * word);
    }

    #[test]
    fn kernels_index_per_instance_tables_in_64_bits() {
        let test = parse_str("t.litmus", FOUR_LOCATIONS).unwrap();
        let layout = Layout::of(&test).unwrap();
        let space = Space::of(&test).unwrap();
        let ev = events(&test).unwrap();
        let ptx = kernel_file(&test, &layout, &space, &ev).unwrap();
        for needle in [
            "mad.wide.u32 %idx, %instance, 4, %idx;",
            "mad.wide.u32 %idx, %l0, %l2, %idx;",
            "mul.wide.u32 %idx, %instance, 1;",
        ] {
            assert!(ptx.contains(needle), "{needle} not in\n{ptx}");
        }
        // No 32-bit product of the instance with the locations or registers, nor of a region
        // with the stride (the global id's `mad.lo` writes `%instance`; it reads none of them).
        for line in ptx
            .lines()
            .filter(|l| l.contains("mad.lo") || l.contains("mul.lo"))
        {
            let (_, sources) = line.split_once(',').unwrap();
            assert!(
                !sources.contains("%instance") && !sources.contains("%l0"),
                "{line}"
            );
        }
    }
}
