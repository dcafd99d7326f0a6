//! The OpenCL C harness of a litmus test: three kernels in one source file.
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
//! local-memory locations, multiplication RMWs. Which order and scope the harness gives each tag
//! is decided here; their words are `syntax::c`'s.
use std::collections::HashMap;
use std::fmt::Write as _;

use super::classify::{classify_statements, value_var};
use super::layout::{Layout, KNOBS, SCRATCH_WORDS};
use super::outcome::Space;
use crate::diag::{Error, Result};
use crate::litmus::{BinOp, CmpOp, Expr, Instr, Litmus, RmwOp, Target, Thread};
use crate::syntax::c;
use crate::vocab::{self, Tag};

pub const INIT_KERNEL: &str = "litmus_init";
pub const TEST_KERNEL: &str = "litmus_test";
pub const CLASSIFY_KERNEL: &str = "litmus_classify";

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

// The word of location `loc` of `instance`: its region (XYSTRIDE words each) and offset.
static global atomic_int* location(global atomic_int* mem, global const uint* knobs,
                                   global const uint* regions, global const uint* offsets,
                                   uint instance, uint loc) {
  return &mem[regions[instance * LOCATIONS + loc] * knobs[K_MEM_STRIDE] + offsets[loc]];
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

/// Writes one test thread as a C function `thread_<i>`.
struct ThreadWriter<'a> {
    test: &'a Litmus,
    layout: &'a Layout,
    space: &'a Space,
    index: usize,
    /// Register and label names → C identifiers.
    names: HashMap<String, String>,
}

impl<'a> ThreadWriter<'a> {
    fn new(test: &'a Litmus, layout: &'a Layout, space: &'a Space, index: usize) -> Self {
        ThreadWriter {
            test,
            layout,
            space,
            index,
            names: HashMap::new(),
        }
    }

    fn function(mut self, t: &Thread) -> Result<String> {
        let mut body = String::new();
        let backward = backward_jumps(&t.code);
        for (pc, instr) in t.code.iter().enumerate() {
            let line = self.instr(instr, backward.contains(&pc))?;
            let _ = writeln!(body, "  {line}");
        }
        let mut s = format!(
            "// {} (CTA {} of the test)\n\
             static void thread_{}(global atomic_int* mem, global int* results, global const uint* knobs,\n\
             {:>21}global const uint* regions, global const uint* offsets, uint instance) {{\n",
            t.name,
            t.placement.cta,
            self.index,
            ""
        );
        for (loc, i) in self.locations_used(t) {
            let _ = writeln!(
                s,
                "  global atomic_int* {} = location(mem, knobs, regions, offsets, instance, {i});",
                location_var(&loc)
            );
        }
        for reg in registers(self.test, self.index) {
            let init = self.initial(&reg);
            let _ = writeln!(s, "  int {} = {init};", self.name("reg", &reg));
        }
        if !backward.is_empty() {
            s.push_str("  uint jumps = 0;\n");
        }
        s.push_str(&body);
        s.push_str(&self.results(!backward.is_empty()));
        s.push_str("}\n\n");
        Ok(s)
    }

    fn initial(&self, reg: &str) -> i64 {
        self.test
            .init_regs
            .iter()
            .find(|(t, r, _)| *t == self.index && r == reg)
            .map_or(0, |(_, _, v)| *v)
    }

    /// Locations the thread accesses, with their layout index.
    fn locations_used(&self, t: &Thread) -> Vec<(String, usize)> {
        let mut out: Vec<(String, usize)> = vec![];
        for i in &t.code {
            if let Instr::Load { loc, .. } | Instr::Store { loc, .. } | Instr::Rmw { loc, .. } = i {
                let index = self
                    .layout
                    .location_index(loc)
                    .expect("layout has every location");
                if !out.iter().any(|(l, _)| l == loc) {
                    out.push((loc.clone(), index));
                }
            }
        }
        out
    }

    /// The observed registers written back; a thread that gave up writes `NOT_WRITTEN`.
    fn results(&mut self, may_give_up: bool) -> String {
        let mine: Vec<(usize, String)> = self
            .space
            .targets
            .iter()
            .enumerate()
            .filter_map(|(k, t)| match t {
                Target::Reg { thread, reg } if *thread == self.index => Some((k, reg.clone())),
                _ => None,
            })
            .collect();
        let mut s = String::new();
        for (k, reg) in &mine {
            let v = self.name("reg", reg);
            let _ = writeln!(s, "  results[instance * OBSERVED_REGS + {k}] = {v};");
        }
        if may_give_up {
            s.push_str("  return;\ngave_up:\n");
            for (k, _) in &mine {
                let _ = writeln!(
                    s,
                    "  results[instance * OBSERVED_REGS + {k}] = NOT_WRITTEN;"
                );
            }
        }
        s
    }

