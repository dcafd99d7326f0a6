//! The ASPLOS'19 Alloy artifact's facts on `sb` and `rmw` admit no `rmw` edge, so its Atomicity
//! check (`src11_ptx_legal_atomicity`) is vacuous and none of its checks contains an RMW.
//! `src11.als` requires `sb` to be a strict partial order (`strict_partial_sb`), and
//! `rmw in imm[sb] & loc` and `sb.~rmw in sb` (`rmw_sbimm`): for an RMW `r -> w`, `r sb w`
//! puts `r -> r` in `sb.~rmw`, hence in the irreflexive `sb`. The encoder checks this over the
//! artifact's bounds, and that the reading which leaves the read itself out
//! (`(sb.~rmw) - iden in sb`) admits one. `mapcheck bench`'s peer column and decision 002 rest
//! on it.
use mapcheck::encode::{Bounds, Encoding};
use mapcheck::ir;
use mapcheck::rel::{Rel, Set};

/// `src11.als`'s facts on `sb` and `rmw` (po standing for its sb; the `& loc` of `rmw_sbimm`
/// left out, which can only admit more), with `rmw_predecessors` the last fact, and a check
/// that `rmw` has an edge.
fn facts(rmw_predecessors: &str) -> String {
    format!(
        "let sb = po\n\
         irreflexive sb as SbIrreflexive\n\
         empty (sb; sb) \\ sb as SbTransitive\n\
         empty rmw \\ (sb \\ (sb; sb)) as RmwImmediate\n\
         empty {rmw_predecessors} as RmwPredecessors\n\
         ~empty rmw as SomeRmw\n"
    )
}

/// The value of `rmw` in some assignment of `po` and `rmw` over `n` slots satisfying `text`.
fn some_rmw(text: &str, n: usize) -> Option<Rel> {
    let model = ir::load_str("alloy-artifact-rmw", text, None).unwrap();
    let mut bounds = Bounds::new(n);
    let all = Rel::product(n, Set::full(n), Set::full(n));
    bounds.bound_rel("po", Rel::empty(n), all.clone()).unwrap();
    bounds.bound_rel("rmw", Rel::empty(n), all).unwrap();
    let mut enc = Encoding::new(&model, &bounds);
    let consistent = enc.consistent();
    enc.solve(&[consistent])
        .is_sat()
        .then(|| enc.rel_value("rmw").unwrap())
}

#[test]
fn the_artifacts_facts_admit_no_rmw_up_to_its_bound() {
    let artifact = facts("(sb; rmw^-1) \\ sb");
    for n in 2..=6 {
        assert_eq!(some_rmw(&artifact, n), None, "{n} slots");
    }
}

#[test]
fn without_the_read_itself_the_facts_admit_an_rmw() {
    let meant = facts("((sb; rmw^-1) \\ id) \\ sb");
    let rmw = some_rmw(&meant, 2).expect("an rmw edge over two slots");
    assert_eq!(rmw.pairs().count(), 1);
}
