//! Documents agree with the tool: `mappings/EXPECTED.tsv` lists every mapping's verdict per
//! source axiom at a stated bound; this test runs each mapping's check to that bound and compares,
//! and checks that every mapping file's header and `mappings/README.md` quote the same verdicts.
use std::collections::BTreeMap;
use std::path::Path;

use mapcheck::search;

use crate::support::expected::{expected, Row};

/// What the documents quote for a mapping: `Coherence none up to 5; SC counterexample at 5`.
fn quoted(rows: &[Row]) -> String {
    let parts: Vec<String> = rows.iter().map(|(a, _, v)| format!("{a} {v}")).collect();
    parts.join("; ")
}

/// The verdict the check gives, in the file's words.
fn verdict(a: &search::AxiomResult) -> String {
    match &a.counterexample {
        Some(cx) => format!("counterexample at {}", cx.bound),
        None => format!("none up to {}", a.clean_to),
    }
}

#[test]
fn every_mapping_file_has_its_expected_verdicts() {
    let mut listed: Vec<String> = expected().into_iter().map(|e| e.map).collect();
    listed.dedup();
    let mut files = vec![];
    for dir in ["mappings", "mappings/known-bugs", "mappings/shipped"] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "map") {
                let rel = path.strip_prefix("mappings").unwrap();
                files.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    files.sort();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(files, sorted, "mapping files vs EXPECTED.tsv");
}

/// Every row of `mappings/EXPECTED.tsv` up to bound 5: the check of its mapping, under its
/// source reading, gives exactly its verdicts.
#[test]
#[ignore = "CI tier (scripts/test)"]
fn the_check_gives_the_expected_verdicts() {
    check_expected(|bound| bound <= 5);
}

/// The rows above bound 5 (the shipped tables at 6, under both C++ versions).
#[test]
#[ignore = "exhaustive tier (scripts/test --exhaustive)"]
fn exhaustive_the_check_gives_the_expected_verdicts_above_bound_5() {
    check_expected(|bound| bound > 5);
}

fn check_expected(at: impl Fn(usize) -> bool) {
    for e in expected().into_iter().filter(|e| at(e.bound())) {
        let (map, rows, bound) = (&e.map, &e.rows, e.bound());
        let (_, report) = e.check();
        let found: BTreeMap<&str, String> = report
            .axioms
            .iter()
            .map(|a| (a.axiom.as_str(), verdict(a)))
            .collect();
        let want: BTreeMap<&str, String> = rows
            .iter()
            .map(|(a, _, v)| (a.as_str(), v.clone()))
            .collect();
        assert_eq!(found, want, "{map}{} at bound {bound}", e.reading_words());
    }
}

#[test]
fn the_documents_quote_the_expected_verdicts() {
    let readme = std::fs::read_to_string("mappings/README.md").unwrap();
    for e in expected() {
        let (map, rows) = (&e.map, &e.rows);
        let header_line = format!(
            "// Expected{} (mappings/EXPECTED.tsv, natural bound {}): {}.",
            e.reading_words(),
            e.bound(),
            quoted(rows)
        );
        let text = std::fs::read_to_string(Path::new("mappings").join(map)).unwrap();
        assert!(
            text.lines().any(|l| l == header_line),
            "{map}: its header must quote\n{header_line}"
        );
        let row = readme
            .lines()
            .find(|l| l.starts_with(&format!("| `{map}` |")))
            .unwrap_or_else(|| panic!("mappings/README.md has no row for {map}"));
        let words = match (e.reading_label(), e.bound()) {
            (None, 5) => format!("| {} |", quoted(rows)),
            (None, b) => format!("at {b}: {}", quoted(rows)),
            (Some(label), b) => format!("{label} at {b}: {}", quoted(rows)),
        };
        assert!(
            row.contains(&words),
            "mappings/README.md, row of {map}: must quote `{words}`"
        );
    }
}