    /// A C identifier for a register or label, unique within the thread.
    fn name(&mut self, kind: &str, raw: &str) -> String {
        let key = format!("{kind}:{raw}");
        if let Some(n) = self.names.get(&key) {
            return n.clone();
        }
        let clean: String = raw
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let mut n = format!("{kind}_{clean}");
        while self.names.values().any(|v| *v == n) {
            n.push('_');
        }
        self.names.insert(key, n.clone());
        n
    }

    fn instr(&mut self, i: &Instr, backward: bool) -> Result<String> {
        Ok(match i {
            Instr::Load { dst, loc, tags } => {
                let v = self.name("reg", dst);
                let read = match access(self.test, tags, Kind::Load)? {
                    None => format!("*(volatile global int*){}", location_var(loc)),
                    Some((o, sc)) => format!("atomic_load_explicit({}, {o}, {sc})", location_var(loc)),
                };
                format!("{v} = {read};")
            }
            Instr::Store { loc, value, tags } => {
                let value = self.expr(value)?;
                match access(self.test, tags, Kind::Store)? {
                    None => format!("*(volatile global int*){} = {value};", location_var(loc)),
                    Some((o, sc)) => {
                        format!("atomic_store_explicit({}, {value}, {o}, {sc});", location_var(loc))
                    }
                }
            }
            Instr::Rmw {
                dst,
                loc,
                op,
                tags,
                fail_tags,
            } => self.rmw(dst.as_deref(), loc, op, tags, fail_tags.as_deref())?,
            Instr::Fence { tags } => fence(self.test, tags)?,
            Instr::Barrier { .. } => {
                return Err(Error::file(
                    &self.test.name,
                    "execution barriers are not supported by the harness: a work-group barrier would wait for work-items of other instances",
                ))
            }
            Instr::Assign { dst, value } => format!("{} = {};", self.name("reg", dst), self.expr(value)?),
            Instr::Label(l) => format!("{}: ;", self.name("lbl", l)),
            Instr::Goto(l) => self.jump(l, backward),
            Instr::BranchIf { cond, target } => {
                let lhs = self.expr(&cond.lhs)?;
                let rhs = self.expr(&cond.rhs)?;
                let jump = self.jump(target, backward);
                format!("if ({lhs} {} {rhs}) {{ {jump} }}", cmp(cond.op))
            }
        })
    }

    fn jump(&mut self, label: &str, backward: bool) -> String {
        let goto = format!("goto {};", self.name("lbl", label));
        if backward {
            format!("if (++jumps > JUMP_LIMIT) goto gave_up; {goto}")
        } else {
            goto
        }
    }

    fn rmw(
        &mut self,
        dst: Option<&str>,
        loc: &str,
        op: &RmwOp,
        tags: &[Tag],
        fail_tags: Option<&[Tag]>,
    ) -> Result<String> {
        let (order, scope) = access(self.test, tags, Kind::Rmw)?
            .ok_or_else(|| Error::file(&self.test.name, "a read-modify-write is always atomic"))?;
        let p = location_var(loc);
        let call = match op {
            RmwOp::Arith(b, e) => {
                let f = fetch_function(&self.test.name, *b)?;
                format!("{f}({p}, {}, {order}, {scope})", self.expr(e)?)
            }
            RmwOp::Exch(e) => format!(
                "atomic_exchange_explicit({p}, {}, {order}, {scope})",
                self.expr(e)?
            ),
            RmwOp::Cas { expected, desired } => {
                let fail = failure_order(self.test, fail_tags.unwrap_or(tags))?;
                let (e, d) = (self.expr(expected)?, self.expr(desired)?);
                let store = dst.map_or(String::new(), |r| {
                    format!(" {} = old;", self.name("reg", r))
                });
                return Ok(format!(
                    "{{ int old = {e}; atomic_compare_exchange_strong_explicit({p}, &old, {d}, {order}, {fail}, {scope});{store} }}"
                ));
            }
        };
        Ok(match dst {
            Some(r) => format!("{} = {call};", self.name("reg", r)),
            None => format!("(void){call};"),
        })
    }

