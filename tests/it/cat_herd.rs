//! herd's cat constructs (issue 13, item 2), each in a model of tests/data/cat/herd/: every one
//! is held, on many random executions, to the plain expression it stands for (computed here, or
//! written beside it in the model as `plain_<name>`), so a construct read wrongly fails the test.
use std::path::{Path, PathBuf};

use mapcheck::eval::{self, Base, Value};
use mapcheck::ir::{self, Dialect, LoadOptions};

use crate::support::random::{Rng, N};

const DIR: &str = "tests/data/cat/herd";

/// Random executions; in some, `co` equals `rf` (so `rf = co` holds there).
fn random_bases() -> Vec<Base> {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    (0..80)
        .map(|i| {
            let mut b = Base::empty(N);
            let rf = rng.rel();
            let co = if i % 5 == 0 { rf.clone() } else { rng.rel() };
            b.set("rf", Value::Rel(rf));
            b.set("co", Value::Rel(co));
            for name in ["po", "fr", "loc", "int", "ext"] {
                b.set(name, Value::Rel(rng.rel()));
            }
            for name in ["W", "R", "F", "SC"] {
                b.set(name, Value::Set(rng.set_or_empty()));
            }
            b
        })
        .collect()
}

fn path(name: &str) -> PathBuf {
    Path::new(DIR).join(name)
}

fn load_with(name: &str, opts: &LoadOptions) -> ir::Model {
    ir::load_with(&path(name), opts).unwrap_or_else(|e| panic!("{}", e.render()))
}

fn load(name: &str) -> ir::Model {
    load_with(name, &LoadOptions::default())
}

fn value(model: &ir::Model, base: &Base, name: &str) -> Value {
    eval::evaluate_named(model, base, name).unwrap_or_else(|| panic!("`{name}` is defined"))
}

fn base_value(base: &Base, name: &str) -> Value {
    let model = ir::load_str("v.cat", &format!("let v = {name}"), None).expect("a base name");
    value(&model, base, "v")
}

/// On every random execution, `name` has the value `want` gives; and the values differ between
/// executions (so the comparison can fail).
fn holds(model: &ir::Model, name: &str, want: impl Fn(&Base) -> Value) {
    let bases = random_bases();
    for b in &bases {
        assert_eq!(value(model, b, name), want(b), "`{name}` in {}", model.path);
    }
    let first = value(model, &bases[0], name);
    assert!(
        bases.iter().any(|b| value(model, b, name) != first),
        "`{name}` is constant"
    );
}

/// `name` equals the model's `plain_<name>`.
fn same_as_plain(model: &ir::Model, name: &str) {
    holds(model, name, |b| value(model, b, &format!("plain_{name}")));
}

#[test]
fn let_in_binds_for_its_body_only() {
    let m = load("let_in.cat");
    same_as_plain(&m, "a");
    same_as_plain(&m, "b");
    assert!(
        m.def_named("y").is_none(),
        "a local name leaked into the model"
    );
}

#[test]
fn if_on_a_variant_picks_a_branch_by_the_variants_enabled() {
    let off = load("if_variant.cat");
    holds(&off, "a", |b| base_value(b, "rf"));
    holds(&off, "b", |b| base_value(b, "fr"));
    let opts = LoadOptions {
        variants: vec!["fast".into()],
        ..LoadOptions::default()
    };
    let on = load_with("if_variant.cat", &opts);
    holds(&on, "a", |b| base_value(b, "po"));
    holds(&on, "b", |b| base_value(b, "co"));
}

#[test]
fn if_on_values_is_decided_per_execution() {
    let m = load("if_value.cat");
    holds(&m, "a", |b| {
        let (w, r) = (base_value(b, "W"), base_value(b, "R"));
        let (w, r) = (w.as_set().unwrap(), r.as_set().unwrap());
        let subset = w.0 & !r.0 == 0;
        base_value(b, if subset { "po" } else { "rf" })
    });
    holds(&m, "b", |b| {
        let equal = base_value(b, "rf") == base_value(b, "co");
        base_value(b, if equal { "W" } else { "R" })
    });
}

