//! How many candidate executions a test can have, read off its code before anything is
//! enumerated (docs/decisions/001-runner-semantics.md, "Bounded memory"), and how long judging
//! one takes (`judging_nanos`; "Enumerate or decide").
//!
//! The bound is `Π_t max(1, P_t) × B × Π_l co(W_l)`:
//! - `W_l` sums, over threads, the most writes to location `l` on one path of the thread, and
//!   `co(k)` counts the coherence orders on `k` writes (`k!` total, labelled posets partial);
//! - `P_t` sums, over the paths through thread `t`'s control flow (both ways at every branch, each
//!   instruction at most `unroll` times), the product of the charges of the path's reads;
//! - a read of `l` is charged the `(value, write read from)` choices it may take: 1 for the
//!   initial write plus, per write a thread may perform on `l`, the values that write may store
//!   (1 for a constant, `|D_l|` otherwise), summed over threads with each thread's most on one
//!   path; and at least `|D_l|`, the values a read forks on. When a barrier names a thread count a
//!   thread may block, and a read after that point reads from nothing: it is charged `|D_l|` more;
//! - `B` is 1 when no barrier names a count (every arrival joins one generation), otherwise the
//!   number of partitions of the most arrivals an execution can have.
//!
//! Each candidate (traces, generations, `rf`, `co`) is a distinct choice of a path per thread, a
//! charged choice per read, a partition of arrivals and an order per location, so the bound is
//! never below the candidate count. The same walk with each read charged `|D_l|` bounds the traces
//! of all threads, which is what going through them costs.
use std::collections::{BTreeMap, HashMap};

use super::orders::{order_count, partition_count};
use super::traces::{label_positions, Domain};
use crate::diag::Result;
use crate::ir::{CoKind, DefBody, Expr as ModelExpr, Model, Step};
use crate::litmus::{Expr, Instr, Litmus, RmwOp, Thread};

/// The bounds read off the code.
pub(crate) struct CodeBound {
    /// On the candidate executions.
    pub(crate) candidates: u128,
    /// On the traces of all threads together.
    pub(crate) traces: u128,
}

/// The bounds for `test` under `domain` (saturating at `u128::MAX`).
pub(crate) fn from_code(
    test: &Litmus,
    loc_index: &dyn Fn(&str) -> usize,
    domain: &Domain,
    coherence: CoKind,
    unroll: usize,
) -> Result<CodeBound> {
    let flows = test
        .threads
        .iter()
        .map(|t| Flow::of(t, loc_index, domain, unroll))
        .collect::<Result<Vec<_>>>()?;
    let values: Vec<u128> = domain.iter().map(|d| d.len() as u128).collect();
    let most: Vec<Paths> = flows
        .iter()
        .map(|f| f.paths(&vec![1; domain.len()]))
        .collect();
    let sum = |per_loc: fn(&Paths) -> &Vec<u128>, l: usize| {
        most.iter()
            .fold(0u128, |s, p| s.saturating_add(per_loc(p)[l]))
    };
    let blocking = may_block(test);
    let charges: Vec<u128> = (0..domain.len())
        .map(|l| {
            let sources = sum(|p| &p.written_values, l).saturating_add(1);
            if blocking {
                sources.saturating_add(values[l])
            } else {
                sources.max(values[l])
            }
        })
        .collect();
    let paths = flows.iter().fold(1u128, |p, f| {
        p.saturating_mul(f.paths(&charges).weight.max(1))
    });
    let generations = if blocking {
        partition_count(most.iter().map(|p| p.arrivals).sum())
    } else {
        1
    };
    let orders = (0..domain.len())
        .map(|l| sum(|p| &p.writes, l).try_into().unwrap_or(usize::MAX))
        .fold(1u128, |p, k| p.saturating_mul(order_count(coherence, k)));
    let traces = flows
        .iter()
        .fold(0u128, |s, f| s.saturating_add(f.paths(&values).weight));
    Ok(CodeBound {
        candidates: paths.saturating_mul(generations).saturating_mul(orders),
        traces,
    })
}

