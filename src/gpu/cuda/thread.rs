//! One test thread as a PTX function `P<i>`, called by `litmus_test` with one pointer per
//! access (`[%aK+TAG]`, see `events`) and an opaque zero, returning the thread's observed
//! registers. A separate function keeps the thread's code together in the SASS (ptxas does not
//! inline it), which is what optcheck reads.
//!
//! Instructions: `ld`/`st` with the test's semantics and scope and `.global` (weak: none,
//! `.volatile` as written); `atom`/`red` likewise (`.sub` as `.add` of the negated operand);
//! `fence` as written; registers as `.b32` (`%rN`, the test's names in a comment); branches as
//! `setp` + `bra` on signed values. A backward jump counts; past `JUMP_LIMIT` the thread gives
//! up and returns `NOT_WRITTEN` for every register (the instance lands in the outside bin), as
//! the OpenCL harness does.
use std::collections::HashMap;
use std::fmt::Write as _;

use super::events::{Access, AtomOp, Event, Op};
use crate::diag::{Error, Internal, Result};
use crate::litmus::{BinOp, CmpOp, Cond, Expr, Instr, Litmus, RmwOp, Target};
use crate::vocab::Level;

/// Backward jumps a thread may take before it gives up.
pub(crate) const JUMP_LIMIT: u32 = 1 << 16;
/// The value of a register the thread did not get to write (`i32::MIN`, in no domain).
pub(crate) const NOT_WRITTEN: i32 = i32::MIN;

/// The PTX function of thread `index`; `observed` are its registers in the space, in order.
pub(crate) fn function(
    test: &Litmus,
    index: usize,
    events: &[Event],
    observed: &[String],
) -> Result<String> {
    let mut w = Writer::new(test, index, events);
    let thread = &test.threads[index];
    for (t, reg, v) in &test.init_regs {
        if *t == index && immediate(*v).is_none() {
            let msg = format!(
                "{}: initial value of `{reg}`: {}",
                thread.name,
                too_wide(*v)
            );
            return Err(Error::file(&test.name, msg));
        }
    }
    let mut body = String::new();
    for (pc, instr) in thread.code.iter().enumerate() {
        w.instr(pc, instr, &mut body)?;
    }
    for reg in observed {
        w.reg(reg);
    }
    Ok(w.finish(&body, observed))
}

/// The function's name.
pub(crate) fn name(index: usize) -> String {
    format!("P{index}")
}

struct Writer<'a> {
    test: &'a Litmus,
    index: usize,
    events: &'a [Event],
    accesses: Vec<&'a Access>,
    /// Loads whose value a later load's address depends on.
    dependency_sources: Vec<usize>,
    regs: Vec<String>,
    labels: HashMap<String, String>,
    temps: usize,
    jumps: bool,
}

impl<'a> Writer<'a> {
    fn new(test: &'a Litmus, index: usize, events: &'a [Event]) -> Self {
        let accesses: Vec<&Access> = events
            .iter()
            .filter_map(|e| match e {
                Event::Access(a) => Some(a),
                Event::Fence(_) => None,
            })
            .collect();
        let dependency_sources = accesses
            .windows(2)
            .filter(|w| w[1].manufactured_dependency)
            .map(|w| w[0].instr)
            .collect();
        Writer {
            test,
            index,
            events,
            accesses,
            dependency_sources,
            regs: vec![],
            labels: HashMap::new(),
            temps: 0,
            jumps: false,
        }
    }

    fn fail(&self, pc: usize, msg: impl std::fmt::Display) -> Error {
        Error::file(&self.test.name, self.at(pc, msg))
    }

    /// A bug in mapcheck at instruction `pc`: two of its views of the test disagree.
    fn bug(&self, pc: usize, msg: impl std::fmt::Display) -> Error {
        Error::internal(&self.test.name, Internal(self.at(pc, msg)))
    }

    fn at(&self, pc: usize, msg: impl std::fmt::Display) -> String {
        let name = &self.test.threads[self.index].name;
        format!("{name}, instruction {pc}: {msg}")
    }

