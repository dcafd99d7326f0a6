//! The encoder and the evaluator agree on concrete executions (STYLE.md item 6): for each litmus
//! test of the external suites, every base name of the encoding is pinned to one candidate
//! execution of the runner (all bounds exact), and the SAT verdicts — model consistent, each
//! check holding, each check failing — must be the evaluator's.

use crate::support::encode::{alone, evaluator_holds, exact_bounds, litmus_files, Tally};
use mapcheck::encode::{Backend, Encoding};
use mapcheck::eval::evaluate;
use mapcheck::ir::{self, Model};
use mapcheck::litmus;
use mapcheck::runner::{self, Candidate};

/// Candidates compared per test: the first `CAP` ones, and consistent ones up to `CAP` more.
const CAP: usize = 300;

/// Compare the encoding with the evaluator on one candidate.
fn compare(model: &Model, cand: &Candidate, backend: Backend, tally: &mut Tally) {
    let bounds = exact_bounds(cand.execution);
    let mut enc = Encoding::with_backend(model, &bounds, backend);
    let j = &cand.judgement;
    let consistent = enc.consistent();
    assert_eq!(
        enc.solve(&[consistent]).is_sat(),
        j.consistent,
        "consistency of a candidate ({})",
        enc.solver_name()
    );
    tally.candidates += 1;
    tally.consistent += usize::from(j.consistent);
    let no_witness = model.witnesses.iter().any(|w| j.failed.contains(&w.name));
    for (i, check) in model.checks.iter().enumerate() {
        let holds = enc.check_holds(i);
        let fails = enc.check_fails(i);
        let (sat_holds, sat_fails) = (enc.solve(&[holds]).is_sat(), enc.solve(&[fails]).is_sat());
        if !enc.check_reads_witness(i) && !no_witness {
            let eval_holds = evaluator_holds(j, &check.name, check.flag);
            assert_eq!(sat_holds, eval_holds, "check {} holds", check.name);
            assert_eq!(sat_fails, !eval_holds, "check {} fails", check.name);
            tally.checks += 1;
        } else {
            // The evaluator's judgement reports one choice of the witnesses; the encoding asks
            // for some choice. Ask the evaluator that question with the check alone.
            let base = cand.execution.base();
            assert_eq!(
                sat_holds,
                evaluate(&alone(model, i, false), &base).consistent,
                "{} holds",
                check.name
            );
            assert_eq!(
                sat_fails,
                evaluate(&alone(model, i, true), &base).consistent,
                "{} fails",
                check.name
            );
            tally.witness_checks += 1;
        }
    }
}

fn run_suite(model_path: &str, suite: &str) -> Tally {
    let model = ir::load(model_path.as_ref()).unwrap_or_else(|e| panic!("{e}"));
    let mut tally = Tally::default();
    for file in litmus_files(suite) {
        let Ok(test) = litmus::parse_file(&file) else {
            tally.skipped += 1;
            continue;
        };
        let (mut seen, mut consistent_seen) = (0, 0);
        let mut per_test = Tally::default();
        let ran =
            runner::for_each_candidate(&model, &test, &runner::Options::default(), &mut |cand| {
                seen += 1;
                let take = seen <= CAP || (cand.judgement.consistent && consistent_seen < CAP);
                if take {
                    consistent_seen += usize::from(cand.judgement.consistent);
                    // Every fourth candidate is also checked on the second backend.
                    let backend = if per_test.candidates % 4 == 3 {
                        Backend::Cadical
                    } else {
                        Backend::BatSat
                    };
                    compare(&model, cand, backend, &mut per_test);
                }
            });
        match ran {
            Ok(()) => {
                tally.tests += 1;
                tally.add(&per_test);
            }
            Err(_) => tally.skipped += 1,
        }
    }
    eprintln!("{model_path} on {suite}: {tally:?}");
    tally
}

#[test]
fn ptx_v6_encoding_agrees_with_the_evaluator_on_the_ptx_suite() {
    let t = run_suite("models/ptx-v6.cat", "PTX");
    assert!(t.tests >= 100 && t.candidates >= 4000, "{t:?}");
    assert!(t.consistent > 1000 && t.witness_checks > 1000, "{t:?}");
}

#[test]
fn rc11_encoding_agrees_with_the_evaluator_on_the_c11_suite() {
    let t = run_suite("models/rc11.cat", "C11");
    assert!(
        t.tests >= 100 && t.candidates >= 600 && t.consistent > 300,
        "{t:?}"
    );
}

#[test]
fn sc_encoding_agrees_with_the_evaluator_on_both_suites() {
    for suite in ["C11", "PTX"] {
        let t = run_suite("models/sc.cat", suite);
        assert!(
            t.tests >= 80 && t.candidates >= 400 && t.consistent > 50,
            "{t:?}"
        );
    }
}