/// The runner's estimate, in nanoseconds on one core, of building and judging one candidate of
/// `events` events under `model`: building the execution's vocabulary and computing each
/// expression node of the model's steps (a `let rec` group's nodes `FIXPOINT_ROUNDS` times)
/// each work on one row per event. Witness choices are not counted, so a model with `with` is
/// underestimated. The constant is measured: 4,980,736 candidates of 13 events under
/// `ptx-v6.cat` took 46 s on one core (docs/decisions/001-runner-semantics.md, "Enumerate or
/// decide").
pub(crate) fn judging_nanos(model: &Model, events: usize) -> u128 {
    const VOCABULARY_ROWS: u128 = 60;
    const FIXPOINT_ROUNDS: u128 = 3;
    const PICOS_PER_ROW: u128 = 2500;
    let size = |e: &ModelExpr| e.nodes() as u128;
    let nodes: u128 = (model.steps.iter())
        .map(|step| match step {
            Step::Define(id) => match &model.defs[*id].body {
                DefBody::Value(e) => size(e),
                _ => 0,
            },
            Step::Fixpoint(ids) => (ids.iter())
                .map(|id| match &model.defs[*id].body {
                    DefBody::Fixpoint(e) => FIXPOINT_ROUNDS * size(e),
                    _ => 0,
                })
                .sum(),
            Step::Check(c) => size(&model.checks[*c].expr),
            Step::Choose(_) => 0,
        })
        .sum();
    PICOS_PER_ROW * (nodes + VOCABULARY_ROWS) * events as u128 / 1000
}

/// May a thread block at a barrier (some barrier names a thread count)?
fn may_block(test: &Litmus) -> bool {
    let mut code = test.threads.iter().flat_map(|t| &t.code);
    code.any(|i| matches!(i, Instr::Barrier { count: Some(_), .. }))
}

/// A count for messages: the number, or "over 10^38" when it saturated.
pub(crate) fn render(count: u128) -> String {
    if count == u128::MAX {
        "over 10^38".into()
    } else {
        count.to_string()
    }
}

/// One thread's control flow, walked without values.
struct Flow<'a> {
    code: &'a [Instr],
    labels: BTreeMap<String, usize>,
    /// Instructions inside the span of a backward jump: the only ones a path can visit again.
    looped: Vec<bool>,
    loc_index: &'a dyn Fn(&str) -> usize,
    domain: &'a Domain,
    unroll: usize,
}

/// What the complete paths from one point of a thread to its end add up to.
#[derive(Clone)]
struct Paths {
    /// The sum over the paths of the product of their reads' charges.
    weight: u128,
    /// Per location: the most writes on one path, and the most values they may store.
    writes: Vec<u128>,
    written_values: Vec<u128>,
    /// The most barrier arrivals on one path.
    arrivals: usize,
}

impl Paths {
    fn end(locations: usize) -> Paths {
        Paths {
            weight: 1,
            writes: vec![0; locations],
            written_values: vec![0; locations],
            arrivals: 0,
        }
    }
    fn add_write(&mut self, l: usize, values: u128) {
        self.writes[l] += 1;
        self.written_values[l] = self.written_values[l].saturating_add(values);
    }
    /// The paths of either branch.
    fn join(self, o: Paths) -> Paths {
        let max =
            |a: Vec<u128>, b: Vec<u128>| a.into_iter().zip(b).map(|(x, y)| x.max(y)).collect();
        Paths {
            weight: self.weight.saturating_add(o.weight),
            writes: max(self.writes, o.writes),
            written_values: max(self.written_values, o.written_values),
            arrivals: self.arrivals.max(o.arrivals),
        }
    }
}

/// Memo key: a program point and the visit counts of the instructions that can be visited again.
type Point = (usize, Vec<usize>);