    /// The PTX register of a test register.
    fn reg(&mut self, r: &str) -> String {
        let k = match self.regs.iter().position(|x| x == r) {
            Some(k) => k,
            None => {
                self.regs.push(r.to_string());
                self.regs.len() - 1
            }
        };
        format!("%r{k}")
    }

    fn temp(&mut self) -> String {
        self.temps += 1;
        format!("%t{}", self.temps - 1)
    }

    fn label(&mut self, l: &str) -> String {
        let next = format!("$L{}", self.labels.len());
        self.labels.entry(l.to_string()).or_insert(next).clone()
    }

    fn instr(&mut self, pc: usize, instr: &Instr, out: &mut String) -> Result<()> {
        match instr {
            Instr::Load { .. } | Instr::Store { .. } | Instr::Rmw { .. } => {
                self.access(pc, instr, out)
            }
            Instr::Fence { .. } => {
                let fence = self.fence_text(pc)?;
                line(out, &fence);
                Ok(())
            }
            Instr::Assign { dst, value } => {
                let d = self.reg(dst);
                let v = self.operand(pc, value, out)?;
                line(out, &format!("mov.b32 {d}, {v};"));
                Ok(())
            }
            Instr::Label(l) => {
                let l = self.label(l);
                let _ = writeln!(out, "{l}:");
                Ok(())
            }
            Instr::Goto(l) => {
                self.count_backward(pc, l, out);
                let l = self.label(l);
                line(out, &format!("bra.uni {l};"));
                Ok(())
            }
            Instr::BranchIf { cond, target } => self.branch(pc, cond, target, out),
            Instr::Barrier { .. } => Err(self.fail(pc, "barriers are not supported")),
        }
    }

    fn fence_text(&self, pc: usize) -> Result<String> {
        self.events
            .iter()
            .find_map(|e| match e {
                Event::Fence(f) if f.instr == pc => {
                    Some(format!("fence{}{};", f.sem.ptx(), f.scope.ptx()))
                }
                _ => None,
            })
            .ok_or_else(|| self.fail(pc, "not a fence"))
    }

    fn access(&mut self, pc: usize, instr: &Instr, out: &mut String) -> Result<()> {
        let k = self
            .accesses
            .iter()
            .position(|a| a.instr == pc)
            .ok_or_else(|| self.fail(pc, "not an access"))?;
        let a = self.accesses[k];
        let ptr = format!("%a{k}");
        if a.manufactured_dependency {
            line(out, "cvt.u64.u32 %dep64, %dep;");
            line(
                out,
                &format!("add.u64 {ptr}, {ptr}, %dep64; // manufactured dependency"),
            );
        }
        let addr = format!("[{ptr}+{:#x}]", a.tag);
        let s = a.strength.ptx();
        let text = match (instr, a.op) {
            (Instr::Load { dst, .. }, Op::Load) => {
                format!("ld{s}.global.u32 {}, {addr};", self.reg(dst))
            }
            (Instr::Store { value, .. }, Op::Store) => {
                format!(
                    "st{s}.global.u32 {addr}, {};",
                    self.operand(pc, value, out)?
                )
            }
            (Instr::Rmw { dst, op, .. }, Op::Atom(atom)) => {
                let operands = self.rmw_operands(pc, op, atom, out)?;
                let d = match dst {
                    Some(d) => self.reg(d),
                    None => self.temp(),
                };
                format!("atom{s}.global{} {d}, {addr}, {operands};", atom.ptx())
            }
            (Instr::Rmw { op, .. }, Op::Red(atom)) => {
                let operands = self.rmw_operands(pc, op, atom, out)?;
                format!("red{s}.global{} {addr}, {operands};", atom.ptx())
            }
            _ => return Err(self.bug(pc, "access and event disagree")),
        };
        line(out, &format!("{text} // {}", a.location));
        if self.dependency_sources.contains(&pc) {
            if let Instr::Load { dst, .. } = instr {
                let d = self.reg(dst);
                line(out, &format!("and.b32 %dep, {d}, %zero;"));
            }
        }
        Ok(())
    }

