//! Per-thread traces: every path through one thread's code under guessed read values, generated
//! one at a time (a thread may have more traces than fit in memory).
//!
//! A read may return any value its location can hold (`Domain`); the trace records the events the
//! thread performs, their values and dependencies, and the final registers. Loops are unrolled: an
//! instruction executed more than `unroll` times ends the path, which is then no trace (the thread
//! would still be spinning), but its events were performed: `for_each_path` hands them on, so
//! that the value domain counts the writes of a thread that spins until another thread writes.
//! Which reads are actually justified is decided later, by `rf`.
use std::collections::{BTreeMap, BTreeSet};

use crate::diag::{Error, Internal, Result};
use crate::exec::{BarrierPart, EventKind};
use crate::litmus::{BinOp, CmpOp, Cond, Expr, Instr, RmwOp, Thread};
use crate::vocab::Tag;

/// The values each location may hold (index = location index).
pub(crate) type Domain = Vec<BTreeSet<i64>>;

/// One event of a thread trace; dependencies are indices of earlier events of the same trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TraceEvent {
    pub(crate) kind: EventKind,
    pub(crate) loc: Option<usize>,
    /// The virtual address a memory event names (`exec::Event::vloc`).
    pub(crate) vloc: Option<usize>,
    pub(crate) value: i64,
    pub(crate) tags: Vec<Tag>,
    pub(crate) data: Vec<usize>,
    pub(crate) ctrl: Vec<usize>,
    /// For the write of an RMW: the index of its read.
    pub(crate) rmw_read: Option<usize>,
    /// For a barrier event: its barrier.
    pub(crate) barrier: Option<TraceBarrier>,
    /// Earlier events of the trace this one is unsequenced with (`Thread::unsequenced`): no `po`
    /// between them.
    pub(crate) unsequenced: Vec<usize>,
}

/// The barrier a barrier event of a trace belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TraceBarrier {
    pub(crate) id: i64,
    /// The thread count it waits for (`bar.sync b, n`), if the instruction gives one.
    pub(crate) count: Option<i64>,
    /// Which part of the barrier the event is (`ThreadContext::barrier_fences`).
    pub(crate) part: BarrierPart,
}

/// A register's value and the reads it depends on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Val {
    value: i64,
    deps: BTreeSet<usize>,
}

/// A complete path through a thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Trace {
    pub(crate) events: Vec<TraceEvent>,
    /// Final register values.
    pub(crate) regs: BTreeMap<String, i64>,
    /// Register values just before each barrier event (index into `events`), used when the thread
    /// blocks at that barrier.
    pub(crate) regs_at_barrier: BTreeMap<usize, BTreeMap<String, i64>>,
}

/// What the trace generator needs to know about the test.
pub(crate) struct ThreadContext<'a> {
    pub(crate) thread: &'a Thread,
    pub(crate) loc_index: &'a dyn Fn(&str) -> usize,
    /// The virtual address a written location name denotes (differs from `loc_index` only for a
    /// PTX 7.5 generic alias).
    pub(crate) address_index: &'a dyn Fn(&str) -> usize,
    pub(crate) loc_tags: &'a dyn Fn(usize) -> Vec<Tag>,
    pub(crate) init_regs: BTreeMap<String, i64>,
    pub(crate) unroll: usize,
    pub(crate) domain: &'a Domain,
    /// Give each barrier two events, an entry and an exit fence (`Model::splits_barriers`).
    pub(crate) barrier_fences: bool,
}

/// The state of one path under construction.
#[derive(Clone)]
struct Path {
    pc: usize,
    regs: BTreeMap<String, Val>,
    events: Vec<TraceEvent>,
    ctrl: BTreeSet<usize>,
    visits: Vec<usize>,
    regs_at_barrier: BTreeMap<usize, BTreeMap<String, i64>>,
    /// The instruction that performed each event.
    pcs: Vec<usize>,
    /// Events before this index were performed before the path last jumped backwards: they
    /// belong to an earlier evaluation of any expression the path is in now.
    since_back_jump: usize,
}

/// Call `f` on every trace of the thread under the value domain. Errors on unknown labels.
pub(crate) fn for_each_trace(
    ctx: &ThreadContext,
    f: &mut dyn FnMut(Trace) -> Result<()>,
) -> Result<()> {
    for_each_path(ctx, f, &mut |_| {})
}

