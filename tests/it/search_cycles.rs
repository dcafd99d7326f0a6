//! The cycle a counterexample shows: the violated axiom's cycle on the runner's source execution
//! of the solution, in source keys (`search::validate::cycle`).
use std::path::Path;

use mapcheck::encode::Backend;
use mapcheck::mapping::{self, Mapping};
use mapcheck::search::validate::{self, CycleStep};
use mapcheck::search::{self, Counterexample, EventKey, Options};

/// The counterexample the search finds for `axiom` of `map` at `bound`.
fn counterexample(map: &str, bound: usize, axiom: &str) -> (Mapping, Counterexample) {
    let m = mapping::load(Path::new(map)).expect("mapping loads");
    let opts = Options {
        axioms: vec![axiom.to_string()],
        first: true,
        ..Options::natural(bound, Backend::BatSat)
    };
    let report = search::check(&m, &opts, &|_| {}).expect("search runs");
    let cx = report.axioms.into_iter().find_map(|a| a.counterexample);
    (
        m,
        cx.unwrap_or_else(|| panic!("{map}: no counterexample up to {bound}")),
    )
}

fn show(cycle: &[CycleStep]) -> String {
    let key = |k: &EventKey| match k {
        EventKey::Init(loc) => format!("init {loc}"),
        EventKey::Event(t, i) => format!("P{t}.{i}"),
    };
    cycle
        .iter()
        .map(|s| format!("{} -{}-> {}", key(&s.from), s.via, key(&s.to)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether `step`'s pair is one of the relation its label ends with, read off the solution in
/// source keys: `sb` (same thread, earlier), `mo`, or `rb` (read before a write `mo`-after the
/// one it reads from).
fn holds(cx: &Counterexample, step: &CycleStep) -> bool {
    let f = &cx.found;
    let pair = (step.from.clone(), step.to.clone());
    match step.via.rsplit(" & ").next() {
        Some("sb") => {
            matches!(pair, (EventKey::Event(t, i), EventKey::Event(u, j)) if t == u && i < j)
        }
        Some("mo") => f.source_mo.contains(&pair),
        Some("rb") => f
            .source_rf
            .iter()
            .any(|(w, r)| *r == step.from && f.source_mo.contains(&(w.clone(), step.to.clone()))),
        _ => false,
    }
}

/// M1 (an SC load compiled without its leading fence) breaks scoped RC11's `acyclic incl & psc`
/// on a store-buffering-like test; its cycle goes through scope-inclusive `sb`, `mo` and `rb`
/// edges, round the threads and back to where it starts.
#[test]
fn m1_store_buffering_shows_its_sc_cycle() {
    let (m, cx) = counterexample("mappings/known-bugs/m1-sc-load-fence-dropped.map", 4, "SC");
    let cycle = validate::cycle(&m, &cx.found, "SC").expect("the cycle is explained");
    let text = show(&cycle);
    assert!(cycle.len() >= 2, "{text}");
    assert_eq!(
        show(&cx.cycle),
        text,
        "the check reports the cycle the evaluator explains"
    );
    assert_eq!(
        cycle.first().map(|s| &s.from),
        cycle.last().map(|s| &s.to),
        "{text}"
    );
    assert!(cycle.windows(2).all(|w| w[0].to == w[1].from), "{text}");
    assert!(cycle.iter().all(|s| s.from != s.to), "{text}");
    assert!(cycle.iter().all(|s| s.via.starts_with("incl & ")), "{text}");
    assert!(cycle.iter().all(|s| holds(&cx, s)), "{text}");
    let threads = |k: &EventKey| match k {
        EventKey::Event(t, _) => Some(*t),
        EventKey::Init(_) => None,
    };
    let mut visited: Vec<Option<usize>> = cycle.iter().map(|s| threads(&s.from)).collect();
    visited.sort();
    visited.dedup();
    assert_eq!(visited, [Some(0), Some(1)], "{text}");
}

/// An axiom the lifted execution satisfies, or one the source model lacks, has no cycle.
#[test]
fn only_a_violated_axiom_has_a_cycle() {
    let (m, cx) = counterexample("mappings/known-bugs/m1-sc-load-fence-dropped.map", 4, "SC");
    assert!(validate::cycle(&m, &cx.found, "Atomicity").is_err());
    assert!(validate::cycle(&m, &cx.found, "Coherense").is_err());
}
