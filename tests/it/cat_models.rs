//! Loading and evaluating small cat models (tests/data/cat/*.cat) on hand-built executions.
use std::path::Path;

use mapcheck::eval::{self, Base, Value};
use mapcheck::ir::{self, CheckKind, CoKind, DefBody, Step};
use mapcheck::rel::{Rel, Set};

fn load(name: &str) -> ir::Model {
    let path = Path::new("tests/data/cat").join(name);
    ir::load(&path).unwrap_or_else(|e| panic!("{}", e.render()))
}

fn rel(n: usize, pairs: &[(usize, usize)]) -> Value {
    Value::Rel(Rel::from_pairs(n, pairs.iter().copied()))
}

fn set(elems: &[usize]) -> Value {
    Value::Set(Set::from_iter(elems.iter().copied()))
}

/// Store buffering, optionally with a fence between each thread's write and read.
/// Events: T0: Wx=1 [F] Ry=0; T1: Wy=1 [F] Rx=0; then the initial writes of x and y.
fn store_buffering(fenced: bool) -> Base {
    let (wx, ry, wy, rx, f0, f1, ix, iy) = if fenced {
        (0, 2, 3, 5, 1, 4, 6, 7)
    } else {
        (0, 1, 2, 3, 8, 8, 4, 5)
    };
    let n = if fenced { 8 } else { 6 };
    let mut b = Base::empty(n);
    let t0: Vec<usize> = if fenced {
        vec![wx, f0, ry]
    } else {
        vec![wx, ry]
    };
    let t1: Vec<usize> = if fenced {
        vec![wy, f1, rx]
    } else {
        vec![wy, rx]
    };
    let po: Vec<(usize, usize)> = [&t0, &t1]
        .iter()
        .flat_map(|t| (0..t.len()).flat_map(move |i| (i + 1..t.len()).map(move |j| (t[i], t[j]))))
        .collect();
    let thread = |e: usize| {
        if t0.contains(&e) {
            0
        } else if t1.contains(&e) {
            1
        } else {
            2 + e
        }
    };
    let all: Vec<(usize, usize)> = (0..n).flat_map(|a| (0..n).map(move |b| (a, b))).collect();
    let ext: Vec<(usize, usize)> = all
        .iter()
        .copied()
        .filter(|&(a, b)| thread(a) != thread(b))
        .collect();
    let int: Vec<(usize, usize)> = all
        .iter()
        .copied()
        .filter(|&(a, b)| thread(a) == thread(b))
        .collect();
    let (x, y) = ([wx, rx, ix], [wy, ry, iy]);
    let loc: Vec<(usize, usize)> = all
        .iter()
        .copied()
        .filter(|&(a, b)| (x.contains(&a) && x.contains(&b)) || (y.contains(&a) && y.contains(&b)))
        .collect();
    b.set("po", rel(n, &po));
    b.set("rf", rel(n, &[(iy, ry), (ix, rx)]));
    b.set("co", rel(n, &[(ix, wx), (iy, wy)]));
    b.set("fr", rel(n, &[(ry, wy), (rx, wx)]));
    b.set("ext", rel(n, &ext));
    b.set("int", rel(n, &int));
    b.set("loc", rel(n, &loc));
    b.set("W", set(&[wx, wy, ix, iy]));
    b.set("R", set(&[ry, rx]));
    b.set("IW", set(&[ix, iy]));
    if fenced {
        b.set("F", set(&[f0, f1]));
    }
    b
}

#[test]
fn sc_forbids_store_buffering() {
    let m = load("0001_sc.cat");
    assert_eq!(
        m.title.as_deref(),
        Some("SC: sequential consistency (Lamport 1979), the smallest useful model")
    );
    let out = eval::evaluate(&m, &store_buffering(false));
    assert!(!out.consistent);
    assert_eq!(out.failed, ["sc"]);
}

#[test]
fn tso_allows_store_buffering_but_not_with_fences() {
    let m = load("0002_tso.cat");
    let out = eval::evaluate(&m, &store_buffering(false));
    assert!(out.consistent, "{out:?}");
    assert!(out.failed.is_empty());
    let out = eval::evaluate(&m, &store_buffering(true));
    assert!(!out.consistent);
    assert_eq!(out.failed, ["tso"]);
}

