//! Lowering of one C11 / OpenCL thread body to `Instr`s.
//!
//! Decisions:
//! - Names: a thread's pointer parameters and the initial state's locations are shared
//!   locations; every other name is a register (declared with `int r`, or implicitly by `r = …`).
//!   A local declaration shadows a location of the initial state, never a parameter.
//! - Memory reads inside expressions (`t + *y`, `if (atomic_load(x) == 1)`) go to fresh registers
//!   `%t0`, `%t1`, … written left to right; `r = <access>` loads straight into `r`. The operands
//!   of an arithmetic or comparison operator are unsequenced (C11 6.5p2, as herd's C front end
//!   composes them in parallel): when both perform memory accesses, their two ranges of code
//!   are recorded (`Unsequenced`) and the runner puts no `po` between their events. `&&`, `||`
//!   and `!` keep C's sequence points (branches, left first).
//! - `if`/`while`/`&&`/`||`/`!`/comparisons become `BranchIf`/`Goto`/`Label` with fresh labels
//!   (`%L0`, …), short-circuiting as C does; a comparison used as a value becomes 0 or 1.
//!   Fresh names contain `%`, which C names cannot, so they never clash with the test's own.
//! - Addresses are `x`, `&x`, `x+e`, `x-e`, `&x[e]`; `x[e]` and `*(x+e)` access element e of an
//!   array declared in the initial state. A non-constant index becomes a branch per element
//!   (`BranchIf idx == i` to an access of `x[i]`); an index outside the array skips the access.
//!
//! Owns: `Lowerer` (per-thread state), `Lowered`, statement, expression, condition and address lowering.
//! Builtin calls are in `c_calls`. Uses `c_ast`, `program`, `cond` (arrays), `labels`, `source`.
use std::collections::HashSet;

use crate::diag::Result;
use crate::litmus::ast::{Span, Spanned};
use crate::litmus::c_ast::{BinOpC, CExpr, ExprKind, Stmt, StmtKind, UnOp};
use crate::litmus::c_calls;
use crate::litmus::cond::{self, Init};
use crate::litmus::labels::Labels;
use crate::litmus::program::{Arch, BinOp, CmpOp, Cond, Expr, Instr, Unsequenced};
use crate::litmus::source::Source;
use crate::vocab::Tag;

/// Where the value of an expression is wanted.
pub(crate) enum Want {
    /// Evaluated for its effects only (`f(x);`).
    Discard,
    /// Into this register (`r = e;`).
    Into(String),
    /// As an expression, to be used by the caller.
    Value,
}

/// A memory address: element `index` of `base` (`index` is 0 for a plain location).
#[derive(Clone, Debug)]
pub(crate) struct Addr {
    pub(crate) base: String,
    pub(crate) index: Expr,
    pub(crate) span: Span,
}

/// A thread body lowered: its code, the unsequenced operands in it and where each instruction
/// of the code was written.
pub(crate) struct Lowered {
    pub(crate) code: Vec<Instr>,
    pub(crate) unsequenced: Vec<Unsequenced>,
    pub(crate) spans: Vec<Span>,
}

/// Per-thread lowering state.
pub(crate) struct Lowerer<'a> {
    pub(crate) src: &'a Source,
    pub(crate) arch: Arch,
    pub(crate) init: &'a Init,
    /// Barrier labels of the whole file; a label's id is its position + 1 (unlabelled: 0).
    pub(crate) barrier_ids: &'a mut Vec<String>,
    /// The thread's pointer parameters.
    pub(crate) params: HashSet<String>,
    /// Locations of the initial state.
    pub(crate) globals: HashSet<String>,
    pub(crate) locals: HashSet<String>,
    pub(crate) code: Vec<Instr>,
    /// Where each instruction of `code` was written: the innermost expression (or statement)
    /// being lowered when it was emitted.
    spans: Vec<Span>,
    /// The innermost expression or statement being lowered.
    at: Span,
    /// Operands of one operator lowered to code that accesses memory on both sides.
    unsequenced: Vec<Unsequenced>,
    pub(crate) labels: Labels,
    fresh: usize,
    /// The label written before the barrier call being lowered (`B1: barrier(…)`).
    pub(crate) barrier_label: Option<String>,
}