/// `for_each_trace`, and `cut` on the events of every path the unroll bound ends.
pub(crate) fn for_each_path(
    ctx: &ThreadContext,
    f: &mut dyn FnMut(Trace) -> Result<()>,
    cut: &mut dyn FnMut(&[TraceEvent]),
) -> Result<()> {
    let labels = label_positions(ctx.thread)?;
    let mut stack = vec![Path::start(ctx)];
    while let Some(mut path) = stack.pop() {
        if path.pc >= ctx.thread.code.len() {
            f(finish(path))?;
            continue;
        }
        path.visits[path.pc] += 1;
        if path.visits[path.pc] > ctx.unroll {
            cut(&path.events);
            continue;
        }
        let (pc, before) = (path.pc, path.events.len());
        for mut next in step(ctx, &labels, path)? {
            mark_unsequenced(ctx.thread, &mut next, pc, before);
            if next.pc <= pc {
                next.since_back_jump = next.events.len();
            }
            stack.push(next);
        }
    }
    Ok(())
}

/// Record which earlier events the events instruction `pc` just performed (from `before` on) are
/// unsequenced with: those of the other operand of an operator `pc` is an operand of, performed
/// in the same evaluation (no backward jump since; an expression never jumps backwards).
fn mark_unsequenced(thread: &Thread, p: &mut Path, pc: usize, before: usize) {
    p.pcs.resize(p.events.len(), pc);
    let earlier: Vec<usize> = (p.since_back_jump..before)
        .filter(|&f| {
            thread
                .unsequenced
                .iter()
                .any(|u| u.right.contains(&pc) && u.left.contains(&p.pcs[f]))
        })
        .collect();
    for e in &mut p.events[before..] {
        e.unsequenced.clone_from(&earlier);
    }
}

/// One thread's path advanced an instruction at a time, each read returning the one value its
/// location's domain holds: a memory's (`enumerate::sequential`). Shares `step` with the trace
/// generator, and nothing of how its domain is computed.
#[derive(Clone)]
pub(crate) struct Cursor(Path);

impl Cursor {
    pub(crate) fn start(ctx: &ThreadContext) -> Cursor {
        Cursor(Path::start(ctx))
    }

    pub(crate) fn finished(&self, ctx: &ThreadContext) -> bool {
        self.0.pc >= ctx.thread.code.len()
    }

    /// What the thread's future depends on: where it is, how often it has been at each
    /// instruction, and its registers.
    pub(crate) fn state(&self) -> (usize, Vec<usize>, Vec<(String, i64)>) {
        let regs = self.0.regs.iter().map(|(r, v)| (r.clone(), v.value));
        (self.0.pc, self.0.visits.clone(), regs.collect())
    }

    /// The next instruction executed under `ctx`, whose domain holds one value per location:
    /// the cursor after it and the `(location, value)` writes it performed; `None` where the
    /// unroll bound ends the path.
    pub(crate) fn advance(
        &self,
        ctx: &ThreadContext,
        labels: &BTreeMap<String, usize>,
    ) -> Result<Option<(Cursor, Vec<(usize, i64)>)>> {
        let mut path = self.0.clone();
        path.visits[path.pc] += 1;
        if path.visits[path.pc] > ctx.unroll {
            return Ok(None);
        }
        let before = path.events.len();
        let mut next = step(ctx, labels, path)?;
        let Some(path) = next.pop().filter(|_| next.is_empty()) else {
            let why = "a step with one value per location took other than one path";
            return Err(Error::internal(&ctx.thread.name, Internal(why.into())));
        };
        let writes = (path.events[before..].iter())
            .filter(|e| e.kind == EventKind::Write)
            .map(|e| (e.loc.expect("writes have a location"), e.value))
            .collect();
        Ok(Some((Cursor(path), writes)))
    }
}

fn finish(path: Path) -> Trace {
    Trace {
        events: path.events,
        regs: final_regs(&path.regs),
        regs_at_barrier: path.regs_at_barrier,
    }
}

fn final_regs(regs: &BTreeMap<String, Val>) -> BTreeMap<String, i64> {
    regs.iter().map(|(r, v)| (r.clone(), v.value)).collect()
}

