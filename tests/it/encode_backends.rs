//! Two SAT backends agree on satisfiability (DESIGN.md §6): on random 3-CNFs near the
//! satisfiability threshold, under assumptions, and on encodings of the project's models whose
//! communication relations are left free.

use crate::support::encode::{litmus_files, open_bounds, Lcg};
use mapcheck::encode::Encoding;
use mapcheck::ir;
use mapcheck::litmus;
use mapcheck::runner;
use mapcheck::solver::{self, Backend, Lit, SatSolver, Verdict};

/// A random 3-CNF with `vars` variables and about 4.26 clauses per variable.
fn random_cnf(rng: &mut Lcg, vars: usize) -> Vec<[(usize, bool); 3]> {
    let clauses = vars * 426 / 100;
    (0..clauses)
        .map(|_| [0; 3].map(|_| (rng.next(vars), rng.next(2) == 1)))
        .collect()
}

/// Load a CNF into a backend; the variables as literals.
fn load(
    backend: Backend,
    vars: usize,
    cnf: &[[(usize, bool); 3]],
) -> (Box<dyn SatSolver>, Vec<Lit>) {
    let mut s = solver::new(backend);
    let x: Vec<Lit> = (0..vars).map(|_| s.new_var()).collect();
    for cl in cnf {
        let lits: Vec<Lit> = cl
            .iter()
            .map(|&(v, neg)| if neg { !x[v] } else { x[v] })
            .collect();
        s.add_clause(&lits);
    }
    (s, x)
}

fn model_satisfies(
    s: &dyn SatSolver,
    x: &[Lit],
    cnf: &[[(usize, bool); 3]],
    assumptions: &[Lit],
) -> bool {
    let sat_clause = |cl: &[(usize, bool); 3]| cl.iter().any(|&(v, neg)| s.value(x[v]) != neg);
    cnf.iter().all(sat_clause) && assumptions.iter().all(|&a| s.value(a))
}

#[test]
fn backends_agree_on_random_3cnf_under_assumptions() {
    let mut rng = Lcg(7);
    let (mut sat, mut unsat) = (0, 0);
    for round in 0..150 {
        let vars = 20 + round % 40;
        let cnf = random_cnf(&mut rng, vars);
        let mut solvers: Vec<_> = Backend::ALL.iter().map(|&b| load(b, vars, &cnf)).collect();
        for k in 0..3 {
            let assumptions: Vec<Lit> = (0..k * 2)
                .map(|_| {
                    let v = rng.next(vars);
                    if rng.next(2) == 1 {
                        !solvers[0].1[v]
                    } else {
                        solvers[0].1[v]
                    }
                })
                .collect();
            let verdicts: Vec<Verdict> = solvers
                .iter_mut()
                .map(|(s, _)| s.solve(&assumptions))
                .collect();
            assert!(
                verdicts.windows(2).all(|w| w[0] == w[1]),
                "round {round}: {verdicts:?}"
            );
            for (s, x) in &solvers {
                if verdicts[0].is_sat() {
                    assert!(
                        model_satisfies(s.as_ref(), x, &cnf, &assumptions),
                        "{} gave a wrong model",
                        s.name()
                    );
                }
            }
            if verdicts[0].is_sat() {
                sat += 1
            } else {
                unsat += 1
            }
        }
    }
    assert!(
        sat > 50 && unsat > 50,
        "both answers are exercised: {sat} sat, {unsat} unsat"
    );
}

/// For the first candidate of each test, with rf, co and fr free: every backend gives the same
/// verdict on consistency and on each check holding and failing.
fn agree_on_open_encodings(model_path: &str, suite: &str, max_tests: usize) -> usize {
    let model = ir::load(model_path.as_ref()).unwrap_or_else(|e| panic!("{e}"));
    let mut compared = 0;
    for file in litmus_files(suite).into_iter().take(max_tests) {
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
        let bounds = open_bounds(&x);
        let verdicts: Vec<Vec<Verdict>> = Backend::ALL
            .iter()
            .map(|&b| {
                let mut enc = Encoding::with_backend(&model, &bounds, b);
                let mut lits = vec![enc.consistent()];
                for i in 0..model.checks.len() {
                    lits.push(enc.check_holds(i));
                    lits.push(enc.check_fails(i));
                }
                lits.iter().map(|&l| enc.solve(&[l])).collect()
            })
            .collect();
        assert_eq!(
            verdicts[0],
            verdicts[1],
            "{}: backends disagree",
            file.display()
        );
        compared += verdicts[0].len();
    }
    compared
}

#[test]
fn backends_agree_on_open_ptx_encodings() {
    assert!(agree_on_open_encodings("models/ptx-v6.cat", "PTX", 60) > 300);
}

#[test]
fn backends_agree_on_open_rc11_encodings() {
    assert!(agree_on_open_encodings("models/rc11.cat", "C11", 60) > 200);
}
