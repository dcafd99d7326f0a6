//! The symbolic decision (`decide`) against the runner, on every oracle test the runner can
//! enumerate: the same verdict, the same flags, and only states the runner also allows (the
//! decision reports the states of the executions it found, a subset). The runner is the ground
//! truth; the decision is what answers the tests it cannot enumerate.
use std::path::Path;

use mapcheck::{decide, ir, litmus, oracle, runner};

/// Every (test, model) of the vendored suites the runner can enumerate, per suite.
fn check_suite(name: &str) -> (usize, Vec<String>) {
    let suites = oracle::read_suites(Path::new("models/suites.tsv")).expect("suite table");
    let suite = suites
        .iter()
        .find(|s| s.name == name)
        .expect("suite listed");
    let model = ir::load(&suite.model).expect("model loads");
    let root = Path::new("tests/data/oracle/dat3m");
    let opts = runner::Options::default();
    let (mut checked, mut problems) = (0, vec![]);
    for (path, _) in oracle::read_expected(root, &suite.name).expect("verdicts") {
        let Ok(test) = litmus::parse_file(&root.join(&path)) else {
            continue;
        };
        let Ok(Ok(enumerated)) = runner::run_within(&model, &test, &opts) else {
            continue;
        };
        let decided = match decide::decide(&model, &test, &opts) {
            Ok(d) => d,
            Err(e) => {
                problems.push(format!("{path}: {e}"));
                continue;
            }
        };
        checked += 1;
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
    }
    (checked, problems)
}

fn assert_agree(name: &str, min: usize) {
    let (checked, problems) = check_suite(name);
    assert!(checked >= min, "{name}: only {checked} tests checked");
    assert!(problems.is_empty(), "{name}:\n{}", problems.join("\n"));
}

#[test]
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
fn decision_agrees_with_the_runner_on_vulkan() {
    assert_agree("VULKAN", 100);
    assert_agree("VULKAN-DR", 90);
}
