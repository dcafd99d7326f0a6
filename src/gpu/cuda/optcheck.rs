//! optcheck: did ptxas keep the test? Assemble a harness's `kernel.ptx` for sm_90 (`ptxas`),
//! disassemble it (`nvdisasm`), and check, thread by thread, that every access and fence of the
//! test is in the SASS, in program order, at least as strong as the test says (Alglave et al.,
//! ASPLOS 2015, §4.4, with tags instead of their xor specifications).
//!
//! How the SASS is read. Each test thread is its own function (`$litmus_test$P<i>`); each test
//! access names itself by its tag, the immediate offset of its address (`events`). What each
//! PTX instruction must become was measured with ptxas 13.5 for sm_90
//! (`docs/decisions/004-ptx-harness.md` has the table):
//! - strength: weak → no `.STRONG`; `.volatile` → `.STRONG.SYS`; relaxed, acquire, release at
//!   scope S → `.STRONG.SM` (cta), `.STRONG.GPU`, `.STRONG.SYS`;
//! - release (st, atom, red; `.release`, `.acq_rel`) → a `MEMBAR.ALL.S` (or `.SC`) between the
//!   previous access and this one; acquire at gpu or sys scope → `CCTL.IVALL` between this access
//!   and the next (at cta scope nothing: the L1 is the CTA's);
//! - `fence.sc.S` → `MEMBAR.SC.S`; `fence.acq_rel.S`, `fence.release.S` → `MEMBAR.ALL.S` (or
//!   `.SC`); `fence.acquire.S` → `CCTL.IVALL` at gpu and sys scope, nothing at cta;
//!   a fence must sit between the accesses it sits between in the test; one `MEMBAR` may serve
//!   several fences of one gap (no access between them: the strongest stands for all).
//!
//! A guarded access must be predicated or come after a conditional branch; an unguarded one
//! must not be predicated. A stronger scope or `MEMBAR` passes, with a note.
//!
//! Owns: `Tools` (`find_tools`), `check_dir` (assemble, disassemble, check), `check_sass` (the
//! check itself, on SASS text), `Report`. Uses: the CUDA `Harness` and its `events`.
//!
//! This file: the check of a listing and its report. The parts: `tools` (finding `ptxas` and
//! `nvdisasm`, running them on a harness), `sass` (reading the listing), `expected` (what each
//! test instruction must become), `thread` (one thread's events against its function's SASS).
//!
//! Files:
//! - `optcheck/tools.rs`: finding and running `ptxas` and `nvdisasm`.
//! - `optcheck/sass.rs`: reading `nvdisasm`'s listing.
//! - `optcheck/expected.rs`: what each test instruction must become in the SASS.
//! - `optcheck/thread.rs`: one thread's events against its function's SASS.
use std::fmt;

use super::events::Event;
use super::harness::Harness;
use super::kernel::TEST_KERNEL;
use super::thread::name as thread_function;
use crate::diag::{Error, Result};
use crate::litmus::Litmus;

/// The architecture optcheck assembles for (`arch!`, also in the file names of `FILES`).
pub(crate) const ARCH: &str = arch!();
/// The environment variable naming the directory with `ptxas` and `nvdisasm`.
pub(crate) const BIN_ENV: &str = "MAPCHECK_CUDA_BIN";

mod expected;
mod sass;
mod thread;
mod tools;

pub(crate) use super::harness::cubin_file;
pub use super::harness::OPTCHECK_FILES as FILES;
use expected::{expected_text, ptx_text};
pub(crate) use sass::functions;
use thread::ThreadCheck;
pub use tools::{check_dir, find_tools, Tools};
pub(crate) use tools::{check_for, Checked};

/// What optcheck concluded about one instruction of the test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Found as the test asks.
    Ok,
    /// Kept, with a stronger scope or fence than the test asks.
    Stronger,
    /// Not found in the SASS (no memory instruction at its tag, or no function for its thread).
    Missing,
    /// Found more than once (ptxas duplicated it).
    Duplicated,
    /// Found before an access that precedes it in the test.
    Reordered,
    /// Found, weaker than the test says (scope, missing `.STRONG`, release fence, acquire
    /// invalidation, fence kind).
    Weakened,
    /// A guarded access that runs unconditionally.
    GuardLost,
    /// An unguarded access that is predicated (e.g. warp-aggregated).
    Predicated,
}

