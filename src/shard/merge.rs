//! The merge of a shard directory: per axiom the counterexample of the smallest (bound, shape)
//! with every unit before it covered clean, else "none up to B" for the largest bound B all of
//! whose units (and those of smaller bounds) are covered clean; the shards missing or stopped,
//! and the command that runs each; the text `mapcheck merge` prints (`report`'s lines).
//!
//! Owns: `Merged`, `MergedAxiom`, `MergedCounterexample`, `merge`, `render_merged`.
//! Uses: `files` (`Loaded`, verdicts), `plan`, `report` (summary lines, counterexample text),
//! `search` and `solver` (outcomes and stops).
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::files::{rerooted, result_path, Loaded, UnitRecord, Verdict};
use super::plan::{Plan, PlanUnit};
use crate::report::{self, Files, LineVerdict, SummaryLine};
use crate::search::{Counting, ShapeUnit, Statistics, Unfinished};

/// The verdict the present shards settle.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Merged {
    /// The directory merged.
    pub dir: PathBuf,
    /// The plan (as JSON: as `plan.json` holds it).
    #[serde(serialize_with = "super::format::serialize_plan")]
    pub plan: Plan,
    /// Shards with a result file.
    pub present: Vec<usize>,
    /// Shards without one.
    pub missing: Vec<usize>,
    /// Shards whose result says they were stopped before they finished, with what stopped them.
    pub stopped: Vec<(usize, String)>,
    /// Per axiom, in the plan's order.
    pub axioms: Vec<MergedAxiom>,
    /// Wall-clock seconds of the present shards, summed.
    pub seconds: f64,
}

/// One axiom's merged verdict.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MergedAxiom {
    /// The axiom.
    pub axiom: String,
    /// The counterexample of the smallest (bound, shape), every unit before it covered clean.
    pub counterexample: Option<MergedCounterexample>,
    /// The largest bound all of whose units (and those of every smaller bound) are clean.
    pub clean_to: usize,
    /// The first bound not covered, when there is no counterexample and it is not the last:
    /// how many of its shapes are covered clean.
    pub unfinished: Option<Unfinished>,
    /// A counterexample found beyond the first unit not covered: not reported as the smallest
    /// until the units before it are covered.
    pub pending: Option<MergedCounterexample>,
    /// The work spent on the axiom by the present shards.
    pub statistics: Statistics,
}

/// A counterexample as a shard recorded it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MergedCounterexample {
    /// The bound and the shape it was found at.
    pub bound: usize,
    /// Events per thread.
    pub shape: Vec<usize>,
    /// The shard that found it.
    pub shard: usize,
    /// The counterexample as `check` prints it, without its files.
    pub text: String,
    /// Its files, under the merged directory: those still there.
    pub files: Option<Files>,
    /// Files the shard wrote that are no longer there.
    pub missing_files: Vec<PathBuf>,
}

/// What the units of one axiom say, in the check's order.
enum Seen<'a> {
    Clean,
    Counterexample(&'a ShapeUnit, usize, &'a Verdict),
    NotCovered,
}