pub(crate) fn label_positions(thread: &Thread) -> Result<BTreeMap<String, usize>> {
    let mut labels = BTreeMap::new();
    for (i, instr) in thread.code.iter().enumerate() {
        if let Instr::Label(l) = instr {
            labels.insert(l.clone(), i);
        }
    }
    for instr in &thread.code {
        if let Instr::Goto(l) | Instr::BranchIf { target: l, .. } = instr {
            if !labels.contains_key(l) {
                return Err(Error::file(
                    &thread.name,
                    format!("jump to unknown label `{l}`"),
                ));
            }
        }
    }
    Ok(labels)
}

/// Where a memory event accesses: its location and the virtual address it names.
#[derive(Clone, Copy)]
struct Place {
    loc: usize,
    vloc: usize,
}

fn place(ctx: &ThreadContext, name: &str) -> Place {
    Place {
        loc: (ctx.loc_index)(name),
        vloc: (ctx.address_index)(name),
    }
}

fn with_loc_tags(ctx: &ThreadContext, loc: usize, mut t: Vec<Tag>) -> Vec<Tag> {
    for extra in (ctx.loc_tags)(loc) {
        if !t.contains(&extra) {
            t.push(extra);
        }
    }
    t
}

fn eval(regs: &BTreeMap<String, Val>, e: &Expr) -> Val {
    match e {
        Expr::Const(c) => Val {
            value: *c,
            deps: BTreeSet::new(),
        },
        Expr::Reg(r) => regs.get(r).cloned().unwrap_or_default(),
        Expr::Bin(op, a, b) => {
            let (a, b) = (eval(regs, a), eval(regs, b));
            let deps = a.deps.union(&b.deps).copied().collect();
            Val {
                value: apply(*op, a.value, b.value),
                deps,
            }
        }
    }
}

fn apply(op: BinOp, a: i64, b: i64) -> i64 {
    match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
    }
}

fn holds(regs: &BTreeMap<String, Val>, c: &Cond) -> (bool, BTreeSet<usize>) {
    let (l, r) = (eval(regs, &c.lhs), eval(regs, &c.rhs));
    let result = match c.op {
        CmpOp::Eq => l.value == r.value,
        CmpOp::Ne => l.value != r.value,
        CmpOp::Lt => l.value < r.value,
        CmpOp::Le => l.value <= r.value,
        CmpOp::Gt => l.value > r.value,
        CmpOp::Ge => l.value >= r.value,
    };
    (result, l.deps.union(&r.deps).copied().collect())
}

impl Path {
    fn start(ctx: &ThreadContext) -> Path {
        let regs = ctx.init_regs.iter().map(|(r, &v)| {
            let value = Val {
                value: v,
                deps: BTreeSet::new(),
            };
            (r.clone(), value)
        });
        Path {
            pc: 0,
            regs: regs.collect(),
            events: vec![],
            ctrl: BTreeSet::new(),
            visits: vec![0; ctx.thread.code.len()],
            regs_at_barrier: BTreeMap::new(),
            pcs: vec![],
            since_back_jump: 0,
        }
    }
    fn push(&mut self, kind: EventKind, at: Option<Place>, value: i64, tags: Vec<Tag>) -> usize {
        self.events.push(TraceEvent {
            kind,
            loc: at.map(|a| a.loc),
            vloc: at.map(|a| a.vloc),
            value,
            tags,
            data: vec![],
            ctrl: self.ctrl.iter().copied().collect(),
            rmw_read: None,
            barrier: None,
            unsequenced: vec![],
        });
        self.events.len() - 1
    }
    fn set_reg(&mut self, r: &str, v: Val) {
        self.regs.insert(r.to_string(), v);
    }
    fn next(mut self) -> Self {
        self.pc += 1;
        self
    }
}

