//! A thread's statements: the `Body` being written and the shapes of control flow the front end
//! lowers to (`if`, `if … else`, `while`, `atomic_compare_exchange_strong_explicit`, labels and
//! `goto`s), each instruction or shape written back as the C statement it came from.
use std::collections::HashSet;

use super::accesses::{fetch_name, Access, Use};
use super::{c_name, is_fresh_label, is_fresh_reg};
use crate::litmus::print::Msg;
use crate::litmus::program::{CmpOp, Cond, Expr, Instr, RmwOp};
use crate::vocab::Tag;

/// A value the front end put in a fresh register, waiting for the expression that uses it.
pub(super) struct Pending {
    pub(super) reg: String,
    pub(super) text: String,
    /// `Some(x)` when the value is a plain (NA) load of `x` (a compare-exchange's expected value).
    pub(super) na_load: Option<String>,
}

/// The statements of one thread being written.
pub(super) struct Body<'a> {
    pub(super) opencl: bool,
    pub(super) locs: &'a HashSet<&'a str>,
    pub(super) lines: Vec<String>,
    pub(super) pending: Vec<Pending>,
    /// Registers already declared or mentioned.
    pub(super) seen: HashSet<String>,
    /// Registers declared at the top (`int r;`): first mentioned by a read or inside a block.
    pub(super) declare: Vec<String>,
}

