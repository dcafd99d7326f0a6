//! Refutations: Coq itself refutes the claim a counterexample breaks. For every counterexample
//! `mappings/EXPECTED.tsv` lists — Fig. 11's SC rows (`rc11-ptx.map`, SC at bound 5), CUDA's and
//! OpenCL's, B1, M1–M5 — the export writes `Refutation_<axiom>.v`, a proof of `~ claim_<axiom>`
//! from the counterexample's own programs and executions (race freedom and "no lift is
//! consistent" decided over every execution of the source program), and `Print Assumptions`
//! shows no axiom behind it. Also checks that a tampered refutation (the axiom claimed to hold)
//! is rejected (`check --coq` on M4). Needs `coqc`.
use std::path::Path;

use mapcheck::encode::Backend;
use mapcheck::search::{self, Options, TestVerdict};
use mapcheck::{coq, litmus, mapping};

mod coq_common;
use coq_common::coqc_all;

mod expected_common;
use expected_common::expected;

fn refutation(map: &str, bound: usize, name: &str) -> (coq::Written, String) {
    let m = mapping::load(Path::new(map)).expect("mapping loads");
    let opts = Options {
        first: true,
        ..Options::natural(bound, Backend::BatSat)
    };
    let report = search::check(&m, &opts, &|_| {}).expect("search runs");
    let dir =
        std::env::temp_dir().join(format!("mapcheck-refutation-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut written = coq::export_refutations(&m, &report, &dir).expect("refutations");
    assert!(
        !written.is_empty(),
        "{map}: no counterexample at bound {bound}"
    );
    let w = written.remove(0);
    let log = coqc_all(&w.dir, &w.files).unwrap_or_else(|e| panic!("{e}"));
    (w, log)
}

/// The satisfiability proof of the obligations and the refutation: both axiom-free.
fn assert_closed(log: &str) {
    let closed = log.matches("Closed under the global context").count();
    assert_eq!(
        closed, 2,
        "the satisfiability proof and the refutation must be axiom-free:\n{log}"
    );
}

/// Every counterexample `mappings/EXPECTED.tsv` lists (each mapping's, at its bound) is refuted
/// in Coq: one export per mapping with a `Refutation_<axiom>.v` per axiom that has one, each
/// `Print Assumptions` closed — among them the headline, Fig. 11's SC rows (`rc11-ptx.map`).
#[test]
fn coq_refutes_every_expected_counterexample() {
    for (map, rows) in expected() {
        let broken: Vec<&str> = rows
            .iter()
            .filter(|(_, _, v)| v.starts_with("counterexample"))
            .map(|(a, _, _)| a.as_str())
            .collect();
        if broken.is_empty() {
            continue;
        }
        let m = mapping::load(&Path::new("mappings").join(&map)).expect("mapping loads");
        let opts = Options::natural(rows[0].1, Backend::Cadical);
        let report = search::check(&m, &opts, &|_| {}).expect("search runs");
        let found: Vec<_> = report
            .axioms
            .iter()
            .filter_map(|a| a.counterexample.as_ref())
            .collect();
        let dir = std::env::temp_dir().join(format!(
            "mapcheck-refutations-{}-{}",
            std::process::id(),
            coq::model_prefix(&map)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let w = coq::export_mapping(&m, &coq::evidence(&report), &found, &dir).expect("export");
        for axiom in &broken {
            let file = format!("Refutation_{}.v", coq::ident(axiom));
            assert!(w.files.contains(&file), "{map}: no {file} in {:?}", w.files);
        }
        let log = coqc_all(&w.dir, &w.files).unwrap_or_else(|e| panic!("{map}: {e}"));
        assert_eq!(
            log.matches("Closed under the global context").count(),
            1 + broken.len(),
            "{map}: the satisfiability proof and every refutation must be axiom-free:\n{log}"
        );
    }
}

#[test]
fn coq_refutes_m4_and_rejects_a_tampered_refutation() {
    let (w, log) = refutation(
        "mappings/known-bugs/m4-release-acquire-gpu-narrowed.map",
        3,
        "m4",
    );
    assert_closed(&log);
    let cert = w.files.last().expect("refutation file").clone();
    let path = w.dir.join(&cert);
    let text = std::fs::read_to_string(&path).expect("read");
    let tampered = text
        .replace("Lemma lifted_fails : ~ ", "Lemma lifted_fails : ")
        .replace(
            "apply (dec_false _ _ (Lifted.",
            "apply (dec_true _ _ (Lifted.",
        );
    assert_ne!(text, tampered, "the refutation has the expected shape");
    std::fs::write(&path, tampered).expect("write");
    assert!(
        coqc_all(&w.dir, std::slice::from_ref(&cert)).is_err(),
        "Coq accepted a refutation claiming the failing axiom holds"
    );
}

/// The 9-event test of `tests/data/search/` refutes `rc11-ptx-artifact.map`'s Atomicity claim in
/// Coq: `check --test`'s judge (`search::confirm`) confirms it as a counterexample, its export
/// compiles, and `Print Assumptions refutation` is closed — the obligation issue 11 asked to
/// prove is false.
#[test]
fn the_bound_9_test_refutes_the_artifact_atomicity_claim() {
    let m = mapping::load(Path::new("mappings/rc11-ptx-artifact.map")).expect("mapping loads");
    let test = Path::new("tests/data/search/rc11-ptx-artifact-atomicity-9.litmus");
    let source = litmus::parse_file(test).expect("test reads");
    let cx = match search::confirm(&m, &source, &["Atomicity".to_string()])
        .expect("confirm runs")
        .remove(0)
        .1
    {
        TestVerdict::Counterexample(cx) => cx,
        other => panic!("not a counterexample to Atomicity: {other:?}"),
    };
    let dir = std::env::temp_dir().join(format!(
        "mapcheck-artifact-atomicity-9-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let w = coq::export_refutation(&m, &cx, &dir).expect("export");
    assert_eq!(
        w.files.last().map(String::as_str),
        Some("Refutation_Atomicity.v")
    );
    let log = coqc_all(&w.dir, &w.files).unwrap_or_else(|e| panic!("{e}"));
    assert_closed(&log);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Coq refutation of `rc11-ptx-artifact.map`'s Coherence claim at natural bound 7 that
/// `docs/results/2026-11-27-artifact-bound7/` keeps (the search takes many minutes, so CI
/// compiles the export it wrote rather than searching again; the library files, which every
/// export copies unchanged, are taken from `proofs-export/lib`): it compiles, and
/// `Print Assumptions refutation` is closed.
#[test]
fn the_bound_7_refutation_of_the_artifact_rows_is_closed() {
    let kept = Path::new("docs/results/2026-11-27-artifact-bound7/coq");
    let dir = std::env::temp_dir().join(format!("mapcheck-artifact-bound7-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let project = std::fs::read_to_string(kept.join("_CoqProject")).unwrap();
    let files: Vec<String> = project
        .lines()
        .filter(|l| l.ends_with(".v"))
        .map(String::from)
        .collect();
    assert_eq!(
        files.last().map(String::as_str),
        Some("Refutation_Coherence.v")
    );
    for f in files.iter().chain([&"_CoqProject".to_string()]) {
        let library = Path::new("proofs-export/lib").join(f);
        let from = if kept.join(f).exists() {
            kept.join(f)
        } else {
            library
        };
        std::fs::copy(&from, dir.join(f)).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    }
    let log = coqc_all(&dir, &files).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        log.trim_end().ends_with("Closed under the global context"),
        "the refutation rests on assumptions:\n{log}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
