//! `check --test` (`search::confirm`): a given source test judged as the search judges its
//! solutions. A counterexample the search prints, given back, is confirmed for its axiom; the
//! bound-8 test the search found breaks Atomicity under Fig. 11's PTX mappings under every PTX
//! reading (the runner agrees: the source models forbid the outcome without a race, every PTX
//! model allows the compiled test); the bound-7 Coherence and bound-9 Atomicity tests are
//! counterexamples only where an RMW's write does not depend on its read (Dartagnan's reading,
//! `variant "dep-without-rmw"`), and not under NVIDIA's, the default; a test that is not a
//! counterexample, or whose program races, is said not to be one. The lifted execution of each
//! of the three races by itself, so the ASPLOS'19 Alloy artifact's check, which assumes the
//! lifted execution race-free, cannot find them.
use std::path::Path;

use mapcheck::coq::class::SearchedClass;
use mapcheck::encode::Backend;
use mapcheck::search::{self, Counterexample, NotOne, Options, TestVerdict};
use mapcheck::{litmus, mapping, runner, Model};

use crate::support::litmus::{
    assert_source_forbidden_and_compiled_allowed_by, counterexample_bounds, mapping_read_with,
    DEP_WITHOUT_RMW, PTX_READINGS,
};

const ATOMICITY_9: &str = "tests/data/search/rc11-ptx-artifact-atomicity-9.litmus";
const COHERENCE_7: &str = "tests/data/search/rc11-ptx-artifact-coherence-7.litmus";
const ATOMICITY_8: &str = "tests/data/search/rc11-ptx-artifact-atomicity-8.litmus";

/// The verdict of `test` against `map` for `axiom`.
fn verdict(map: &str, test: &litmus::Litmus, axiom: &str) -> TestVerdict {
    let m = mapping::load(Path::new(map)).expect("mapping loads");
    verdict_of(&m, test, axiom)
}

fn verdict_of(m: &mapcheck::Mapping, test: &litmus::Litmus, axiom: &str) -> TestVerdict {
    search::confirm(m, test, &[axiom.to_string()])
        .expect("confirm runs")
        .remove(0)
        .1
}

const FIG11_MAPPINGS: [&str; 3] = [
    "mappings/rc11-ptx-artifact.map",
    "mappings/rc11-ptx.map",
    "mappings/cuda-ptx.map",
];

/// Every counterexample the search finds (M4 at 3, M1 at 4, B1 and Fig. 11's SC rows at 5),
/// printed as the user gets it and read back, is in the searched class as `check --test` judges
/// it, and is confirmed as a counterexample to the same axiom, at the same size, with a cycle of
/// that axiom on the lift.
#[test]
fn a_counterexample_the_search_prints_is_confirmed_when_given_back() {
    for (map, bound) in [
        ("mappings/known-bugs/m4-release-acquire-gpu-narrowed.map", 3),
        ("mappings/known-bugs/m1-sc-load-fence-dropped.map", 4),
        ("mappings/known-bugs/b1-rmw-sc-release-dropped.map", 5),
        ("mappings/rc11-ptx.map", 5),
    ] {
        let m = mapping::load(Path::new(map)).expect("mapping loads");
        let report = search::check(&m, &Options::natural(bound, Backend::Cadical), &|_| {})
            .expect("search runs");
        let found: Vec<_> = report
            .axioms
            .iter()
            .filter_map(|a| a.counterexample.as_ref())
            .collect();
        assert!(!found.is_empty(), "{map}: no counterexample at {bound}");
        let class = SearchedClass::new(&m).expect("the searched class");
        for cx in found {
            let printed = litmus::print_c(&cx.found.source).expect("prints");
            let given = litmus::parse_str("given.litmus", &printed).expect("reads back");
            let breaches = class.breaches(&m, &given).expect("judged");
            assert!(breaches.is_empty(), "{map}: {breaches:?}\n{printed}");
            match verdict(map, &given, &cx.axiom) {
                TestVerdict::Counterexample(c) => {
                    assert_eq!((c.bound, c.axiom.as_str()), (cx.bound, cx.axiom.as_str()));
                    assert!(!c.cycle.is_empty(), "{map}: no cycle for {}", cx.axiom);
                }
                other => panic!("{map} {}: the search's test is {other:?}", cx.axiom),
            }
        }
    }
}

