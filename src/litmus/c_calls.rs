//! Builtin calls of C11 and OpenCL litmus tests and the instructions they become.
//!
//! | call | instruction, tags |
//! |---|---|
//! | `atomic_load[_explicit](a[, mo[, scope]])` | `Load` [mo(, scope)] |
//! | `atomic_store[_explicit](a, v[, mo[, scope]])` | `Store` [mo(, scope)] |
//! | `atomic_fetch_OP[_explicit](a, v[, mo[, scope]])`, OP = add sub and or xor | `Rmw` `Arith` |
//! | `atomic_exchange[_explicit](a, v[, mo[, scope]])` | `Rmw` `Exch` [mo(, scope)] |
//! | `atomic_compare_exchange_{strong,weak}[_explicit](a, e, v[, s, f[, scope]])` | see below |
//! | `atomic_thread_fence(mo[, scope])` | `Fence` [mo(, scope)] (OpenCL: [mo, DEV, GLOBAL, LOCAL]) |
//! | `atomic_work_item_fence(flags, mo, scope)` (OpenCL) | `Fence` [mo, scope, regions] |
//! | `barrier(flags)`, `work_group_barrier(flags[, scope])` (OpenCL) | `Barrier` [SYNC, WG, …] |
//! | `volatile_load(a)` (C11) | `Load` [RLX, SYS, V] |
//! | `volatile_store(a, v)` (C11) | `Store` [RLX, SYS, V] |
//!
//! Orders: relaxed → RLX, consume → CON, acquire → ACQ, release → REL, acq_rel → ACQ_REL,
//! seq_cst → SC (the default of the non-`_explicit` forms). Orders C forbids for an operation (a
//! release load, an acquire store) are errors; a `release` or `acq_rel` failure order of a
//! compare-exchange, which C forbids too, is read as the reference tool (Dat3M) reads it: the
//! failed read keeps the success order (`failure_tags`).
//!
//! Scopes: only the `_explicit` forms (and `atomic_thread_fence` in C11) take one, as a last
//! argument after the orders; elsewhere a scope argument is an error that says so.
//! - OpenCL atomics always carry a scope tag: memory_scope_work_item → WI, _sub_group → SG,
//!   _work_group → WG, _device → DEV (the default), _all_svm_devices / _all_devices → ALL.
//! - C11 atomics carry one only when it is written, spelled after CUDA's `cuda::thread_scope_*`
//!   (the scoped C++ models `rc11-scoped.cat`, `cuda.cat`): thread_scope_thread → WI,
//!   thread_scope_block → CTA, thread_scope_device → GPU, thread_scope_system → SYS. Unscoped C11
//!   atomics have no scope tag (plain RC11). The threads' CTA and GPU are their `@cta N, gpu M`
//!   placement (`c.rs`).
//!
//! Regions (OpenCL fence flags): CLK_GLOBAL_MEM_FENCE → GLOBAL, CLK_LOCAL_MEM_FENCE → LOCAL.
//!
//! Volatile (C11): `volatile_load` / `volatile_store` are CUDA's volatile accesses as
//! `models/cuda.cat` writes them — a relaxed access at system scope, tags [RLX, SYS, V]; they take
//! no order and no scope. A `volatile int*` parameter changes nothing: `*x` stays a plain (NA)
//! access, as herd's C tests use it.
//!
//! Compare-exchange follows C: `expected` points to the expected value — a location (`one`) or a
//! register (`&r`). It is read (a plain NA load for a location), the RMW compares and swaps with
//! the success tags (the failure tags, when they differ, go in `fail_tags`), and on failure the old
//! value is written back to `*expected` (NA store, or register move). The call's value is 1 on
//! success, 0 on failure. `_weak` is lowered like `_strong` (no spurious failures).
//!
//! OpenCL barriers: a barrier written `B1: barrier(…)` gets the id of its label (labels numbered
//! from 1 in order of first appearance in the file, so equal labels in different threads meet);
//! an unlabelled barrier has id 0. `count` is `None` (the whole work-group).
//!
//! Owns: the builtin table, memory-order / scope / flag decoding (the words are `isa::c`'s),
//! CAS lowering. Uses `c_lower`.
use crate::diag::Result;
use crate::isa::c;
use crate::litmus::ast::{Span, Spanned};
use crate::litmus::c_ast::{BinOpC, CExpr, ExprKind, UnOp};
use crate::litmus::c_lower::{Addr, Lowerer, Want};
use crate::litmus::program::{Arch, BinOp, CmpOp, Cond, Expr, Instr, RmwOp};
use crate::vocab::Tag;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Builtin {
    Load,
    Store,
    Fetch(BinOp),
    Exchange,
    Cas,
    ThreadFence,
    /// `volatile_load` (false) or `volatile_store` (true).
    Volatile(bool),
    WorkItemFence,
    Barrier,
}

