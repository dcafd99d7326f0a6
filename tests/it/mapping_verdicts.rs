//! Documents agree with the tool: `mappings/EXPECTED.tsv` lists every mapping's verdict per
//! source axiom at a stated bound; this test runs each mapping's check to that bound and compares,
//! and checks that every mapping file's header and `mappings/README.md` quote the same verdicts.
use std::collections::BTreeMap;
use std::path::Path;

use mapcheck::search;

use crate::support::expected::{expected, natural_check, Row};

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
    let listed: Vec<String> = expected().into_iter().map(|(m, _)| m).collect();
    let mut files = vec![];
    for dir in ["mappings", "mappings/known-bugs"] {
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

#[test]
#[ignore = "CI tier (scripts/test)"]
fn the_check_gives_the_expected_verdicts() {
    for (map, rows) in expected() {
        let bound = rows[0].1;
        assert!(
            rows.iter().all(|r| r.1 == bound),
            "{map}: one bound per mapping"
        );
        let (_, report) = natural_check(&map, bound);
        let found: BTreeMap<&str, String> = report
            .axioms
            .iter()
            .map(|a| (a.axiom.as_str(), verdict(a)))
            .collect();
        let want: BTreeMap<&str, String> = rows
            .iter()
            .map(|(a, _, v)| (a.as_str(), v.clone()))
            .collect();
        assert_eq!(found, want, "{map} at bound {bound}");
    }
}

#[test]
fn the_documents_quote_the_expected_verdicts() {
    let readme = std::fs::read_to_string("mappings/README.md").unwrap();
    for (map, rows) in expected() {
        let header_line = format!(
            "// Expected (mappings/EXPECTED.tsv, natural bound {}): {}.",
            rows[0].1,
            quoted(&rows)
        );
        let text = std::fs::read_to_string(Path::new("mappings").join(&map)).unwrap();
        assert!(
            text.lines().any(|l| l == header_line),
            "{map}: its header must quote\n{header_line}"
        );
        let row = readme
            .lines()
            .find(|l| l.starts_with(&format!("| `{map}` |")))
            .unwrap_or_else(|| panic!("mappings/README.md has no row for {map}"));
        assert!(
            row.contains(&format!("| {} |", quoted(&rows))),
            "mappings/README.md, row of {map}: must quote `{}`",
            quoted(&rows)
        );
    }
}
