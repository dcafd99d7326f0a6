//! The Coq export, compiled by `coqc`: the obligations of the four mappings (only the
//! per-axiom theorems admitted; `compilation` proved satisfiable by a program with memory
//! events, with no axiom behind the proof), and the model files they build on. Needs `coqc`
//! (the README's test command installs Debian's `coq`).
use std::path::{Path, PathBuf};

use mapcheck::{coq, mapping};

use crate::support::coq::coqc_all;
use crate::support::expected::natural_check;
use crate::support::tools::{self, Tool};

fn export(map: &str) -> (PathBuf, coq::Written) {
    let m = mapping::load(Path::new(map)).expect("mapping loads");
    let dir = std::env::temp_dir().join(format!(
        "mapcheck-coq-{}-{}",
        std::process::id(),
        coq::model_prefix(map)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let written = coq::export_mapping(&m, &[], &[], &dir).expect("export");
    (dir, written)
}

/// The only admitted proofs are the obligations, one per source axiom; nothing is assumed.
fn only_obligations_admitted(map: &str, dir: &Path, files: &[String]) {
    let m = mapping::load(Path::new(map)).expect("mapping loads");
    let axioms = m.source.checks.iter().filter(|c| !c.flag).count();
    let mut admitted = 0;
    for f in files {
        let text = std::fs::read_to_string(dir.join(f)).expect("read");
        admitted += text.matches("Admitted.").count();
        for word in ["Axiom ", "Parameter ", "Conjecture "] {
            assert!(!text.contains(word), "{f} states `{word}`");
        }
        if text.contains("Admitted.") {
            assert!(f.starts_with("Obligations_"), "{f} admits a proof");
        }
    }
    assert_eq!(
        admitted, axioms,
        "{map}: one admitted obligation per source axiom"
    );
}

/// Export `map`, compile every file, and require the satisfiability proof to be closed.
fn obligations_compile(map: &str) {
    let (dir, written) = export(map);
    only_obligations_admitted(map, &dir, &written.files);
    let log = coqc_all(&dir, &written.files).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        log.contains("Closed under the global context"),
        "{map}: the satisfiability proof uses axioms:\n{log}"
    );
}

#[test]
fn rc11_ptx_obligations_compile() {
    if tools::absent(Tool::Coqc) {
        return;
    }
    obligations_compile("mappings/rc11-ptx.map");
}

#[test]
fn rc11_ptx_artifact_obligations_compile() {
    if tools::absent(Tool::Coqc) {
        return;
    }
    obligations_compile("mappings/rc11-ptx-artifact.map");
}

#[test]
fn opencl_ptx_obligations_compile() {
    if tools::absent(Tool::Coqc) {
        return;
    }
    obligations_compile("mappings/opencl-ptx.map");
}

#[test]
#[ignore = "CI tier (scripts/test)"]
fn cuda_ptx_obligations_compile() {
    if tools::absent(Tool::Coqc) {
        return;
    }
    obligations_compile("mappings/cuda-ptx.map");
}

/// Each obligation's comment names what the search found for its axiom at the bound asked, and
/// an axiom with a counterexample gets its refutation beside the obligations.
#[test]
fn obligations_say_what_the_search_found_per_axiom() {
    let (m, report) = natural_check("rc11-ptx.map", None, None, 5);
    let evidence = coq::evidence(&report);
    let found: Vec<_> = report
        .axioms
        .iter()
        .filter_map(|a| a.counterexample.as_ref())
        .collect();
    let dir = std::env::temp_dir().join(format!("mapcheck-coq-labels-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let written = coq::export_mapping(&m, &evidence, &found, &dir).expect("export");
    assert!(
        written.files.iter().any(|f| f == "Refutation_SC.v"),
        "{:?}",
        written.files
    );
    let text = std::fs::read_to_string(dir.join("Obligations_rc11_ptx.v")).expect("read");
    for axiom in ["Coherence", "Atomicity"] {
        let open = format!("open: mapcheck found no counterexample to {axiom} up to bound 5");
        assert!(text.contains(&open), "no `{open}`");
    }
    assert!(
        text.contains("FALSE: mapcheck found a counterexample at bound 5")
            && text.contains("Refutation_SC.v proves ~ claim_rc11_scoped_ax_SC"),
        "the SC obligation does not link its refutation"
    );
}
