//! The benchmark of the mapping check against the published Alloy times (ASPLOS'19 Fig. 17):
//! scoped RC11 → PTX, each axiom at bounds 4, 5, 6 in the Alloy counting, beside the published
//! times and the artifact's own CNF on CaDiCaL; the same mapping with natural counting, all
//! axioms in one check per bound, with solver calls, refinements and the growth from one bound
//! to the next; then the time to find bug B1. With `--repairs`, the time of each repair of
//! `REPAIRS` (issue 16) and its full searches against its runner checks. Every run first times a
//! fixed formula (`machine_reference`), so that tables taken on different machines or hours can
//! be compared. Outside the test suite (`mapcheck bench`): timings are measurements, never
//! assertions.
//!
//! Owns: `Row`, `machine_reference`, `run`, `render`, `RepairRow`, `run_repairs`,
//! `render_repairs`. Uses: `search`, `repair`, `mapping`, `solver`.
use std::path::Path;
use std::time::Instant;

use crate::diag::Result;
use crate::encode::Backend;
use crate::mapping;
use crate::repair::{self, RepairVerdict};
use crate::search::{self, Counting, Options};

/// The mapping whose check Fig. 17 times: Figure 11 over the artifact's operations.
pub(crate) const FIG17_MAPPING: &str = "mappings/rc11-ptx-artifact.map";
/// The B1 mapping.
pub(crate) const B1_MAPPING: &str = "mappings/known-bugs/b1-rmw-sc-release-dropped.map";

/// The peer's times for an Alloy-counting row, `(published, cnf)`, `-` where there is none.
/// `published`: Alloy + SAT4J (ASPLOS'19 Fig. 17, "an Intel Xeon server CPU"), with scopes.
/// `cnf`: the artifact's own CNF (its Kodkod 2.0 translation, symmetry breaking 20) solved by
/// CaDiCaL on 2 cores, measured beside mapcheck's bench when issue 15 was filed (solve time only,
/// without the translation): the stronger peer, the one the rows must beat. The artifact's
/// facts admit no RMW (`tests/it/alloy_artifact_rmw.rs`, decision 002), so its Atomicity times are
/// of a vacuous check (`VACUOUS`) and its other rows search programs without RMWs.
fn alloy_times(axiom: &str, bound: usize) -> (&'static str, &'static str) {
    const TABLE: &[(&str, usize, &str, &str)] = &[
        ("Coherence", 4, "41 s", "2.70 s"),
        ("Coherence", 5, "6.4 h", "331 s"),
        (
            "Coherence",
            6,
            "> 48 h (did not finish)",
            "> 900 s (stopped)",
        ),
        ("Atomicity", 4, "4 s, vacuous", "-"),
        ("Atomicity", 5, "5 s, vacuous", "0.03 s, vacuous"),
        ("Atomicity", 6, "> 48 h, vacuous", "0.07 s, vacuous"),
        ("SC", 4, "10 s", "0.68 s"),
        ("SC", 5, "15 min", "22.3 s"),
        ("SC", 6, "> 48 h (did not finish)", "117 s"),
    ];
    TABLE
        .iter()
        .find(|row| (row.0, row.1) == (axiom, bound))
        .map_or(("-", "-"), |row| (row.2, row.3))
}

/// Under the table when it has Alloy-counting rows: what the peer's times are of.
const VACUOUS: &str = "Alloy's rows search no RMW: the artifact's facts (src11.als, rmw_sbimm) \
     admit none, so its Atomicity check is vacuous (tests/it/alloy_artifact_rmw.rs, decision 002); \
     mapcheck's Alloy-counting rows include RMW programs.";

/// Holes of the pigeonhole formula `machine_reference` solves.
const REFERENCE_HOLES: usize = 9;

