//! What a check is asked to search: the bound and how it is counted, the axioms, the limits on
//! threads and locations, the solver, and the stop request.
//!
//! Owns: `Options`. Uses: `operations` (`Counting`), `encode` (backends), `solver` (`Stop`).
use super::estimate::MAX_MEMORY_GIB;
use super::operations::Counting;
use crate::encode::Backend;
use crate::solver::Stop;

/// What to search.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Options {
    /// The bound: programs of at most this many source events (an RMW counts two); natural counting
    /// searches every bound up to it, Alloy counting this one alone (see `Counting`).
    pub bound: usize,
    /// How the bound is counted (natural, or as the Alloy artifact does).
    pub counting: Counting,
    /// Source axioms to check (all non-flag checks when empty).
    pub axioms: Vec<String>,
    /// At most this many threads (default: the bound).
    pub threads: Option<usize>,
    /// At most this many locations (default: the bound).
    pub locations: Option<usize>,
    /// The SAT solver each query is built on.
    pub backend: Backend,
    /// Stop after the first bound at which some axiom has a counterexample.
    pub first: bool,
    /// Refuse a check one of whose shapes' SAT problems is estimated above this many GiB
    /// (`estimate`).
    pub max_memory_gib: u64,
    /// Asked for by a signal handler or a deadline: end early, with what is settled.
    #[serde(skip)]
    pub stop: Stop,
}

impl Options {
    /// The options of a check of every axiom up to `bound` in natural counting.
    pub fn natural(bound: usize, backend: Backend) -> Options {
        Options {
            bound,
            counting: Counting::Natural,
            axioms: Vec::new(),
            threads: None,
            locations: None,
            backend,
            first: false,
            max_memory_gib: MAX_MEMORY_GIB,
            stop: Stop::new(),
        }
    }
}