/// The bound-9 test is race-free (P0's plain store `*y = 2` runs only where no consistent source
/// execution goes, as in the bound-7 Coherence test) and its outcome forbidden by scoped RC11's
/// Atomicity. In PTX the SC RMW would read that store (load buffering) — a cycle `st.weak y`
/// →rf atom read →rmw atom write →rf `ld y` →ctrl `st.weak y`, which No-Thin-Air forbids when
/// an RMW's write depends on its read (NVIDIA's reading, the default) and allows when it does
/// not (Dartagnan's). So it is a counterexample to Atomicity under `rc11-ptx-artifact.map`,
/// `rc11-ptx.map` and `cuda-ptx.map` read with `dep-without-rmw` only.
#[test]
fn fig11_rows_break_atomicity_at_9_only_without_the_rmw_dependency() {
    let source = litmus::parse_file(Path::new(ATOMICITY_9)).expect("test reads");
    for map in FIG11_MAPPINGS {
        assert_source_forbidden_and_compiled_allowed_by(map, &source, &DEP_WITHOUT_RMW);
        assert!(
            matches!(
                verdict(map, &source, "Atomicity"),
                TestVerdict::NotOne(NotOne::NoLiftBreaksIt)
            ),
            "{map}: a counterexample under NVIDIA's reading"
        );
        let dat3m = mapping_read_with(map, "dep-without-rmw");
        match verdict_of(&dat3m, &source, "Atomicity") {
            TestVerdict::Counterexample(c) => {
                assert_eq!((c.bound, c.axiom.as_str()), (9, "Atomicity"));
                assert!(!c.cycle.is_empty(), "{map}: no Atomicity cycle");
            }
            other => panic!("{map}: {other:?}"),
        }
    }
}

/// The bound-8 test the full bound-8 search of `rc11-ptx-artifact.map` found (2026-11-28, shape
/// [5,3]; `docs/results/2026-11-28-artifact-bound8-one-machine/`) breaks scoped RC11's Coherence
/// and Atomicity, not SC, under each of Fig. 11's PTX mappings, and the runner agrees: P1's RMW
/// reads P0's CTA-scoped release RMW across CTAs, as P0's own SC RMW does — in PTX the two are
/// not morally strong, so nothing orders them; in every consistent source execution where P1's
/// RMW runs it is ordered after P0's (it reads P0's GPU-scoped SC RMW, or the execution is
/// inconsistent), so the program is race-free.
#[test]
fn the_bound8_search_finds_an_atomicity_counterexample_the_runner_confirms() {
    let source = litmus::parse_file(Path::new(ATOMICITY_8)).expect("test reads");
    let expected = [("Coherence", Some(8)), ("Atomicity", Some(8)), ("SC", None)]
        .map(|(a, b)| (a.to_string(), b));
    for map in FIG11_MAPPINGS {
        assert_source_forbidden_and_compiled_allowed_by(map, &source, &PTX_READINGS);
        let m = mapping::load(Path::new(map)).expect("mapping loads");
        assert_eq!(counterexample_bounds(&m, &source), expected, "{map}");
        let dat3m = mapping_read_with(map, "dep-without-rmw");
        assert_eq!(
            counterexample_bounds(&dat3m, &source),
            expected,
            "{map}, Dartagnan's reading"
        );
    }
}

