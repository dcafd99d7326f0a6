//! Every operator, fixpoint, witness and check of the encoder agrees with the evaluator when the
//! base names are free variables (nothing folds): random values are pinned by assumptions on one
//! incremental encoding, and each definition read back from the solver's model, the model's
//! consistency and each check's verdict must be the evaluator's on the same values.

use crate::support::encode::{alone, evaluator_holds, Lcg};
use mapcheck::encode::{Bounds, Encoding, Lit, Node};
use mapcheck::eval::{evaluate, evaluate_named, Base, Value};
use mapcheck::ir::{self, DefBody, Model};
use mapcheck::rel::{Rel, Set};

const N: usize = 4;
const SETS: [&str; 2] = ["R", "W"];
const RELS: [&str; 3] = ["po", "rf", "co"];

fn free_bounds() -> Bounds {
    let mut b = Bounds::new(N);
    let all_pairs = Rel::from_pairs(N, (0..N).flat_map(|i| (0..N).map(move |j| (i, j))));
    for s in SETS {
        b.bound_set(s, Set::EMPTY, Set::full(N)).unwrap();
    }
    for r in RELS {
        b.bound_rel(r, Rel::empty(N), all_pairs.clone()).unwrap();
    }
    b
}

fn random_base(rng: &mut Lcg) -> Base {
    let mut base = Base::empty(N);
    for s in SETS {
        base.set(
            s,
            Value::Set(Set::from_iter((0..N).filter(|_| rng.next(2) == 1))),
        );
    }
    for r in RELS {
        let pairs = (0..N)
            .flat_map(|i| (0..N).map(move |j| (i, j)))
            .filter(|_| rng.next(3) == 0)
            .collect::<Vec<_>>();
        base.set(r, Value::Rel(Rel::from_pairs(N, pairs)));
    }
    base
}

/// Assumptions that pin the free names to `base`.
fn pins(enc: &mut Encoding, base: &Base) -> Vec<Lit> {
    let mut cells: Vec<(Node, bool)> = vec![];
    for s in SETS {
        let Some(v) = enc.set(s).cloned() else {
            continue;
        };
        cells.extend((0..N).map(|i| (v.get(i), base.sets[s].contains(i))));
    }
    for r in RELS {
        let Some(m) = enc.rel(r).cloned() else {
            continue;
        };
        cells
            .extend((0..N * N).map(|k| (m.get(k / N, k % N), base.rels[r].contains(k / N, k % N))));
    }
    cells
        .into_iter()
        .map(|(node, v)| {
            let l = enc.lit_exact(node);
            if v {
                l
            } else {
                !l
            }
        })
        .collect()
}

/// The names of the definitions whose value does not depend on a witness choice.
fn comparable_defs(model: &Model) -> Vec<String> {
    let ids = (0..model.defs.len()).filter(|&id| model.def_named(&model.defs[id].name) == Some(id));
    ids.filter(|&id| {
        matches!(
            model.defs[id].body,
            DefBody::Value(_) | DefBody::Fixpoint(_)
        )
    })
    .map(|id| model.defs[id].name.clone())
    .collect()
}

fn agree(path: &str, samples: usize, compare_defs: bool) -> usize {
    let model = ir::load(path.as_ref()).unwrap_or_else(|e| panic!("{e}"));
    let mut enc = Encoding::new(&model, &free_bounds());
    let defs = if compare_defs {
        comparable_defs(&model)
    } else {
        vec![]
    };
    let consistent = enc.consistent();
    let holds: Vec<Lit> = (0..model.checks.len())
        .map(|i| enc.check_holds(i))
        .collect();
    let fails: Vec<Lit> = (0..model.checks.len())
        .map(|i| enc.check_fails(i))
        .collect();
    let mut rng = Lcg(path.len() as u64);
    let mut compared = 0;
    for _ in 0..samples {
        let base = random_base(&mut rng);
        let pinned = pins(&mut enc, &base);
        assert!(
            enc.solve(&pinned).is_sat(),
            "pinning the inputs alone is satisfiable"
        );
        for name in &defs {
            match evaluate_named(&model, &base, name) {
                Some(Value::Set(s)) => assert_eq!(enc.set_value(name), Some(s), "{name}"),
                Some(Value::Rel(r)) => assert_eq!(enc.rel_value(name), Some(r), "{name}"),
                None => continue,
            }
            compared += 1;
        }
        let with = |l: Lit| pinned.iter().copied().chain([l]).collect::<Vec<_>>();
        assert_eq!(
            enc.solve(&with(consistent)).is_sat(),
            evaluate(&model, &base).consistent,
            "consistent"
        );
        compared += 1;
        // Without a legal witness the evaluator stops before the checks that follow it.
        let judgement = evaluate(&model, &base);
        let no_witness = model
            .witnesses
            .iter()
            .any(|w| judgement.failed.contains(&w.name));
        for (i, c) in model.checks.iter().enumerate() {
            let (want_holds, want_fails) = if enc.check_reads_witness(i) {
                (
                    evaluate(&alone(&model, i, false), &base).consistent,
                    evaluate(&alone(&model, i, true), &base).consistent,
                )
            } else if no_witness {
                continue;
            } else {
                let h = evaluator_holds(&evaluate(&alone(&model, i, false), &base), &c.name, false);
                (h, !h)
            };
            assert_eq!(
                enc.solve(&with(holds[i])).is_sat(),
                want_holds,
                "{} holds",
                c.name
            );
            assert_eq!(
                enc.solve(&with(fails[i])).is_sat(),
                want_fails,
                "{} fails",
                c.name
            );
            compared += 2;
        }
    }
    compared
}

#[test]
fn every_operator_agrees_with_the_evaluator_on_free_inputs() {
    assert!(agree("tests/data/encode/0001_every_operator.cat", 300, true) > 300 * 20);
}

#[test]
fn fixpoints_are_exact_on_free_inputs() {
    assert!(agree("tests/data/encode/0002_fixpoints.cat", 300, true) > 300 * 8);
}

#[test]
fn witness_choices_are_exact_on_free_inputs() {
    assert!(agree("tests/data/encode/0003_witness.cat", 300, false) > 300 * 6);
}

#[test]
fn fixpoints_unroll_to_their_bound_on_free_inputs_and_stop_at_the_fixpoint_on_constants() {
    let model =
        ir::load("tests/data/encode/0002_fixpoints.cat".as_ref()).unwrap_or_else(|e| panic!("{e}"));
    let free = Encoding::new(&model, &free_bounds());
    // vars × n² rounds: tc, the pair a/b, obs over 4 slots, and a set over 4 slots.
    assert_eq!(free.fixpoint_rounds(), &[16, 32, 16, 4]);
    let mut exact = Bounds::new(N);
    exact
        .exact_rel("po", &Rel::from_pairs(N, [(0, 1), (1, 2), (2, 3)]))
        .unwrap();
    exact
        .exact_rel("rf", &Rel::from_pairs(N, [(0, 1)]))
        .unwrap();
    exact
        .exact_rel("co", &Rel::from_pairs(N, [(1, 2)]))
        .unwrap();
    let folded = Encoding::new(&model, &exact);
    assert!(
        folded.fixpoint_rounds().iter().all(|&r| r <= 4),
        "{:?}",
        folded.fixpoint_rounds()
    );
    assert_eq!(folded.stats().inputs, 0);
}
