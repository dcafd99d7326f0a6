//! Exact bounds give tiny CNFs: with every base name pinned, the model folds to a constant (no
//! variable beyond the constant's) unless it chooses a witness, which costs one variable per
//! pair of the witness's set. Open bounds give a CNF whose size is printed for the notes.

use crate::support::encode::{exact_bounds, open_bounds};
use mapcheck::encode::{Encoding, Stats};
use mapcheck::exec::Execution;
use mapcheck::ir;
use mapcheck::litmus;
use mapcheck::runner;

const SUITE: &str = "tests/data/oracle/dat3m/litmus";

/// The candidate executions of one test under one model.
fn candidates(model: &ir::Model, test: &str) -> Vec<Execution> {
    let test = litmus::parse_file(&std::path::Path::new(SUITE).join(test))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut out = vec![];
    runner::for_each_candidate(model, &test, &runner::Options::default(), &mut |c| {
        out.push(c.execution.clone())
    })
    .unwrap();
    out
}

fn size_after_consistent(model: &ir::Model, bounds: &mapcheck::encode::Bounds) -> Stats {
    let mut enc = Encoding::new(model, bounds);
    let c = enc.consistent();
    enc.solve(&[c]);
    enc.stats()
}

#[test]
fn rc11_on_exact_bounds_folds_to_a_constant() {
    let model = ir::load("models/rc11.cat".as_ref()).unwrap_or_else(|e| panic!("{e}"));
    for x in candidates(&model, "C11/manual/mp_relacq.litmus") {
        let s = size_after_consistent(&model, &exact_bounds(&x));
        assert_eq!(
            (s.inputs, s.solver.vars, s.solver.clauses),
            (0, 1, 1),
            "{s:?}"
        );
    }
}

#[test]
fn ptx_on_exact_bounds_keeps_only_the_fence_sc_order_free() {
    let model = ir::load("models/ptx-v6.cat".as_ref()).unwrap_or_else(|e| panic!("{e}"));
    let xs = candidates(&model, "PTX/Nvidia/SB-cta.litmus");
    let sizes: Vec<Stats> = xs
        .iter()
        .map(|x| size_after_consistent(&model, &exact_bounds(x)))
        .collect();
    // Two fence.sc events: one pair, one variable for the order between them.
    assert!(
        sizes
            .iter()
            .all(|s| s.inputs == 1 && s.solver.vars <= 8 && s.solver.clauses <= 16),
        "{sizes:?}"
    );
    eprintln!(
        "ptx-v6, SB-cta, exact bounds, {} candidates: {:?}",
        xs.len(),
        sizes[0]
    );
}

#[test]
fn open_bounds_sizes() {
    for (model, test) in [
        ("models/ptx-v6.cat", "PTX/Nvidia/SB-cta.litmus"),
        ("models/ptx-v6.cat", "PTX/Manual/MP-relaxed.litmus"),
        ("models/rc11.cat", "C11/manual/mp_relacq.litmus"),
    ] {
        let m = ir::load(model.as_ref()).unwrap_or_else(|e| panic!("{e}"));
        let x = &candidates(&m, test)[0];
        let bounds = open_bounds(x);
        let s = size_after_consistent(&m, &bounds);
        eprintln!(
            "{model}, {test}, rf/co/fr free ({} open tuples, {} slots): {s:?}",
            bounds.open_tuples(),
            x.n()
        );
        assert!(s.solver.vars < 20_000 && s.solver.clauses < 60_000, "{s:?}");
    }
}

/// Every vocabulary name the model reads left entirely free over `n` slots (`E` all slots): the
/// largest encoding a universe of that size can give.
fn all_free(model: &ir::Model, n: usize) -> mapcheck::encode::Bounds {
    use mapcheck::rel::{Rel, Set};
    let mut b = mapcheck::encode::Bounds::new(n);
    let pairs = Rel::from_pairs(n, (0..n).flat_map(|i| (0..n).map(move |j| (i, j))));
    for name in model.bases.iter().map(|b| b.name()) {
        match name {
            "E" | "_" | "id" => {}
            _ if mapcheck::vocab::kind_of(name) == Some(mapcheck::vocab::Kind::Set) => {
                b.bound_set(name, Set::EMPTY, Set::full(n)).unwrap()
            }
            _ => b.bound_rel(name, Rel::empty(n), pairs.clone()).unwrap(),
        }
    }
    b
}

#[test]
fn fully_free_sizes() {
    for model in ["models/ptx-v6.cat", "models/rc11.cat"] {
        let m = ir::load(model.as_ref()).unwrap_or_else(|e| panic!("{e}"));
        for n in [4, 5] {
            let bounds = all_free(&m, n);
            let mut enc = Encoding::new(&m, &bounds);
            let c = enc.consistent();
            let verdict = enc.solve(&[c]);
            let s = enc.stats();
            eprintln!(
                "{model}, every name free over {n} slots ({} open tuples): {verdict:?}, {s:?}",
                bounds.open_tuples()
            );
            assert!(
                verdict.is_sat(),
                "the empty execution-like choices are consistent"
            );
        }
    }
}