impl<'a> Lowerer<'a> {
    pub(crate) fn new(
        src: &'a Source,
        arch: Arch,
        init: &'a Init,
        barrier_ids: &'a mut Vec<String>,
        params: HashSet<String>,
    ) -> Self {
        let globals = init.locations().map(str::to_string).collect();
        Lowerer {
            src,
            arch,
            init,
            barrier_ids,
            params,
            globals,
            locals: HashSet::new(),
            code: Vec::new(),
            spans: Vec::new(),
            at: Span::new(0, 0),
            unsequenced: Vec::new(),
            labels: Labels::default(),
            fresh: 0,
            barrier_label: None,
        }
    }

    /// Lower a whole thread body: its code, the unsequenced operands in it and where each
    /// instruction was written.
    pub(crate) fn thread(mut self, name: &str, body: &[Stmt]) -> Result<Lowered> {
        for s in body {
            self.stmt(s)?;
        }
        self.labels.finish(self.src, name)?;
        Ok(Lowered {
            code: self.code,
            unsequenced: self.unsequenced,
            spans: self.spans,
        })
    }

    /// `lower()` with `at` the innermost span being lowered.
    fn lowering_at<T>(&mut self, at: Span, lower: impl FnOnce(&mut Self) -> T) -> T {
        let outer = std::mem::replace(&mut self.at, at);
        let out = lower(self);
        self.at = outer;
        out
    }

    /// The values of the two operands of one operator, recorded as unsequenced when both
    /// access memory.
    fn operands(&mut self, a: &CExpr, b: &CExpr) -> Result<(Expr, Expr)> {
        let start = self.code.len();
        let va = self.value(a)?;
        let middle = self.code.len();
        let vb = self.value(b)?;
        let (left, right) = (start..middle, middle..self.code.len());
        let accesses =
            |r: &std::ops::Range<usize>| self.code[r.clone()].iter().any(|i| i.event_count() > 0);
        if accesses(&left) && accesses(&right) {
            self.unsequenced.push(Unsequenced { left, right });
        }
        Ok((va, vb))
    }

    pub(crate) fn emit(&mut self, i: Instr) {
        self.code.push(i);
        self.spans.push(self.at);
    }

    pub(crate) fn fresh_reg(&mut self) -> String {
        self.fresh += 1;
        format!("%t{}", self.fresh - 1)
    }

    pub(crate) fn fresh_label(&mut self) -> String {
        self.fresh += 1;
        format!("%L{}", self.fresh - 1)
    }

    // ------------------------------------------------------------ statements

    fn stmt(&mut self, s: &Stmt) -> Result<()> {
        self.lowering_at(s.span, |this| this.stmt_here(s))
    }

    fn stmt_here(&mut self, s: &Stmt) -> Result<()> {
        match &s.kind {
            StmtKind::Decl { types, name, init } => self.decl(types, name, init.as_ref()),
            StmtKind::Assign { dst, value } => {
                let dst = self.assign_target(dst)?;
                self.eval(value, Want::Into(dst)).map(drop)
            }
            StmtKind::Store { target, value } => self.store(target, value),
            StmtKind::Expr(e) => self.eval(e, Want::Discard).map(drop),
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => self.if_stmt(cond, then, otherwise.as_deref()),
            StmtKind::While { cond, body } => self.while_stmt(cond, body),
            StmtKind::Block(stmts) => stmts.iter().try_for_each(|s| self.stmt(s)),
            StmtKind::Labeled { label, stmt } => self.labeled(label, stmt),
            StmtKind::Goto(label) => {
                self.labels.jump(&label.node, label.span);
                self.emit(Instr::Goto(label.node.clone()));
                Ok(())
            }
            StmtKind::Empty => Ok(()),
        }
    }