    fn expr(&mut self, e: &Expr) -> Result<String> {
        Ok(match e {
            Expr::Const(v) => word(&self.test.name, *v)?.to_string(),
            Expr::Reg(r) => self.name("reg", r),
            Expr::Bin(op, a, b) => {
                format!("({} {} {})", self.expr(a)?, op.c_symbol(), self.expr(b)?)
            }
        })
    }
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
            Target::Reg { .. } => format!("  int {} = results[instance * OBSERVED_REGS + {k}];\n", value_var(k)),
            Target::Mem(l) => format!(
                "  int {} = atomic_load_explicit(location(mem, knobs, regions, offsets, instance, {}), RLX, DEV);\n",
                value_var(k),
                layout.location_index(l).expect("layout has every location")
            ),
        })
        .collect();
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
  for (uint k = 0; k < OBSERVED_REGS; k++) results[instance * OBSERVED_REGS + k] = NOT_WRITTEN;
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

/// The C variable of a location's word in a thread function.
fn location_var(loc: &str) -> String {
    let clean: String = loc
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("loc_{clean}")
}

/// Registers of thread `t`: initialised, written, read, or named by the condition.
fn registers(test: &Litmus, t: usize) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    let mut add = |r: &str| {
        if !out.iter().any(|x| x == r) {
            out.push(r.to_string())
        }
    };
    for (_, r, _) in test.init_regs.iter().filter(|(i, _, _)| *i == t) {
        add(r);
    }
    for i in &test.threads[t].code {
        for r in instr_registers(i) {
            add(&r);
        }
    }
    for target in test.condition.prop.targets() {
        if let Target::Reg { thread, reg } = target {
            if *thread == t {
                add(reg);
            }
        }
    }
    out
}

fn instr_registers(i: &Instr) -> Vec<String> {
    let mut out = vec![];
    match i {
        Instr::Load { dst, .. } => out.push(dst.clone()),
        Instr::Store { value, .. } => expr_registers(value, &mut out),
        Instr::Rmw { dst, op, .. } => {
            out.extend(dst.iter().cloned());
            match op {
                RmwOp::Arith(_, e) | RmwOp::Exch(e) => expr_registers(e, &mut out),
                RmwOp::Cas { expected, desired } => {
                    expr_registers(expected, &mut out);
                    expr_registers(desired, &mut out)
                }
            }
        }
        Instr::Assign { dst, value } => {
            out.push(dst.clone());
            expr_registers(value, &mut out)
        }
        Instr::BranchIf { cond, .. } => {
            expr_registers(&cond.lhs, &mut out);
            expr_registers(&cond.rhs, &mut out)
        }
        Instr::Fence { .. } | Instr::Barrier { .. } | Instr::Label(_) | Instr::Goto(_) => {}
    }
    out
}

fn expr_registers(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Const(_) => {}
        Expr::Reg(r) => out.push(r.clone()),
        Expr::Bin(_, a, b) => {
            expr_registers(a, out);
            expr_registers(b, out)
        }
    }
}

/// Positions of jumps to a label at or before them (the only way a thread can loop).
fn backward_jumps(code: &[Instr]) -> Vec<usize> {
    let label_at = |l: &str| {
        code.iter()
            .position(|i| matches!(i, Instr::Label(x) if x == l))
    };
    code.iter()
        .enumerate()
        .filter_map(|(pc, i)| match i {
            Instr::Goto(l) | Instr::BranchIf { target: l, .. } => {
                label_at(l).filter(|&at| at <= pc).map(|_| pc)
            }
            _ => None,
        })
        .collect()
}

/// What an access is: a load, a store, or both.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Load,
    Store,
    Rmw,
}

/// The memory order and scope of an access; `None` for a plain (weak, non-atomic) one.
fn access(test: &Litmus, tags: &[Tag], kind: Kind) -> Result<Option<(&'static str, &'static str)>> {
    let Some(order) = order(test, tags)? else {
        return Ok(None);
    };
    let fits = match kind {
        Kind::Load => matches!(order, Tag::Rlx | Tag::Acq | Tag::Sc),
        Kind::Store => matches!(order, Tag::Rlx | Tag::Rel | Tag::Sc),
        Kind::Rmw => true,
    };
    let order = c::MEMORY_ORDERS.spelling(order);
    if !fits {
        return Err(Error::file(
            &test.name,
            format!(
                "an access tagged {} has no OpenCL C form ({order} on a {})",
                vocab::join(tags, " "),
                if kind == Kind::Load { "load" } else { "store" }
            ),
        ));
    }
    Ok(Some((order, scope(test, tags)?)))
}

