//! Agreement with external verdicts (Dat3M's expected results, vendored in tests/data/oracle) and
//! with the PTX ISA manual's stated outcomes. Every disagreement fails the test with its list,
//! except those `support::litmus::REFUSED` lists by name with their cause and the exact refusal
//! they must get.
//! Tests too large to enumerate are decided by the solver (`decide`), as `mapcheck oracle` does.
use std::path::Path;

use mapcheck::oracle::{self, Agreement};
use mapcheck::{ir, litmus, runner};

use crate::support::litmus::refusal_of;

/// Suite `name` run under its model read with herd variants `variants` (none: its default).
fn suite_report(name: &str, variants: &[&str]) -> oracle::SuiteReport {
    let suites = oracle::read_suites(Path::new("models/suites.tsv")).expect("suite table");
    let suite = suites
        .iter()
        .find(|s| s.name == name)
        .expect("suite listed");
    let load = ir::LoadOptions {
        variants: variants.iter().map(|v| v.to_string()).collect(),
        ..ir::LoadOptions::default()
    };
    let model = ir::load_with(&suite.model, &load).expect("model loads");
    for v in variants {
        assert!(
            model.variants_tested.contains(*v),
            "{name}'s model has no variant {v}"
        );
    }
    oracle::run_suite_under(
        Path::new("tests/data/oracle/dat3m"),
        suite,
        &model,
        &runner::Options::default(),
    )
    .expect("suite runs")
}

fn assert_all_agree(name: &str, min_tests: usize) {
    assert_all_agree_under(name, min_tests, &[]);
}

/// Is test `path`'s result the refusal it must get (`support::litmus::REFUSED`, which lists the
/// disagreements explained: tests that are not PTX)?
fn explained(path: &str, result: &Agreement) -> bool {
    let reason = refusal_of(Path::new(path));
    reason.is_some_and(|r| matches!(result, Agreement::Unsupported(m) if m.contains(r)))
}

fn assert_all_agree_under(name: &str, min_tests: usize, variants: &[&str]) {
    let report = suite_report(name, variants);
    let problems: Vec<String> = report
        .tests
        .iter()
        .filter(|t| !matches!(t.result, Agreement::Agree) && !explained(&t.path, &t.result))
        .map(|t| format!("{}: {:?}", t.path, t.result))
        .collect();
    assert!(
        report.tests.len() >= min_tests,
        "{name}: only {} tests",
        report.tests.len()
    );
    assert!(
        problems.is_empty(),
        "{name}: {} of {} not agreeing:\n{}",
        problems.len(),
        report.tests.len(),
        problems.join("\n")
    );
}

#[test]
fn ptx_v6_suite_agrees() {
    assert_all_agree("PTXv6_0", 109);
}

/// PTX 7.5 with proxies and aliases (`models/ptx-v7.5.cat`).
#[test]
fn ptx_v75_suite_agrees() {
    assert_all_agree("PTXv7_5", 204);
}

/// Both PTX suites agree under Dartagnan's reading too (an RMW's write not in No-Thin-Air's
/// `dep`): no vendored test tells the two readings apart.
#[test]
fn ptx_suites_agree_without_the_rmw_dependency() {
    assert_all_agree_under("PTXv6_0", 109, &["dep-without-rmw"]);
    assert_all_agree_under("PTXv7_5", 204, &["dep-without-rmw"]);
}

#[test]
fn rc11_suite_agrees() {
    assert_all_agree("RC11", 100);
}

#[test]
fn c11_suite_agrees() {
    assert_all_agree("C11", 100);
}

#[test]
fn opencl_suite_agrees() {
    assert_all_agree("OPENCL", 135);
}

#[test]
fn opencl_data_race_suite_agrees() {
    assert_all_agree("OPENCL-DR", 35);
}

/// The Vulkan memory model (`models/vulkan.cat`) on the Khronos tests and Dat3M's own; the seven
/// cross-work-group barrier tests (`Manual/xf-barrier*`) are too large to enumerate and decided
/// by the solver.
#[test]
#[ignore = "CI tier (scripts/test)"]
fn vulkan_suite_agrees() {
    assert_all_agree("VULKAN", 114);
}

/// Vulkan data races: 1 = no consistent execution (passing the test's `filter`) is racy.
#[test]
fn vulkan_data_race_suite_agrees() {
    assert_all_agree("VULKAN-DR", 94);
}

/// The litmus tests of the PTX ISA manual (§8.10–8.11), with the outcomes the manual states.
#[test]
fn ptx_manual_outcomes() {
    let dir = Path::new("tests/data/ptx-manual");
    let model = ir::load(Path::new("models/ptx-v6.cat")).expect("model loads");
    let expected = std::fs::read_to_string(dir.join("EXPECTED.tsv")).expect("EXPECTED.tsv");
    let mut checked = 0;
    for line in expected
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (file, verdict) = line.split_once('\t').expect("file<TAB>verdict");
        let test = litmus::parse_file(&dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let outcome = runner::run(&model, &test, &runner::Options::default()).expect("runs");
        assert_eq!(
            outcome.validated,
            verdict == "1",
            "{file}: the manual says {verdict}"
        );
        checked += 1;
    }
    assert!(checked >= 11);
}
