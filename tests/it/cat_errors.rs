//! Rendered errors for broken models: one snapshot per file in tests/data/cat/err/ (named for
//! what it shows), plus line:column checks that do not depend on the snapshot text.
use std::path::{Path, PathBuf};

use mapcheck::ir;

fn error_cases() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir("tests/data/cat/err")
        .expect("error cases directory")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "cat"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_error_case_renders_as_its_snapshot() {
    let cases = error_cases();
    assert!(cases.len() >= 25, "error cases went missing: {cases:?}");
    for path in cases {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("utf-8 name")
            .to_string();
        let err = match ir::load(&path) {
            Ok(_) => panic!("{} should not load", path.display()),
            Err(e) => e,
        };
        insta::with_settings!({
            snapshot_path => "../data/cat/err/snapshots",
            prepend_module_to_snapshot => false,
            omit_expression => true,
            description => path.display().to_string(),
        }, {
            insta::assert_snapshot!(name, err.render());
        });
    }
}

fn error_at(name: &str) -> (usize, usize, String) {
    let e = ir::load(&Path::new("tests/data/cat/err").join(name)).expect_err("the case is broken");
    let (line, col) = e.line_col().expect("error has a position");
    (line, col, e.to_string())
}

#[test]
fn unknown_names_point_at_the_name_and_suggest() {
    let (line, col, text) = error_at("0001_unknown_name_did_you_mean.cat");
    assert_eq!((line, col), (3, 14), "{text}");
    let e = ir::load(Path::new(
        "tests/data/cat/err/0001_unknown_name_did_you_mean.cat",
    ))
    .unwrap_err();
    assert!(e.notes.iter().any(|n| n.contains("`com`")), "{:?}", e.notes);
}

#[test]
fn kind_errors_point_at_the_operand_of_the_wrong_kind() {
    assert_eq!(error_at("0003_sequence_of_a_set.cat").0..=1, 1..=1);
    let (line, col, text) = error_at("0003_sequence_of_a_set.cat");
    assert_eq!((line, col), (1, 11), "{text}");
    assert!(text.contains("expected a relation, found a set"), "{text}");
    let (line, col, text) = error_at("0004_union_of_set_and_relation.cat");
    assert_eq!((line, col), (2, 16), "{text}");
    let (line, col, _) = error_at("0006_product_of_relations.cat");
    assert_eq!((line, col), (1, 13));
}

#[test]
fn errors_inside_included_files_name_that_file() {
    let e = ir::load(Path::new("tests/data/cat/err/0014_include_cycle.cat")).unwrap_err();
    assert_eq!(e.path, "tests/data/cat/err/inc/cycle_b.cat");
    assert_eq!(e.line_col(), Some((2, 9)));
    assert!(e.notes[0].ends_with("cycle_a.cat includes tests/data/cat/err/inc/cycle_b.cat includes tests/data/cat/err/inc/cycle_a.cat"), "{:?}", e.notes);
}

#[test]
fn syntax_errors_say_what_was_expected() {
    let e = ir::load_str("s.cat", "let a = po |\n", None).unwrap_err();
    assert_eq!(e.message, "unexpected end of file");
    assert_eq!(e.notes, ["expected an expression"]);
    let e = ir::load_str("s.cat", "let a po", None).unwrap_err();
    assert_eq!(e.line_col(), Some((1, 7)));
    assert_eq!(e.notes, ["expected one of: `(`, `=`"]);
    let e = ir::load_str("s.cat", "acyclic po as", None).unwrap_err();
    assert_eq!(e.notes, ["expected a name"]);
}

/// A fresh directory with `model/top.cat` including `include`, and `secret.cat` beside `model/`
/// (outside it) holding text no diagnostic may show beyond the span it points at.
fn include_case(name: &str, include: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mapcheck-include-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("model")).unwrap();
    std::fs::write(
        dir.join("secret.cat"),
        "let a = po\nlet b = rf secret-words-of-line-two\n",
    )
    .unwrap();
    let include = include.replace("DIR", &dir.display().to_string());
    std::fs::write(
        dir.join("model/top.cat"),
        format!("include \"{include}\"\nacyclic po as A\n"),
    )
    .unwrap();
    dir
}

/// Issue 41 row 12: an include that resolves outside the model's directory, each -I directory
/// and cat-lib (`..`, an absolute path, a symbolic link) is refused at the include, before the
/// file is read; -I or --allow-include-anywhere lets it in, and a diagnostic in a file read only
/// under the latter shows just the text it points at.
#[test]
fn includes_stay_under_the_models_directory_and_include_directories() {
    for (name, include) in [("up", "../secret.cat"), ("absolute", "DIR/secret.cat")] {
        let dir = include_case(name, include);
        let e = ir::load(&dir.join("model/top.cat")).unwrap_err();
        assert_eq!(e.path, dir.join("model/top.cat").display().to_string());
        assert_eq!(e.line_col(), Some((1, 9)), "{}", e.render());
        assert!(
            e.message
                .contains("outside the directories a model may include from"),
            "{}",
            e.render()
        );
        assert!(!e.render().contains("secret-words"), "{}", e.render());
        std::fs::remove_dir_all(&dir).unwrap();
    }
    let dir = include_case("link", "link.cat");
    std::os::unix::fs::symlink(dir.join("secret.cat"), dir.join("model/link.cat")).unwrap();
    let e = ir::load(&dir.join("model/top.cat")).unwrap_err();
    assert!(
        e.message.contains("outside the directories"),
        "{}",
        e.render()
    );
    let with = |opts: ir::LoadOptions| ir::load_with(&dir.join("model/top.cat"), &opts);
    // A lowering error (the file as written) and a syntax error, each on line 2.
    for (second_line, message) in [
        ("let b = rf secret-words-of-line-two", "not a function"),
        ("let b = ) secret-words-of-line-two", "unexpected"),
    ] {
        std::fs::write(
            dir.join("secret.cat"),
            format!("let a = po\n{second_line}\n"),
        )
        .unwrap();
        let inside = with(ir::LoadOptions {
            include_dirs: vec![dir.clone()],
            ..ir::LoadOptions::default()
        })
        .unwrap_err();
        assert!(inside.message.contains(message), "{}", inside.render());
        assert!(
            inside.render().contains("secret-words"),
            "{}",
            inside.render()
        );
        let anywhere = with(ir::LoadOptions {
            include_anywhere: true,
            ..ir::LoadOptions::default()
        })
        .unwrap_err();
        assert_eq!(anywhere.message, inside.message);
        assert_eq!(anywhere.line_col(), inside.line_col());
        let shown = anywhere.render();
        assert!(
            !shown.contains("secret-words") && !shown.contains("let b"),
            "{shown}"
        );
        assert!(shown.contains("link.cat:2:9"), "{shown}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
