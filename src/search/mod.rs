//! The mapping check: a bounded search for a race-free source program whose compiled code has an
//! execution the target model allows and the source model forbids.
//!
//! Per bound N and thread shape (events per thread, fixed outside the solver, threads sorted by
//! size), one SAT problem over one universe of slots (`layout`): which operation each event is,
//! its location, the threads' places in the scope tree and the target execution's `rf` / `co` are
//! variables (`program_variables`, `candidate_variables`); the target model is encoded
//! positively ("consistent") and each source axiom negatively ("fails", a guessed cycle), over
//! the same slots (`execution_view`): the source execution is derived from the target one, never
//! guessed beside it. Every solution is decoded into tests (`decode`) and goes to the runner
//! (`validate`): a racy program is excluded together with every program on which the same racy
//! execution is consistent (counterexample-guided refinement, `shape_problem`); a solution the
//! runner does not confirm as a counterexample never reaches the user.
//!
//! A check reports as it goes (`Event`): a counterexample as soon as it is settled (no thread
//! shape before it in the bound's order can still give another, `bound_progress`), every finished
//! bound, every finished shape. A requested `Stop` (a signal, a deadline) ends it early with what
//! is settled: per axiom a counterexample, or the largest bound finished clean and how far the
//! next one got.
//!
//! The files, in the order data flows through them: `event_key` → `operations` → `layout` →
//! `program_variables` → `symmetry` → `model_reading` → `candidate_variables` →
//! `execution_view` → `decode` → `validate` → `options` → `shape_problem` → `outcome` →
//! `bound_progress` → `units` → this driver; `readings` runs each counterexample's compiled test
//! under every reading of the target architecture. `units` runs one bound's shapes in parallel
//! (`search_bound`), for the driver and for a check cut into (bound, shape, axiom) units, as the
//! shards of a split check run it (`check_units`, the `shard` stage); `confirm` judges one given
//! test instead of searching (`check --test`), with `validate`.
//!
//! Owns: `check`, `scope`, `selected_axioms` (the driver: bounds, open axioms, the report).
//! Uses: `mapping`, `litmus`, `ir`, `encode` and `solver` (the SAT side), `runner`, `eval`,
//! `exec` and `rel` (the ground truth), `vocab`, `diag`, and every file above.
//!
//! Files:
//! - `event_key.rs`: `EventKey`, an event named by its place in a test; `KeyRel`, `LOCATIONS`,
//!   `execution_keys`.
//! - `operations.rs`: the operation menu (`operation_menu`), what a source event may be and what it
//!   compiles to; `Counting`.
//! - `layout.rs`: the slots (initial writes, then per event its added fences and main slot);
//!   `thread_shapes`.
//! - `program_variables.rs`: `ProgramVariables`: each event's operation, location and guard; CTA
//!   and GPU labels; RMW pairing.
//! - `symmetry.rs`: symmetry breaking, and Alloy's scope budget.
//! - `model_reading.rs`: `ModelReading`, one model's reading of each slot.
//! - `candidate_variables.rs`: `CandidateVariables`: the program, both readings, the target
//!   execution's `rf` and `co`, their well-formedness, and the race check's sequential executions.
//! - `execution_view.rs`: `ExecutionView`, the vocabulary over circuits (a `vocab::Reading`).
//! - `decode.rs`: a solution read back (`DecodedSolution`), as tests in event keys
//!   (`SolutionTests`).
//! - `validate.rs`: the runner's `Verdict` on a solution, and the violated axiom's `cycle`.
//! - `readings.rs`: `judge_readings`, `judge_source_readings`, a counterexample under each
//!   reading of the target and of the source.
//! - `options.rs`: `Options`: bound, counting, axioms, limits, solver, stop.
//! - `estimate.rs`: the memory of one shape's SAT problem, estimated before any is built, and the
//!   refusal over `--max-memory`.
//! - `outcome.rs`: `Counterexample`, `AxiomResult`, `Event`, `Report`, `Scope`.
//! - `shape_problem.rs`: `ShapeProblem` and its refinement loop. `ShapeProblems` runs a shape's
//!   axioms one after another on one problem, until it carries 30 refinements.
//! - `confirm.rs`: `confirm`, one given test instead of a search.
//! - `bound_progress.rs`: `BoundProgress`, one bound's shapes as they finish.
//! - `units.rs`: `work`, `check_units`, and `search_bound`, which runs one bound's shapes in
//!   parallel for the driver and for `check_units`.
mod bound_progress;
mod candidate_variables;
mod confirm;
mod decode;
mod estimate;
mod event_key;
mod execution_view;
mod layout;
mod model_reading;
mod operations;
mod options;
mod outcome;
mod program_variables;
mod readings;
mod shape_problem;
mod symmetry;
mod units;
pub mod validate;