impl<'a> Flow<'a> {
    fn of(
        thread: &'a Thread,
        loc_index: &'a dyn Fn(&str) -> usize,
        domain: &'a Domain,
        unroll: usize,
    ) -> Result<Flow<'a>> {
        let code = &thread.code;
        let labels = label_positions(thread)?;
        let mut looped = vec![false; code.len()];
        for (j, i) in code.iter().enumerate() {
            if let Instr::Goto(l) | Instr::BranchIf { target: l, .. } = i {
                let p = labels[l];
                if p <= j {
                    looped[p..=j].iter_mut().for_each(|x| *x = true);
                }
            }
        }
        Ok(Flow {
            code,
            labels,
            looped,
            loc_index,
            domain,
            unroll,
        })
    }

    /// The paths from the start, with reads of location `l` charged `charges[l]`; a thread with
    /// no complete path has weight 0.
    fn paths(&self, charges: &[u128]) -> Paths {
        let mut visits = vec![0; self.code.len()];
        self.from(0, &mut visits, charges, &mut HashMap::new())
            .unwrap_or(Paths {
                weight: 0,
                ..Paths::end(self.domain.len())
            })
    }

    /// The paths from `pc` having made `visits`; `None` when every one of them is dropped by the
    /// unrolling bound.
    fn from(
        &self,
        pc: usize,
        visits: &mut Vec<usize>,
        charges: &[u128],
        memo: &mut HashMap<Point, Option<Paths>>,
    ) -> Option<Paths> {
        if pc >= self.code.len() {
            return Some(Paths::end(self.domain.len()));
        }
        if visits[pc] >= self.unroll {
            return None;
        }
        let key = (pc, self.revisitable(visits));
        if let Some(known) = memo.get(&key) {
            return known.clone();
        }
        visits[pc] += 1;
        let rest = self
            .successors(pc)
            .into_iter()
            .filter_map(|next| self.from(next, visits, charges, memo))
            .reduce(Paths::join);
        visits[pc] -= 1;
        let paths = rest.map(|p| self.through(pc, p, charges));
        memo.insert(key, paths.clone());
        paths
    }

    fn revisitable(&self, visits: &[usize]) -> Vec<usize> {
        (0..visits.len())
            .filter(|&i| self.looped[i])
            .map(|i| visits[i])
            .collect()
    }

    /// Where control may go after `pc`: a conditional branch goes both ways.
    fn successors(&self, pc: usize) -> Vec<usize> {
        match &self.code[pc] {
            Instr::Goto(l) => vec![self.labels[l]],
            Instr::BranchIf { target, .. } => vec![self.labels[target], pc + 1],
            _ => vec![pc + 1],
        }
    }

    /// `rest` preceded by the instruction at `pc`.
    fn through(&self, pc: usize, mut rest: Paths, charges: &[u128]) -> Paths {
        match &self.code[pc] {
            Instr::Load { loc, .. } => {
                let l = (self.loc_index)(loc);
                rest.weight = rest.weight.saturating_mul(charges[l]);
            }
            Instr::Store { loc, value, .. } => {
                let l = (self.loc_index)(loc);
                rest.add_write(l, self.stored_values(l, Some(value)));
            }
            Instr::Rmw { loc, op, .. } => {
                let l = (self.loc_index)(loc);
                let stored = match op {
                    RmwOp::Arith(..) => None,
                    RmwOp::Exch(e) | RmwOp::Cas { desired: e, .. } => Some(e),
                };
                rest.add_write(l, self.stored_values(l, stored));
                rest.weight = rest.weight.saturating_mul(charges[l]);
            }
            Instr::Barrier { .. } => rest.arrivals += 1,
            _ => {}
        }
        rest
    }

    /// How many values a write of `value` to `l` may store: one for a constant, otherwise any
    /// value of the location (`None`: computed from the value read).
    fn stored_values(&self, l: usize, value: Option<&Expr>) -> u128 {
        match value {
            Some(Expr::Const(_)) => 1,
            _ => self.domain[l].len() as u128,
        }
    }
}
