//! The CaDiCaL backend through `cadical-sys` (C++ compiled by `cc` via `cxx`; no cmake, no
//! libclang). Uses: `cadical-sys`.
use cadical_sys::{CaDiCal, Status, Terminator};

use super::{Counters, Lit, SatSolver, Stats, Stop, Verdict};

/// CaDiCaL behind the seam.
pub(crate) struct Cadical {
    inner: CaDiCal,
    counters: Counters,
    /// `val` needs `&mut`; the model is copied out after each satisfiable call instead.
    model: Vec<bool>,
}

impl Cadical {
    pub(crate) fn new() -> Self {
        Cadical {
            inner: CaDiCal::new(),
            counters: Counters::default(),
            model: vec![],
        }
    }
}

impl Default for Cadical {
    fn default() -> Self {
        Self::new()
    }
}

impl SatSolver for Cadical {
    fn new_var(&mut self) -> Lit {
        let var = self.counters.var();
        let declared = self.inner.declare_one_more_variable();
        debug_assert_eq!(Lit::positive(var).to_ipasir(), declared);
        Lit::positive(var)
    }

    fn add_clause(&mut self, lits: &[Lit]) {
        self.counters.clause(lits);
        for l in lits {
            self.inner.add(l.to_ipasir());
        }
        self.inner.add(0);
    }

    fn solve(&mut self, assumptions: &[Lit]) -> Verdict {
        for l in assumptions {
            self.inner.assume(l.to_ipasir());
        }
        let inner = &mut self.inner;
        let status = self.counters.timed(|| inner.solve());
        match status {
            Status::SATISFIABLE => {
                let n = self.counters.stats.vars;
                self.model = (0..n).map(|v| self.inner.val(v as i32 + 1) > 0).collect();
                Verdict::Sat
            }
            Status::UNSATISFIABLE => Verdict::Unsat,
            // No limit is ever set: only the terminator (`stop_when`) ends a call undecided.
            Status::UNKNOWN => Verdict::Stopped,
        }
    }

    fn value(&self, lit: Lit) -> bool {
        self.model
            .get(lit.vidx())
            .is_some_and(|&v| v == lit.is_pos())
    }

    fn stats(&self) -> Stats {
        self.counters.stats
    }

    fn name(&self) -> &'static str {
        "CaDiCaL (cadical-sys 0.8)"
    }

    fn stop_when(&mut self, stop: Stop) {
        self.inner.connect_terminator(StopTerminator(stop));
    }
}

/// CaDiCaL's terminator, asking the run's `Stop`.
struct StopTerminator(Stop);

impl Terminator for StopTerminator {
    fn terminated(&mut self) -> bool {
        self.0.requested()
    }
}