#[test]
fn included_definitions_come_first_with_their_text_and_origin() {
    let m = load("0002_tso.cat");
    let names: Vec<&str> = m.defs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        ["po-loc", "rfe", "coe", "fre", "com", "fencerel", "ppo", "mfence"]
    );
    assert_eq!(m.defs[0].source_text, "let po-loc = po & loc");
    assert_eq!(m.defs[0].origin, "tests/data/cat/lib/common.cat:2");
    assert!(matches!(&m.defs[5].body, DefBody::Function { params } if params == &["B"]));
    assert_eq!(m.defs[5].kind, None);
    assert_eq!(m.defs[7].source_text, "let mfence = fencerel(F)");
    assert_eq!(m.defs[7].origin, "tests/data/cat/0002_tso.cat:9");
    assert_eq!(
        m.title.as_deref(),
        Some("x86-TSO (Owens, Sarkar, Sewell 2009), a small test model")
    );
}

#[test]
fn checks_are_listed_in_order_with_their_text() {
    let m = load("0002_tso.cat");
    let checks: Vec<(CheckKind, &str)> =
        m.checks.iter().map(|c| (c.kind, c.name.as_str())).collect();
    assert_eq!(
        checks,
        [
            (CheckKind::Acyclic, "sc-per-location"),
            (CheckKind::Empty, "atomic"),
            (CheckKind::Acyclic, "tso")
        ]
    );
    assert_eq!(m.checks[1].source_text, "empty rmw & (fre ; coe) as atomic");
}

#[test]
fn used_builtins_are_those_reached_from_definitions_and_checks() {
    let m = load("0002_tso.cat");
    let used: Vec<&str> = m.used_builtins().into_iter().collect();
    assert_eq!(
        used,
        ["F", "R", "W", "_", "co", "ext", "fr", "loc", "po", "rf", "rmw"]
    );
    let sc = load("0001_sc.cat");
    assert_eq!(
        sc.used_builtins().into_iter().collect::<Vec<_>>(),
        ["co", "fr", "po", "rf"]
    );
}

#[test]
fn functions_are_inlined_in_the_scope_of_their_definition() {
    // `f` sees the built-in `po`, not the later `po` that shadows it.
    let text = "let f(x) = x ; po\nlet po = rf\nlet g = f(co)";
    let m = ir::load_str("scope.cat", text, None).unwrap();
    let mut b = Base::empty(3);
    b.set("po", rel(3, &[(1, 2)]));
    b.set("rf", rel(3, &[(1, 0)]));
    b.set("co", rel(3, &[(0, 1)]));
    assert_eq!(eval::evaluate_named(&m, &b, "g"), Some(rel(3, &[(0, 2)])));
    assert_eq!(eval::evaluate_named(&m, &b, "po"), Some(rel(3, &[(1, 0)])));
    assert_eq!(eval::evaluate_named(&m, &b, "f"), None);
    assert_eq!(eval::evaluate_named(&m, &b, "nothing"), None);
}

#[test]
fn functions_are_polymorphic_in_their_arguments_kinds() {
    let text = "let both(a, b) = a | b\nlet s = both(W, R)\nlet r = both(po, rf)";
    let m = ir::load_str("poly.cat", text, None).unwrap();
    assert_eq!(m.defs[m.def_named("s").unwrap()].kind, Some(ir::Kind::Set));
    assert_eq!(m.defs[m.def_named("r").unwrap()].kind, Some(ir::Kind::Rel));
}

#[test]
fn zero_takes_the_kind_its_context_needs() {
    let text = "let z = 0\nlet s = z | W\nlet r = z ; po\nempty z as e";
    let m = ir::load_str("zero.cat", text, None).unwrap_or_else(|e| panic!("{}", e.render()));
    assert_eq!(m.defs[m.def_named("s").unwrap()].kind, Some(ir::Kind::Set));
    assert_eq!(m.defs[m.def_named("r").unwrap()].kind, Some(ir::Kind::Rel));
    assert!(eval::evaluate(&m, &Base::empty(2)).consistent);
}

#[test]
fn recursive_closure_equals_plus() {
    let m = load("0004_rec.cat");
    assert!(m
        .steps
        .iter()
        .any(|s| matches!(s, Step::Fixpoint(ids) if ids.len() == 2)));
    for po in [
        vec![(0, 1), (1, 2), (2, 3)],
        vec![(0, 1), (1, 0), (2, 3), (3, 4)],
        vec![(4, 3), (3, 2), (2, 1), (1, 0), (0, 4)],
    ] {
        let mut b = Base::empty(5);
        b.set("po", rel(5, &po));
        let tc = eval::evaluate_named(&m, &b, "tc").unwrap();
        assert_eq!(tc, eval::evaluate_named(&m, &b, "plus").unwrap());
        assert_eq!(
            tc,
            Value::Rel(Rel::from_pairs(5, po.iter().copied()).plus())
        );
    }
}