    fn decl(
        &mut self,
        types: &[Spanned<String>],
        name: &Spanned<String>,
        init: Option<&CExpr>,
    ) -> Result<()> {
        cond::check_types(self.src, types)?;
        if self.params.contains(&name.node) {
            return Err(self.src.error(
                name.span,
                format!("`{}` is already a parameter of this thread", name.node),
            ));
        }
        self.locals.insert(name.node.clone());
        match init {
            Some(e) => self.eval(e, Want::Into(name.node.clone())).map(drop),
            None => Ok(()),
        }
    }

    /// The register an assignment writes (declared implicitly if new).
    fn assign_target(&mut self, dst: &Spanned<String>) -> Result<String> {
        if self.is_location(&dst.node) {
            let msg = format!(
                "cannot assign to shared location `{0}`; write `*{0} = …` or use an atomic store",
                dst.node
            );
            return Err(self.src.error(dst.span, msg));
        }
        self.locals.insert(dst.node.clone());
        Ok(dst.node.clone())
    }

    fn store(&mut self, target: &CExpr, value: &CExpr) -> Result<()> {
        let addr = self.address(target)?;
        let v = self.value(value)?;
        self.access(&addr, &|loc| Instr::Store {
            loc,
            value: v.clone(),
            tags: vec![Tag::Na],
        })
    }

    fn if_stmt(&mut self, cond: &CExpr, then: &Stmt, otherwise: Option<&Stmt>) -> Result<()> {
        let else_label = self.fresh_label();
        self.jump_if(cond, false, &else_label)?;
        self.stmt(then)?;
        match otherwise {
            Some(e) => {
                let end = self.fresh_label();
                self.emit(Instr::Goto(end.clone()));
                self.emit(Instr::Label(else_label));
                self.stmt(e)?;
                self.emit(Instr::Label(end));
            }
            None => self.emit(Instr::Label(else_label)),
        }
        Ok(())
    }

    fn while_stmt(&mut self, cond: &CExpr, body: &Stmt) -> Result<()> {
        let (head, end) = (self.fresh_label(), self.fresh_label());
        self.emit(Instr::Label(head.clone()));
        self.jump_if(cond, false, &end)?;
        self.stmt(body)?;
        self.emit(Instr::Goto(head));
        self.emit(Instr::Label(end));
        Ok(())
    }

    fn labeled(&mut self, label: &Spanned<String>, stmt: &Stmt) -> Result<()> {
        self.labels.define(self.src, &label.node, label.span)?;
        self.emit(Instr::Label(label.node.clone()));
        if let StmtKind::Expr(CExpr {
            kind: ExprKind::Call { name, .. },
            ..
        }) = &stmt.kind
        {
            if c_calls::is_barrier(&name.node) {
                self.barrier_label = Some(label.node.clone());
            }
        }
        let result = self.stmt(stmt);
        self.barrier_label = None;
        result
    }

    // ------------------------------------------------------------ expressions

    fn is_location(&self, name: &str) -> bool {
        !self.locals.contains(name) && (self.params.contains(name) || self.globals.contains(name))
    }

    /// Evaluate `e`, putting its value where `want` says. `None` only for `Want::Discard`.
    pub(crate) fn eval(&mut self, e: &CExpr, want: Want) -> Result<Option<Expr>> {
        self.lowering_at(e.span, |this| this.eval_here(e, want))
    }

    fn eval_here(&mut self, e: &CExpr, want: Want) -> Result<Option<Expr>> {
        match &e.kind {
            ExprKind::Call { name, args } => self.call(name, args, want, e.span),
            ExprKind::Unary(UnOp::Deref, a) => {
                let addr = self.address(a)?;
                self.load_na(addr, want)
            }
            ExprKind::Index(a, i) => {
                let addr = self.offset(a, i, BinOp::Add, e.span)?;
                self.load_na(addr, want)
            }
            _ => {
                let v = self.value_of(e)?;
                Ok(match want {
                    Want::Discard => None,
                    Want::Into(r) => {
                        self.emit(Instr::Assign {
                            dst: r.clone(),
                            value: v,
                        });
                        Some(Expr::Reg(r))
                    }
                    Want::Value => Some(v),
                })
            }
        }
    }