/// The bound-7 Coherence test is a counterexample under Dartagnan's reading only, and there to
/// Coherence only (its RMW reads a store that is coherence-after its own write, which leaves
/// Atomicity intact), and to SC nowhere — under each of Fig. 11's PTX mappings. Under NVIDIA's
/// reading (the default) the compiled test's outcome needs the cycle `st.weak y` →rf atom read
/// →rmw atom write →rf `ld y` →ctrl `st.weak y`, which No-Thin-Air forbids.
#[test]
fn the_coherence_test_is_a_counterexample_to_coherence_only_without_the_rmw_dependency() {
    let source = litmus::parse_file(Path::new(COHERENCE_7)).unwrap();
    for map in FIG11_MAPPINGS {
        assert_source_forbidden_and_compiled_allowed_by(map, &source, &DEP_WITHOUT_RMW);
        let m = mapping::load(Path::new(map)).unwrap();
        let none = [("Coherence", None), ("Atomicity", None), ("SC", None)];
        assert_eq!(
            counterexample_bounds(&m, &source),
            none.map(|(a, b)| (a.to_string(), b)),
            "{map}"
        );
        let dat3m = mapping_read_with(map, "dep-without-rmw");
        let coherence = [("Coherence", Some(7)), ("Atomicity", None), ("SC", None)];
        assert_eq!(
            counterexample_bounds(&dat3m, &source),
            coherence.map(|(a, b)| (a.to_string(), b)),
            "{map}, Dartagnan's reading"
        );
    }
}

/// The flags the source model raises on `cx`'s lifted source execution itself (its `rf` and its
/// source coherence order), consistent or not.
fn flags_of_the_lift(source_model: &Model, cx: &Counterexample) -> Vec<String> {
    let mut flags = None;
    let opts = runner::Options::default();
    runner::for_each_candidate(source_model, &cx.found.source, &opts, &mut |c| {
        let keys = search::execution_keys(c.execution);
        if search::keyed(&c.execution.rf, &keys) == cx.found.source_rf
            && search::keyed(&c.execution.co, &keys) == cx.found.source_mo
        {
            flags = Some(c.judgement.flags.clone());
        }
    })
    .expect("the runner enumerates the source test");
    flags.expect("the runner has the lifted execution")
}

/// The three counterexamples to `rc11-ptx-artifact.map` (Coherence at 7 and Atomicity at 9 under
/// Dartagnan's reading, Atomicity at 8 under every reading) are race-free programs whose lifted
/// execution races: scoped RC11 raises its race flag on the lift. The ASPLOS'19 artifact's check assumes `not racy` of that one execution
/// (`compile_src11_ptx.als`), not of the program, so it excludes all three at every bound
/// (decision 002, "The Alloy artifact asks another question").
#[test]
fn each_artifact_counterexample_races_on_its_lift() {
    let m = mapping_read_with("mappings/rc11-ptx-artifact.map", "dep-without-rmw");
    for (test, axiom) in [
        (COHERENCE_7, "Coherence"),
        (ATOMICITY_8, "Atomicity"),
        (ATOMICITY_9, "Atomicity"),
    ] {
        let source = litmus::parse_file(Path::new(test)).expect("test reads");
        let cx = match verdict_of(&m, &source, axiom) {
            TestVerdict::Counterexample(cx) => cx,
            other => panic!("{test}: {other:?}"),
        };
        assert_eq!(flags_of_the_lift(&m.source, &cx), ["data-race"], "{test}");
    }
}

/// A program that races is no counterexample, whatever its compiled code does: the bound-9 test
/// with P0's first load made plain races with P1's release store.
#[test]
fn a_racy_program_is_not_a_counterexample() {
    let text = std::fs::read_to_string(ATOMICITY_9).unwrap().replace(
        "int r0 = atomic_load_explicit(x, memory_order_relaxed, thread_scope_block);",
        "int r0 = *x;",
    );
    let racy = litmus::parse_str("racy.litmus", &text).unwrap();
    assert!(matches!(
        verdict("mappings/rc11-ptx-artifact.map", &racy, "Atomicity"),
        TestVerdict::NotOne(NotOne::Racy)
    ));
}
