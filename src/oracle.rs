//! Agreement with external verdicts: run every oracle suite that has a model here.
//!
//! Owns: reading a suite's verdicts (`expected/<SUITE>.tsv`, or a Dat3M checkout's
//! `dartagnan/src/test/resources/<SUITE>-expected.csv`) and the suite → model table (`models/suites.tsv`),
//! choosing the suites a run names (`select_suites`), running each test with the runner, and the
//! per-suite agree / disagree / unsupported tally.
//! Uses: `ir`, `litmus`, `runner`, `decide`, `diag`. Disagreements are reported, never filtered.
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::decide;
use crate::diag::{read_source, Error, Fault, Result};
use crate::runner::Options;

/// What a suite's verdicts mean.
#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize)]
pub(crate) enum Meaning {
    /// 1 = the final clause is validated.
    Clause,
    /// 1 = no consistent execution raises a data-race flag.
    NoRace,
}

/// One row of `models/suites.tsv`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Suite {
    /// The suite's name (`PTXv6_0`): its verdicts are `expected/<name>.tsv` or Dat3M's
    /// `<name>-expected.csv`.
    pub name: String,
    /// The cat model that should reproduce the verdicts, joined to the table's directory.
    pub model: PathBuf,
    pub(crate) meaning: Meaning,
    /// `table:line` of the row.
    pub(crate) row: String,
}

impl Suite {
    /// Load the suite's model; an error names the table row too.
    pub fn load_model(&self, options: &crate::ir::LoadOptions) -> Result<crate::ir::Model> {
        crate::ir::load_with(&self.model, options)
            .map_err(|e| e.with_note(format!("the model of suite `{}` ({})", self.name, self.row)))
    }
}

/// The verdict of one oracle test.
#[derive(Clone, Debug, serde::Serialize)]
pub enum Agreement {
    /// mapcheck's verdict is the suite's.
    Agree,
    /// mapcheck's verdict differs from the suite's.
    Disagree {
        /// The suite's verdict (under the suite's meaning: clause validated, or no race flagged).
        expected: bool,
        /// mapcheck's verdict, with the same meaning.
        got: bool,
    },
    /// The test could not be run (parse error, unsupported construct); the reason is kept.
    Unsupported(String),
}

#[derive(Clone, Debug, serde::Serialize)]
/// One oracle test's outcome: its path and whether mapcheck agreed with the suite.
pub struct TestResult {
    /// The litmus test's path, relative to the oracle directory, as the verdict file lists it.
    pub path: String,
    /// Agreement of mapcheck's verdict with the suite's, or why the test could not be run.
    pub result: Agreement,
    /// Candidate executions the runner enumerated for this test.
    pub(crate) candidates: usize,
}

#[derive(Clone, Debug, serde::Serialize)]
/// One suite's tally of agreements, with every test's result.
pub struct SuiteReport {
    pub(crate) suite: String,
    pub(crate) model: String,
    pub(crate) agree: usize,
    pub(crate) disagree: usize,
    pub(crate) unsupported: usize,
    /// Every test's result, in the verdict file's order.
    pub tests: Vec<TestResult>,
    /// Wall-clock time of the whole suite (all cores).
    pub(crate) seconds: f64,
}

/// The rows of a data file, split at `separator` (blank and `#` lines skipped), each with its
/// line number.
fn rows(path: &Path, separator: char) -> Result<Vec<(usize, Vec<String>)>> {
    let text = read_source(path)?;
    let data = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
    Ok(data
        .map(|(i, l)| {
            (
                i + 1,
                l.trim_end().split(separator).map(str::to_string).collect(),
            )
        })
        .collect())
}

fn bad_row(path: &Path, line: usize, expected: &str) -> Error {
    Error::file(
        format!("{}:{line}", path.display()),
        format!("expected `{expected}`"),
    )
}

