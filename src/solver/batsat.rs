//! BatSat (pure Rust) behind the seam, through the `rustsat` family's wrapper, with its `stop`
//! callback reading the run's `Stop`. Uses: `rustsat`, `rustsat-batsat`.
use rustsat::solvers::{Solve, SolveIncremental, SolverResult};
use rustsat::types::{Clause, TernaryVal, Var};

use super::{Counters, Lit, SatSolver, Stats, Stop, Verdict};

/// BatSat behind the seam.
pub(crate) struct Rustsat {
    inner: rustsat_batsat::BasicSolver,
    counters: Counters,
}

impl Rustsat {
    /// BatSat, pure Rust.
    pub(crate) fn batsat() -> Self {
        Rustsat {
            inner: rustsat_batsat::BasicSolver::default(),
            counters: Counters::default(),
        }
    }
}

impl SatSolver for Rustsat {
    fn new_var(&mut self) -> Lit {
        let var = Var::new(self.counters.var());
        self.inner
            .reserve(var)
            .expect("rustsat solver refused a variable");
        var.pos_lit()
    }

    fn add_clause(&mut self, lits: &[Lit]) {
        self.counters.clause(lits);
        let clause: Clause = lits.iter().copied().collect();
        self.inner
            .add_clause(clause)
            .expect("rustsat solver refused a clause");
    }

    fn solve(&mut self, assumptions: &[Lit]) -> Verdict {
        let inner = &mut self.inner;
        let result = self.counters.timed(|| inner.solve_assumps(assumptions));
        match result.expect("rustsat solver failed") {
            SolverResult::Sat => Verdict::Sat,
            SolverResult::Unsat => Verdict::Unsat,
            SolverResult::Interrupted => Verdict::Stopped,
        }
    }

    fn value(&self, lit: Lit) -> bool {
        matches!(self.inner.lit_val(lit), Ok(TernaryVal::True))
    }

    fn stats(&self) -> Stats {
        self.counters.stats
    }

    fn name(&self) -> &'static str {
        self.inner.signature()
    }

    fn stop_when(&mut self, stop: Stop) {
        self.inner
            .batsat_mut()
            .cb_mut()
            .set_stop(move || stop.requested());
    }
}
