//! cat syntax: herd's operator precedences and the accepted statement forms.
//!
//! Precedence is tested by meaning: each unparenthesised text must evaluate, on many random
//! executions, to the same value as its parenthesisation under herd's precedences, and to a
//! different value than the other parenthesisation on at least one of them (so the test can fail).
use mapcheck::eval::{self, Base, Value};
use mapcheck::ir;

use crate::support::random::{Rng, N};

fn random_bases(count: usize) -> Vec<Base> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    (0..count)
        .map(|_| {
            let mut b = Base::empty(N);
            for name in ["po", "rf", "co", "fr"] {
                b.set(name, Value::Rel(rng.rel()));
            }
            for name in ["W", "R", "F", "SC"] {
                b.set(name, Value::Set(rng.set()));
            }
            b
        })
        .collect()
}

fn value_of(expr: &str, base: &Base) -> Value {
    let model = ir::load_str("expr.cat", &format!("let x = {expr}"), None)
        .unwrap_or_else(|e| panic!("{}", e.render()));
    eval::evaluate_named(&model, base, "x").expect("x is defined")
}

/// `text` means `herd`, and does not mean `other`.
fn parses_as(text: &str, herd: &str, other: Option<&str>) {
    let bases = random_bases(60);
    for b in &bases {
        assert_eq!(
            value_of(text, b),
            value_of(herd, b),
            "`{text}` should mean `{herd}`"
        );
    }
    if let Some(other) = other {
        assert!(
            bases
                .iter()
                .any(|b| value_of(text, b) != value_of(other, b)),
            "test cannot tell `{herd}` from `{other}`"
        );
    }
}

#[test]
fn union_is_looser_than_sequence() {
    parses_as("po | rf ; co", "po | (rf ; co)", Some("(po | rf) ; co"));
    parses_as("po ; rf | co", "(po ; rf) | co", Some("po ; (rf | co)"));
}

#[test]
fn sequence_is_looser_than_difference() {
    parses_as("po ; rf \\ co", "po ; (rf \\ co)", Some("(po ; rf) \\ co"));
    parses_as("po \\ rf ; co", "(po \\ rf) ; co", Some("po \\ (rf ; co)"));
}

#[test]
fn difference_is_looser_than_intersection() {
    parses_as("po \\ rf & co", "po \\ (rf & co)", Some("(po \\ rf) & co"));
    // (a & b) \ c and a & (b \ c) are equal sets of pairs, so only the reading is checked here.
    parses_as("po & rf \\ co", "(po & rf) \\ co", None);
}

#[test]
fn difference_associates_to_the_left() {
    parses_as(
        "po \\ rf \\ co",
        "(po \\ rf) \\ co",
        Some("po \\ (rf \\ co)"),
    );
}

#[test]
fn union_is_looser_than_intersection() {
    parses_as("po | rf & co", "po | (rf & co)", Some("(po | rf) & co"));
    parses_as("po & rf | co", "(po & rf) | co", Some("po & (rf | co)"));
}

#[test]
fn product_binds_tighter_than_intersection_and_sequence() {
    parses_as("W * R & po", "(W * R) & po", None);
    parses_as("po & W * R", "po & (W * R)", None);
    parses_as("W * R ; po", "(W * R) ; po", None);
    parses_as("W*R", "W * R", None);
}

#[test]
fn complement_binds_tighter_than_binary_operators() {
    parses_as("~po ; rf", "(~po) ; rf", Some("~(po ; rf)"));
    parses_as("~W * R", "(~W) * R", Some("~(W * R)"));
    parses_as("W * ~R", "W * (~R)", None);
}

#[test]
fn postfix_operators_bind_tightest() {
    parses_as("po ; rf^-1", "po ; (rf^-1)", Some("(po ; rf)^-1"));
    parses_as("po | rf+", "po | (rf+)", Some("(po | rf)+"));
    parses_as("po ; rf*", "po ; (rf*)", Some("(po ; rf)*"));
    parses_as("po ; rf?", "po ; (rf?)", Some("(po ; rf)?"));
    parses_as("~po+", "~(po+)", Some("(~po)+"));
    parses_as("po+^-1", "(po+)^-1", None);
}

#[test]
fn star_before_an_operand_is_a_product_otherwise_a_closure() {
    parses_as("po* ; rf", "(po*) ; rf", None);
    parses_as("[W] ; po* ; [R]", "[W] ; (po*) ; [R]", None);
    parses_as("(W*R)", "W * R", None);
}

#[test]
fn brackets_domain_range_and_zero() {
    parses_as("[W] ; po", "(W * E) & id ; po", None);
    parses_as("domain(po) | range(rf)", "domain(po) | range(rf)", None);
    parses_as("po | 0", "po", None);
    parses_as("W | 0", "W", None);
    parses_as("~0 & W", "W", None);
}

#[test]
fn every_statement_form_is_accepted() {
    let text = r#"PTX "statement forms"
        // line comment
        # herd's other line comment
        (* block (* nested *) comment *)
        coherence partial
        let a = po
        let f(x, y) = x ; y
        let g() = rf
        let b = f(a, g()) and c = a
        let rec d = po | (d ; po) and e = d
        with lin from linearisations(F, po)
        acyclic a
        irreflexive b as irr
        empty c & id as e-check
        flag ~empty d as flagged
        ~irreflexive po as neg
        flag acyclic lin
        show a, b as shown
        unshow a
    "#;
    let m = ir::load_str("forms.cat", text, None).unwrap_or_else(|e| panic!("{}", e.render()));
    assert_eq!(m.title.as_deref(), Some("statement forms"));
    assert_eq!(m.coherence, ir::CoKind::Partial);
    let names: Vec<&str> = m.checks.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["acyclic#1", "irr", "e-check", "flagged", "neg", "acyclic#6"]
    );
    assert!(m.checks[3].flag && m.checks[3].negated);
    assert!(!m.checks[4].flag && m.checks[4].negated);
    assert_eq!(m.checks[3].source_text, "flag ~empty d as flagged");
    assert_eq!(m.witnesses.len(), 1);
}

#[test]
fn titles_take_herds_four_forms() {
    let title = |t: &str| ir::load_str("t.cat", t, None).unwrap().title;
    assert_eq!(title("\"quoted\" let a = po"), Some("quoted".into()));
    assert_eq!(title("PTX let a = po"), Some("PTX".into()));
    assert_eq!(
        title("AArch64 Armv8 let a = po"),
        Some("AArch64 Armv8".into())
    );
    assert_eq!(title("PTX \"PTX v6\" let a = po"), Some("PTX v6".into()));
    assert_eq!(title("let a = po"), None);
}

#[test]
fn coherence_stays_usable_as_a_check_name() {
    let m = ir::load_str("t.cat", "acyclic po | rf as coherence\nlet x = po", None).unwrap();
    assert_eq!(m.checks[0].name, "coherence");
    assert_eq!(m.coherence, ir::CoKind::Total);
}
