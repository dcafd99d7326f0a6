//! Outcome selection on counterexamples of the mapping check: the selected condition names a
//! state of every observed register and location, the target model allows it and the source
//! model forbids it (both judged again by the runner on the rewritten tests).
//!
//! `tests/data/gpu/0004_b1_*` and `0005_m1_*` are the files `mapcheck check` writes for B1 (bound
//! 4, Coherence, its target read with `variant "dep-without-rmw"`: under the default reading of
//! PTX the outcome is forbidden, decision 014) and M1 (bound 4, SC) with `--first`.
use std::path::Path;

use mapcheck::gpu::outcome::{select, Judges, Selection};
use mapcheck::litmus::{self, Litmus, Prop, Quantifier};
use mapcheck::{mapping, runner, Mapping};

use crate::support::litmus::mapping_read_with;

/// B1 with its target read as Dartagnan reads PTX, the reading its 4-event files were found under.
fn b1() -> Mapping {
    mapping_read_with(
        "mappings/known-bugs/b1-rmw-sc-release-dropped.map",
        "dep-without-rmw",
    )
}

fn load(name: &str) -> Litmus {
    litmus::parse_file(&Path::new("tests/data/gpu").join(name)).unwrap()
}

/// Select the target test's outcome against the mapping's two models, and check the result
/// with the runner.
fn select_counterexample(m: &Mapping, prefix: &str) -> Selection {
    let source = load(&format!("{prefix}_source.litmus"));
    let target = load(&format!("{prefix}_target.litmus"));
    let judges = Judges {
        target: Some(&m.target),
        source: Some((&m.source, &source)),
    };
    let s = select(&target, &judges).unwrap();
    assert!(!s.witnesses.is_empty(), "{:?}", s.notes);
    let opts = runner::Options::default();
    let allowed = runner::run(&m.target, &s.test, &opts).unwrap();
    assert!(
        allowed.validated,
        "the target model must allow the selected outcome"
    );
    let mut judged_source = source.clone();
    judged_source.condition = s.test.condition.clone();
    let forbidden = runner::run(&m.source, &judged_source, &opts).unwrap();
    assert_eq!(
        (forbidden.validated, forbidden.positive),
        (false, 0),
        "the source model must forbid the selected outcome"
    );
    s
}

/// Every state the condition accepts names a value for every observed target.
fn assert_pins_every_target(s: &Selection) {
    assert_eq!(s.test.condition.quantifier, Quantifier::Exists);
    let mentioned = s.test.condition.prop.targets().len();
    assert_eq!(
        mentioned,
        s.space.targets.len(),
        "{}",
        s.space.names.join(", ")
    );
    for w in &s.witnesses {
        assert!(s.space.satisfies(&s.test.condition.prop, w));
    }
}

#[test]
fn b1_outcome_is_allowed_by_ptx_and_forbidden_by_scoped_rc11() {
    let s = select_counterexample(&b1(), "0004_b1");
    assert_pins_every_target(&s);
    assert_eq!(s.space.names, ["0:r0", "1:r0", "x"]);
    assert_eq!(s.witnesses, vec![vec![2, 1, 1]]);
}

#[test]
fn m1_outcome_is_allowed_by_ptx_and_forbidden_by_scoped_rc11() {
    let s = select_counterexample(
        &mapping::load(Path::new(
            "mappings/known-bugs/m1-sc-load-fence-dropped.map",
        ))
        .unwrap(),
        "0005_m1",
    );
    assert_pins_every_target(&s);
    assert_eq!(s.space.names, ["1:r1", "x", "y"]);
    // Two writes to y: its final value orders them (coherence pinned, no note needed).
    assert!(s.notes.is_empty(), "{:?}", s.notes);
}

#[test]
fn an_outcome_the_source_allows_is_no_counterexample() {
    let m = mapping::load(Path::new("mappings/opencl-ptx.map")).unwrap();
    let sb = load("0001_sb_relaxed_two_work_groups.litmus");
    let compiled = m.compile_program(&sb).unwrap().target;
    let judges = Judges {
        target: Some(&m.target),
        source: Some((&m.source, &sb)),
    };
    let e = select(&compiled, &judges).unwrap_err();
    assert!(e.message.contains("no counterexample"), "{e}");
}

#[test]
fn an_outcome_the_model_forbids_keeps_its_condition() {
    let m = mapcheck::ir::load(Path::new("models/opencl.cat")).unwrap();
    let mp = load("0003_mp_release_acquire.litmus");
    let judges = Judges {
        target: Some(&m),
        source: None,
    };
    let s = select(&mp, &judges).unwrap();
    assert!(s.witnesses.is_empty());
    assert_eq!(s.test.condition, mp.condition);
    assert!(
        s.notes.iter().any(|n| n.contains("never observed")),
        "{:?}",
        s.notes
    );
}

#[test]
fn the_selected_test_prints_and_parses_back() {
    let s = select_counterexample(&b1(), "0004_b1");
    let text = litmus::print_ptx(&s.test).unwrap();
    let back = litmus::parse_str("b1.litmus", &text).unwrap();
    assert_eq!(back.condition, s.test.condition);
    assert!(matches!(back.condition.prop, Prop::And(..)));
}

/// The judgement `gpu emit` keeps: every state the test's model allows, the source model's states
/// for a counterexample, the states of sequential consistency and of runs of whole threads in
/// turn. For store buffering (observing `0:r0`, `1:r1`, `x`, `y`): OpenCL allows all four
/// register pairs, sequential consistency three, and only the two where one thread ran entirely
/// before the other are sequential; `r0 = r1 = 1` needs overlap, so a run can show it.
#[test]
fn the_judgement_lists_allowed_and_sequential_states() {
    let test = load("0001_sb_relaxed_two_work_groups.litmus");
    let model = mapcheck::ir::load(Path::new("models/opencl.cat")).unwrap();
    let judges = Judges {
        target: Some(&model),
        source: None,
    };
    let j = select(&test, &judges).unwrap().judgement;
    assert_eq!(j.names, ["0:r0", "1:r1", "x", "y"]);
    let states = |pairs: &[[i64; 2]]| -> std::collections::BTreeSet<Vec<i64>> {
        pairs.iter().map(|[a, b]| vec![*a, *b, 1, 1]).collect()
    };
    assert_eq!(j.allowed, states(&[[0, 0], [0, 1], [1, 0], [1, 1]]));
    assert_eq!(j.interleaved, states(&[[0, 1], [1, 0], [1, 1]]));
    assert_eq!(j.sequential, states(&[[0, 1], [1, 0]]));
    assert!(j.can_show_overlap());
    assert!(j.source.is_none());
    // B1: the witness is allowed by PTX, forbidden by scoped RC11, and needs the threads to
    // overlap; but it is a weak state, and interleaving B1's threads gives no other state than
    // running them in turn, so a run that never shows the witness cannot tell whether they did.
    let s = select_counterexample(&b1(), "0004_b1");
    for w in &s.witnesses {
        assert_eq!(s.judgement.shows_counterexample(w), Some(true));
        assert!(!s.judgement.is_sequential(w));
        assert!(!s.judgement.interleaved.contains(w));
    }
    assert_eq!(s.judgement.interleaved, s.judgement.sequential);
    assert!(!s.judgement.can_show_overlap());
}