/// Execute one instruction; a read forks the path once per value of its location's domain.
fn step(ctx: &ThreadContext, labels: &BTreeMap<String, usize>, mut p: Path) -> Result<Vec<Path>> {
    match &ctx.thread.code[p.pc] {
        Instr::Label(_) => Ok(vec![p.next()]),
        Instr::Goto(l) => {
            p.pc = labels[l];
            Ok(vec![p])
        }
        Instr::BranchIf { cond, target } => {
            let (taken, deps) = holds(&p.regs, cond);
            p.ctrl.extend(deps);
            if taken {
                p.pc = labels[target];
                Ok(vec![p])
            } else {
                Ok(vec![p.next()])
            }
        }
        Instr::Assign { dst, value } => {
            let v = eval(&p.regs, value);
            p.set_reg(dst, v);
            Ok(vec![p.next()])
        }
        Instr::Fence { tags: t } => {
            p.push(EventKind::Fence, None, 0, t.clone());
            Ok(vec![p.next()])
        }
        Instr::Barrier { id, count, tags: t } => {
            let snapshot = final_regs(&p.regs);
            let id = eval(&p.regs, id).value;
            let count = count.as_ref().map(|c| eval(&p.regs, c).value);
            let parts: &[BarrierPart] = if ctx.barrier_fences {
                &[BarrierPart::Entry, BarrierPart::Exit]
            } else {
                &[BarrierPart::Whole]
            };
            // The thread arrives at the first part: where it blocks, if it does.
            p.regs_at_barrier.insert(p.events.len(), snapshot);
            for &part in parts {
                let e = p.push(EventKind::Barrier, None, 0, t.clone());
                p.events[e].barrier = Some(TraceBarrier { id, count, part });
            }
            Ok(vec![p.next()])
        }
        Instr::Store {
            loc,
            value,
            tags: t,
        } => {
            let at = place(ctx, loc);
            let v = eval(&p.regs, value);
            let e = p.push(
                EventKind::Write,
                Some(at),
                v.value,
                with_loc_tags(ctx, at.loc, t.clone()),
            );
            p.events[e].data = v.deps.into_iter().collect();
            Ok(vec![p.next()])
        }
        Instr::Load { dst, loc, tags: t } => {
            let at = place(ctx, loc);
            let t = with_loc_tags(ctx, at.loc, t.clone());
            Ok(fork_read(ctx, &p, at.loc, |mut p, value| {
                let e = p.push(EventKind::Read, Some(at), value, t.clone());
                p.set_reg(
                    dst,
                    Val {
                        value,
                        deps: BTreeSet::from([e]),
                    },
                );
                Ok(vec![p.next()])
            })?)
        }
        Instr::Rmw {
            dst,
            loc,
            op,
            tags: t,
            fail_tags,
        } => {
            let at = place(ctx, loc);
            let t = with_loc_tags(ctx, at.loc, t.clone());
            let ft = match fail_tags {
                Some(ft) => with_loc_tags(ctx, at.loc, ft.clone()),
                None => t.clone(),
            };
            fork_read(ctx, &p, at.loc, |p, old| {
                Ok(vec![rmw(p, at, old, dst.as_deref(), op, &t, &ft)])
            })
        }
    }
}

/// Fork the path over every value location `l` may hold.
fn fork_read(
    ctx: &ThreadContext,
    p: &Path,
    l: usize,
    mut k: impl FnMut(Path, i64) -> Result<Vec<Path>>,
) -> Result<Vec<Path>> {
    let mut out = vec![];
    for &value in &ctx.domain[l] {
        out.extend(k(p.clone(), value)?);
    }
    Ok(out)
}

/// The read (and, unless a CAS fails, the write) of an RMW that read `old`.
fn rmw(
    mut p: Path,
    at: Place,
    old: i64,
    dst: Option<&str>,
    op: &RmwOp,
    t: &[Tag],
    ft: &[Tag],
) -> Path {
    let new = match op {
        RmwOp::Arith(bop, e) => {
            let v = eval(&p.regs, e);
            Some(Val {
                value: apply(*bop, old, v.value),
                deps: v.deps,
            })
        }
        RmwOp::Exch(e) => Some(eval(&p.regs, e)),
        RmwOp::Cas { expected, desired } => {
            let exp = eval(&p.regs, expected);
            (exp.value == old).then(|| eval(&p.regs, desired))
        }
    };
    let read_tags = if new.is_some() {
        t.to_vec()
    } else {
        ft.to_vec()
    };
    let r = p.push(EventKind::Read, Some(at), old, read_tags);
    if let Some(v) = new {
        let w = p.push(EventKind::Write, Some(at), v.value, t.to_vec());
        p.events[w].data = v.deps.into_iter().collect();
        p.events[w].rmw_read = Some(r);
    }
    if let Some(d) = dst {
        p.set_reg(
            d,
            Val {
                value: old,
                deps: BTreeSet::from([r]),
            },
        );
    }
    p.next()
}
