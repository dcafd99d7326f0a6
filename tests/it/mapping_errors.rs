//! Bad mapping files give exit-2-worthy diagnostics that point at file:line:col and say what is
//! wrong. Each `tests/data/mapping/err/NNNN_what_it_shows.map` has a snapshot of its rendered
//! error in `tests/data/mapping/snapshots/`.
use std::path::Path;

use mapcheck::mapping;

fn error_of(file: &str) -> mapcheck::diag::Error {
    let path = format!("tests/data/mapping/err/{file}");
    match mapping::load(Path::new(&path)) {
        Ok(_) => panic!("{path} loaded without error"),
        Err(e) => e,
    }
}

#[test]
fn every_bad_mapping_has_a_snapshot_of_its_diagnostic() {
    let mut files: Vec<_> = std::fs::read_dir("tests/data/mapping/err")
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 12);
    for path in files {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let rendered = error_of(&path.file_name().unwrap().to_string_lossy()).render();
        insta::with_settings!({ snapshot_path => "../data/mapping/snapshots", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(name, rendered);
        });
    }
}

#[test]
fn coverage_error_lists_every_missing_class() {
    let e = error_of("0001_missing_classes.map");
    assert!(
        e.message
            .contains("does not cover 2 source classes: R.ACQ.CTA, R.ACQ.GPU"),
        "{}",
        e.message
    );
    // It points at the `class` declaration that introduced the first missing class.
    assert_eq!(e.line_col(), Some((8, 7)));
}

#[test]
fn syntax_error_gives_file_line_and_column() {
    let e = error_of("0002_syntax_error.map");
    assert_eq!(
        e.to_string(),
        "tests/data/mapping/err/0002_syntax_error.map:8:17: unexpected end of file"
    );
    let e = error_of("0012_unterminated_string.map");
    assert_eq!(e.line_col(), Some((2, 8)));
}

#[test]
fn overlapping_rule_is_reported_at_the_second_rule() {
    let e = error_of("0003_overlapping_rules.map");
    assert_eq!(e.line_col(), Some((11, 1)));
    assert!(
        e.notes.iter().any(|n| n.contains("line 10")),
        "{:?}",
        e.notes
    );
}

#[test]
fn text_without_a_directory_cannot_name_models() {
    let text = std::fs::read_to_string("mappings/rc11-ptx.map").unwrap();
    let e = mapping::load_str("inline.map", &text, None).unwrap_err();
    assert!(e.message.contains("no directory"), "{}", e.message);
    // The table alone is fine.
    assert_eq!(
        mapping::parse_table("inline.map", &text)
            .unwrap()
            .classes
            .len(),
        47
    );
}
