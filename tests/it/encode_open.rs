//! The encoder is exact when bounds leave tuples open, not only when they pin everything: with
//! rf, co and fr free on a test's events, the SAT verdicts equal what the evaluator finds by
//! trying every value of the open tuples (small tests), and every model the solver returns is
//! judged the same way by the evaluator (all tests).

use crate::support::encode::{evaluator_holds, free_upper, litmus_files, open_bounds, FREE};
use mapcheck::encode::Encoding;
use mapcheck::eval::{evaluate, Base, Outcome};
use mapcheck::exec::Execution;
use mapcheck::ir::{self, Model};
use mapcheck::litmus;
use mapcheck::rel::Rel;
use mapcheck::runner;

/// The evaluator's judgement of `x` with the free relations replaced.
fn judge(model: &Model, base: &Base, free: &[Rel]) -> Outcome {
    let mut base = base.clone();
    for (name, r) in FREE.iter().zip(free) {
        base.rels.insert(name, r.clone());
    }
    evaluate(model, &base)
}

/// What the evaluator says over every value of the open tuples: is some value consistent, and
/// for each check, does it hold for some value, fail for some value.
struct Exhaustive {
    consistent: bool,
    holds: Vec<bool>,
    fails: Vec<bool>,
}

fn exhaustive(model: &Model, x: &Execution) -> Exhaustive {
    let base = x.base();
    let uppers: Vec<Vec<(usize, usize)>> = FREE
        .iter()
        .map(|n| free_upper(x, n).pairs().collect())
        .collect();
    let open: Vec<(usize, (usize, usize))> = uppers
        .iter()
        .enumerate()
        .flat_map(|(k, ps)| ps.iter().map(move |&p| (k, p)))
        .collect();
    let mut out = Exhaustive {
        consistent: false,
        holds: vec![false; model.checks.len()],
        fails: vec![false; model.checks.len()],
    };
    for bits in 0u32..1 << open.len() {
        let mut free = vec![Rel::empty(x.n()); FREE.len()];
        for (bit, &(k, (a, b))) in open.iter().enumerate() {
            if bits >> bit & 1 == 1 {
                free[k].insert(a, b);
            }
        }
        let j = judge(model, &base, &free);
        out.consistent |= j.consistent;
        for (i, c) in model.checks.iter().enumerate() {
            let h = evaluator_holds(&j, &c.name, c.flag);
            out.holds[i] |= h;
            out.fails[i] |= !h;
        }
    }
    out
}

/// Check one execution; returns how many verdicts were compared both ways.
fn compare(model: &Model, x: &Execution, exhaust: bool) -> usize {
    let bounds = open_bounds(x);
    let mut enc = Encoding::new(model, &bounds);
    let base = x.base();
    let read = |enc: &Encoding| {
        FREE.iter()
            .map(|n| enc.rel_value(n).unwrap_or_else(|| Rel::empty(x.n())))
            .collect::<Vec<_>>()
    };
    let consistent = enc.consistent();
    let sat = enc.solve(&[consistent]).is_sat();
    if sat {
        assert!(
            judge(model, &base, &read(&enc)).consistent,
            "the solver's model is consistent"
        );
    }
    let truth = exhaust.then(|| exhaustive(model, x));
    let mut compared = 0;
    if let Some(t) = &truth {
        assert_eq!(sat, t.consistent, "some value of rf, co, fr is consistent");
        compared += 1;
    }
    for (i, c) in model.checks.iter().enumerate() {
        if enc.check_reads_witness(i) {
            continue;
        }
        for want in [true, false] {
            let lit = if want {
                enc.check_holds(i)
            } else {
                enc.check_fails(i)
            };
            let sat = enc.solve(&[lit]).is_sat();
            if sat {
                let j = judge(model, &base, &read(&enc));
                assert_eq!(
                    evaluator_holds(&j, &c.name, c.flag),
                    want,
                    "read-back model of {} ({want})",
                    c.name
                );
            }
            if let Some(t) = &truth {
                assert_eq!(
                    sat,
                    if want { t.holds[i] } else { t.fails[i] },
                    "{} can be made to hold: {want}",
                    c.name
                );
                compared += 1;
            }
        }
    }
    compared
}

fn run(model_path: &str, suite: &str, max_open: usize) -> (usize, usize) {
    let model = ir::load(model_path.as_ref()).unwrap_or_else(|e| panic!("{e}"));
    let (mut tests, mut compared) = (0, 0);
    for file in litmus_files(suite) {
        let Ok(test) = litmus::parse_file(&file) else {
            continue;
        };
        let mut first = None;
        let _ =
            runner::for_each_candidate(&model, &test, &runner::Options::default(), &mut |cand| {
                if first.is_none() {
                    first = Some(cand.execution.clone());
                }
            });
        let Some(x) = first else { continue };
        let open = open_bounds(&x).open_tuples();
        compared += compare(&model, &x, open <= max_open);
        tests += 1;
    }
    eprintln!("{model_path} on {suite}: {tests} tests, {compared} verdicts compared with exhaustive evaluation");
    (tests, compared)
}

#[test]
fn open_ptx_encodings_match_exhaustive_evaluation() {
    let (tests, compared) = run("models/ptx-v6.cat", "PTX", 12);
    assert!(tests >= 80 && compared >= 100, "{tests} {compared}");
}

#[test]
fn open_rc11_encodings_match_exhaustive_evaluation() {
    let (tests, compared) = run("models/rc11.cat", "C11", 12);
    assert!(tests >= 80 && compared >= 100, "{tests} {compared}");
}