    /// The register a result goes to (a fresh one when the caller only wants a value).
    pub(crate) fn result_reg(&mut self, want: &Want) -> String {
        match want {
            Want::Into(r) => r.clone(),
            Want::Discard | Want::Value => self.fresh_reg(),
        }
    }

    fn load_na(&mut self, addr: Addr, want: Want) -> Result<Option<Expr>> {
        let dst = self.result_reg(&want);
        self.access(&addr, &|loc| Instr::Load {
            dst: dst.clone(),
            loc,
            tags: vec![Tag::Na],
        })?;
        Ok(Some(Expr::Reg(dst)))
    }

    /// The value of `e` as an expression, emitting whatever it reads first.
    pub(crate) fn value(&mut self, e: &CExpr) -> Result<Expr> {
        match self.eval(e, Want::Value)? {
            Some(v) => Ok(v),
            None => Err(self.src.error(e.span, "this expression has no value")),
        }
    }

    fn value_of(&mut self, e: &CExpr) -> Result<Expr> {
        match &e.kind {
            ExprKind::Int(n) => Ok(Expr::Const(*n)),
            ExprKind::Name(n) => self.read_register(n, e.span),
            ExprKind::Unary(UnOp::Neg, a) => {
                let v = self.value(a)?;
                Ok(fold(BinOp::Sub, Expr::Const(0), v))
            }
            ExprKind::Unary(UnOp::BitNot, a) => {
                let v = self.value(a)?;
                Ok(fold(BinOp::Xor, v, Expr::Const(-1)))
            }
            ExprKind::Unary(UnOp::AddrOf, _) => Err(self.src.error(
                e.span,
                "an address cannot be used as a value (registers hold integers)",
            )),
            ExprKind::Binary(op, a, b) => match arith(*op) {
                Some(op) => {
                    let (va, vb) = self.operands(a, b)?;
                    Ok(fold(op, va, vb))
                }
                None => self.boolean(e),
            },
            ExprKind::Unary(UnOp::Not, _) => self.boolean(e),
            ExprKind::Unary(UnOp::Deref, _) | ExprKind::Index(..) | ExprKind::Call { .. } => {
                self.value(e)
            }
        }
    }

    fn read_register(&self, name: &str, span: Span) -> Result<Expr> {
        if self.is_location(name) {
            let msg =
                format!("`{name}` is a shared location; read it with `*{name}` or an atomic load");
            return Err(self.src.error(span, msg));
        }
        Ok(Expr::Reg(name.to_string()))
    }

    /// 1 if the condition `e` holds, else 0, in a fresh register.
    fn boolean(&mut self, e: &CExpr) -> Result<Expr> {
        let (t, skip) = (self.fresh_reg(), self.fresh_label());
        self.emit(Instr::Assign {
            dst: t.clone(),
            value: Expr::Const(0),
        });
        self.jump_if(e, false, &skip)?;
        self.emit(Instr::Assign {
            dst: t.clone(),
            value: Expr::Const(1),
        });
        self.emit(Instr::Label(skip));
        Ok(Expr::Reg(t))
    }

    /// Jump to `label` if `e` evaluates to `truth`; fall through otherwise.
    pub(crate) fn jump_if(&mut self, e: &CExpr, truth: bool, label: &str) -> Result<()> {
        match &e.kind {
            ExprKind::Unary(UnOp::Not, a) => self.jump_if(a, !truth, label),
            ExprKind::Binary(BinOpC::LogAnd, a, b) => self.short_circuit(a, b, false, truth, label),
            ExprKind::Binary(BinOpC::LogOr, a, b) => self.short_circuit(a, b, true, truth, label),
            ExprKind::Binary(op, a, b) if compare(*op).is_some() => {
                let (va, vb) = self.operands(a, b)?;
                let op = compare(*op).unwrap_or(CmpOp::Ne);
                self.branch(
                    Cond {
                        op: if truth { op } else { negate(op) },
                        lhs: va,
                        rhs: vb,
                    },
                    label,
                );
                Ok(())
            }
            _ => {
                let v = self.value(e)?;
                let op = if truth { CmpOp::Ne } else { CmpOp::Eq };
                self.branch(
                    Cond {
                        op,
                        lhs: v,
                        rhs: Expr::Const(0),
                    },
                    label,
                );
                Ok(())
            }
        }
    }