/// The memory order the harness gives the tags (consume is acquire); `None` for weak and
/// non-atomic accesses.
fn order(test: &Litmus, tags: &[Tag]) -> Result<Option<Tag>> {
    const ORDERS: &[(Tag, Option<Tag>)] = &[
        (Tag::Sc, Some(Tag::Sc)),
        (Tag::AcqRel, Some(Tag::AcqRel)),
        (Tag::Acq, Some(Tag::Acq)),
        (Tag::Con, Some(Tag::Acq)),
        (Tag::Rel, Some(Tag::Rel)),
        (Tag::Rlx, Some(Tag::Rlx)),
        (Tag::Weak, None),
        (Tag::Na, None),
    ];
    ORDERS
        .iter()
        .find(|(tag, _)| tags.contains(tag))
        .map(|(_, o)| *o)
        .ok_or_else(|| {
            Error::file(
                &test.name,
                format!("no memory order among the tags {}", vocab::join(tags, " ")),
            )
        })
}

/// The OpenCL memory scope of the tags (device when none is given).
fn scope(test: &Litmus, tags: &[Tag]) -> Result<&'static str> {
    const SCOPES: &[(Tag, Option<Tag>)] = &[
        (Tag::Cta, Some(Tag::Wg)),
        (Tag::Wg, Some(Tag::Wg)),
        (Tag::Gpu, Some(Tag::Dev)),
        (Tag::Dev, Some(Tag::Dev)),
        (Tag::Sys, Some(Tag::Dev)),
        (Tag::All, Some(Tag::Dev)),
        (Tag::Wi, None),
        (Tag::Sg, None),
    ];
    match SCOPES.iter().find(|(tag, _)| tags.contains(tag)) {
        None => Ok(c::OPENCL_SCOPES.spelling(Tag::Dev)),
        Some((_, Some(s))) => Ok(c::OPENCL_SCOPES.spelling(*s)),
        Some((tag, None)) => Err(Error::file(
            &test.name,
            format!("scope {tag} is not supported by the harness (test threads are separate work-items, never one sub-group)"),
        )),
    }
}

/// A CAS's failure order: its read's order, without the release part C forbids there.
fn failure_order(test: &Litmus, tags: &[Tag]) -> Result<&'static str> {
    let order = match order(test, tags)? {
        Some(Tag::AcqRel) => Tag::Acq,
        Some(Tag::Rel) | None => Tag::Rlx,
        Some(o) => o,
    };
    Ok(c::MEMORY_ORDERS.spelling(order))
}

fn fence(test: &Litmus, tags: &[Tag]) -> Result<String> {
    let order = match order(test, tags)? {
        Some(o) if o != Tag::Rlx => c::MEMORY_ORDERS.spelling(o),
        _ => {
            return Err(Error::file(
                &test.name,
                format!("a fence tagged {} orders nothing", vocab::join(tags, " ")),
            ))
        }
    };
    let flags: Vec<&str> = [Tag::Global, Tag::Local]
        .into_iter()
        .filter(|t| tags.contains(t))
        .map(|t| c::FENCE_FLAGS.spelling(t))
        .collect();
    let flags = if flags.is_empty() {
        c::FENCE_FLAGS.spelling(Tag::Global).to_string()
    } else {
        flags.join(" | ")
    };
    Ok(format!(
        "atomic_work_item_fence({flags}, {order}, {});",
        scope(test, tags)?
    ))
}

fn fetch_function(test: &str, op: BinOp) -> Result<&'static str> {
    Ok(match op {
        BinOp::Add => "atomic_fetch_add_explicit",
        BinOp::Sub => "atomic_fetch_sub_explicit",
        BinOp::And => "atomic_fetch_and_explicit",
        BinOp::Or => "atomic_fetch_or_explicit",
        BinOp::Xor => "atomic_fetch_xor_explicit",
        BinOp::Mul => {
            return Err(Error::file(test, "OpenCL C has no atomic multiplication"));
        }
    })
}

fn cmp(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "==",
        CmpOp::Ne => "!=",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
    }
}

/// A constant as a 32-bit word.
fn word(test: &str, v: i64) -> Result<i32> {
    i32::try_from(v).map_err(|_| {
        Error::file(
            test,
            format!("value {v} does not fit the harness's 32-bit memory words"),
        )
    })
}
