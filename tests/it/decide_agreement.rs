//! The symbolic decision (`decide`) against the runner, on every oracle test the runner can
//! enumerate: the same verdict, the same flags, and only states the runner also allows (the
//! decision reports the states of the executions it found, a subset). The runner is the ground
//! truth; the decision is what answers the tests it cannot enumerate.
use std::path::Path;

use rayon::prelude::*;

use mapcheck::{decide, ir, litmus, oracle, runner};

/// Every (test, model) of the vendored suites the runner can enumerate, per suite: the number
/// checked and the disagreements. The tests are judged in parallel (`decide` is one thread each).
fn check_suite(name: &str) -> (usize, Vec<String>) {
    let suites = oracle::read_suites(Path::new("models/suites.tsv")).expect("suite table");
    let suite = suites
        .iter()
        .find(|s| s.name == name)
        .expect("suite listed");
    let model = ir::load(&suite.model).expect("model loads");
    let root = Path::new("tests/data/oracle/dat3m");
    let tests = oracle::read_expected(root, &suite.name).expect("verdicts");
    let judged: Vec<Option<Vec<String>>> = tests
        .par_iter()
        .map(|(path, _)| disagreements(&model, &root.join(path), path))
        .collect();
    let checked = judged.iter().flatten().count();
    (checked, judged.into_iter().flatten().flatten().collect())
}

/// How `decide` disagrees with the runner on the test at `file` (`path` in messages); `None`
/// when the runner cannot enumerate it.
fn disagreements(model: &ir::Model, file: &Path, path: &str) -> Option<Vec<String>> {
    let opts = runner::Options::default();
    let test = litmus::parse_file(file).ok()?;
    let Ok(Ok(enumerated)) = runner::run_within(model, &test, &opts) else {
        return None;
    };
    let decided = match decide::decide(model, &test, &opts) {
        Ok(d) => d,
        Err(e) => return Some(vec![format!("{path}: {e}")]),
    };
    let mut problems = vec![];
    if decided.validated != enumerated.validated || decided.flags != enumerated.flags {
        problems.push(format!(
            "{path}: decided {} {:?}, enumerated {} {:?}",
            decided.validated, decided.flags, enumerated.validated, enumerated.flags
        ));
    }
    for (state, sat) in &decided.states {
        if enumerated.states.get(state) != Some(sat) {
            problems.push(format!(
                "{path}: decided state {state} ({sat}) not enumerated"
            ));
        }
    }
    Some(problems)
}

fn assert_agree(name: &str, min: usize) {
    let (checked, problems) = check_suite(name);
    assert!(checked >= min, "{name}: only {checked} tests checked");
    assert!(problems.is_empty(), "{name}:\n{}", problems.join("\n"));
}

#[test]
#[ignore = "CI tier (scripts/test)"]
fn decision_agrees_with_the_runner_on_ptx() {
    assert_agree("PTXv6_0", 100);
    assert_agree("PTXv7_5", 190);
}

#[test]
fn decision_agrees_with_the_runner_on_c11_and_opencl() {
    assert_agree("RC11", 90);
    assert_agree("C11", 90);
    assert_agree("OPENCL", 120);
    assert_agree("OPENCL-DR", 30);
}

#[test]
#[ignore = "CI tier (scripts/test)"]
fn decision_agrees_with_the_runner_on_vulkan() {
    assert_agree("VULKAN", 100);
    assert_agree("VULKAN-DR", 90);
}