    fn rmw_operands(
        &mut self,
        pc: usize,
        op: &RmwOp,
        atom: AtomOp,
        out: &mut String,
    ) -> Result<String> {
        Ok(match op {
            RmwOp::Arith(_, e) if atom == AtomOp::Sub => self.negated(pc, e, out)?,
            RmwOp::Arith(_, e) | RmwOp::Exch(e) => self.operand(pc, e, out)?,
            RmwOp::Cas { expected, desired } => {
                let e = self.operand(pc, expected, out)?;
                format!("{e}, {}", self.operand(pc, desired, out)?)
            }
        })
    }

    fn negated(&mut self, pc: usize, e: &Expr, out: &mut String) -> Result<String> {
        match e {
            Expr::Const(c) => {
                immediate(c.wrapping_neg()).ok_or_else(|| self.fail(pc, too_wide(*c)))
            }
            _ => {
                let v = self.operand(pc, e, out)?;
                let t = self.temp();
                line(out, &format!("neg.s32 {t}, {v};"));
                Ok(t)
            }
        }
    }

    /// A register or an immediate; a compound expression is computed into temporaries first.
    fn operand(&mut self, pc: usize, e: &Expr, out: &mut String) -> Result<String> {
        match e {
            Expr::Const(c) => immediate(*c).ok_or_else(|| self.fail(pc, too_wide(*c))),
            Expr::Reg(r) => Ok(self.reg(r)),
            Expr::Bin(op, a, b) => {
                let a = self.in_register(pc, a, out)?;
                let b = self.operand(pc, b, out)?;
                let t = self.temp();
                line(out, &format!("{} {t}, {a}, {b};", arith(*op)));
                Ok(t)
            }
        }
    }

    /// An operand in a register (PTX wants the first source of most instructions there).
    fn in_register(&mut self, pc: usize, e: &Expr, out: &mut String) -> Result<String> {
        let v = self.operand(pc, e, out)?;
        if v.starts_with('%') {
            return Ok(v);
        }
        let t = self.temp();
        line(out, &format!("mov.b32 {t}, {v};"));
        Ok(t)
    }

    fn branch(&mut self, pc: usize, cond: &Cond, target: &str, out: &mut String) -> Result<()> {
        let a = self.in_register(pc, &cond.lhs, out)?;
        let b = self.operand(pc, &cond.rhs, out)?;
        line(out, &format!("setp.{}.s32 %p, {a}, {b};", compare(cond.op)));
        self.count_backward(pc, target, out);
        let l = self.label(target);
        line(out, &format!("@%p bra {l};"));
        Ok(())
    }

    /// Before a backward jump: count it, and give up past the limit.
    fn count_backward(&mut self, pc: usize, target: &str, out: &mut String) {
        let code = &self.test.threads[self.index].code;
        let backward = code[..pc]
            .iter()
            .any(|i| matches!(i, Instr::Label(l) if l == target));
        if backward {
            self.jumps = true;
            line(out, "add.u32 %jumps, %jumps, 1;");
            line(out, "setp.gt.u32 %q, %jumps, JUMP_LIMIT;");
            line(out, "@%q bra $gave_up;");
        }
    }

