//! The hand-written proofs in `proofs-export/proofs/` hold against a fresh export: each file
//! `<Name>_<mapping>.v` is compiled after the export of `mappings/<mapping>.map` (underscores
//! for dashes), and every lemma it states is closed (`Print Assumptions`), so none rests on an
//! `Admitted` obligation or an axiom.
//!
//! Needs `coqc`.
use std::path::{Path, PathBuf};

use mapcheck::{coq, mapping};

mod coq_common;
use coq_common::coqc_all;

/// The proof files, sorted.
fn proof_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir("proofs-export/proofs")
        .expect("proofs-export/proofs")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "v"))
        .collect();
    files.sort();
    files
}

/// The mapping a proof file is about: the part of its name after the first `_`.
fn mapping_of(file: &Path) -> PathBuf {
    let stem = file.file_stem().unwrap().to_string_lossy();
    let (_, name) = stem.split_once('_').expect("<Name>_<mapping>.v");
    PathBuf::from(format!("mappings/{}.map", name.replace('_', "-")))
}

/// The names of the lemmas and theorems a Coq file states.
fn stated(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            ["Lemma ", "Theorem "]
                .iter()
                .find_map(|k| l.strip_prefix(k))
                .and_then(|rest| rest.split([' ', ':']).next())
                .map(str::to_string)
        })
        .collect()
}

#[test]
fn hand_written_proofs_are_closed() {
    let files = proof_files();
    assert!(!files.is_empty(), "no proofs in proofs-export/proofs");
    for file in files {
        let text = std::fs::read_to_string(&file).expect("proof file");
        for word in ["Admitted", "Axiom", "Parameter", "Conjecture"] {
            assert!(
                !text.contains(word),
                "{}: `{word}` in a proof file",
                file.display()
            );
        }
        let lemmas = stated(&text);
        assert!(!lemmas.is_empty(), "{}: states nothing", file.display());

        let m = mapping::load(&mapping_of(&file)).expect("mapping loads");
        let dir = std::env::temp_dir().join(format!(
            "mapcheck-proofs-{}-{}",
            std::process::id(),
            file.file_stem().unwrap().to_string_lossy()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let mut written = coq::export_mapping(&m, &[], &[], &dir).expect("export");
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        written.write(&name, &text).expect("write");
        let module = name.trim_end_matches(".v");
        let checks: String = lemmas
            .iter()
            .map(|l| format!("Print Assumptions {l}.\n"))
            .collect();
        written
            .write(
                "CheckProofs.v",
                &format!("From Mapcheck Require Import {module}.\n{checks}"),
            )
            .expect("write");
        let log = coqc_all(&dir, &written.files).unwrap_or_else(|e| panic!("{e}"));
        let closed = log.matches("Closed under the global context").count();
        // The export's own satisfiability proof prints one more.
        assert_eq!(
            closed,
            lemmas.len() + 1,
            "{}: every lemma must be closed ({lemmas:?}):\n{log}",
            file.display()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
