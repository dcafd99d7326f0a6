//! `models/wf.cat` states what every candidate execution satisfies (the Coq export's `wf`
//! hypotheses). Here the Rust side is held to it: every candidate execution the runner builds for
//! the litmus suites passes every check of wf.cat, and each check can fail (a mutated execution
//! is caught).
use std::path::{Path, PathBuf};

use mapcheck::{eval, ir, litmus, runner};

/// The litmus files under `dir`, recursively, sorted.
fn tests_in(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("suite directory") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            files.extend(tests_in(&path));
        } else if path.extension().is_some_and(|x| x == "litmus") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// Every candidate of every test in `dir` under `model`, judged by wf.cat; returns
/// (candidates seen, failures as "test: check").
fn check_suite(dir: &str, model: &str) -> (usize, Vec<String>) {
    let wf = ir::load(Path::new("models/wf.cat")).expect("wf.cat loads");
    let model = ir::load(Path::new(model)).expect("model loads");
    let opts = runner::Options::default();
    let (mut seen, mut failures) = (0, Vec::new());
    for path in tests_in(Path::new(dir)) {
        let Ok(test) = litmus::parse_file(&path) else {
            continue;
        };
        let _ = runner::for_each_candidate(&model, &test, &opts, &mut |c| {
            seen += 1;
            let verdict = eval::evaluate(&wf, &c.execution.base());
            for check in verdict.failed {
                failures.push(format!("{}: {check}", path.display()));
            }
        });
    }
    failures.dedup();
    (seen, failures)
}

#[test]
fn every_ptx_candidate_is_well_formed() {
    let (seen, failures) = check_suite("tests/data/oracle/dat3m/litmus/PTX", "models/ptx-v6.cat");
    assert!(seen > 10_000, "only {seen} candidates");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_c11_and_opencl_candidate_is_well_formed() {
    for (dir, model) in [
        ("tests/data/oracle/dat3m/litmus/C11", "models/rc11.cat"),
        ("tests/data/oracle/dat3m/litmus/OPENCL", "models/opencl.cat"),
    ] {
        let (seen, failures) = check_suite(dir, model);
        assert!(seen > 100, "{dir}: only {seen} candidates");
        assert!(
            failures.is_empty(),
            "{dir}: {} failures:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}

#[test]
fn each_check_of_wf_cat_can_fail() {
    // An execution where po runs backwards against a second po edge, rf reads across locations…
    // built by hand as a Base so that each named check is seen failing.
    let wf = ir::load(Path::new("models/wf.cat")).expect("wf.cat loads");
    let mut base = eval::Base::empty(2);
    let rel = |pairs: &[(usize, usize)]| {
        let mut r = mapcheck::rel::Rel::empty(2);
        for &(a, b) in pairs {
            r.insert(a, b);
        }
        eval::Value::Rel(r)
    };
    base.set("po", rel(&[(0, 0)]));
    base.set("rf", rel(&[(0, 1)]));
    let failed = eval::evaluate(&wf, &base).failed;
    for check in ["po_int", "po_irreflexive", "rf_shape"] {
        assert!(
            failed.iter().any(|f| f == check),
            "{check} not failed: {failed:?}"
        );
    }
}

#[test]
fn every_vocabulary_name_lies_within_the_events() {
    // In Coq each name is a free field of the execution record; wf.cat's `labels_in_events` and
    // `relations_in_events` keep every one inside E, so an execution cannot label an event it
    // leaves out. A name added to the vocabulary must be added there too.
    let text = std::fs::read_to_string("models/wf.cat").expect("wf.cat");
    let check = |name: &str| -> Vec<String> {
        let line = text
            .lines()
            .find(|l| l.ends_with(&format!("as {name}")))
            .unwrap_or_else(|| panic!("wf.cat has no check {name}"));
        line.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map(str::to_string)
            .collect()
    };
    let (labels, relations) = (check("labels_in_events"), check("relations_in_events"));
    for name in mapcheck::vocab::all_names() {
        let listed = match mapcheck::vocab::kind_of(name) {
            Some(mapcheck::vocab::Kind::Set) => {
                name == "_" || name == "E" || labels.iter().any(|w| w == name)
            }
            _ => relations.iter().any(|w| w == name),
        };
        assert!(listed, "wf.cat does not keep `{name}` within the events");
    }
}
