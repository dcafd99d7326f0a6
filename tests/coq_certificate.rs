//! Counterexample certificates: Coq itself confirms a bug the search found. For B1 (the RMW_SC
//! mapping without its release) and M4, the certificate proves by computation that the compiled
//! execution is well formed and consistent under PTX and that the lifted source execution is
//! well formed and fails the axiom, and `Print Assumptions` shows no axiom behind either. Also
//! checks that a tampered certificate (the axiom claimed to hold) is rejected. Needs `coqc`.
use std::path::Path;

use mapcheck::encode::Backend;
use mapcheck::search::{self, Counting, Options};
use mapcheck::{coq, mapping};

mod coq_common;
use coq_common::coqc_all;

fn certificate(map: &str, bound: usize, name: &str) -> (coq::Written, String) {
    let m = mapping::load(Path::new(map)).expect("mapping loads");
    let opts = Options {
        bound,
        counting: Counting::Natural,
        axioms: Vec::new(),
        threads: None,
        locations: None,
        backend: Backend::BatSat,
        first: true,
        stop: Default::default(),
    };
    let report = search::check(&m, &opts, &|_| {}).expect("search runs");
    let dir = std::env::temp_dir().join(format!("mapcheck-cert-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut written = coq::export_certificates(&m, &report, &dir).expect("certificates");
    assert!(
        !written.is_empty(),
        "{map}: no counterexample at bound {bound}"
    );
    let w = written.remove(0);
    let log = coqc_all(&w.dir, &w.files).unwrap_or_else(|e| panic!("{e}"));
    (w, log)
}

fn assert_closed(log: &str) {
    let closed = log.matches("Closed under the global context").count();
    assert_eq!(
        closed, 2,
        "both certificate lemmas must be axiom-free:\n{log}"
    );
}

#[test]
fn coq_confirms_b1() {
    let (_, log) = certificate("mappings/known-bugs/b1-rmw-sc-release-dropped.map", 4, "b1");
    assert_closed(&log);
}

#[test]
fn coq_confirms_m4_and_rejects_a_tampered_certificate() {
    let (w, log) = certificate(
        "mappings/known-bugs/m4-release-acquire-gpu-narrowed.map",
        3,
        "m4",
    );
    assert_closed(&log);
    let cert = w.files.last().expect("certificate file").clone();
    let path = w.dir.join(&cert);
    let text = std::fs::read_to_string(&path).expect("read");
    let tampered = text
        .replace("Lemma source_fails : ~ ", "Lemma source_fails : ")
        .replace(
            "apply (dec_false _ _ (Lifted.",
            "apply (dec_true _ _ (Lifted.",
        );
    assert_ne!(text, tampered, "the certificate has the expected shape");
    std::fs::write(&path, tampered).expect("write");
    assert!(
        coqc_all(&w.dir, std::slice::from_ref(&cert)).is_err(),
        "Coq accepted a certificate claiming the failing axiom holds"
    );
}
