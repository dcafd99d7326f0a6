//! Backends of the `rustsat` family: any `rustsat` incremental solver behind the seam; BatSat is
//! the one built (pure Rust). Uses: `rustsat`, `rustsat-batsat`.
use rustsat::solvers::{Solve, SolveIncremental, SolverResult};
use rustsat::types::{Clause, TernaryVal, Var};

use super::{Counters, Lit, SatSolver, Stats, Verdict};

/// A `rustsat` solver behind the seam.
pub struct Rustsat<S> {
    inner: S,
    counters: Counters,
    name: &'static str,
}

impl Rustsat<rustsat_batsat::BasicSolver> {
    /// BatSat, pure Rust.
    pub fn batsat() -> Self {
        Rustsat::wrap(rustsat_batsat::BasicSolver::default())
    }
}

impl<S: Solve + SolveIncremental> Rustsat<S> {
    /// Put any `rustsat` incremental solver behind the seam.
    pub fn wrap(inner: S) -> Self {
        let name = inner.signature();
        Rustsat {
            inner,
            counters: Counters::default(),
            name,
        }
    }
}

impl<S: Solve + SolveIncremental> SatSolver for Rustsat<S> {
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
            SolverResult::Interrupted => unreachable!("no limit or terminator is ever set"),
        }
    }

    fn value(&self, lit: Lit) -> bool {
        matches!(self.inner.lit_val(lit), Ok(TernaryVal::True))
    }

    fn stats(&self) -> Stats {
        self.counters.stats
    }

    fn name(&self) -> &'static str {
        self.name
    }
}
