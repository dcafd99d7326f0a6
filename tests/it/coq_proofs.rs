//! The hand-written proofs in `proofs-export/proofs/` hold against a fresh export: the files
//! `<Name>_<mapping>.v` of one mapping are compiled, each after the proof files it imports,
//! after the export of `mappings/<mapping>.map` (underscores for dashes), and every lemma they
//! state is closed (`Print Assumptions`), so none rests on an `Admitted` obligation or an axiom.
//!
//! Needs `coqc`.
use std::path::{Path, PathBuf};

use mapcheck::{coq, mapping};

use crate::support::coq::coqc_all;
use crate::support::tools::{self, Tool};

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

/// A proof file: its module name, its text, the modules its `Require Import` lines name and
/// the lemmas it states.
struct Proof {
    module: String,
    text: String,
    imports: Vec<String>,
    lemmas: Vec<String>,
}

impl Proof {
    fn new(module: String, text: String) -> Proof {
        let imports = text
            .lines()
            .filter_map(|l| l.split_once("Require Import"))
            .flat_map(|(_, rest)| rest.trim_end_matches('.').split_whitespace())
            .map(str::to_string)
            .collect();
        let lemmas = stated(&text);
        Proof {
            module,
            text,
            imports,
            lemmas,
        }
    }
}

/// The proof files of one mapping, each after the proof files it imports.
fn in_import_order(mut waiting: Vec<Proof>) -> Vec<Proof> {
    let mut placed: Vec<Proof> = Vec::new();
    while !waiting.is_empty() {
        let ready = waiting
            .iter()
            .position(|p| {
                p.imports.iter().all(|m| {
                    placed.iter().any(|q| q.module == *m) || !waiting.iter().any(|q| q.module == *m)
                })
            })
            .expect("proof files import each other in a cycle");
        placed.push(waiting.remove(ready));
    }
    placed
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

/// Compile a mapping's proof files against a fresh export of it; every lemma must be closed.
fn check_mapping(mapping: &Path, proofs: Vec<Proof>) {
    let m = mapping::load(mapping).expect("mapping loads");
    let dir = std::env::temp_dir().join(format!(
        "mapcheck-proofs-{}-{}",
        std::process::id(),
        mapping.file_stem().unwrap().to_string_lossy()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let mut written = coq::export_mapping(&m, &[], &[], &dir).expect("export");
    let mut checks = String::new();
    let mut lemmas = Vec::new();
    for proof in in_import_order(proofs) {
        written
            .write(&format!("{}.v", proof.module), &proof.text)
            .expect("write");
        checks.push_str(&format!("From Mapcheck Require Import {}.\n", proof.module));
        for lemma in &proof.lemmas {
            checks.push_str(&format!("Print Assumptions {}.{lemma}.\n", proof.module));
        }
        lemmas.extend(proof.lemmas);
    }
    written.write("CheckProofs.v", &checks).expect("write");
    let log = coqc_all(&dir, &written.files).unwrap_or_else(|e| panic!("{e}"));
    let closed = log.matches("Closed under the global context").count();
    // The export's own satisfiability proof prints one more.
    assert_eq!(
        closed,
        lemmas.len() + 1,
        "{}: every lemma must be closed ({lemmas:?}):\n{log}",
        mapping.display()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "CI tier (scripts/test)"]
fn hand_written_proofs_are_closed() {
    if tools::absent(Tool::Coqc) {
        return;
    }
    let files = proof_files();
    assert!(!files.is_empty(), "no proofs in proofs-export/proofs");
    let mut by_mapping: std::collections::BTreeMap<PathBuf, Vec<Proof>> = Default::default();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("proof file");
        for word in ["Admitted", "Axiom", "Parameter", "Conjecture"] {
            assert!(
                !text.contains(word),
                "{}: `{word}` in a proof file",
                file.display()
            );
        }
        assert!(
            !stated(&text).is_empty(),
            "{}: states nothing",
            file.display()
        );
        let module = file.file_stem().unwrap().to_string_lossy().to_string();
        by_mapping
            .entry(mapping_of(&file))
            .or_default()
            .push(Proof::new(module, text));
    }
    for (mapping, proofs) in by_mapping {
        check_mapping(&mapping, proofs);
    }
}
