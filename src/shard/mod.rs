//! Shards: one mapping check split into independent parts that run anywhere (the tasks of a
//! Slurm job array, the pods of a Kubernetes Indexed Job), each writing a result file, and the
//! merge of those files into the check's verdict (decision 012).
//!
//! Owns: `Plan` (a check's work units — a (bound, thread shape) with its axioms — assigned to N
//! shards by longest-processing-time over `estimated_cost`; a pure function of the mapping's
//! files, the options and N, so that every task computes the same plan), `ShardSpec` (`--shard
//! I/N` or `--shard env`: Slurm's or Kubernetes' array index), `check_shard` (`check --shard`:
//! one shard's units, its result file `shard-I-of-N.json` and its counterexamples), `load` and
//! `merge` (`mapcheck merge DIR`: per axiom the counterexample of the smallest (bound, shape)
//! with every unit before it covered, or the bound up to which every unit is covered clean; the
//! shards missing), `merge_dir` (with `--run-missing`, the missing and stopped shards run here
//! first). Uses: `search` (`work`, `check_units`), `report` (summary lines, counterexample text
//! and files, progress), `output` (every file), `mapping` (to run a missing shard), `diag`.
//! Decides nothing a check would not: every counterexample is one `search` found and the runner
//! confirmed, and "none up to N" is said only of bounds all of whose units some shard searched.
//!
//! The files: `plan` (units, costs, assignment, identity) → `spec` (which shard) → `files` (the
//! directory's files, written and read back) → `merge` (the verdict) → this file (the commands).
//!
//! Files:
//! - `plan.rs`: `Plan`, `PlanUnit`, `plan`, `estimated_cost`, `COST_MODEL`.
//! - `spec.rs`: `ShardSpec`, which shard this process runs; never guessed.
//! - `format.rs`: the files' own records (version 3), their conversions to and from `Plan` and
//!   `ShardResult`, which versions are read, the digest.
//! - `files.rs`: the directory's files, written and read back against their plan.
//! - `merge.rs`: `merge`, `render_merged`, the verdict.
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

mod files;
mod format;
mod merge;
mod plan;
mod spec;

pub use self::files::{
    load, result_path, Loaded, ShapeRecord, ShardResult, UnitRecord, Verdict, PLAN_FILE,
};
pub use self::format::{FORMAT, READ_VERSIONS, VERSION};
pub use self::merge::{merge, render_merged, Merged, MergedAxiom, MergedCounterexample};
pub use self::plan::{estimated_cost, Plan, PlanUnit, COST_MODEL};
pub use self::spec::ShardSpec;

use self::files::{claim, counterexamples_dir, relative, rerooted};
use crate::diag::{Error, Result};
use crate::mapping::Mapping;
use crate::output;
use crate::report;
use crate::search::{self, Options, ShapeWork, UnitVerdict};
use crate::solver::Stop;

/// The plan of a check of `mapping` with `opts` in `shards` shards, with the identity of the
/// files this mapcheck writes (`format`).
pub fn plan(mapping: &Mapping, opts: &Options, shards: usize) -> Result<Plan> {
    let written = self::plan::Written {
        format: format!("{FORMAT} {}", format::VERSION),
        options: format::options_json,
    };
    self::plan::plan(mapping, opts, shards, &written)
}

/// `mapcheck check MAP … --shard SPEC -o DIR`: resolve the shard (`var` reads the
/// environment), compute the plan, refuse a directory with another plan's results, write the
/// plan, search this shard's units (progress on stderr; the header on stdout unless `quiet`),
/// write each axiom's first counterexample and then the result file. `stopped_by` says what
/// stopped the search, when `opts.stop` was requested.
#[allow(clippy::too_many_arguments)]
pub fn check_shard(
    mapping: &Mapping,
    opts: &Options,
    spec: ShardSpec,
    shards: Option<usize>,
    var: &dyn Fn(&str) -> Option<String>,
    dir: &Path,
    quiet: bool,
    stopped_by: &dyn Fn() -> String,
) -> Result<ShardResult> {
    let (index, count) = spec
        .resolve(shards, var)
        .map_err(|m| Error::file("--shard", m))?;
    let plan = plan(mapping, opts, count)?;
    if !quiet {
        output::print(&report::render_header(&mapping.path, opts, &plan.scope));
        output::print(&render_share(&plan, index));
    }
    run_shard(mapping, opts, &plan, index, dir, stopped_by)
}