impl Body<'_> {
    /// Write `code[lo..hi]` at nesting `depth` (1: the thread's body).
    pub(super) fn block(&mut self, code: &[Instr], lo: usize, hi: usize, depth: usize) -> Msg<()> {
        let mut i = lo;
        while i < hi {
            i = self
                .item(code, i, hi, depth)
                .map_err(|m| format!("instruction {i} `{:?}`: {m}", code[i]))?;
        }
        if let Some(p) = self.pending.first() {
            return Err(format!(
                "the value read into `{}` is never used as the C front end would use it",
                p.reg
            ));
        }
        Ok(())
    }

    /// Write the statement starting at `code[i]`; returns the index after it.
    fn item(&mut self, code: &[Instr], i: usize, hi: usize, depth: usize) -> Msg<usize> {
        match &code[i] {
            Instr::Load { dst, loc, tags } => {
                let text = match self.access(tags, Use::Load)? {
                    Access::Plain => format!("*{loc}"),
                    Access::Atomic { order, scope } => {
                        format!("atomic_load_explicit({loc}, {order}{scope})")
                    }
                    Access::Volatile => format!("volatile_load({loc})"),
                };
                let na_load = tags.iter().all(|t| *t == Tag::Na).then(|| loc.clone());
                self.define(dst, text, na_load, depth)?;
            }
            Instr::Store { loc, value, tags } => {
                let access = self.access(tags, Use::Store)?;
                let v = self.expr(value)?;
                let line = match access {
                    Access::Plain => format!("*{loc} = {v};"),
                    Access::Atomic { order, scope } => {
                        format!("atomic_store_explicit({loc}, {v}, {order}{scope});")
                    }
                    Access::Volatile => format!("volatile_store({loc}, {v});"),
                };
                self.stmt(line, depth)?;
            }
            Instr::Rmw {
                op: RmwOp::Cas { .. },
                ..
            } => return self.cas(code, i, hi, depth),
            Instr::Rmw {
                dst,
                loc,
                op,
                tags,
                fail_tags,
            } => {
                if fail_tags.is_some() {
                    return Err("only a compare-exchange has a failure order".into());
                }
                let Access::Atomic { order, scope } = self.access(tags, Use::Rmw)? else {
                    return Err("a read-modify-write must be atomic, with a memory order".into());
                };
                let (function, operand) = match op {
                    RmwOp::Arith(b, e) => (fetch_name(*b)?, e),
                    RmwOp::Exch(e) => ("atomic_exchange", e),
                    RmwOp::Cas { .. } => unreachable!("handled above"),
                };
                let v = self.expr(operand)?;
                let text = format!("{function}_explicit({loc}, {v}, {order}{scope})");
                match dst {
                    Some(d) => self.define(d, text, None, depth)?,
                    None => self.stmt(format!("{text};"), depth)?,
                }
            }
            Instr::Fence { tags } => {
                let line = self.fence(tags)?;
                self.stmt(line, depth)?;
            }
            Instr::Barrier { id, count, tags } => {
                if *id != Expr::Const(0) {
                    return Err(
                        "a barrier with an id is written with a label before it (`B1: barrier(…)`)"
                            .into(),
                    );
                }
                let line = format!("{};", self.barrier(count.as_ref(), tags)?);
                self.stmt(line, depth)?;
            }
            Instr::Assign { dst, value } => {
                let v = self.expr(value)?;
                self.define(dst, v, None, depth)?;
            }
            Instr::BranchIf { cond, target } if is_fresh_label(target) => {
                return self.if_stmt(code, i, cond, target, hi, depth)
            }
            Instr::Label(head) if is_fresh_label(head) => {
                return self.while_stmt(code, i, head, hi, depth)
            }
            Instr::Label(l) => {
                if !c_name(l) {
                    return Err(format!("label `{l}` cannot be written in a C test"));
                }
                if let Some(Instr::Barrier { id, count, tags }) =
                    code.get(i + 1).filter(|_| i + 1 < hi)
                {
                    if *id != Expr::Const(0) {
                        let line = format!("{l}: {};", self.barrier(count.as_ref(), tags)?);
                        self.stmt(line, depth)?;
                        return Ok(i + 2);
                    }
                }
                self.stmt(format!("{l}: ;"), depth)?;
            }
            Instr::Goto(l) if c_name(l) => self.stmt(format!("goto {l};"), depth)?,
            Instr::Goto(_) | Instr::BranchIf { .. } => {
                return Err(
                    "a jump that is no `if`, `if … else`, `while` or `goto` of the C front end"
                        .into(),
                )
            }
        }
        Ok(i + 1)
    }

    /// `if (c) { … }` and `if (c) { … } else { … }`: `BranchIf(!c, else)`, then, [`Goto(end)`,
    /// `Label(else)`, else], `Label(…)`.
    fn if_stmt(
        &mut self,
        code: &[Instr],
        i: usize,
        cond: &Cond,
        target: &str,
        hi: usize,
        depth: usize,
    ) -> Msg<usize> {
        let k = find_label(code, target, i + 1, hi)
            .ok_or("a jump forward to no label of its block is no `if` of the C front end")?;
        let c = self.condition(cond)?;
        self.stmt(format!("if ({c}) {{"), depth)?;
        let otherwise = match code.get(k.wrapping_sub(1)) {
            Some(Instr::Goto(end)) if k > i + 1 && is_fresh_label(end) => {
                find_label(code, end, k + 1, hi).map(|m| (k - 1, m))
            }
            _ => None,
        };
        match otherwise {
            Some((then_end, m)) => {
                self.block(code, i + 1, then_end, depth + 1)?;
                self.stmt("} else {".into(), depth)?;
                self.block(code, k + 1, m, depth + 1)?;
                self.stmt("}".into(), depth)?;
                Ok(m + 1)
            }
            None => {
                self.block(code, i + 1, k, depth + 1)?;
                self.stmt("}".into(), depth)?;
                Ok(k + 1)
            }
        }
    }

    /// `while (c) { … }`: `Label(head)`, reads of `c`, `BranchIf(!c, end)`, body, `Goto(head)`,
    /// `Label(end)`.
    fn while_stmt(
        &mut self,
        code: &[Instr],
        i: usize,
        head: &str,
        hi: usize,
        depth: usize,
    ) -> Msg<usize> {
        const NOT_A_LOOP: &str = "a label the C front end makes only for `while` heads";
        if !self.pending.is_empty() {
            return Err(NOT_A_LOOP.into());
        }
        let mut j = i + 1;
        // The reads of the condition go to fresh registers, used by the branch.
        while j < hi
            && matches!(&code[j], Instr::Load { dst, .. } | Instr::Rmw { dst: Some(dst), .. } if is_fresh_reg(dst))
        {
            j = self.item(code, j, hi, depth)?;
        }
        let Some(Instr::BranchIf { cond, target: end }) = code.get(j).filter(|_| j < hi) else {
            return Err(NOT_A_LOOP.into());
        };
        let m = find_label(code, end, j + 1, hi).ok_or(NOT_A_LOOP)?;
        if m == j + 1 || code[m - 1] != Instr::Goto(head.to_string()) {
            return Err(NOT_A_LOOP.into());
        }
        let c = self.condition(cond)?;
        self.stmt(format!("while ({c}) {{"), depth)?;
        self.block(code, j + 1, m - 1, depth + 1)?;
        self.stmt("}".into(), depth)?;
        Ok(m + 1)
    }

    /// `r = atomic_compare_exchange_strong_explicit(x, exp, v, s, f);` from the front end's
    /// lowering (`c_calls`): [load of `exp` into a fresh register,] the RMW into a fresh `old`,
    /// [`r = 1`,] `BranchIf(old == expected, ok)`, [`r = 0`,] the write-back of `old` to `*exp`
    /// (NA store) or to the register (`&e`), `Label(ok)`.
    fn cas(&mut self, code: &[Instr], i: usize, hi: usize, depth: usize) -> Msg<usize> {
        let Instr::Rmw {
            dst: Some(old),
            loc,
            op: RmwOp::Cas { expected, desired },
            tags,
            fail_tags,
        } = &code[i]
        else {
            return Err("a compare-exchange without a destination register".into());
        };
        const SHAPE: &str =
            "a compare-exchange not followed by the front end's write-back of the old value";
        if !is_fresh_reg(old) {
            return Err(SHAPE.into());
        }
        // Where the expected value lives: a location read just before, or a register (`&e`).
        let (exp_text, exp_loc) = match expected {
            Expr::Reg(e) if is_fresh_reg(e) => match self.pending.first() {
                Some(Pending {
                    reg,
                    na_load: Some(l),
                    ..
                }) if reg == e => {
                    let l = l.clone();
                    self.pending.remove(0);
                    (l.clone(), Some(l))
                }
                _ => return Err(SHAPE.into()),
            },
            Expr::Reg(e) => {
                self.read(e)?;
                (format!("&{e}"), None)
            }
            _ => return Err("a compare-exchange whose expected value is not in a register".into()),
        };
        let v = self.expr(desired)?;
        let Access::Atomic { order, scope } = self.access(tags, Use::Rmw)? else {
            return Err("a compare-exchange must be atomic, with a memory order".into());
        };
        let fail = fail_tags.as_ref().unwrap_or(tags);
        let Access::Atomic {
            order: fail_order,
            scope: fail_scope,
        } = self.access(fail, Use::Load)?
        else {
            return Err("the failure order of a compare-exchange must be atomic".into());
        };
        if fail_scope != scope {
            return Err("a compare-exchange has one scope for success and failure".into());
        }
        let text = format!(
            "atomic_compare_exchange_strong_explicit({loc}, {exp_text}, {v}, {order}, {fail_order}{scope})"
        );
        let at = |j: usize| code.get(j).filter(|_| j < hi);
        let mut j = i + 1;
        let result = match at(j) {
            Some(Instr::Assign {
                dst,
                value: Expr::Const(1),
            }) => {
                j += 1;
                Some(dst.clone())
            }
            _ => None,
        };
        let ok = match at(j) {
            Some(Instr::BranchIf {
                cond:
                    Cond {
                        op: CmpOp::Eq,
                        lhs: Expr::Reg(o),
                        rhs,
                    },
                target,
            }) if o == old && rhs == expected => target.clone(),
            _ => return Err(SHAPE.into()),
        };
        j += 1;
        if let Some(r) = &result {
            match at(j) {
                Some(Instr::Assign {
                    dst,
                    value: Expr::Const(0),
                }) if dst == r => j += 1,
                _ => return Err(SHAPE.into()),
            }
        }
        let old_value = Expr::Reg(old.clone());
        let written_back = match (at(j), &exp_loc, expected) {
            (Some(Instr::Store { loc, value, tags }), Some(l), _) => {
                loc == l && *value == old_value && *tags == [Tag::Na]
            }
            (Some(Instr::Assign { dst, value }), None, Expr::Reg(e)) => {
                dst == e && *value == old_value
            }
            _ => false,
        };
        if !written_back || at(j + 1) != Some(&Instr::Label(ok)) {
            return Err(SHAPE.into());
        }
        match result {
            Some(r) => self.define(&r, text, None, depth)?,
            None => self.stmt(format!("{text};"), depth)?,
        }
        Ok(j + 2)
    }
}

/// The position of `Label(label)` in `code[from..hi]`.
fn find_label(code: &[Instr], label: &str, from: usize, hi: usize) -> Option<usize> {
    (from..hi).find(|&k| matches!(&code[k], Instr::Label(l) if l == label))
}