impl Verdict {
    pub(crate) fn passes(self) -> bool {
        matches!(self, Verdict::Ok | Verdict::Stronger)
    }
    fn word(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Stronger => "ok (stronger)",
            Verdict::Missing => "MISSING",
            Verdict::Duplicated => "DUPLICATED",
            Verdict::Reordered => "REORDERED",
            Verdict::Weakened => "WEAKENED",
            Verdict::GuardLost => "GUARD LOST",
            Verdict::Predicated => "PREDICATED",
        }
    }
}

/// One line of the report: a test instruction, what it must become, what was found.
#[derive(Clone, Debug)]
pub struct Row {
    /// Name of the test thread the instruction belongs to.
    pub thread: String,
    /// The instruction as PTX (`ld.acquire.gpu`).
    pub ptx: String,
    pub(crate) expected: String,
    pub(crate) found: String,
    /// What optcheck concluded.
    pub verdict: Verdict,
    pub(crate) why: String,
}

/// optcheck's table, per thread and instruction in program order.
#[derive(Clone, Debug)]
pub struct Report {
    pub(crate) test: String,
    /// One row per memory event of the test, per thread in program order.
    pub rows: Vec<Row>,
}

impl Report {
    /// Whether every row is `Ok` or `Stronger`.
    pub fn passed(&self) -> bool {
        self.rows.iter().all(|r| r.verdict.passes())
    }
    /// The rows whose verdict does not pass.
    pub fn failures(&self) -> Vec<&Row> {
        self.rows.iter().filter(|r| !r.verdict.passes()).collect()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "optcheck {} ({ARCH}):", self.test)?;
        let w = |get: &dyn Fn(&Row) -> usize, min: usize| {
            self.rows.iter().map(get).max().unwrap_or(0).max(min)
        };
        let (wt, wp, we) = (
            w(&|r| r.thread.len(), 6),
            w(&|r| r.ptx.len(), 3),
            w(&|r| r.expected.len(), 13),
        );
        let wf = w(&|r| r.found.len(), 5);
        writeln!(
            f,
            "  {:wt$}  {:wp$}  {:we$}  {:wf$}  verdict",
            "thread", "PTX", "expected SASS", "found"
        )?;
        for r in &self.rows {
            let why = if r.why.is_empty() {
                String::new()
            } else {
                format!(": {}", r.why)
            };
            writeln!(
                f,
                "  {:wt$}  {:wp$}  {:we$}  {:wf$}  {}{why}",
                r.thread,
                r.ptx,
                r.expected,
                r.found,
                r.verdict.word()
            )?;
        }
        let verdict = if self.passed() { "passed" } else { "FAILED" };
        write!(
            f,
            "optcheck {verdict}: {} instructions, {} failures",
            self.rows.len(),
            self.failures().len()
        )
    }
}

/// Check the SASS listing of a harness against the test's events.
pub fn check_sass(test: &Litmus, events: &[Vec<Event>], sass: &str) -> Report {
    let functions = functions(sass);
    let mut rows = vec![];
    for (t, ev) in events.iter().enumerate() {
        let thread = test.threads[t].name.clone();
        let plain = thread_function(t);
        let suffix = format!("${plain}");
        let function = functions
            .iter()
            .find(|(name, _)| name.ends_with(&suffix) || *name == plain);
        match function {
            Some((_, code)) => rows.extend(ThreadCheck::new(&thread, ev, code).rows()),
            None => rows.extend(ev.iter().map(|e| Row {
                thread: thread.clone(),
                ptx: ptx_text(e),
                expected: expected_text(e),
                found: String::new(),
                verdict: Verdict::Missing,
                why: format!(
                    "no function {suffix} in the SASS of {TEST_KERNEL} (inlined or renamed)"
                ),
            })),
        }
    }
    Report {
        test: test.name.clone(),
        rows,
    }
}