    /// `a && b` (`decisive` false) or `a || b` (`decisive` true): `a` alone decides when it
    /// evaluates to `decisive`.
    fn short_circuit(
        &mut self,
        a: &CExpr,
        b: &CExpr,
        decisive: bool,
        truth: bool,
        label: &str,
    ) -> Result<()> {
        if truth == decisive {
            self.jump_if(a, truth, label)?;
            self.jump_if(b, truth, label)
        } else {
            let skip = self.fresh_label();
            self.jump_if(a, decisive, &skip)?;
            self.jump_if(b, truth, label)?;
            self.emit(Instr::Label(skip));
            Ok(())
        }
    }

    /// A conditional jump; decided at once when both sides are constants.
    fn branch(&mut self, cond: Cond, label: &str) {
        match (&cond.lhs, &cond.rhs) {
            (Expr::Const(a), Expr::Const(b)) => {
                if holds(cond.op, *a, *b) {
                    self.emit(Instr::Goto(label.to_string()));
                }
            }
            _ => self.emit(Instr::BranchIf {
                cond,
                target: label.to_string(),
            }),
        }
    }

    // ------------------------------------------------------------ addresses

    /// The address `e` denotes.
    pub(crate) fn address(&mut self, e: &CExpr) -> Result<Addr> {
        match &e.kind {
            ExprKind::Name(n) if !self.locals.contains(n) => Ok(Addr {
                base: n.clone(),
                index: Expr::Const(0),
                span: e.span,
            }),
            ExprKind::Name(n) => Err(self
                .src
                .error(e.span, format!("register `{n}` used as an address"))),
            ExprKind::Unary(UnOp::AddrOf, a) => match &a.kind {
                ExprKind::Name(_) => self.address(a),
                ExprKind::Index(b, i) => self.offset(b, i, BinOp::Add, e.span),
                _ => Err(self.not_an_address(e)),
            },
            ExprKind::Binary(BinOpC::Add, a, b) if self.is_pointer(b) && !self.is_pointer(a) => {
                self.offset(b, a, BinOp::Add, e.span)
            }
            ExprKind::Binary(BinOpC::Add, a, b) => self.offset(a, b, BinOp::Add, e.span),
            ExprKind::Binary(BinOpC::Sub, a, b) => self.offset(a, b, BinOp::Sub, e.span),
            _ => Err(self.not_an_address(e)),
        }
    }

    fn is_pointer(&self, e: &CExpr) -> bool {
        match &e.kind {
            ExprKind::Name(n) => !self.locals.contains(n),
            ExprKind::Unary(UnOp::AddrOf, _) => true,
            ExprKind::Binary(BinOpC::Add | BinOpC::Sub, a, _) => self.is_pointer(a),
            _ => false,
        }
    }

    /// `base ± index`.
    fn offset(&mut self, base: &CExpr, index: &CExpr, op: BinOp, span: Span) -> Result<Addr> {
        if !self.is_pointer(base) {
            return Err(self.not_an_address(base));
        }
        let a = self.address(base)?;
        let i = self.value(index)?;
        Ok(Addr {
            base: a.base,
            index: fold(op, a.index, i),
            span,
        })
    }

    fn not_an_address(&self, e: &CExpr) -> crate::diag::Error {
        self.src.error(
            e.span,
            "expected an address: a location `x`, `&x`, `x+i` or `&x[i]`",
        )
    }