    /// Header, declarations, initial values, the body, and the returned registers.
    fn finish(self, body: &str, observed: &[String]) -> String {
        let thread = &self.test.threads[self.index];
        let n = self.accesses.len();
        let params: Vec<String> = (0..n)
            .map(|k| format!(".param .u64 a{k}"))
            .chain(std::iter::once(".param .b32 zero".to_string()))
            .collect();
        let ret = if observed.is_empty() {
            String::new()
        } else {
            format!("(.param .align 4 .b8 observed[{}]) ", 4 * observed.len())
        };
        let mut s = format!(
            "// Test thread {} (CTA {}, GPU {}); registers: {}.\n.func {ret}{}({})\n{{\n",
            thread.name,
            thread.placement.id(Level::Cta),
            thread.placement.id(Level::Gpu),
            self.register_names(),
            name(self.index),
            params.join(", ")
        );
        declare(&mut s, ".b32", "%r", self.regs.len());
        declare(&mut s, ".b32", "%t", self.temps);
        declare(&mut s, ".b64", "%a", n);
        let dependencies = !self.dependency_sources.is_empty();
        if dependencies {
            s.push_str("  .reg .b32 %zero, %dep;\n  .reg .b64 %dep64;\n");
        }
        if self.jumps {
            s.push_str("  .reg .b32 %jumps;\n  .reg .pred %q;\n");
        }
        s.push_str("  .reg .pred %p;\n");
        for k in 0..n {
            line(&mut s, &format!("ld.param.u64 %a{k}, [a{k}];"));
        }
        if dependencies {
            line(&mut s, "ld.param.b32 %zero, [zero];");
        }
        if self.jumps {
            line(&mut s, "mov.b32 %jumps, 0;");
        }
        for (k, r) in self.regs.iter().enumerate() {
            let init = self
                .test
                .init_regs
                .iter()
                .find(|(t, reg, _)| *t == self.index && reg == r)
                .map_or(0, |(_, _, v)| *v);
            let init = immediate(init).unwrap_or_default();
            let _ = writeln!(s, "  mov.b32 %r{k}, {init};");
        }
        s.push_str(body);
        let positions: Vec<usize> = observed
            .iter()
            .map(|r| self.regs.iter().position(|x| x == r).unwrap_or(0))
            .collect();
        for (j, k) in positions.iter().enumerate() {
            line(
                &mut s,
                &format!("st.param.b32 [observed+{}], %r{k};", 4 * j),
            );
        }
        line(&mut s, "ret;");
        if self.jumps {
            s.push_str("$gave_up:\n");
            for j in 0..observed.len() {
                line(
                    &mut s,
                    &format!("st.param.b32 [observed+{}], {NOT_WRITTEN};", 4 * j),
                );
            }
            line(&mut s, "ret;");
        }
        s.push_str("}\n\n");
        s.replace("JUMP_LIMIT", &JUMP_LIMIT.to_string())
    }

    fn register_names(&self) -> String {
        let names: Vec<String> = self
            .regs
            .iter()
            .enumerate()
            .map(|(k, r)| format!("%r{k}={r}"))
            .collect();
        if names.is_empty() {
            "none".into()
        } else {
            names.join(" ")
        }
    }
}

/// Registers of `thread` in `targets` (the space's order).
pub(crate) fn observed_registers(targets: &[Target], thread: usize) -> Vec<String> {
    targets
        .iter()
        .filter_map(|t| match t {
            Target::Reg { thread: i, reg } if *i == thread => Some(reg.clone()),
            _ => None,
        })
        .collect()
}

fn line(out: &mut String, text: &str) {
    let _ = writeln!(out, "  {text}");
}

fn declare(out: &mut String, ty: &str, prefix: &str, n: usize) {
    if n > 0 {
        let _ = writeln!(out, "  .reg {ty} {prefix}<{n}>;");
    }
}

/// A 32-bit immediate (signed, as the test writes it).
fn immediate(v: i64) -> Option<String> {
    i32::try_from(v)
        .ok()
        .or_else(|| u32::try_from(v).ok().map(|u| u as i32))
        .map(|v| v.to_string())
}

fn too_wide(v: i64) -> String {
    format!("value {v} does not fit the harness's 32-bit registers")
}

fn arith(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "add.s32",
        BinOp::Sub => "sub.s32",
        BinOp::Mul => "mul.lo.s32",
        BinOp::And => "and.b32",
        BinOp::Or => "or.b32",
        BinOp::Xor => "xor.b32",
    }
}

fn compare(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "eq",
        CmpOp::Ne => "ne",
        CmpOp::Lt => "lt",
        CmpOp::Le => "le",
        CmpOp::Gt => "gt",
        CmpOp::Ge => "ge",
    }
}