#[test]
fn try_falls_back_only_where_the_first_expression_means_nothing() {
    let m = load("try_with.cat");
    holds(&m, "a", |b| base_value(b, "po"));
    holds(&m, "b", |b| base_value(b, "rf"));
    // `W ; po` is a kind error (a set in a sequence): the fallback is taken.
    holds(&m, "c", |b| base_value(b, "co"));
}

#[test]
fn match_tells_an_empty_set_from_a_non_empty_one() {
    let m = load("match_set.cat");
    let empty = |b: &Base, s: &str| base_value(b, s).is_empty();
    holds(&m, "a", |b| {
        base_value(b, if empty(b, "W") { "po" } else { "rf" })
    });
    holds(&m, "b", |b| {
        let rf_ = base_value(b, "R").as_set().unwrap().0 & base_value(b, "F").as_set().unwrap().0;
        base_value(b, if rf_ == 0 { "R" } else { "W" })
    });
}

#[test]
fn application_by_juxtaposition_and_the_empty_set() {
    let m = load("juxtaposition.cat");
    for name in ["a", "b", "c"] {
        same_as_plain(&m, name);
    }
    holds(&m, "d", |b| base_value(b, "W"));
}

#[test]
fn undefined_unless_flags_a_failed_test_and_never_makes_inconsistent() {
    let m = load("undefined_unless.cat");
    let mut raised = [false, false];
    for b in random_bases() {
        let racy = !base_value(&b, "po & rf").is_empty();
        let out = eval::evaluate(&m, &b);
        assert_eq!(out.flags.contains(&"Dr".to_string()), racy);
        assert!(!out.failed.contains(&"Dr".to_string()));
        raised[usize::from(racy)] = true;
    }
    assert_eq!(raised, [true, true], "both answers seen");
}

#[test]
fn the_bundled_library_is_found_after_the_models_directory() {
    let m = load("uses_stdlib.cat");
    holds(&m, "po-loc", |b| value(&m, b, "plain_po-loc"));
    holds(&m, "fre", |b| value(&m, b, "plain_fre"));
}

#[test]
fn include_directories_are_searched_in_order() {
    let dir = std::env::temp_dir().join(format!("mapcheck-cat-herd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("stdlib.cat"), "let po-loc = rf\n").unwrap();
    let opts = LoadOptions {
        include_dirs: vec![dir.clone()],
        ..LoadOptions::default()
    };
    let m = load_with("uses_stdlib.cat", &opts);
    holds(&m, "po-loc", |b| base_value(b, "rf"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn herd_names_need_the_herd_dialect() {
    let e = ir::load(&path("herd_dialect.cat")).unwrap_err();
    assert!(e.message.contains("unknown name `rfe`"), "{}", e.message);
    let opts = LoadOptions {
        dialect: Some(Dialect::Herd),
        ..LoadOptions::default()
    };
    let m = load_with("herd_dialect.cat", &opts);
    same_as_plain(&m, "a");
}

#[test]
fn bad_herd_constructs_are_errors_with_a_position() {
    let cases = [
        (
            "let a = match W with {} -> po || x ++ r -> x end",
            (1, 44),
            "bound by the `match`",
        ),
        ("let a = let f(x) = x in f(po)", (1, 13), "local function"),
        (
            "let a = if W = po then po else rf",
            (1, 16),
            "expected a set",
        ),
        ("let a = let rec x = po in x", (1, 9), "`let rec … in`"),
    ];
    for (text, at, says) in cases {
        let e = ir::load_str("bad.cat", text, None).expect_err(text);
        assert_eq!(e.line_col(), Some(at), "`{text}`: {}", e.render());
        assert!(e.message.contains(says), "`{text}`: {}", e.message);
    }
}