use std::sync::Mutex;
use std::time::Instant;

pub use self::confirm::{confirm, NotOne, TestVerdict};
pub(crate) use self::decode::{compiled_from, test_name};
pub use self::estimate::MAX_MEMORY_GIB;
pub use self::event_key::{execution_keys, keyed, EventKey, KeyRel, LOCATIONS};
pub(crate) use self::layout::thread_shapes;
pub use self::operations::Counting;
pub use self::options::Options;
pub use self::outcome::{
    source_reading, target_reading, AxiomResult, Counterexample, Event, Observer, Report, Scope,
    Statistics, Unfinished,
};
pub use self::readings::{judge_readings, judge_source_readings, ReadingVerdict};
pub use self::units::{
    check_units, work, ShapeOutcome, ShapeUnit, ShapeWork, UnitOutcome, UnitVerdict, Work,
};

use self::bound_progress::BoundProgress;
use self::operations::{operation_menu, Op};
use self::units::{search_bound, AxiomRun, BoundShape, Progress};
use crate::diag;
use crate::mapping::Mapping;

/// What a check with `opts` would search (see `Scope`), or why it would search nothing.
pub(crate) fn scope(mapping: &Mapping, opts: &Options) -> diag::Result<Scope> {
    searchable_menu(mapping, opts).map(|(_, scope)| scope)
}

/// The names of the source axioms a check with `opts` checks.
pub(crate) fn selected_axioms(mapping: &Mapping, opts: &Options) -> diag::Result<Vec<String>> {
    select_axioms(mapping, &opts.axioms)
        .map(|all| all.into_iter().map(|(_, name)| name).collect())
        .map_err(|m| diag::Error::file(&mapping.path, m))
}

/// The operations a source event may be, and the scope they make; an error for options or a
/// mapping that would search no program (and so report every axiom clean), or whose SAT
/// problems would pass the memory limit (`estimate`).
fn searchable_menu(mapping: &Mapping, opts: &Options) -> diag::Result<(Vec<Op>, Scope)> {
    let err = |msg: String| diag::Error::file(&mapping.path, msg);
    refuse_empty_bounds(opts).map_err(err)?;
    let menu = operation_menu(mapping, opts.counting)
        .map_err(|m| err(format!("the search cannot use this mapping: {m}")))?;
    let scope = Scope::of(mapping, &menu);
    if menu.is_empty() {
        let why = if mapping.classes().is_empty() {
            "it declares none".to_string()
        } else {
            scope.not_searched.join("; ")
        };
        return Err(err(format!(
            "no class of the mapping can be searched ({why}): a check would search no program"
        )));
    }
    estimate::refuse_oversized(mapping, &menu, opts)?;
    Ok((menu, scope))
}

/// Run the check.
pub fn check(mapping: &Mapping, opts: &Options, observe: Observer) -> diag::Result<Report> {
    let start = Instant::now();
    let err = |msg: String| diag::Error::file(&mapping.path, msg);
    let (menu, scope) = searchable_menu(mapping, opts)?;
    let axioms = select_axioms(mapping, &opts.axioms).map_err(err)?;
    let mut results: Vec<AxiomResult> = axioms
        .iter()
        .map(|(_, name)| AxiomResult {
            axiom: name.clone(),
            counterexample: None,
            clean_to: 0,
            statistics: Default::default(),
            unfinished: None,
        })
        .collect();
    // Natural counting grows the bound one event at a time; Alloy counting checks bound N at once
    // (a larger bound also allows smaller programs more scopes).
    let first_bound = match opts.counting {
        Counting::Natural => 1,
        Counting::Alloy => opts.bound,
    };
    let mut stopped = false;
    for bound in first_bound..=opts.bound {
        let open: Vec<usize> = (0..axioms.len())
            .filter(|&a| results[a].counterexample.is_none())
            .collect();
        if open.is_empty() {
            break;
        }
        // A stop requested between two bounds still goes through the next bound (whose shapes
        // then return at once), so that its axioms record how far it got: 0 shapes.
        let shapes = shapes_at(bound, opts);
        let todo: Vec<BoundShape> = shapes
            .iter()
            .enumerate()
            .map(|(index, shape)| BoundShape {
                index,
                shape,
                axioms: open.clone(),
            })
            .collect();
        let run = CheckBound {
            level: Mutex::new(BoundProgress::new(bound, &shapes, open.len())),
            open: &open,
            axioms: &axioms,
            path: &mapping.path,
            observe,
        };
        search_bound(mapping, &menu, &axioms, opts, bound, &todo, &run);
        let level = run.level.into_inner().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = level.error {
            return Err(e);
        }
        // Only a stopped bound needs the next one's size (see `BoundProgress::merge`).
        let next_shapes =
            (bound < opts.bound && opts.stop.requested()).then(|| shapes_at(bound + 1, opts).len());
        stopped = level.merge(&open, &mut results, next_shapes, observe);
        if stopped || (opts.first && results.iter().any(|r| r.counterexample.is_some())) {
            break;
        }
    }
    Ok(Report {
        mapping: mapping.path.clone(),
        options: opts.clone(),
        axioms: results,
        seconds: start.elapsed().as_secs_f64(),
        solver: crate::solver::new(opts.backend).name(),
        stopped,
        scope,
    })
}