/// What shard `index` of a plan searches, in one line.
fn render_share(plan: &Plan, index: usize) -> String {
    let mine = plan.units.iter().filter(|u| u.shard == index);
    let (n, cost) = mine.fold((0, 0.0), |(n, c), u| (n + 1, c + u.cost));
    let total: f64 = plan.units.iter().map(|u| u.cost).sum();
    format!(
        "shard {index} of {}: {n} of {} thread shapes (estimated {:.0} % of the work), plan {}\n",
        plan.shards,
        plan.units.len(),
        if total > 0.0 {
            100.0 * cost / total
        } else {
            0.0
        },
        plan.id
    )
}

/// Run shard `index` of `plan` into `dir` (see `check_shard`).
fn run_shard(
    mapping: &Mapping,
    opts: &Options,
    plan: &Plan,
    index: usize,
    dir: &Path,
    stopped_by: &dyn Fn() -> String,
) -> Result<ShardResult> {
    claim(dir, plan)?;
    let start = Instant::now();
    let todo: Vec<ShapeWork> = plan
        .units
        .iter()
        .filter(|u| u.shard == index)
        .map(|u| ShapeWork {
            unit: u.unit.clone(),
            axioms: u.axioms.clone(),
        })
        .collect();
    let progress = report::Progress::new(opts.bound);
    let outcomes = search::check_units(mapping, opts, &todo, &|e| progress.observe(&e));
    drop(progress); // clears the bar or ends the ticker before the summary
    let outcomes = outcomes?;
    let seconds = start.elapsed().as_secs_f64();
    let cx_dir = counterexamples_dir(dir, index, plan.shards);
    let mut written: BTreeSet<String> = BTreeSet::new();
    let mut finished = true;
    let mut shapes = vec![];
    for shape in outcomes {
        let mut axioms = vec![];
        for u in shape.axioms {
            let verdict = match u.verdict {
                UnitVerdict::Clean => Verdict::Clean,
                UnitVerdict::Skipped => Verdict::Skipped,
                UnitVerdict::Stopped => {
                    finished = false;
                    Verdict::Stopped
                }
                UnitVerdict::Counterexample(cx) => {
                    // Outcomes come in the check's order: the first one per axiom is written.
                    let files = if written.insert(u.axiom.clone()) {
                        let at = report::counterexample_dir(&cx_dir, mapping, &u.axiom);
                        Some(relative(
                            &report::write_counterexample(mapping, &cx, &at)?,
                            dir,
                        ))
                    } else {
                        None
                    };
                    Verdict::Counterexample {
                        failed: cx.failed.clone(),
                        text: report::counterexample_body(&cx)?,
                        files,
                    }
                }
            };
            axioms.push(UnitRecord {
                axiom: u.axiom,
                verdict,
                statistics: u.statistics,
            });
        }
        shapes.push(ShapeRecord {
            unit: shape.unit,
            build_seconds: shape.build_seconds,
            axioms,
        });
    }
    let result = ShardResult {
        plan: plan.clone(),
        shard: index,
        finished,
        stopped_by: (!finished).then(stopped_by),
        solver: crate::solver::new(opts.backend).name().to_string(),
        seconds,
        shapes,
        build: files::build(),
    };
    let text = format::result_text(&result);
    output::write_file(&result_path(dir, index, plan.shards), text)?;
    Ok(result)
}

/// `mapcheck merge DIR`: read the shard results; with `run_missing`, first run every shard that
/// is missing or was stopped, one after another in this process (the mapping loaded from the
/// plan's path, which must still hash to the plan), each writing its result file; then merge.
/// `stopped_by` says what stopped a shard run here, when `stop` was requested.
pub fn merge_dir(
    dir: &Path,
    how: &MergeOptions,
    stop: &Stop,
    stopped_by: &dyn Fn() -> String,
) -> Result<Merged> {
    let loaded = load(dir)?;
    let plan = &loaded.plan;
    let todo: Vec<usize> = (1..=plan.shards)
        .filter(|i| loaded.results.get(i).is_none_or(|r| !r.finished))
        .collect();
    if !how.run_missing || todo.is_empty() {
        return one_build(&loaded, how).map(|()| merge(&loaded));
    }
    if loaded.version != VERSION {
        return Err(Error::file(
            dir.display().to_string(),
            format!(
                "holds shard files of format version {} (an older mapcheck wrote them): this \
                 mapcheck writes version {VERSION} and cannot add shards to them; merge them \
                 without --run-missing, or run every shard again into another directory",
                loaded.version
            ),
        ));
    }
    let mapping = plan_mapping(dir, &plan.mapping)?;
    let opts = Options {
        stop: stop.clone(),
        ..plan.options.clone()
    };
    let now = self::plan(&mapping, &opts, plan.shards)?;
    if now.id != plan.id {
        return Err(Error::file(
            plan.mapping.clone(),
            format!(
                "has changed (or its models have) since the shards in {} ran (plan {} then, {} \
                 now): the missing shards cannot be run for that check",
                dir.display(),
                plan.id,
                now.id
            ),
        ));
    }
    for i in todo {
        if stop.requested() {
            break;
        }
        output::eprint(&format!(
            "running shard {i} of {}: {}",
            now.shards,
            render_share(&now, i)
        ));
        run_shard(&mapping, &opts, &now, i, dir, stopped_by)?;
    }
    let loaded = load(dir)?;
    one_build(&loaded, how).map(|()| merge(&loaded))
}