/// The builtin `name` denotes, and whether it is the `_explicit` form.
fn lookup(name: &str) -> Option<(Builtin, bool)> {
    let (base, explicit) = match name.strip_suffix("_explicit") {
        Some(b) => (b, true),
        None => (name, false),
    };
    let builtin = match base {
        "atomic_load" => Builtin::Load,
        "atomic_store" => Builtin::Store,
        "atomic_fetch_add" => Builtin::Fetch(BinOp::Add),
        "atomic_fetch_sub" => Builtin::Fetch(BinOp::Sub),
        "atomic_fetch_and" => Builtin::Fetch(BinOp::And),
        "atomic_fetch_or" => Builtin::Fetch(BinOp::Or),
        "atomic_fetch_xor" => Builtin::Fetch(BinOp::Xor),
        "atomic_exchange" => Builtin::Exchange,
        "atomic_compare_exchange_strong" | "atomic_compare_exchange_weak" => Builtin::Cas,
        "atomic_thread_fence" if !explicit => Builtin::ThreadFence,
        "atomic_work_item_fence" if !explicit => Builtin::WorkItemFence,
        "barrier" | "work_group_barrier" if !explicit => Builtin::Barrier,
        "volatile_load" if !explicit => Builtin::Volatile(false),
        "volatile_store" if !explicit => Builtin::Volatile(true),
        _ => return None,
    };
    Some((builtin, explicit))
}

/// Is `name` an OpenCL execution barrier?
pub(crate) fn is_barrier(name: &str) -> bool {
    matches!(lookup(name), Some((Builtin::Barrier, _)))
}

/// Which operations an order is legal for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    Load,
    Store,
    Rmw,
    /// The failure order of a compare-exchange: any order (see `failure_tags`).
    CasFailure,
    Fence,
}

/// Where a compare-exchange finds its expected value: a register (`&r`) or memory.
enum Expected {
    Reg(String),
    Mem(Addr),
}

/// Decoded trailing arguments of an atomic: one tag list per memory order.
struct Atomic<'e> {
    operands: &'e [CExpr],
    tags: Vec<Vec<Tag>>,
}