/// Merge the results in `loaded` (see `MergedAxiom`).
pub fn merge(loaded: &Loaded) -> Merged {
    let plan = &loaded.plan;
    let record = |u: &PlanUnit, axiom: &str| -> Option<&UnitRecord> {
        let r = loaded.results.get(&u.shard)?;
        let s = r.shapes.iter().find(|s| s.unit == u.unit)?;
        s.axioms.iter().find(|a| a.axiom == axiom)
    };
    let mut axioms = vec![];
    for axiom in &plan.axioms {
        let units: Vec<&PlanUnit> = plan
            .units
            .iter()
            .filter(|u| u.axioms.contains(axiom))
            .collect();
        let seen: Vec<Seen> = units
            .iter()
            .map(|u| match record(u, axiom).map(|r| &r.verdict) {
                Some(Verdict::Clean) => Seen::Clean,
                Some(v @ Verdict::Counterexample { .. }) => {
                    Seen::Counterexample(&u.unit, u.shard, v)
                }
                _ => Seen::NotCovered,
            })
            .collect();
        let mut statistics = Statistics::default();
        for u in &units {
            if let Some(r) = record(u, axiom) {
                statistics.add(&r.statistics);
            }
        }
        let first = seen.iter().position(|s| !matches!(s, Seen::Clean));
        // The largest bound every unit of which, and of every smaller bound, lies before `first`.
        let stop_bound = first.map(|i| units[i].unit.bound);
        let clean_to = plan
            .bounds
            .iter()
            .copied()
            .filter(|&b| stop_bound.is_none_or(|s| b < s))
            .max()
            .unwrap_or(0);
        let merged_cx = |s: &Seen| match s {
            Seen::Counterexample(unit, shard, Verdict::Counterexample { text, files, .. }) => {
                let rooted = files.as_ref().map(|f| rerooted(f, &loaded.dir));
                let (files, missing_files) = match rooted {
                    Some(f) => {
                        let (present, missing) = f.split_existing();
                        (Some(present), missing)
                    }
                    None => (None, vec![]),
                };
                Some(MergedCounterexample {
                    bound: unit.bound,
                    shape: unit.shape.clone(),
                    shard: *shard,
                    text: text.clone(),
                    files,
                    missing_files,
                })
            }
            _ => None,
        };
        let counterexample = first.and_then(|i| merged_cx(&seen[i]));
        let (unfinished, pending) = match (first, &counterexample) {
            (Some(i), None) => {
                let bound = units[i].unit.bound;
                let at: Vec<usize> = (0..units.len())
                    .filter(|&j| units[j].unit.bound == bound)
                    .collect();
                let done = at
                    .iter()
                    .filter(|&&j| matches!(seen[j], Seen::Clean))
                    .count();
                (
                    Some(Unfinished {
                        bound,
                        shapes_done: done,
                        shapes: at.len(),
                    }),
                    seen[i..].iter().find_map(merged_cx),
                )
            }
            _ => (None, None),
        };
        axioms.push(MergedAxiom {
            axiom: axiom.clone(),
            counterexample,
            clean_to,
            unfinished,
            pending,
            statistics,
        });
    }
    Merged {
        dir: loaded.dir.clone(),
        plan: plan.clone(),
        present: loaded.results.keys().copied().collect(),
        missing: (1..=plan.shards)
            .filter(|i| !loaded.results.contains_key(i))
            .collect(),
        stopped: loaded
            .results
            .values()
            .filter(|r| !r.finished)
            .map(|r| {
                let by = r
                    .stopped_by
                    .clone()
                    .unwrap_or_else(|| "asked to stop".into());
                (r.shard, by)
            })
            .collect(),
        axioms,
        seconds: loaded.results.values().map(|r| r.seconds).sum(),
    }
}

impl Merged {
    /// Some axiom has a counterexample.
    pub fn has_counterexample(&self) -> bool {
        self.axioms.iter().any(|a| a.counterexample.is_some())
    }

    /// Some axiom's verdict is not settled to the plan's bound: a shard is missing or stopped.
    pub fn incomplete(&self) -> bool {
        self.axioms.iter().any(|a| a.unfinished.is_some())
    }
}

/// The command line that runs shard `index` of `plan` into `dir` again.
fn shard_command(plan: &Plan, index: usize, dir: &Path) -> String {
    let o = &plan.options;
    let mut s = format!("mapcheck check {} --bound {}", plan.mapping, o.bound);
    if o.counting == Counting::Alloy {
        s.push_str(" --alloy-bounds");
    }
    for a in &o.axioms {
        let _ = write!(s, " --axiom {a}");
    }
    for (flag, v) in [("--threads", o.threads), ("--locations", o.locations)] {
        if let Some(v) = v {
            let _ = write!(s, " {flag} {v}");
        }
    }
    let solver = match o.backend {
        crate::solver::Backend::BatSat => "batsat",
        crate::solver::Backend::Cadical => "cadical",
    };
    let _ = write!(
        s,
        " --solver {solver} --shard {index}/{} -o {}",
        plan.shards,
        dir.display()
    );
    s
}