#[test]
fn mutual_recursion_reaches_the_least_fixpoint() {
    // a = rf | a;po;rf, so a = rf ; (po ; rf)*.
    let m = load("0004_rec.cat");
    let closed = ir::load_str("closed.cat", "let a = rf ; (po ; rf)*", None).unwrap();
    let mut b = Base::empty(4);
    b.set("rf", rel(4, &[(0, 1), (2, 3)]));
    b.set("po", rel(4, &[(1, 2), (3, 0)]));
    assert_eq!(
        eval::evaluate_named(&m, &b, "a"),
        eval::evaluate_named(&closed, &b, "a")
    );
    let a = eval::evaluate_named(&m, &b, "a").unwrap();
    assert!(a.as_rel().unwrap().contains(0, 3) && a.as_rel().unwrap().contains(2, 1));
}

#[test]
fn recursive_sets_are_recognised_as_sets() {
    let text = "let rec reach = W | range([reach] ; po)";
    let m = ir::load_str("reach.cat", text, None).unwrap_or_else(|e| panic!("{}", e.render()));
    assert_eq!(m.defs[0].kind, Some(ir::Kind::Set));
    let mut b = Base::empty(4);
    b.set("W", set(&[1]));
    b.set("po", rel(4, &[(0, 1), (1, 2), (2, 3)]));
    assert_eq!(eval::evaluate_named(&m, &b, "reach"), Some(set(&[1, 2, 3])));
}

#[test]
fn kinds_flow_through_a_recursive_group() {
    // `b` has no shape of its own: it takes `a`'s kind, which `W` makes a set.
    let text = "let rec a = b | W | range([a] ; po) and b = a";
    let m = ir::load_str("group.cat", text, None).unwrap_or_else(|e| panic!("{}", e.render()));
    assert_eq!(m.defs[0].kind, Some(ir::Kind::Set));
    assert_eq!(m.defs[1].kind, Some(ir::Kind::Set));
    let mut b = Base::empty(3);
    b.set("W", set(&[0]));
    b.set("po", rel(3, &[(0, 1)]));
    assert_eq!(eval::evaluate_named(&m, &b, "b"), Some(set(&[0, 1])));
}

/// Three SC fences and the communication edges between them.
fn fences(n: usize, po: &[(usize, usize)], rf: &[(usize, usize)]) -> Base {
    let mut b = Base::empty(n);
    b.set("F", set(&[0, 1, 2]));
    b.set("SC", set(&[0, 1, 2]));
    b.set("po", rel(n, po));
    b.set("rf", rel(n, rf));
    b
}

#[test]
fn witness_order_is_chosen_to_agree_with_communication() {
    let m = load("0003_witness.cat");
    assert_eq!(m.coherence, CoKind::Partial);
    assert_eq!(m.witnesses[0].name, "sc");
    assert_eq!(
        m.witnesses[0].source_text,
        "with sc from linearisations(fsc, po)"
    );
    // Only 0 < 1 < 2 of the six orders is acyclic with rf's 0 -> 1 -> 2.
    let b = fences(3, &[], &[(0, 1), (1, 2)]);
    let out = eval::evaluate(&m, &b);
    assert!(out.consistent, "{out:?}");
    assert_eq!(
        eval::evaluate_named(&m, &b, "sc"),
        Some(rel(3, &[(0, 1), (0, 2), (1, 2)]))
    );
}

#[test]
fn witness_with_no_passing_choice_is_inconsistent() {
    let m = load("0003_witness.cat");
    let out = eval::evaluate(&m, &fences(3, &[], &[(0, 1), (1, 2), (2, 0)]));
    assert!(!out.consistent);
    assert_eq!(out.failed, ["fence-sc"]);
}

#[test]
fn witness_with_no_possible_value_is_reported_by_name() {
    let m = load("0003_witness.cat");
    let out = eval::evaluate(&m, &fences(3, &[(0, 1), (1, 0)], &[]));
    assert!(!out.consistent);
    assert_eq!(out.failed, ["sc"]);
    assert_eq!(
        eval::evaluate_named(&m, &fences(3, &[(0, 1), (1, 0)], &[]), "sc"),
        None
    );
}