/// Read the suite table (`suite<TAB>model<TAB>meaning`, `#` comments).
pub fn read_suites(table: &Path) -> Result<Vec<Suite>> {
    let dir = table.parent().unwrap_or(Path::new("."));
    let expected = "suite<TAB>model<TAB>clause|no-race";
    rows(table, '\t')?
        .into_iter()
        .map(|(line, cols)| {
            let meaning = match cols.get(2).map(String::as_str) {
                Some("clause") => Meaning::Clause,
                Some("no-race") => Meaning::NoRace,
                _ => return Err(bad_row(table, line, expected)),
            };
            Ok(Suite {
                name: cols[0].clone(),
                model: dir.join(&cols[1]),
                meaning,
                row: format!("{}:{line}", table.display()),
            })
        })
        .collect()
}

/// The suites of `table` that `only` names, in the table's order (every suite when `only` is
/// empty): what `mapcheck oracle --suite NAME…` runs. A name the table does not have is an error
/// that lists the names it has.
pub fn select_suites(table: &Path, only: &[String]) -> Result<Vec<Suite>> {
    let suites = read_suites(table)?;
    if let Some(unknown) = only.iter().find(|n| !suites.iter().any(|s| &s.name == *n)) {
        let known: Vec<&str> = suites.iter().map(|s| s.name.as_str()).collect();
        return Err(Error::file(
            table.display().to_string(),
            format!("no suite `{unknown}`; known: {}", known.join(", ")),
        ));
    }
    Ok(suites
        .into_iter()
        .filter(|s| only.is_empty() || only.contains(&s.name))
        .collect())
}

/// Where a suite's verdicts are kept under an oracle directory: this project's layout
/// (`expected/<SUITE>.tsv`, tab-separated) or a Dat3M checkout's
/// (`dartagnan/src/test/resources/<SUITE>-expected.csv`, comma-separated). In both, a row is a
/// test path relative to the oracle directory and its verdict, 1 or 0.
pub fn verdict_file(oracle: &Path, suite: &str) -> (PathBuf, char) {
    let tsv = oracle.join("expected").join(format!("{suite}.tsv"));
    let csv = oracle
        .join("dartagnan/src/test/resources")
        .join(format!("{suite}-expected.csv"));
    if !tsv.exists() && csv.exists() {
        (csv, ',')
    } else {
        (tsv, '\t')
    }
}

/// Read a suite's verdicts (`verdict_file`): `(test path relative to the oracle dir, verdict)`,
/// one per row. A test listed twice with the same verdict (Dat3M lists `MP_ra_dev` twice in
/// `OPENCL` and `OPENCL-DR`) is run and counted twice, so totals match the reference files; with
/// different verdicts it is an error.
pub fn read_expected(oracle: &Path, suite: &str) -> Result<Vec<(String, bool)>> {
    let (path, separator) = verdict_file(oracle, suite);
    let shape = format!("path{}0|1", if separator == ',' { "," } else { "<TAB>" });
    let mut out: Vec<(String, bool)> = Vec::new();
    for (line, cols) in rows(&path, separator)? {
        let (test, want) = match cols.as_slice() {
            [test, v] if v == "1" || v == "0" => (test.clone(), v == "1"),
            _ => return Err(bad_row(&path, line, &shape)),
        };
        if out.iter().any(|(t, w)| *t == test && *w != want) {
            return Err(Error::file(
                format!("{}:{line}", path.display()),
                format!("`{test}` is listed again with the other verdict"),
            ));
        }
        out.push((test, want));
    }
    Ok(out)
}

/// Run one suite: every expected test under the suite's model.
pub fn run_suite(oracle: &Path, suite: &Suite, opts: &Options) -> Result<SuiteReport> {
    let model = crate::ir::load(&suite.model)?;
    run_suite_under(oracle, suite, &model, opts)
}

