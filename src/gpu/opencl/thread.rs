//! One test thread of the OpenCL harness as a C function `thread_<i>`: its registers, its
//! instructions as OpenCL C (accesses through `atomics`), jumps with the give-up limit, and the
//! registers it writes back.
//!
//! Owns: `ThreadWriter` and the register and jump analyses it needs. Used by `opencl`'s kernels.
use std::collections::HashMap;
use std::fmt::Write as _;

use super::atomics::{access, cmp, failure_order, fence, fetch_function, word, Kind};
use super::kernel::result;
use crate::diag::{Error, Result};
use crate::gpu::layout::Layout;
use crate::gpu::outcome::Space;
use crate::litmus::{Expr, Instr, Litmus, RmwOp, Target, Thread};
use crate::vocab::{Level, Tag};

/// Writes one test thread as a C function `thread_<i>`.
pub(super) struct ThreadWriter<'a> {
    test: &'a Litmus,
    layout: &'a Layout,
    space: &'a Space,
    index: usize,
    /// Register and label names → C identifiers.
    names: HashMap<String, String>,
}

impl<'a> ThreadWriter<'a> {
    pub(super) fn new(
        test: &'a Litmus,
        layout: &'a Layout,
        space: &'a Space,
        index: usize,
    ) -> Self {
        ThreadWriter {
            test,
            layout,
            space,
            index,
            names: HashMap::new(),
        }
    }

    pub(super) fn function(mut self, t: &Thread) -> Result<String> {
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
            t.placement.id(Level::Cta),
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
            let _ = writeln!(s, "  {} = {v};", result(k));
        }
        if may_give_up {
            s.push_str("  return;\ngave_up:\n");
            for (k, _) in &mine {
                let _ = writeln!(s, "  {} = NOT_WRITTEN;", result(k));
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
        for r in i.registers() {
            add(r);
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
