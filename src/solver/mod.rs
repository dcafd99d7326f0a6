//! The SAT seam: a small incremental solver interface and one constructor per backend.
//!
//! Owns: `SatSolver` (new variable, add clause, solve under assumptions, value, stats), `Verdict`,
//! `Stats`, `Backend`, `Stop` (a run's request to stop, which every solver of the run polls while
//! it solves), and the backends: BatSat (pure Rust, through `rustsat`; the default) and
//! CaDiCaL (C++, through `cadical-sys`/`cxx`, which needs only a C++ compiler).
//! Uses: `rustsat` for literal types, nothing else of the crate: no relational type appears here
//! (Kodkod's layering: relations → boolean circuit → CNF → this seam).
//! Entry points: `new`, `Backend::ALL`.
//!
//! Files:
//! - `batsat.rs`: BatSat through `rustsat`, its stop callback reading `Stop`.
//! - `cadical.rs`: CaDiCaL through `cadical-sys`.
mod batsat;
mod cadical;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use rustsat::types::{Lit, Var};

pub(crate) use self::batsat::Rustsat;
pub(crate) use self::cadical::Cadical;

/// The answer of one `solve` call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Verdict {
    /// The clauses and assumptions have a model; `value` reads it.
    Sat,
    /// The clauses have no model under the assumptions.
    Unsat,
    /// The run's `Stop` was requested during the call: nothing was decided.
    Stopped,
}

impl Verdict {
    /// Whether the answer is `Sat`.
    pub fn is_sat(self) -> bool {
        self == Verdict::Sat
    }
}

/// Counters every backend keeps the same way (the seam counts, not the solver).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Variables made by `new_var`.
    pub vars: usize,
    /// Clauses added by `add_clause`.
    pub clauses: usize,
    /// Literal occurrences over all clauses.
    pub(crate) literals: usize,
    pub(crate) solves: usize,
    /// Wall-clock time spent inside `solve`.
    #[serde(skip)]
    pub(crate) solve_time: Duration,
}

/// An incremental SAT solver.
///
/// Variables are made by `new_var` only; clauses and assumptions must use variables it returned.
/// After `solve` answered `Sat`, `value` reads the model until the next `add_clause` or `solve`.
pub trait SatSolver {
    /// A fresh variable, as its positive literal.
    fn new_var(&mut self) -> Lit;
    /// Add a clause (the empty clause makes the problem unsatisfiable).
    fn add_clause(&mut self, lits: &[Lit]);
    /// Solve under assumptions (literals that hold for this call only).
    fn solve(&mut self, assumptions: &[Lit]) -> Verdict;
    /// The value of a literal in the last model (`false` when the model leaves it open).
    fn value(&self, lit: Lit) -> bool;
    /// This solver's counters so far (variables, clauses, literals, solves, time in `solve`).
    fn stats(&self) -> Stats;
    /// The backend's name and version.
    fn name(&self) -> &'static str;
    /// From now on, end each `solve` with `Stopped` soon after `stop` is requested.
    fn stop_when(&mut self, stop: Stop);
}

/// A request to stop a run: a cause set by whoever asks (a signal handler, `request`), or a
/// deadline passing. Clones share the cause; the solvers of a run poll it while they solve.
#[derive(Clone, Debug, Default)]
pub struct Stop {
    /// 0 while nothing has asked; otherwise the asker's code (for signals: the signal number).
    cause: Arc<AtomicUsize>,
    deadline: Option<Instant>,
}

impl Stop {
    /// Code of a stop asked for by `request` without a cause of its own.
    pub(crate) const REQUESTED: usize = usize::MAX;

    /// A request nobody has made yet, without a deadline.
    pub fn new() -> Stop {
        Stop::default()
    }

    /// The same request, also made when `deadline` passes.
    pub fn with_deadline(mut self, deadline: Instant) -> Stop {
        self.deadline = Some(deadline);
        self
    }

    /// The shared cause, for a signal handler to set to its signal's number.
    pub fn cause_cell(&self) -> &Arc<AtomicUsize> {
        &self.cause
    }

    /// Ask the run to stop.
    pub fn request(&self) {
        let _ = self
            .cause
            .compare_exchange(0, Stop::REQUESTED, Ordering::SeqCst, Ordering::SeqCst);
    }

    pub(crate) fn requested(&self) -> bool {
        self.cause() != 0 || self.deadline_passed()
    }

