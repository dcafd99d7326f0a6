//! Expressions and conditions: the C expression of an `Expr` (fresh registers folded back into
//! the expression that reads them), the condition of a jump, and the assignment or statement
//! line that ends up in the thread's body.
use super::statements::{Body, Pending};
use super::{is_fresh_reg, register};
use crate::litmus::c_lower::fold;
use crate::litmus::print::Msg;
use crate::litmus::program::{CmpOp, Cond, Expr};

impl Body<'_> {
    /// `dst = text;`, or, for a fresh register, keep `text` for the expression that uses it.
    pub(super) fn define(
        &mut self,
        dst: &str,
        text: String,
        na_load: Option<String>,
        depth: usize,
    ) -> Msg<()> {
        if is_fresh_reg(dst) {
            self.pending.push(Pending {
                reg: dst.to_string(),
                text,
                na_load,
            });
            return Ok(());
        }
        register(dst, self.locs)?;
        let first = self.seen.insert(dst.to_string());
        if first && depth > 1 {
            self.declare.push(dst.to_string());
        }
        let int = if first && depth == 1 { "int " } else { "" };
        self.stmt(format!("{int}{dst} = {text};"), depth)
    }

    /// A register read in an expression (declared at the top if not seen yet).
    pub(super) fn read(&mut self, r: &str) -> Msg<()> {
        register(r, self.locs)?;
        if self.seen.insert(r.to_string()) {
            self.declare.push(r.to_string());
        }
        Ok(())
    }

    pub(super) fn stmt(&mut self, line: String, depth: usize) -> Msg<()> {
        if let Some(p) = self.pending.first() {
            return Err(format!(
                "the value read into `{}` is not used by the next statement, as the C front end would use it",
                p.reg
            ));
        }
        self.lines.push(format!("{}{line}", "  ".repeat(depth)));
        Ok(())
    }

    /// The C expression of `e`; the fresh registers it reads are replaced by their reads, which
    /// must come in the order the front end evaluates them (left to right).
    pub(super) fn expr(&mut self, e: &Expr) -> Msg<String> {
        match e {
            Expr::Const(i64::MIN) => Ok(format!("({} - 1)", i64::MIN + 1)),
            Expr::Const(c) => Ok(c.to_string()),
            Expr::Reg(r) if is_fresh_reg(r) => match self.pending.first() {
                Some(p) if p.reg == *r => Ok(self.pending.remove(0).text),
                _ => Err(format!(
                    "register `{r}` is used where the C front end would not have read it"
                )),
            },
            Expr::Reg(r) => {
                self.read(r)?;
                Ok(r.clone())
            }
            Expr::Bin(op, a, b) => {
                if fold(*op, (**a).clone(), (**b).clone()) != *e {
                    return Err(format!(
                        "the C front end would simplify the expression `{e:?}`"
                    ));
                }
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                Ok(format!("({a} {} {b})", op.c_symbol()))
            }
        }
    }

    /// The C condition `c` such that the front end's jump "if not `c`" is `cond`.
    pub(super) fn condition(&mut self, cond: &Cond) -> Msg<String> {
        if matches!((&cond.lhs, &cond.rhs), (Expr::Const(_), Expr::Const(_))) {
            return Err("the C front end decides a comparison of two constants itself".into());
        }
        let symbol = match cond.op {
            CmpOp::Eq => "!=",
            CmpOp::Ne => "==",
            CmpOp::Lt => ">=",
            CmpOp::Le => ">",
            CmpOp::Gt => "<=",
            CmpOp::Ge => "<",
        };
        let (a, b) = (self.expr(&cond.lhs)?, self.expr(&cond.rhs)?);
        Ok(format!("{a} {symbol} {b}"))
    }
}
