//! No input makes the cat front end panic: random strings, random token soups and randomly
//! mutated valid models all give `Ok` or `Err` from `load_str`; errors render, and models that
//! load also evaluate on a random execution.
use mapcheck::eval::{self, Base, Value};
use mapcheck::ir;
use mapcheck::rel::{Rel, Set};
use proptest::prelude::*;
use proptest::sample::select;

const MODELS: &[&str] = &[
    include_str!("../data/cat/0001_sc.cat"),
    include_str!("../data/cat/0003_witness.cat"),
    include_str!("../data/cat/0004_rec.cat"),
    include_str!("../data/cat/lib/common.cat"),
    "let f(a, b) = a ; [W] ; b\nlet rec x = po | f(x, rf) and y = x \\ co\nflag ~empty y as y\nirreflexive x^-1 ; (x+)? as i",
    "PTX \"t\"\ncoherence partial\nlet s = domain(po) | range(rf) & ~W\nwith o from linearisations(F, po)\nempty [s] ; o ; [s] & id",
];

const TOKENS: &[&str] = &[
    "let",
    "rec",
    "and",
    "acyclic",
    "irreflexive",
    "empty",
    "flag",
    "as",
    "include",
    "show",
    "unshow",
    "with",
    "from",
    "coherence",
    "partial",
    "total",
    "linearisations",
    "domain",
    "range",
    "po",
    "rf",
    "co",
    "fr",
    "W",
    "R",
    "F",
    "_",
    "x",
    "f",
    "0",
    "(",
    ")",
    "[",
    "]",
    ",",
    "=",
    "|",
    "&",
    "\\",
    ";",
    "*",
    "~",
    "+",
    "?",
    "^",
    "-1",
    "^-1",
    "(*",
    "*)",
    "//",
    "\n",
    "\"a.cat\"",
    "\"",
    "'",
    "{",
    "}",
    "é",
    "po-loc",
    "x.y",
];

/// An arbitrary character position in `s` (a char boundary).
fn boundary(s: &str, seed: usize) -> usize {
    let cuts: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
    cuts[seed % cuts.len()]
}

#[derive(Clone, Debug)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, &'static str),
    Duplicate(usize, usize),
}

fn apply(text: &str, edit: &Edit) -> String {
    match *edit {
        Edit::Delete(a, len) => {
            let (a, b) = (boundary(text, a), boundary(text, a + len));
            let (a, b) = (a.min(b), a.max(b));
            format!("{}{}", &text[..a], &text[b..])
        }
        Edit::Insert(at, tok) => {
            let at = boundary(text, at);
            format!("{} {tok} {}", &text[..at], &text[at..])
        }
        Edit::Duplicate(a, len) => {
            let (a, b) = (boundary(text, a), boundary(text, a + len));
            let (a, b) = (a.min(b), a.max(b));
            format!("{}{}", &text[..b], &text[a..])
        }
    }
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 0usize..12).prop_map(|(a, l)| Edit::Delete(a, l)),
        (any::<usize>(), select(TOKENS)).prop_map(|(a, t)| Edit::Insert(a, t)),
        (any::<usize>(), 0usize..30).prop_map(|(a, l)| Edit::Duplicate(a, l)),
    ]
}

fn random_base(seed: u64) -> Base {
    let n = 4;
    let mut b = Base::empty(n);
    let mut bits = seed;
    for name in ["po", "rf", "co", "fr", "loc", "ext", "rmw"] {
        let pairs: Vec<(usize, usize)> = (0..n * n)
            .filter(|i| bits >> (i % 64) & 1 == 1)
            .map(|i| (i / n, i % n))
            .collect();
        b.set(name, Value::Rel(Rel::from_pairs(n, pairs)));
        bits = bits.rotate_left(7) ^ 0x5555;
    }
    for name in ["W", "R", "F", "SC"] {
        b.set(name, Value::Set(Set(u128::from(bits as u8 & 0xf))));
        bits = bits.rotate_left(3);
    }
    b
}

/// Load; render the error or evaluate the model. Must not panic.
fn exercise(text: &str, seed: u64) {
    match ir::load_str("fuzz.cat", text, None) {
        Ok(model) => {
            let _ = eval::evaluate(&model, &random_base(seed));
        }
        Err(e) => {
            let _ = e.render();
            let _ = e.to_string();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn random_strings_never_panic(text in "\\PC{0,120}", seed in any::<u64>()) {
        exercise(&text, seed);
    }

    #[test]
    fn token_soup_never_panics(tokens in proptest::collection::vec(select(TOKENS), 0..60), seed in any::<u64>()) {
        exercise(&tokens.join(" "), seed);
    }

    #[test]
    fn mutated_models_never_panic(model in select(MODELS), edits in proptest::collection::vec(edit(), 1..6), seed in any::<u64>()) {
        let text = edits.iter().fold(model.to_string(), |t, e| apply(&t, e));
        exercise(&text, seed);
    }
}

#[test]
fn the_seed_models_load() {
    for m in MODELS {
        if let Err(e) = ir::load_str("seed.cat", m, None) {
            assert!(e.message.contains("include"), "{}", e.render());
        }
    }
}

#[test]
fn exponential_inlining_is_refused_not_attempted() {
    let mut text = String::from("let d(x) = x | x\n");
    text.push_str(&format!(
        "let big = {}po{}\n",
        "d(".repeat(40),
        ")".repeat(40)
    ));
    let e = ir::load_str("big.cat", &text, None).unwrap_err();
    assert!(e.message.contains("too large"), "{}", e.message);
}

#[test]
fn long_flat_chains_load() {
    let text = format!("let u = {}\nacyclic u", vec!["po"; 400].join(" | "));
    assert!(ir::load_str("chain.cat", &text, None).is_ok());
}