    /// The asker's code (0: none; a deadline alone leaves it 0).
    pub fn cause(&self) -> usize {
        self.cause.load(Ordering::SeqCst)
    }

    /// Whether a deadline was set and has passed.
    pub fn deadline_passed(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// The solvers the seam can build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize)]
pub enum Backend {
    /// BatSat through `rustsat-batsat`: pure Rust, builds with cargo alone.
    #[default]
    BatSat,
    /// CaDiCaL through `cadical-sys` (compiled by `cc` with the system C++ compiler).
    Cadical,
}

impl Backend {
    /// Every backend, the default (BatSat) first.
    pub const ALL: [Backend; 2] = [Backend::BatSat, Backend::Cadical];
}

/// A new, empty solver of the given backend.
pub fn new(backend: Backend) -> Box<dyn SatSolver> {
    match backend {
        Backend::BatSat => Box::new(Rustsat::batsat()),
        Backend::Cadical => Box::new(Cadical::new()),
    }
}

/// A new solver of the default backend.
pub(crate) fn new_default() -> Box<dyn SatSolver> {
    new(Backend::default())
}

/// Bookkeeping shared by the backends.
#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    stats: Stats,
}

impl Counters {
    fn var(&mut self) -> u32 {
        self.stats.vars += 1;
        u32::try_from(self.stats.vars - 1).expect("more than 2^32 SAT variables")
    }
    fn clause(&mut self, lits: &[Lit]) {
        self.stats.clauses += 1;
        self.stats.literals += lits.len();
    }
    fn timed<T>(&mut self, f: impl FnOnce() -> T) -> T {
        let start = std::time::Instant::now();
        let out = f();
        self.stats.solves += 1;
        self.stats.solve_time += start.elapsed();
        out
    }
}

/// Solve the pigeonhole formula of `holes + 1` pigeons in `holes` holes: unsatisfiable, and
/// exponential for resolution, so the same fixed work for a solver every time (the tests' stop
/// checks; `mapcheck bench`'s machine reference).
pub(crate) fn pigeonhole(s: &mut dyn SatSolver, holes: usize) -> Verdict {
    let pigeons = holes + 1;
    let x: Vec<Vec<Lit>> = (0..pigeons)
        .map(|_| (0..holes).map(|_| s.new_var()).collect())
        .collect();
    for row in &x {
        s.add_clause(row);
    }
    for h in 0..holes {
        let column: Vec<Lit> = x.iter().map(|row| row[h]).collect();
        for (a, &p) in column.iter().enumerate() {
            for &q in &column[a + 1..] {
                s.add_clause(&[!p, !q]);
            }
        }
    }
    s.solve(&[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_backend_solves_under_assumptions_and_reads_values() {
        for b in Backend::ALL {
            let mut s = new(b);
            let (x, y) = (s.new_var(), s.new_var());
            s.add_clause(&[x, y]);
            assert_eq!(s.solve(&[!x]), Verdict::Sat, "{}", s.name());
            assert!(s.value(y) && !s.value(x));
            assert_eq!(s.solve(&[!x, !y]), Verdict::Unsat);
            assert_eq!(
                s.solve(&[]),
                Verdict::Sat,
                "assumptions are dropped after one call"
            );
            s.add_clause(&[]);
            assert_eq!(s.solve(&[]), Verdict::Unsat);
            let st = s.stats();
            assert_eq!((st.vars, st.clauses, st.literals, st.solves), (2, 2, 2, 4));
        }
    }

    #[test]
    fn every_backend_stops_when_asked() {
        for b in Backend::ALL {
            let mut s = new(b);
            let stop = Stop::new();
            s.stop_when(stop.clone());
            stop.request();
            // Eleven pigeons in ten holes take either solver far longer than a poll interval.
            assert_eq!(pigeonhole(s.as_mut(), 10), Verdict::Stopped, "{}", s.name());
            let mut s = new(b);
            s.stop_when(Stop::new().with_deadline(Instant::now()));
            assert_eq!(pigeonhole(s.as_mut(), 10), Verdict::Stopped, "{}", s.name());
        }
    }

    #[test]
    fn every_backend_refutes_pigeonhole() {
        for b in Backend::ALL {
            assert_eq!(pigeonhole(new(b).as_mut(), 5), Verdict::Unsat);
        }
    }
}
