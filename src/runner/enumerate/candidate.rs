//! One candidate execution with the model's judgement (`Candidate`), and the final states it
//! carries (`Finals`). `rf_co` builds them; `enumerate.rs` re-exports them.
use std::collections::BTreeMap;

use crate::eval::Outcome as Judgement;
use crate::exec::Execution;
use crate::litmus::Target;

/// One candidate execution with the model's judgement.
pub struct Candidate<'a> {
    /// The candidate execution: its events, `po`, `rf`, `co` and the structural relations.
    pub execution: &'a Execution,
    /// The model's verdict on this candidate.
    pub judgement: Judgement,
    /// Final states (several when partial `co` leaves more than one co-maximal write).
    pub(crate) finals: Vec<Finals>,
}

impl Candidate<'_> {
    /// Does the model accept this candidate as consistent (`judgement.consistent`)?
    pub fn is_consistent(&self) -> bool {
        self.judgement.consistent
    }
}

/// Final registers (per thread; `None` when the thread blocked before setting it) and memory.
#[derive(Clone, Debug)]
pub(crate) struct Finals {
    pub(super) regs: Vec<BTreeMap<String, Option<i64>>>,
    pub(super) mem: BTreeMap<String, i64>,
}

impl Finals {
    pub(crate) fn value_of(&self, t: &Target) -> Option<i64> {
        match t {
            Target::Reg { thread, reg } => self
                .regs
                .get(*thread)
                .and_then(|r| r.get(reg).copied().unwrap_or(Some(0))),
            Target::Mem(l) => self.mem.get(l).copied(),
        }
    }
}
