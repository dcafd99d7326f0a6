//! The memory one shape's SAT problem takes, estimated before any is built, and the refusal of
//! a check whose largest shapes would pass `Options::max_memory_gib`. A shape's problem encodes
//! both models over its slots (every source event gets as many fence slots before and after it
//! as the longest row of the mapping compiles to, so one long row widens every shape): per
//! composition `n³` gates over `n` slots, per closure and per `acyclic` check `n³ log n`, per
//! other operator `n²`. The constant is measured (docs/decisions/002-mapping-check.md, "Memory").
//!
//! Owns: `refuse_oversized`. Uses: `layout` (slot counts), `operations` (the menu), `ir`.
use super::event_key::LOCATIONS;
use super::operations::Op;
use super::options::Options;
use crate::diag;
use crate::ir::{BinOp, CheckKind, DefBody, Expr, Model, Op1, Step};
use crate::mapping::Mapping;

/// Bytes per estimated gate: 846 MB for the 66-slot shapes of a 20-fence row at bound 3 under
/// `rc11-ptx.map`'s models, 146 MB for 36 slots (ten fences).
const BYTES_PER_GATE: u128 = 24;

/// The default `max_memory_gib`.
pub const MAX_MEMORY_GIB: u64 = 4;

/// An error naming the estimate when one shape at `opts.bound` would take more memory than
/// `opts.max_memory_gib`.
pub(super) fn refuse_oversized(mapping: &Mapping, menu: &[Op], opts: &Options) -> diag::Result<()> {
    let pre = menu.iter().map(|o| o.pre.len()).max().unwrap_or(0);
    let post = menu.iter().map(|o| o.post.len()).max().unwrap_or(0);
    let locations = (opts.locations.unwrap_or(opts.bound))
        .min(opts.bound)
        .min(LOCATIONS.len())
        .max(1);
    let slots = locations + opts.bound * (1 + pre + post);
    let bytes = BYTES_PER_GATE * (gates(&mapping.source, slots) + gates(&mapping.target, slots));
    let limit = u128::from(opts.max_memory_gib) << 30;
    if bytes <= limit {
        return Ok(());
    }
    let widest = (menu.iter())
        .filter_map(|o| Some((o.pre.len() + o.post.len(), o.class.as_ref()?)))
        .max_by_key(|(fences, _)| *fences)
        .map_or(String::new(), |(_, class)| format!(", the row for {class}"));
    let message = format!(
        "a program of {} source events has {slots} event slots in this mapping (each event \
         gets {pre} fence slots before it and {post} after, for its longest row{widest}), and \
         the SAT problem of one such shape is estimated at {:.1} GiB, more than --max-memory {} \
         GiB; lower the bound, shorten the row, or raise the limit",
        opts.bound,
        bytes as f64 / f64::from(1u32 << 30),
        opts.max_memory_gib
    );
    Err(diag::Error::file(&mapping.path, message))
}

/// Estimated gates of `model`'s encoding over `n` slots.
fn gates(model: &Model, n: usize) -> u128 {
    let n = n as u128;
    let log = u128::from(n.max(2).ilog2()) + 1;
    let weights = Weights {
        pair: n * n,
        composition: n * n * n,
        closure: n * n * n * log,
    };
    let body = |e: &Expr| weights.of(e);
    let steps = model.steps.iter().map(|step| match step {
        Step::Define(id) => match &model.defs[*id].body {
            DefBody::Value(e) => body(e),
            _ => 0,
        },
        Step::Fixpoint(ids) => (ids.iter())
            .map(|id| match &model.defs[*id].body {
                DefBody::Fixpoint(e) => body(e),
                _ => 0,
            })
            .sum(),
        Step::Check(c) => {
            let check = &model.checks[*c];
            let acyclic = match check.kind {
                CheckKind::Acyclic => weights.closure,
                _ => 0,
            };
            body(&check.expr) + acyclic
        }
        Step::Choose(w) => weights.pair + body(&model.witnesses[*w].order),
    });
    steps.sum()
}

/// What each operator costs over `n` slots.
struct Weights {
    pair: u128,
    composition: u128,
    closure: u128,
}

impl Weights {
    fn of(&self, e: &Expr) -> u128 {
        match e {
            Expr::Binary(op, a, b) => {
                let own = match op {
                    BinOp::Seq => self.composition,
                    _ => self.pair,
                };
                own + self.of(a) + self.of(b)
            }
            Expr::Unary(op, a) => {
                let own = match op {
                    Op1::Plus | Op1::Star => self.closure,
                    _ => self.pair,
                };
                own + self.of(a)
            }
            Expr::Empty(_) | Expr::Base { .. } | Expr::Def(_) => 0,
        }
    }
}