/// One bound of `check` as `search_bound` runs it: its `BoundProgress`, whose axiom `k` is
/// `open[k]` of the check's `axioms`.
struct CheckBound<'a> {
    level: Mutex<BoundProgress>,
    open: &'a [usize],
    axioms: &'a [(usize, String)],
    path: &'a str,
    observe: Observer<'a>,
}

impl CheckBound<'_> {
    fn k(&self, axiom: usize) -> usize {
        let k = self.open.iter().position(|&a| a == axiom);
        k.expect("search_bound runs only the open axioms")
    }
}

impl Progress for CheckBound<'_> {
    fn settled_before(&self, axiom: usize, index: usize) -> bool {
        lock(&self.level).settled_before(self.k(axiom), index)
    }

    fn record(&self, shape: &BoundShape, axiom: usize, run: AxiomRun) {
        if let AxiomRun::Searched(outcome) = run {
            let outcome = (*outcome).map_err(|m| diag::Error::internal(self.path, m));
            let name = &self.axioms[axiom].1;
            let k = self.k(axiom);
            lock(&self.level).record(shape.index, k, name, outcome, self.observe);
        }
    }

    fn shape_done(&self, _index: usize) {
        lock(&self.level).shape_done(self.observe);
    }
}

/// Zero threads, locations or a zero bound would search nothing and report it clean.
fn refuse_empty_bounds(opts: &Options) -> Result<(), String> {
    for (what, value) in [
        ("bound", Some(opts.bound)),
        ("number of threads", opts.threads),
        ("number of locations", opts.locations),
    ] {
        if value == Some(0) {
            return Err(format!(
                "the {what} must be at least 1 (0 would search no program)"
            ));
        }
    }
    Ok(())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The thread shapes checked at `bound`: natural counting adds the shapes of exactly `bound`
/// events to those of earlier bounds; Alloy counting checks every shape up to `bound` again,
/// since a larger bound also allows more scopes to smaller programs.
fn shapes_at(bound: usize, opts: &Options) -> Vec<Vec<usize>> {
    let threads = opts.threads.unwrap_or(bound);
    match opts.counting {
        Counting::Natural => thread_shapes(bound, threads),
        Counting::Alloy if bound == opts.bound => {
            // The threads and at least the system node of the scope tree.
            let threads = threads.min(bound.saturating_sub(1));
            (1..=bound)
                .flat_map(|k| thread_shapes(k, threads))
                .collect()
        }
        Counting::Alloy => vec![],
    }
}

/// The source axioms to check, as (check index, name).
fn select_axioms(mapping: &Mapping, wanted: &[String]) -> Result<Vec<(usize, String)>, String> {
    let all: Vec<(usize, String)> = mapping
        .source
        .checks
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.flag)
        .map(|(i, c)| (i, c.name.clone()))
        .collect();
    for w in wanted {
        if !all.iter().any(|(_, n)| n == w) {
            let names: Vec<&str> = all.iter().map(|(_, n)| n.as_str()).collect();
            return Err(format!(
                "the source model has no axiom `{w}` (its axioms: {})",
                names.join(", ")
            ));
        }
    }
    Ok(all
        .into_iter()
        .filter(|(_, n)| wanted.is_empty() || wanted.contains(n))
        .collect())
}