/// Run one suite under `model` (the suite's, or one given in its place: `oracle --model`).
pub fn run_suite_under(
    oracle: &Path,
    suite: &Suite,
    model: &crate::ir::Model,
    opts: &Options,
) -> Result<SuiteReport> {
    let expected = read_expected(oracle, &suite.name)?;
    let start = std::time::Instant::now();
    let tests: Vec<TestResult> = expected
        .par_iter()
        .map(|(path, want)| judge(oracle, path, *want, model, suite.meaning, opts))
        .collect::<Result<_>>()?;
    let seconds = start.elapsed().as_secs_f64();
    let count = |f: fn(&Agreement) -> bool| tests.iter().filter(|t| f(&t.result)).count();
    Ok(SuiteReport {
        suite: suite.name.clone(),
        model: model.path.clone(),
        agree: count(|r| matches!(r, Agreement::Agree)),
        disagree: count(|r| matches!(r, Agreement::Disagree { .. })),
        unsupported: count(|r| matches!(r, Agreement::Unsupported(_))),
        tests,
        seconds,
    })
}

/// One test's agreement with its verdict; an internal error is the whole run's, not the test's.
fn judge(
    oracle: &Path,
    path: &str,
    want: bool,
    model: &crate::ir::Model,
    meaning: Meaning,
    opts: &Options,
) -> Result<TestResult> {
    let got = crate::litmus::parse_file(&oracle.join(path))
        .and_then(|test| decide::run(model, &test, opts));
    let (result, candidates) = match got {
        Err(e) if e.fault() == Fault::Internal => return Err(e),
        Err(e) => (Agreement::Unsupported(e.to_string()), 0),
        Ok(outcome) => {
            let got = match meaning {
                Meaning::Clause => outcome.validated,
                Meaning::NoRace => outcome.flags.is_empty(),
            };
            let result = if got == want {
                Agreement::Agree
            } else {
                Agreement::Disagree {
                    expected: want,
                    got,
                }
            };
            (result, outcome.candidates)
        }
    };
    Ok(TestResult {
        path: path.to_string(),
        result,
        candidates,
    })
}

/// `None` when every test of every suite agrees; otherwise the line that says how many did not.
pub fn failures(reports: &[SuiteReport]) -> Option<String> {
    let disagree: usize = reports.iter().map(|r| r.disagree).sum();
    let unsupported: usize = reports.iter().map(|r| r.unsupported).sum();
    (disagree + unsupported > 0).then(|| {
        format!(
            "oracle: {disagree} test(s) disagree with their verdict and {unsupported} could not be run"
        )
    })
}

/// The agreement table and the list of every disagreement and unsupported test.
pub fn render(reports: &[SuiteReport]) -> String {
    let mut s = format!(
        "{:<12} {:>6} {:>9} {:>12} {:>6} {:>11} {:>8} {:>10}  model\n",
        "suite", "agree", "disagree", "unsupported", "total", "candidates", "seconds", "cand/s"
    );
    for r in reports {
        let candidates: usize = r.tests.iter().map(|t| t.candidates).sum();
        s.push_str(&format!(
            "{:<12} {:>6} {:>9} {:>12} {:>6} {:>11} {:>8.2} {:>10.0}  {}\n",
            r.suite,
            r.agree,
            r.disagree,
            r.unsupported,
            r.tests.len(),
            candidates,
            r.seconds,
            candidates as f64 / r.seconds.max(1e-9),
            r.model
        ));
    }
    for r in reports {
        for t in &r.tests {
            match &t.result {
                Agreement::Agree => {}
                Agreement::Disagree { expected, got } => s.push_str(&format!(
                    "{}: DISAGREE {} (expected {}, got {})\n",
                    r.suite, t.path, *expected as u8, *got as u8
                )),
                Agreement::Unsupported(why) => {
                    s.push_str(&format!("{}: UNSUPPORTED {}: {}\n", r.suite, t.path, why))
                }
            }
        }
    }
    s
}