/// Seconds `backend` takes to refute a fixed formula (`solver::pigeonhole`, 10 pigeons in 9
/// holes: about 2 s with BatSat and 5 s with CaDiCaL on the project's 2-core machine): the same
/// work on every run, so that tables from different machines, or from one machine at different
/// hours, can be compared by it.
pub fn machine_reference(backend: Backend) -> f64 {
    let mut solver = crate::solver::new(backend);
    let start = Instant::now();
    crate::solver::pigeonhole(solver.as_mut(), REFERENCE_HOLES);
    start.elapsed().as_secs_f64()
}

/// One measurement.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Row {
    /// What was measured: an axiom of the Fig. 17 mapping (`Coherence`, `Atomicity`, `SC`) or `find
    /// B1`.
    pub check: String,
    /// The bound searched to.
    pub bound: usize,
    pub(crate) counting: Counting,
    /// Wall-clock seconds the search took.
    pub seconds: f64,
    /// Solver calls, over every axiom searched.
    pub solver_calls: usize,
    /// Refinements: solutions the runner showed racy (or with no consistent source execution)
    /// or explained by another coherence order, each blocked and the solver called again.
    pub refinements: usize,
    /// "none", or "counterexample: " and each failing axiom with its bound (`Coherence at bound 4`).
    pub result: String,
    pub(crate) alloy: &'static str,
    /// The artifact's CNF on CaDiCaL (`alloy_times`), for the Alloy-counting rows.
    pub(crate) alloy_cnf: &'static str,
}

/// What `mapcheck bench` measures.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Bounds of the Fig. 17 rows (Alloy counting, one axiom per check).
    pub alloy_bounds: Vec<usize>,
    /// Bounds of the natural-counting rows (every axiom in one check).
    pub natural_bounds: Vec<usize>,
    /// Search B1's Coherence up to this bound (natural counting, stopping at the first
    /// counterexample; B1's SC counterexample at 5 is Fig. 11's mixed-scope one, not B1's bug).
    pub b1_bound: usize,
    /// The solver.
    pub backend: Backend,
}

/// Run the Fig. 17 table for `plan.alloy_bounds`, the natural-counting rows, then search B1.
pub fn run(plan: &Plan, progress: &dyn Fn(&Row)) -> Result<Vec<Row>> {
    let backend = plan.backend;
    let fig17 = mapping::load(Path::new(FIG17_MAPPING))?;
    let mut rows = vec![];
    for axiom in ["Coherence", "Atomicity", "SC"] {
        for &bound in &plan.alloy_bounds {
            let opts = options(bound, Counting::Alloy, axiom, backend);
            let row = measure(&fig17, &opts, axiom, alloy_times(axiom, bound))?;
            progress(&row);
            rows.push(row);
        }
    }
    for &bound in &plan.natural_bounds {
        let opts = Options {
            axioms: vec![],
            ..options(bound, Counting::Natural, "", backend)
        };
        let row = measure(&fig17, &opts, "all axioms", ("-", "-"))?;
        progress(&row);
        rows.push(row);
    }
    let b1 = mapping::load(Path::new(B1_MAPPING))?;
    let opts = Options {
        first: true,
        ..options(plan.b1_bound, Counting::Natural, "Coherence", backend)
    };
    let row = measure(&b1, &opts, "find B1", ("never found", "-"))?;
    progress(&row);
    rows.push(row);
    Ok(rows)
}

fn options(bound: usize, counting: Counting, axiom: &str, backend: Backend) -> Options {
    Options {
        counting,
        axioms: vec![axiom.to_string()],
        ..Options::natural(bound, backend)
    }
}