    /// Emit the access `make(location)` at `addr`: directly for a constant index, through a branch
    /// per array element otherwise.
    pub(crate) fn access(&mut self, addr: &Addr, make: &dyn Fn(String) -> Instr) -> Result<()> {
        let size = self.init.array_size(&addr.base);
        match (&addr.index, size) {
            (Expr::Const(0), _) => self.emit(make(addr.base.clone())),
            (Expr::Const(i), Some(n)) if (0..n as i64).contains(i) => {
                self.emit(make(cond::element_name(&addr.base, *i)))
            }
            (Expr::Const(i), Some(n)) => {
                return Err(self.src.error(
                    addr.span,
                    format!("index {i} is outside array `{}` of size {n}", addr.base),
                ))
            }
            (_, None) => {
                let msg = format!(
                    "`{}` is not an array declared in the initial state; it cannot be indexed",
                    addr.base
                );
                return Err(self.src.error(addr.span, msg));
            }
            (index, Some(n)) => self.switch(&addr.base, index.clone(), n, make),
        }
        Ok(())
    }

    fn switch(&mut self, base: &str, index: Expr, size: usize, make: &dyn Fn(String) -> Instr) {
        let end = self.fresh_label();
        let cases: Vec<String> = (0..size).map(|_| self.fresh_label()).collect();
        for (i, case) in cases.iter().enumerate() {
            let cond = Cond {
                op: CmpOp::Eq,
                lhs: index.clone(),
                rhs: Expr::Const(i as i64),
            };
            self.emit(Instr::BranchIf {
                cond,
                target: case.clone(),
            });
        }
        self.emit(Instr::Goto(end.clone()));
        for (i, case) in cases.into_iter().enumerate() {
            self.emit(Instr::Label(case));
            self.emit(make(cond::element_name(base, i as i64)));
            self.emit(Instr::Goto(end.clone()));
        }
        self.emit(Instr::Label(end));
    }
}

fn arith(op: BinOpC) -> Option<BinOp> {
    Some(match op {
        BinOpC::Add => BinOp::Add,
        BinOpC::Sub => BinOp::Sub,
        BinOpC::Mul => BinOp::Mul,
        BinOpC::BitAnd => BinOp::And,
        BinOpC::BitOr => BinOp::Or,
        BinOpC::BitXor => BinOp::Xor,
        _ => return None,
    })
}

fn compare(op: BinOpC) -> Option<CmpOp> {
    Some(match op {
        BinOpC::Eq => CmpOp::Eq,
        BinOpC::Ne => CmpOp::Ne,
        BinOpC::Lt => CmpOp::Lt,
        BinOpC::Le => CmpOp::Le,
        BinOpC::Gt => CmpOp::Gt,
        BinOpC::Ge => CmpOp::Ge,
        _ => return None,
    })
}

fn negate(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Eq => CmpOp::Ne,
        CmpOp::Ne => CmpOp::Eq,
        CmpOp::Lt => CmpOp::Ge,
        CmpOp::Le => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Le,
        CmpOp::Ge => CmpOp::Lt,
    }
}

fn holds(op: CmpOp, a: i64, b: i64) -> bool {
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
    }
}

/// `a op b`, computed when both are constants (wrapping, like the machine would).
pub(crate) fn fold(op: BinOp, a: Expr, b: Expr) -> Expr {
    match (op, &a, &b) {
        (_, Expr::Const(x), Expr::Const(y)) => Expr::Const(match op {
            BinOp::Add => x.wrapping_add(*y),
            BinOp::Sub => x.wrapping_sub(*y),
            BinOp::Mul => x.wrapping_mul(*y),
            BinOp::And => x & y,
            BinOp::Or => x | y,
            BinOp::Xor => x ^ y,
        }),
        (BinOp::Add | BinOp::Sub, _, Expr::Const(0)) => a,
        (BinOp::Add, Expr::Const(0), _) => b,
        _ => Expr::Bin(op, Box::new(a), Box::new(b)),
    }
}
