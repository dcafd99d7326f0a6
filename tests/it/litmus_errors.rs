//! Malformed litmus files give located, readable errors: each file of `tests/data/litmus/errors/`
//! is parsed and its rendered diagnostic (`path:line:col`, message, source line) is compared with
//! a snapshot in `tests/data/litmus/snapshots/`.
use std::path::Path;

use mapcheck::litmus;

fn error_files() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/litmus/errors");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .map(|p| {
            let stem = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let text = std::fs::read_to_string(&p)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            (stem, text)
        })
        .collect();
    files.sort();
    files
}

#[test]
fn malformed_files_render_located_errors() {
    let files = error_files();
    assert!(files.len() >= 15, "only {} error files", files.len());
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../data/litmus/snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for (stem, text) in &files {
            let path = format!("errors/{stem}.litmus");
            let err = match litmus::parse_str(&path, text) {
                Ok(t) => panic!("{path} parsed, but it is malformed: {t:?}"),
                Err(e) => e,
            };
            assert!(
                err.to_string().starts_with(&format!("{path}:")),
                "no location in `{err}`"
            );
            insta::assert_snapshot!(stem.as_str(), err.render());
        }
    });
}

#[test]
fn display_gives_path_line_and_column() {
    let err = litmus::parse_str(
        "t.litmus",
        "PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x, 1 ;\nexists (x=0)",
    )
    .err()
    .unwrap_or_else(|| panic!("accepted an extra operand"));
    assert_eq!(
        err.to_string(),
        "t.litmus:4:15: unexpected `,` in instruction; expected the end of the instruction"
    );
}