/// The mapping a shard directory's plan names, loaded for `merge --run-missing`: a `.map` file
/// under the current directory only (the plan is data from the shard directory, and no digest
/// covers its path), its diagnostics echoing only their spans.
fn plan_mapping(dir: &Path, named: &str) -> Result<Mapping> {
    let note = format!(
        "the shards in {} name this mapping; run merge where they ran",
        dir.display()
    );
    let path = Path::new(named);
    let current = std::env::current_dir().and_then(std::fs::canonicalize);
    let inside = match (std::fs::canonicalize(path), current) {
        (Ok(file), Ok(current)) => file.starts_with(current),
        _ => false,
    };
    if !inside || path.extension().is_none_or(|e| e != "map") {
        return Err(Error::file(
            named,
            "the shards' plan names a mapping that is not a `.map` file under the current directory: merge runs no other",
        )
        .with_note(note));
    }
    crate::mapping::load(path).map_err(|e| e.with_note(note))
}

/// How `merge_dir` merges.
#[derive(Clone, Debug, Default)]
pub struct MergeOptions {
    /// First run every shard that is missing or was stopped.
    pub run_missing: bool,
    /// Merge results that builds of mapcheck other than one another wrote.
    pub mixed_builds: bool,
}

/// The results of `loaded` were all written by one build of mapcheck (unless `how` allows a
/// mix): a merge of two builds' verdicts is no one build's verdict.
fn one_build(loaded: &Loaded, how: &MergeOptions) -> Result<()> {
    let builds: BTreeSet<&str> = loaded.results.values().map(|r| r.build.as_str()).collect();
    if builds.len() <= 1 || how.mixed_builds {
        return Ok(());
    }
    let by_build: Vec<String> = builds
        .iter()
        .map(|b| {
            let shards: Vec<String> = loaded
                .results
                .iter()
                .filter(|(_, r)| r.build == *b)
                .map(|(i, _)| i.to_string())
                .collect();
            format!("{b}: shards {}", shards.join(", "))
        })
        .collect();
    Err(Error::file(
        loaded.dir.display().to_string(),
        format!(
            "holds results of {} builds of mapcheck; run the shards again with one, or merge \
             with --mixed-builds",
            builds.len()
        ),
    )
    .with_note(by_build.join("\n")))
}

/// What `check --shard --json` prints: the shard's result file, as written.
pub fn result_json(r: &ShardResult) -> String {
    format::result_text(r)
}

/// What `check --shard` prints when its shard has run: per axiom what the shard settled.
pub fn render_shard(r: &ShardResult, dir: &Path) -> String {
    let mut s = String::new();
    for shape in &r.shapes {
        for a in &shape.axioms {
            if let Verdict::Counterexample {
                text,
                files: Some(files),
                ..
            } = &a.verdict
            {
                s.push_str(text);
                s.push_str(&report::render_written(Some(&rerooted(files, dir))));
            }
        }
    }
    let _ = writeln!(
        s,
        "\nshard {} of {} ({:.2} s): {} thread shapes",
        r.shard,
        r.plan.shards,
        r.seconds,
        r.shapes.len()
    );
    for axiom in &r.plan.axioms {
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for shape in &r.shapes {
            for a in shape.axioms.iter().filter(|a| &a.axiom == axiom) {
                let k = match a.verdict {
                    Verdict::Clean => "clean",
                    Verdict::Counterexample { .. } => "counterexample",
                    Verdict::Stopped => "stopped",
                    Verdict::Skipped => "skipped (after a counterexample)",
                };
                *count.entry(k).or_default() += 1;
            }
        }
        let parts: Vec<String> = count.iter().map(|(k, n)| format!("{n} {k}")).collect();
        let _ = writeln!(s, "  {axiom}: {}", parts.join(", "));
    }
    let _ = writeln!(
        s,
        "wrote {}; merge the shards with `mapcheck merge {}`",
        result_path(dir, r.shard, r.plan.shards).display(),
        dir.display()
    );
    if let Some(by) = &r.stopped_by {
        let _ = writeln!(s, "stopped ({by}) before the shard was finished");
    }
    s
}