/// Time `m`'s check with `opts`; `(alloy, alloy_cnf)`: the peer's times for the row.
fn measure(
    m: &mapping::Mapping,
    opts: &Options,
    check: &str,
    (alloy, alloy_cnf): (&'static str, &'static str),
) -> Result<Row> {
    let start = Instant::now();
    let report = search::check(m, opts, &|_| {})?;
    let found: Vec<String> = report
        .axioms
        .iter()
        .filter_map(|a| {
            a.counterexample
                .as_ref()
                .map(|c| format!("{} at bound {}", a.axiom, c.bound))
        })
        .collect();
    Ok(Row {
        check: check.to_string(),
        bound: opts.bound,
        counting: opts.counting,
        seconds: start.elapsed().as_secs_f64(),
        solver_calls: report.axioms.iter().map(|a| a.statistics.solves).sum(),
        refinements: (report.axioms.iter())
            .map(|a| a.statistics.racy + a.statistics.explained)
            .sum(),
        result: if found.is_empty() {
            "none".into()
        } else {
            format!("counterexample: {}", found.join(", "))
        },
        alloy,
        alloy_cnf,
    })
}

/// The table as text; `reference`: the `machine_reference` seconds of this run.
pub fn render(rows: &[Row], backend: Backend, reference: f64) -> String {
    let mut s = format!(
        "mapcheck bench — {} (Fig. 17 in the Alloy counting, then all axioms in the natural \
         counting), then {}; solver {:?}, {} cores; machine reference (pigeonhole, {} pigeons \
         in {} holes, one core): {:.2} s\n\n",
        FIG17_MAPPING,
        B1_MAPPING,
        backend,
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        REFERENCE_HOLES + 1,
        REFERENCE_HOLES,
        reference
    );
    s.push_str(&format!(
        "{:<18} {:>5}  {:<8} {:>10}  {:>7}  {:>7}  {:>6}  {:<38} {:<24} {}\n",
        "check",
        "bound",
        "counting",
        "mapcheck",
        "calls",
        "refined",
        "growth",
        "result",
        "Alloy (published)",
        "Alloy's CNF on CaDiCaL"
    ));
    for (i, r) in rows.iter().enumerate() {
        let counting = match r.counting {
            Counting::Alloy => "Alloy",
            Counting::Natural => "natural",
        };
        s.push_str(&format!(
            "{:<18} {:>5}  {:<8} {:>9.2}s  {:>7}  {:>7}  {:>6}  {:<38} {:<24} {}\n",
            r.check,
            r.bound,
            counting,
            r.seconds,
            r.solver_calls,
            r.refinements,
            growth(rows[..i].last(), r),
            r.result,
            r.alloy,
            r.alloy_cnf
        ));
    }
    if rows.iter().any(|r| r.counting == Counting::Alloy) {
        s.push_str(&format!("\n{VACUOUS}\n"));
    }
    s
}

/// How many times longer a row took than the row before it, when that row is the same check one
/// bound lower (`×11.2`); else empty.
fn growth(previous: Option<&Row>, row: &Row) -> String {
    match previous {
        Some(p)
            if p.check == row.check && p.counting == row.counting && p.bound + 1 == row.bound =>
        {
            format!("×{:.1}", row.seconds / p.seconds.max(1e-9))
        }
        _ => String::new(),
    }
}

/// The repairs `bench --repairs` times: (mapping, bound, `--weaken`). Each known bug at the bound
/// its first counterexample has, Figure 11's rows (and the CUDA and OpenCL tables) at the bound of
/// their SC counterexample, and the weakenings of the artifact's rows.
pub const REPAIRS: &[(&str, usize, bool)] = &[
    (
        "mappings/known-bugs/m4-release-acquire-gpu-narrowed.map",
        3,
        false,
    ),
    (
        "mappings/known-bugs/b1-rmw-sc-release-dropped.map",
        4,
        false,
    ),
    ("mappings/known-bugs/m1-sc-load-fence-dropped.map", 4, false),
    ("mappings/known-bugs/m2-release-store-relaxed.map", 4, false),
    ("mappings/known-bugs/m3-acquire-load-relaxed.map", 4, false),
    ("mappings/known-bugs/m5-sc-fence-weakened.map", 5, false),
    ("mappings/rc11-ptx.map", 5, false),
    ("mappings/cuda-ptx.map", 5, false),
    ("mappings/opencl-ptx.map", 5, false),
    ("mappings/rc11-ptx-artifact.map", 5, true),
];