impl Lowerer<'_> {
    /// Lower the call `name(args)`; its value goes where `want` says.
    pub(crate) fn call(
        &mut self,
        name: &Spanned<String>,
        args: &[CExpr],
        want: Want,
        span: Span,
    ) -> Result<Option<Expr>> {
        let (builtin, explicit) = lookup(&name.node).ok_or_else(|| {
            self.src.error(
                name.span,
                format!(
                    "unknown function `{}`; expected an atomic operation, a fence or a barrier",
                    name.node
                ),
            )
        })?;
        if matches!(builtin, Builtin::WorkItemFence | Builtin::Barrier) && self.arch != Arch::OpenCl
        {
            return Err(self
                .src
                .error(name.span, format!("`{}` is OpenCL only", name.node)));
        }
        if matches!(builtin, Builtin::Volatile(_)) && self.arch != Arch::C11 {
            return Err(self
                .src
                .error(name.span, format!("`{}` is C11 only", name.node)));
        }
        let void = matches!(
            builtin,
            Builtin::Store
                | Builtin::ThreadFence
                | Builtin::WorkItemFence
                | Builtin::Barrier
                | Builtin::Volatile(true)
        );
        if void && !matches!(want, Want::Discard) {
            return Err(self
                .src
                .error(span, format!("`{}` returns no value", name.node)));
        }
        match builtin {
            Builtin::Load => self.atomic_load(name, args, explicit, want, span),
            Builtin::Store => self.atomic_store(name, args, explicit, span).map(|_| None),
            Builtin::Fetch(op) => self.atomic_rmw(name, args, explicit, want, span, Some(op)),
            Builtin::Exchange => self.atomic_rmw(name, args, explicit, want, span, None),
            Builtin::Cas => self.atomic_cas(name, args, explicit, want, span),
            Builtin::ThreadFence => self.thread_fence(name, args, span).map(|_| None),
            Builtin::WorkItemFence => self.work_item_fence(name, args, span).map(|_| None),
            Builtin::Barrier => self.barrier(name, args, span).map(|_| None),
            Builtin::Volatile(store) => self.volatile(name, args, want, span, store),
        }
    }

    /// `volatile_load(a)` / `volatile_store(a, v)`: a relaxed system-scope access tagged V.
    fn volatile(
        &mut self,
        name: &Spanned<String>,
        args: &[CExpr],
        want: Want,
        span: Span,
        store: bool,
    ) -> Result<Option<Expr>> {
        let operands = if store { 2 } else { 1 };
        if let Some(scope) = args.get(operands).filter(|a| is_scope_word(a)) {
            let msg = format!(
                "`{}` takes no scope: a volatile access is always a relaxed access at system scope (`thread_scope_system`)",
                name.node
            );
            return Err(self.src.error(scope.span, msg));
        }
        if args.len() != operands {
            let what = if store {
                "2 arguments (a location and a value)"
            } else {
                "1 argument (a location)"
            };
            let msg = format!("`{}` takes {what}, found {}", name.node, args.len());
            return Err(self.src.error(span, msg));
        }
        let tags = vec![Tag::Rlx, Tag::Sys, Tag::V];
        if store {
            self.store_to(&args[0], &args[1], tags).map(|_| None)
        } else {
            self.load_into(&args[0], tags, want)
        }
    }

    /// Split `args` into `operands` value operands and `uses.len()` orders (plus an optional
    /// scope), decoding the orders and scope into tag lists.
    fn atomic_args<'e>(
        &self,
        name: &Spanned<String>,
        args: &'e [CExpr],
        explicit: bool,
        operands: usize,
        uses: &[Use],
        span: Span,
    ) -> Result<Atomic<'e>> {
        let opencl = self.arch == Arch::OpenCl;
        let fixed = operands + if explicit { uses.len() } else { 0 };
        let scoped = explicit && args.len() == fixed + 1;
        if let Some(scope) = args.get(fixed).filter(|a| !explicit && is_scope_word(a)) {
            let msg = format!(
                "`{0}` takes no scope; a scope follows the memory order in `{0}_explicit`",
                name.node
            );
            return Err(self.src.error(scope.span, msg));
        }
        if args.len() != fixed && !scoped {
            let scope_note = if explicit {
                format!(" (or {} with a scope)", fixed + 1)
            } else {
                String::new()
            };
            let msg = format!(
                "`{}` takes {fixed} arguments{scope_note}, found {}",
                name.node,
                args.len()
            );
            return Err(self.src.error(span, msg));
        }
        let scope = match (opencl, scoped) {
            (_, true) => Some(self.scope(&args[fixed])?),
            (true, false) => Some(Tag::Dev),
            (false, false) => None,
        };
        let mut tags = Vec::with_capacity(uses.len());
        for (i, u) in uses.iter().enumerate() {
            let mo = if explicit {
                self.order(&args[operands + i], *u)?
            } else {
                Tag::Sc
            };
            tags.push([Some(mo), scope].into_iter().flatten().collect());
        }
        Ok(Atomic {
            operands: &args[..operands],
            tags,
        })
    }

    fn atomic_load(
        &mut self,
        name: &Spanned<String>,
        args: &[CExpr],
        explicit: bool,
        want: Want,
        span: Span,
    ) -> Result<Option<Expr>> {
        let a = self.atomic_args(name, args, explicit, 1, &[Use::Load], span)?;
        self.load_into(&a.operands[0], a.tags[0].clone(), want)
    }

    /// A load of `*address` with `tags`; its value goes where `want` says.
    fn load_into(&mut self, address: &CExpr, tags: Vec<Tag>, want: Want) -> Result<Option<Expr>> {
        let addr = self.address(address)?;
        let dst = self.result_reg(&want);
        self.access(&addr, &|loc| Instr::Load {
            dst: dst.clone(),
            loc,
            tags: tags.clone(),
        })?;
        Ok(Some(Expr::Reg(dst)))
    }

    fn atomic_store(
        &mut self,
        name: &Spanned<String>,
        args: &[CExpr],
        explicit: bool,
        span: Span,
    ) -> Result<()> {
        let a = self.atomic_args(name, args, explicit, 2, &[Use::Store], span)?;
        self.store_to(&a.operands[0], &a.operands[1], a.tags[0].clone())
    }

    /// A store of `value` to `*address` with `tags`.
    fn store_to(&mut self, address: &CExpr, value: &CExpr, tags: Vec<Tag>) -> Result<()> {
        let addr = self.address(address)?;
        let value = self.value(value)?;
        self.access(&addr, &|loc| Instr::Store {
            loc,
            value: value.clone(),
            tags: tags.clone(),
        })
    }

    /// `atomic_fetch_<op>` (`op` given) or `atomic_exchange` (`op` absent).
    fn atomic_rmw(
        &mut self,
        name: &Spanned<String>,
        args: &[CExpr],
        explicit: bool,
        want: Want,
        span: Span,
        op: Option<BinOp>,
    ) -> Result<Option<Expr>> {
        let a = self.atomic_args(name, args, explicit, 2, &[Use::Rmw], span)?;
        let addr = self.address(&a.operands[0])?;
        let value = self.value(&a.operands[1])?;
        let op = match op {
            Some(op) => RmwOp::Arith(op, value),
            None => RmwOp::Exch(value),
        };
        let dst = match want {
            Want::Discard => None,
            _ => Some(self.result_reg(&want)),
        };
        let tags = a.tags[0].clone();
        let make = |loc| Instr::Rmw {
            dst: dst.clone(),
            loc,
            op: op.clone(),
            tags: tags.clone(),
            fail_tags: None,
        };
        self.access(&addr, &make)?;
        Ok(dst.map(Expr::Reg))
    }

    fn atomic_cas(
        &mut self,
        name: &Spanned<String>,
        args: &[CExpr],
        explicit: bool,
        want: Want,
        span: Span,
    ) -> Result<Option<Expr>> {
        let a = self.atomic_args(name, args, explicit, 3, &[Use::Rmw, Use::CasFailure], span)?;
        let addr = self.address(&a.operands[0])?;
        let expected_at = match self.register_pointer(&a.operands[1]) {
            Some(r) => Expected::Reg(r),
            None => Expected::Mem(self.address(&a.operands[1])?),
        };
        let desired = self.value(&a.operands[2])?;
        let expected = match &expected_at {
            Expected::Reg(r) => Expr::Reg(r.clone()),
            Expected::Mem(e) => {
                let t = self.fresh_reg();
                self.access(e, &|loc| Instr::Load {
                    dst: t.clone(),
                    loc,
                    tags: vec![Tag::Na],
                })?;
                Expr::Reg(t)
            }
        };
        let old = self.fresh_reg();
        let (tags, fail) = (a.tags[0].clone(), a.tags[1].clone());
        let fail_tags = failure_tags(&tags, fail);
        let op = RmwOp::Cas {
            expected: expected.clone(),
            desired,
        };
        let make = |loc| Instr::Rmw {
            dst: Some(old.clone()),
            loc,
            op: op.clone(),
            tags: tags.clone(),
            fail_tags: fail_tags.clone(),
        };
        self.access(&addr, &make)?;
        self.cas_outcome(old, expected, expected_at, want)
    }

    /// After the RMW: set the result (1 / 0) and write the old value back to `*expected` on failure.
    fn cas_outcome(
        &mut self,
        old: String,
        expected: Expr,
        expected_at: Expected,
        want: Want,
    ) -> Result<Option<Expr>> {
        let ok = self.fresh_label();
        let result = match want {
            Want::Discard => None,
            _ => Some(self.result_reg(&want)),
        };
        if let Some(r) = &result {
            self.emit(Instr::Assign {
                dst: r.clone(),
                value: Expr::Const(1),
            });
        }
        self.emit(Instr::BranchIf {
            cond: Cond {
                op: CmpOp::Eq,
                lhs: Expr::Reg(old.clone()),
                rhs: expected,
            },
            target: ok.clone(),
        });
        if let Some(r) = &result {
            self.emit(Instr::Assign {
                dst: r.clone(),
                value: Expr::Const(0),
            });
        }
        match expected_at {
            Expected::Reg(r) => self.emit(Instr::Assign {
                dst: r,
                value: Expr::Reg(old),
            }),
            Expected::Mem(a) => self.access(&a, &|loc| Instr::Store {
                loc,
                value: Expr::Reg(old.clone()),
                tags: vec![Tag::Na],
            })?,
        }
        self.emit(Instr::Label(ok));
        Ok(result.map(Expr::Reg))
    }

    /// `&r` for a register `r`.
    fn register_pointer(&self, e: &CExpr) -> Option<String> {
        match &e.kind {
            ExprKind::Unary(UnOp::AddrOf, inner) => match &inner.kind {
                ExprKind::Name(n) if self.locals.contains(n) => Some(n.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// `atomic_thread_fence(mo)`; in C11 also `atomic_thread_fence(mo, scope)`.
    fn thread_fence(&mut self, name: &Spanned<String>, args: &[CExpr], span: Span) -> Result<()> {
        let opencl = self.arch == Arch::OpenCl;
        let (mo, scope) = match args {
            [mo] => (mo, None),
            [_, scope] if opencl && is_scope_word(scope) => {
                let msg = format!("OpenCL's `{}` takes no scope; a scoped fence is `atomic_work_item_fence(flags, order, scope)`", name.node);
                return Err(self.src.error(scope.span, msg));
            }
            [mo, scope] if !opencl => (mo, Some(scope)),
            _ => {
                let what = if opencl {
                    "1 argument (a memory order)"
                } else {
                    "a memory order and an optional scope"
                };
                let msg = format!("`{}` takes {what}, found {}", name.node, args.len());
                return Err(self.src.error(span, msg));
            }
        };
        let mut tags = vec![self.order(mo, Use::Fence)?];
        if let Some(scope) = scope {
            tags.push(self.scope(scope)?);
        }
        if opencl {
            tags.extend([Tag::Dev, Tag::Global, Tag::Local]);
        }
        self.emit(Instr::Fence { tags });
        Ok(())
    }

    fn work_item_fence(
        &mut self,
        name: &Spanned<String>,
        args: &[CExpr],
        span: Span,
    ) -> Result<()> {
        let [flags, mo, scope] = args else {
            return Err(self.src.error(
                span,
                format!(
                    "`{}` takes 3 arguments (flags, order, scope), found {}",
                    name.node,
                    args.len()
                ),
            ));
        };
        let mut tags = vec![self.order(mo, Use::Fence)?, self.scope(scope)?];
        tags.extend(self.flags(flags)?);
        self.emit(Instr::Fence { tags });
        Ok(())
    }

    fn barrier(&mut self, name: &Spanned<String>, args: &[CExpr], span: Span) -> Result<()> {
        let flags = match args {
            [flags] => flags,
            [flags, scope] if name.node == "work_group_barrier" => {
                if self.scope(scope)? != Tag::Wg {
                    return Err(self.src.error(scope.span, "only `memory_scope_work_group` is supported for a work-group barrier"));
                }
                flags
            }
            _ => return Err(self.src.error(span, format!("`{}` takes the fence flags (and, for work_group_barrier, a scope), found {} arguments", name.node, args.len()))),
        };
        let mut tags = vec![Tag::Sync, Tag::Wg];
        tags.extend(self.flags(flags)?);
        let id = match self.barrier_label.take() {
            Some(label) => self.barrier_id(label),
            None => 0,
        };
        self.emit(Instr::Barrier {
            id: Expr::Const(id),
            count: None,
            tags,
        });
        Ok(())
    }

    fn barrier_id(&mut self, label: String) -> i64 {
        let position = match self.barrier_ids.iter().position(|l| *l == label) {
            Some(p) => p,
            None => {
                self.barrier_ids.push(label);
                self.barrier_ids.len() - 1
            }
        };
        position as i64 + 1
    }

    /// The tag of a `memory_order_*` argument, checked against its use.
    fn order(&self, e: &CExpr, u: Use) -> Result<Tag> {
        let name = match &e.kind {
            ExprKind::Name(n) => n.as_str(),
            _ => "",
        };
        let tag = match c::MEMORY_ORDERS.tag(name) {
            Some(tag) => tag,
            None => return Err(self.src.error(e.span, "expected a memory order (`memory_order_relaxed`, `_acquire`, `_release`, `_acq_rel`, `_seq_cst` or `_consume`)")),
        };
        let legal = match u {
            Use::Load => !matches!(tag, Tag::Rel | Tag::AcqRel),
            Use::Store => !matches!(tag, Tag::Acq | Tag::AcqRel | Tag::Con),
            Use::Rmw | Use::CasFailure | Use::Fence => true,
        };
        if !legal {
            let what = if u == Use::Load { "a load" } else { "a store" };
            return Err(self
                .src
                .error(e.span, format!("`{name}` is not a valid order for {what}")));
        }
        Ok(tag)
    }

    /// The tag of a scope argument: `memory_scope_*` in OpenCL, `thread_scope_*` in C11.
    fn scope(&self, e: &CExpr) -> Result<Tag> {
        let name = match &e.kind {
            ExprKind::Name(n) => n.as_str(),
            _ => "",
        };
        let tag = match c::scopes(self.arch == Arch::OpenCl).tag(name) {
            Some(tag) => tag,
            None => {
                let opencl = self.arch == Arch::OpenCl;
                let (what, other, other_prefix) = match opencl {
                    true => ("a memory scope", "C11", "thread_scope_"),
                    false => ("a thread scope", "OpenCL", "memory_scope_"),
                };
                let mut msg = format!("expected {what} ({})", c::scopes(opencl).listed());
                if name.starts_with(other_prefix) {
                    msg.push_str(&format!("; `{name}` is {other}'s spelling"));
                }
                return Err(self.src.error(e.span, msg));
            }
        };
        Ok(tag)
    }

    /// Region tags of OpenCL fence flags (`CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE`, or 0).
    fn flags(&self, e: &CExpr) -> Result<Vec<Tag>> {
        let flag = match &e.kind {
            ExprKind::Name(n) => c::FENCE_FLAGS.tag(n),
            _ => None,
        };
        match &e.kind {
            _ if flag.is_some() => Ok(flag.into_iter().collect()),
            ExprKind::Int(0) => Ok(vec![]),
            ExprKind::Binary(BinOpC::BitOr, a, b) => {
                let mut f = self.flags(a)?;
                for t in self.flags(b)? {
                    if !f.contains(&t) {
                        f.push(t);
                    }
                }
                Ok(f)
            }
            _ => Err(self.src.error(e.span, "expected fence flags: `CLK_GLOBAL_MEM_FENCE`, `CLK_LOCAL_MEM_FENCE` or both joined by `|`")),
        }
    }
}

/// Is `e` a scope word (`thread_scope_…`, `memory_scope_…`)? Used to say "takes no scope" where a
/// scope argument is written in a place that has none.
fn is_scope_word(e: &CExpr) -> bool {
    matches!(&e.kind, ExprKind::Name(n) if n.starts_with("thread_scope_") || n.starts_with("memory_scope_"))
}

/// The read tags of a failed compare-exchange (`None`: the success tags). C forbids `release`
/// and `acq_rel` as a failure order, but the reference tool reads such tests: Dat3M builds every
/// compare-exchange from its success order alone, so a failed one reads with the success order.
/// A `release` or `acq_rel` failure order is read that way; any other is honoured as written.
fn failure_tags(success: &[Tag], fail: Vec<Tag>) -> Option<Vec<Tag>> {
    let forbidden = fail.iter().any(|t| matches!(t, Tag::Rel | Tag::AcqRel));
    (fail != success && !forbidden).then_some(fail)
}