/// The merge as `mapcheck merge` prints it: what was searched, the shards, each reported
/// counterexample as `check` prints it, the summary lines `check` prints, and what is missing.
pub fn render_merged(m: &Merged) -> String {
    let plan = &m.plan;
    let mut s = report::render_searched(&plan.mapping, &plan.options, &plan.scope);
    let list = |v: &[usize]| {
        v.iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        s,
        "plan {}: {} shards; results of shard{} {} in {}",
        plan.id,
        plan.shards,
        if m.present.len() == 1 { "" } else { "s" },
        if m.present.is_empty() {
            "none".into()
        } else {
            list(&m.present)
        },
        m.dir.display()
    );
    if !m.present.is_empty() {
        s.push_str(
            "  (a result's SHA-256 digest detects a change made after it was written, unless the \
             digest was recomputed too; it is not a signature: whoever can write the directory \
             can edit a result and recompute it)\n",
        );
    }
    for a in &m.axioms {
        if let Some(cx) = &a.counterexample {
            s.push_str(&cx.text);
            let _ = writeln!(s, "  found by shard {} of {}", cx.shard, plan.shards);
            s.push_str(&report::render_written(cx.files.as_ref()));
            for p in &cx.missing_files {
                let _ = writeln!(
                    s,
                    "  missing: {} (removed since shard {} wrote it; run that shard again to \
                     write it)",
                    p.display(),
                    cx.shard
                );
            }
        }
    }
    let lines: Vec<SummaryLine> = m
        .axioms
        .iter()
        .map(|a| SummaryLine {
            axiom: &a.axiom,
            verdict: match &a.counterexample {
                Some(cx) => LineVerdict::Counterexample {
                    bound: cx.bound,
                    written_to: cx
                        .files
                        .as_ref()
                        .and_then(|f| f.source.as_deref())
                        .and_then(|p| p.parent()),
                },
                None => LineVerdict::Clean {
                    clean_to: a.clean_to,
                    unfinished: a.unfinished.map(|u| (u, "not covered in")),
                },
            },
            statistics: a.statistics,
        })
        .collect();
    s.push_str(&report::render_lines(
        &format!(
            "summary ({} of {} shards, {:.2} s of search in all)",
            m.present.len(),
            plan.shards,
            m.seconds
        ),
        &lines,
    ));
    for a in &m.axioms {
        if let Some(p) = &a.pending {
            let _ = writeln!(
                s,
                "{}: shard {} found a counterexample at bound {} (threads of {} events); it is \
                 the smallest only once every unit before it is covered",
                a.axiom,
                p.shard,
                p.bound,
                p.shape
                    .iter()
                    .map(|k| k.to_string())
                    .collect::<Vec<_>>()
                    .join("+")
            );
        }
    }
    for (i, by) in &m.stopped {
        let _ = writeln!(
            s,
            "stopped: shard {i} of {} ({by}) before it finished; run it again: {}",
            plan.shards,
            shard_command(plan, *i, &m.dir)
        );
    }
    for &i in &m.missing {
        let _ = writeln!(
            s,
            "missing: shard {i} of {} (no {}); run it: {}",
            plan.shards,
            result_path(&m.dir, i, plan.shards).display(),
            shard_command(plan, i, &m.dir)
        );
    }
    if m.incomplete() {
        let _ = writeln!(
            s,
            "incomplete: the verdicts above are what the present shards settle (`mapcheck merge \
             {} --run-missing` runs the missing and stopped shards here)",
            m.dir.display()
        );
    }
    s
}
