//! How the runner explores a test (`Options`) and the defaults of its limits. A leaf: every
//! file of the runner may read it, and it reads none of them.
use std::time::Instant;

/// How the runner explores a test.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Options {
    /// Times one instruction may execute on a path before the path is dropped (loop unrolling).
    pub unroll: usize,
    /// The most candidate executions a test may have by the runner's estimate (`estimate`); a test
    /// above it is refused before any is judged.
    pub max_candidates: u64,
    /// The most seconds of judging, by the runner's estimate on one core, a test is enumerated
    /// for; `None`: no such limit. Over it, `decide::run` takes the solver instead.
    pub enumeration_seconds: Option<u64>,
    /// When the run must end (`run --timeout`): no candidate is judged and no solver call made
    /// after it, and the run ends with an error saying so (`enumerate::stopped`).
    #[serde(skip)]
    pub deadline: Option<Instant>,
}

/// The default `max_candidates`: a few minutes of judging on one core (see
/// docs/decisions/001-runner-semantics.md, "Bounded memory").
pub const MAX_CANDIDATES: u64 = 10_000_000;

/// `mapcheck run`'s default `enumeration_seconds` (decision 001, "Enumerate or decide"); the
/// library's is `None`.
pub const ENUMERATION_SECONDS: u64 = 10;

impl Options {
    /// Has the deadline passed?
    pub fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            unroll: 2,
            max_candidates: MAX_CANDIDATES,
            enumeration_seconds: None,
            deadline: None,
        }
    }
}