/// One timed repair.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RepairRow {
    /// The mapping file.
    pub mapping: String,
    /// The bound of its full searches.
    pub bound: usize,
    /// `repair` or `weaken`.
    pub mode: &'static str,
    /// What it answered, in a few words.
    pub result: String,
    /// The work: full searches and runner checks, and their seconds.
    pub work: repair::Work,
}

/// Time the repairs of `repairs` (see `REPAIRS`), each stopped after `limit` (its row then
/// says so: the repairs of `rc11-ptx.map` and M5 at bound 5 run longer than minutes).
pub fn run_repairs(
    repairs: &[(&str, usize, bool)],
    backend: Backend,
    limit: std::time::Duration,
    progress: &dyn Fn(&RepairRow),
) -> Result<Vec<RepairRow>> {
    let mut rows = vec![];
    for &(path, bound, weaken) in repairs {
        let m = mapping::load(Path::new(path))?;
        let opts = repair::Options {
            search: Options {
                first: true,
                stop: crate::solver::Stop::new().with_deadline(Instant::now() + limit),
                ..Options::natural(bound, backend)
            },
            costs: repair::Costs::default(),
            max_ties: 4,
            progress: |_| {},
        };
        let (mode, result, work) = if weaken {
            let w = repair::weaken(&m, &opts)?;
            let stopped = if w.stopped {
                " (stopped at the limit)"
            } else {
                ""
            };
            let result = format!(
                "{} sound, {} refused{stopped}",
                w.sound.len(),
                w.refused.len()
            );
            ("weaken", result, w.work)
        } else {
            let r = repair::repair(&m, &opts)?;
            let result = match r.verdict {
                RepairVerdict::Repaired => format!(
                    "{} rules, cost +{}, {} ties",
                    r.changes.len(),
                    r.repaired_cost - r.input_cost,
                    r.ties.len()
                ),
                RepairVerdict::Stopped => format!("stopped at the {} s limit", limit.as_secs()),
                other => format!("{other:?}"),
            };
            ("repair", result, r.work)
        };
        let row = RepairRow {
            mapping: path.to_string(),
            bound,
            mode,
            result,
            work,
        };
        progress(&row);
        rows.push(row);
    }
    Ok(rows)
}

/// The repairs as a table.
pub fn render_repairs(rows: &[RepairRow]) -> String {
    let mut s = format!(
        "\nrepairs ({} cores): full searches at the bound against runner checks\n\n{:<56} {:>5} {:<7} {:>9} {:>6} {:>9} {:>7} {:>9}  {}\n",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        "mapping", "bound", "mode", "time", "full", "(s)", "runner", "(s)", "result"
    );
    for r in rows {
        s.push_str(&format!(
            "{:<56} {:>5} {:<7} {:>8.2}s {:>6} {:>8.2}s {:>7} {:>8.2}s  {}\n",
            r.mapping,
            r.bound,
            r.mode,
            r.work.seconds,
            r.work.full_searches,
            r.work.search_seconds,
            r.work.runner_checks,
            r.work.runner_seconds,
            r.result
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(check: &str, bound: usize, seconds: f64) -> Row {
        Row {
            check: check.into(),
            bound,
            counting: Counting::Natural,
            seconds,
            solver_calls: 0,
            refinements: 0,
            result: "none".into(),
            alloy: "-",
            alloy_cnf: "-",
        }
    }

    /// Growth is shown only against the same check one bound lower.
    #[test]
    fn growth_compares_a_bound_with_the_one_below() {
        let five = row("all axioms", 5, 2.0);
        assert_eq!(growth(Some(&five), &row("all axioms", 6, 37.0)), "×18.5");
        assert_eq!(growth(Some(&five), &row("all axioms", 7, 37.0)), "");
        assert_eq!(growth(Some(&five), &row("find B1", 6, 37.0)), "");
        assert_eq!(growth(None, &five), "");
    }
}