#[test]
fn witness_contains_the_given_order() {
    let m = load("0003_witness.cat");
    // po says 2 before 0; rf then forces 2 < 0 < 1.
    let b = fences(3, &[(2, 0)], &[(0, 1)]);
    assert!(eval::evaluate(&m, &b).consistent);
    assert_eq!(
        eval::evaluate_named(&m, &b, "sc"),
        Some(rel(3, &[(2, 0), (2, 1), (0, 1)]))
    );
}

#[test]
fn flags_are_raised_without_making_executions_inconsistent() {
    let text = "flag ~empty rf as has-rf\nflag empty co as no-co\nflag acyclic po as po-acyclic";
    let m = ir::load_str("flags.cat", text, None).unwrap();
    let mut b = Base::empty(2);
    b.set("rf", rel(2, &[(0, 1)]));
    b.set("co", rel(2, &[(0, 1)]));
    let out = eval::evaluate(&m, &b);
    assert!(out.consistent);
    assert_eq!(out.flags, ["has-rf", "po-acyclic"]);
}

#[test]
fn every_failing_check_is_named_and_negation_inverts_the_test() {
    let text =
        "acyclic po as a\nirreflexive po\nempty rf as e\n~empty rf as ne\n~acyclic po as cyc";
    let m = ir::load_str("fails.cat", text, None).unwrap();
    let mut b = Base::empty(2);
    b.set("po", rel(2, &[(0, 0)]));
    let out = eval::evaluate(&m, &b);
    assert!(!out.consistent);
    assert_eq!(out.failed, ["a", "irreflexive#2", "ne"]);
}

#[test]
fn includes_in_text_models_resolve_in_the_given_directory() {
    let text = "include \"lib/common.cat\"\nacyclic po | com as sc";
    let m = ir::load_str("inline.cat", text, Some(Path::new("tests/data/cat"))).unwrap();
    assert_eq!(m.checks[0].name, "sc");
    let e = ir::load_str("inline.cat", text, None).unwrap_err();
    assert!(e.message.contains("given as text"), "{}", e.message);
}

#[test]
fn a_base_reports_names_it_lacks() {
    let m = load("0001_sc.cat");
    let mut b = Base {
        n: 2,
        ..Base::default()
    };
    b.rels.insert("po", Rel::empty(2));
    assert_eq!(b.missing(&m), ["rf", "co", "fr"]);
    assert!(Base::empty(2).missing(&m).is_empty());
}

#[test]
fn a_long_let_chain_resolves_each_name_to_its_latest_binding() {
    // 2,000 `let`s, each reading the one before and a vocabulary name: every name resolves to
    // its latest binding (`r1` is bound twice), and each definition's origin is its own line.
    let mut text = String::from("let r1 = rf\nlet r1 = po\n");
    for i in 2..=2000 {
        text.push_str(&format!("let r{i} = r{} | rf\n", i - 1));
    }
    let m = ir::load_str("chain.cat", &text, None).unwrap_or_else(|e| panic!("{}", e.render()));
    assert_eq!(m.defs.len(), 2001);
    assert_eq!(m.defs[2000].origin, "chain.cat:2001");
    let mut b = Base::empty(3);
    b.set("po", rel(3, &[(0, 1)]));
    b.set("rf", rel(3, &[(1, 2)]));
    let chained = rel(3, &[(0, 1), (1, 2)]);
    assert_eq!(eval::evaluate_named(&m, &b, "r2000"), Some(chained));
    assert_eq!(eval::evaluate_named(&m, &b, "r1"), Some(rel(3, &[(0, 1)])));
}

#[test]
fn a_let_rec_group_and_a_function_see_the_bindings_of_their_own_scope() {
    // The group's names are unbound again between its rounds of kind inference, and a
    // function's body sees the scope of its definition, not a later binding of the same name.
    let text =
        "let s = co\nlet f(x) = x | s\nlet s = rf\nlet rec s = po | s ; s\nlet g = f(0)\nlet h = s";
    let m = ir::load_str("scope.cat", text, None).unwrap_or_else(|e| panic!("{}", e.render()));
    let mut b = Base::empty(3);
    b.set("po", rel(3, &[(0, 1), (1, 2)]));
    b.set("co", rel(3, &[(2, 0)]));
    assert_eq!(
        eval::evaluate_named(&m, &b, "h"),
        Some(rel(3, &[(0, 1), (1, 2), (0, 2)]))
    );
    assert_eq!(eval::evaluate_named(&m, &b, "g"), Some(rel(3, &[(2, 0)])));
}
