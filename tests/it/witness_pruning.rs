//! The evaluator judges prefixes of a witness's linear orders and skips the completions of a
//! prefix that fails as many checks as the best order so far (`eval`'s `choose`, allowed by
//! `ir::Witness::failures_grow`). Here its answers are held to the full enumeration's: on every
//! candidate execution of every vendored PTX test with two or more `fence.sc` (and of a compiled
//! test with eight, `tests/data/eval/sc-fences-8.litmus`: the bound-5 SC counterexample of
//! `rc11-ptx.map` compiled with a trailing `fence.sc` on SC stores), under each PTX model, the
//! verdict, the failed checks, the flags and the chosen Fence-SC order are the same with and
//! without the pruning. A `with` nothing reads is tried at its first order only, and a witness
//! chosen after another that does not read it leaves the other's pruning on: a model with its
//! `with` line repeated judges as the model once, and a model included twice allows and flags
//! what it allows and flags once.
use std::path::{Path, PathBuf};

use crate::support::litmus::litmus_files;
use mapcheck::{eval, ir, litmus, runner};

const PTX_MODELS: &[&str] = &[
    "models/ptx-v6.cat",
    "models/ptx-v6-alloy.cat",
    "models/ptx-v7.5.cat",
];

/// The vendored PTX tests with at least two SC fences, and how many each has.
fn sc_fence_tests() -> Vec<(PathBuf, usize)> {
    litmus_files(Path::new("tests/data"))
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            let fences = text.matches("fence.sc").count();
            (text.starts_with("PTX") && fences >= 2).then_some((path, fences))
        })
        .collect()
}

/// `path`'s model, and the same model with a check that always holds but mentions its witness
/// on both sides of `\`: the witness no longer grows the failures, so every order is judged.
fn pruned_and_unpruned(path: &str) -> (ir::Model, ir::Model) {
    let pruned = ir::load(Path::new(path)).expect("model loads");
    assert_eq!(pruned.witnesses.len(), 1, "{path}: one witness");
    assert!(pruned.witnesses[0].failures_grow, "{path}: pruning applies");
    let w = &pruned.witnesses[0].name;
    let text = std::fs::read_to_string(path).expect("model text");
    let text = format!("{text}\nempty ({w} \\ {w}) as AlwaysHolds\n");
    let unpruned = ir::load_str(path, &text, Path::new(path).parent()).expect("model loads");
    assert!(!unpruned.witnesses[0].failures_grow, "{path}: pruning off");
    (pruned, unpruned)
}

/// Per candidate: its verdict (failed checks and flags, the added check left out) and the
/// witness's chosen value.
fn judgements(model: &ir::Model, test: &litmus::Litmus) -> Vec<String> {
    let mut out = vec![];
    let opts = runner::Options::default();
    let w = model.witnesses[0].name.clone();
    runner::for_each_candidate(model, test, &opts, &mut |c| {
        let mut j = c.judgement.clone();
        j.failed.retain(|f| f != "AlwaysHolds");
        let chosen = eval::evaluate_named(model, &c.execution.base(), &w);
        out.push(format!("{j:?} {w} = {chosen:?}"));
    })
    .expect("test runs");
    out
}

#[test]
fn pruning_changes_no_judgement_and_no_chosen_order() {
    let tests = sc_fence_tests();
    assert!(tests.len() >= 20, "only {} tests", tests.len());
    assert!(tests.iter().any(|(_, fences)| *fences >= 8));
    for model in PTX_MODELS {
        let (pruned, unpruned) = pruned_and_unpruned(model);
        let mut candidates = 0;
        for (path, _) in &tests {
            let test = litmus::parse_file(path).expect("test parses");
            let with = judgements(&pruned, &test);
            let without = judgements(&unpruned, &test);
            assert_eq!(with, without, "{model}: {}", path.display());
            candidates += with.len();
        }
        assert!(candidates > 1_000, "{model}: only {candidates} candidates");
    }
}

/// A model's text with its `with` line (the first line that starts so) written `copies` times.
fn with_repeated(text: &str, copies: usize) -> String {
    let line = text
        .lines()
        .find(|l| l.starts_with("with "))
        .expect("a `with` line");
    text.replacen(line, &format!("{line}\n").repeat(copies), 1)
}

/// Per candidate of every vendored test with two or more SC fences: whether `model` finds it
/// consistent, and the flags it raises then.
fn verdicts(model: &ir::Model) -> Vec<String> {
    let mut out = vec![];
    for (path, _) in sc_fence_tests() {
        let test = litmus::parse_file(&path).expect("test parses");
        let opts = runner::Options::default();
        runner::for_each_candidate(model, &test, &opts, &mut |c| {
            let mut flags = c.judgement.flags.clone();
            flags.sort();
            flags.dedup();
            out.push(format!("{} {flags:?}", c.judgement.consistent));
        })
        .expect("test runs");
    }
    out
}

#[test]
fn a_with_shadowed_before_anything_reads_it_is_tried_once() {
    // 23 copies of one `with`: the first 22 are shadowed before any check reads them, so each
    // is tried at its first order; the last is read, and keeps its pruning.
    let path = "tests/data/cat/0003_witness.cat";
    let text = std::fs::read_to_string(path).expect("model text");
    let one = ir::load(Path::new(path)).expect("model loads");
    let many = ir::load_str(path, &with_repeated(&text, 23), None).expect("model loads");
    assert_eq!(many.witnesses.len(), 23);
    let read: Vec<bool> = many.witnesses.iter().map(|w| w.read).collect();
    assert_eq!(read, [vec![false; 22], vec![true]].concat());
    assert!(many.witnesses.iter().all(|w| w.failures_grow));
    assert!(one.witnesses[0].read);
    let mut candidates = 0;
    for (path, _) in sc_fence_tests() {
        let test = litmus::parse_file(&path).expect("test parses");
        let (a, b) = (judgements(&one, &test), judgements(&many, &test));
        assert_eq!(a, b, "{}", path.display());
        candidates += a.len();
    }
    assert!(candidates > 1_000, "only {candidates} candidates");
}

#[test]
fn a_model_included_twice_keeps_its_verdicts_and_both_witnesses_prune() {
    // Each copy's witness is read by its own copy's checks, so both are chosen; the second does
    // not read the first, so the first keeps its pruning.
    let once = ir::load(Path::new("models/ptx-v6.cat")).expect("model loads");
    let text = "\"twice\"\ninclude \"ptx-v6.cat\"\ninclude \"ptx-v6.cat\"\n";
    let twice = ir::load_str("twice.cat", text, Some(Path::new("models"))).expect("model loads");
    assert_eq!(twice.witnesses.len(), 2);
    assert!(twice.witnesses.iter().all(|w| w.read && w.failures_grow));
    let (a, b) = (verdicts(&once), verdicts(&twice));
    assert!(a.len() > 1_000, "only {} candidates", a.len());
    assert_eq!(a, b);
}
