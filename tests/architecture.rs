//! The hand-kept map must not drift: every stage declared in `src/lib.rs` has a section in
//! ARCHITECTURE.md, and every file under `src/` opens with a `//!` header saying what it is.
use std::fs;

#[test]
fn every_stage_has_a_section_in_architecture_md() {
    let lib = fs::read_to_string("src/lib.rs").unwrap();
    let map = fs::read_to_string("ARCHITECTURE.md").unwrap();
    let stages: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';'))
        .collect();
    assert!(stages.len() >= 10, "lib.rs lists {stages:?}");
    let missing: Vec<_> = stages
        .iter()
        .filter(|s| !map.contains(&format!("### `{s}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "stages without a section in ARCHITECTURE.md: {missing:?}"
    );
}

#[test]
fn every_source_file_says_what_it_is() {
    let mut missing = vec![];
    let mut stack = vec![std::path::PathBuf::from("src")];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = fs::read_to_string(&path).unwrap();
                if !text.trim_start().starts_with("//!") {
                    missing.push(path.display().to_string());
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "files without a //! header: {missing:?}"
    );
}

/// The repository is self-contained: no file outside `docs/` names the workplace folder beside
/// the checkout, which a clone does not have (what the tests need is vendored in `tests/data/`).
#[test]
fn nothing_outside_docs_points_outside_the_repository() {
    // Spelled in pieces so that this file does not name what it looks for.
    let needles = [concat!("../", "shared"), concat!("/work/", "shared")];
    let skip = [
        "./.git",
        "./target",
        "./.tools",
        "./docs",
        "./counterexamples",
    ];
    let mut offenders = vec![];
    let mut stack = vec![std::path::PathBuf::from(".")];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if skip.iter().any(|s| path == std::path::Path::new(s)) {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(text) = fs::read_to_string(&path) {
                if needles.iter().any(|n| text.contains(n)) {
                    offenders.push(path.display().to_string());
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "files naming the folder beside the checkout: {offenders:?}"
    );
}
