//! The Coq definitions mean what the evaluator computes. Concrete executions of litmus tests
//! (the runner's candidates) are printed into Coq; for every axiom of PTX 6.0 and of scoped RC11
//! the evaluator's verdict is stated as a lemma (`holds` or `~ holds`) and Coq proves it by
//! computation through the reflection lemmas. If coqc accepts the file, Coq and the evaluator
//! agree on every (execution, axiom) pair. On the same executions, the mirror as a function of
//! the execution (`Mirror_<model>.v`, models without witnesses) decides `<model>_consistent` and
//! `<model>_race_free`, and `Mirror_wf.v` decides `wf_consistent`. Needs `coqc`.
use std::collections::BTreeMap;
use std::path::Path;

use mapcheck::coq::{self, concrete, mirror, model::Names};
use mapcheck::{eval, ir, litmus, runner};

use crate::support::axioms;
use crate::support::coq::coqc_all;
use crate::support::litmus::litmus_files;
use crate::support::tools::{self, Tool};

/// Executions per model: enough to see each axiom hold and fail, at least `MIN` in all.
const MIN: usize = 20;
/// Largest execution taken (keeps coqc's work small).
const MAX_EVENTS: usize = 12;

/// The sampled executions with the evaluator's failed axioms, and per axiom the verdicts seen.
struct Sample {
    executions: Vec<(String, eval::Base, Vec<String>)>,
    seen: BTreeMap<String, (usize, usize)>,
}

/// Take candidates in file order, keeping one when it shows an axiom holding or failing in a
/// way not yet seen twice (or while fewer than `MIN` are taken), until every axiom has been
/// seen both ways and `MIN` are taken.
fn sample(model: &ir::Model, dirs: &[&str]) -> Sample {
    let axioms = axioms(model);
    let mut s = Sample {
        executions: Vec::new(),
        seen: axioms.iter().map(|a| (a.clone(), (0, 0))).collect(),
    };
    let done =
        |s: &Sample| s.executions.len() >= MIN && s.seen.values().all(|(h, f)| *h > 0 && *f > 0);
    for path in dirs.iter().flat_map(|d| litmus_files(Path::new(d))) {
        if done(&s) {
            break;
        }
        let Ok(test) = litmus::parse_file(&path) else {
            continue;
        };
        let _ = runner::for_each_candidate(model, &test, &runner::Options::default(), &mut |c| {
            let base = c.execution.base();
            if base.n > MAX_EVENTS || done(&s) {
                return;
            }
            let failed = eval::evaluate(model, &base).failed;
            let new = axioms.iter().any(|a| {
                let (h, f) = s.seen[a];
                if failed.contains(a) {
                    f < 2
                } else {
                    h < 2
                }
            });
            if new || s.executions.len() < MIN {
                for a in &axioms {
                    let e = s.seen.get_mut(a).expect("axiom");
                    if failed.contains(a) {
                        e.1 += 1
                    } else {
                        e.0 += 1
                    }
                }
                let name = format!(
                    "{}#{}",
                    path.file_name().unwrap().to_string_lossy(),
                    s.executions.len()
                );
                s.executions.push((name, base, failed));
            }
        });
    }
    s
}

fn fidelity(model_path: &str, dirs: &[&str]) {
    let model = ir::load(Path::new(model_path)).expect("model loads");
    let names = Names::new(&model, &coq::model_prefix(model_path));
    let s = sample(&model, dirs);
    assert!(
        s.executions.len() >= MIN,
        "only {} executions",
        s.executions.len()
    );
    for (axiom, (holds, fails)) in &s.seen {
        assert!(
            *holds > 0 && *fails > 0,
            "{axiom}: seen holding {holds}, failing {fails} times"
        );
    }
    let out = std::env::temp_dir().join(format!(
        "mapcheck-fidelity-{}-{}",
        std::process::id(),
        names.prefix
    ));
    let _ = std::fs::remove_dir_all(&out);
    let wf = coq::wf_model().expect("wf.cat loads");
    let wf_names = Names::new(&wf, "wf");
    let mut written = coq::Written::new(&out).expect("output directory");
    coq::write_common(&mut written, &[&wf_names, &names]).expect("export");
    let own_mirror = mirror::has_mirror(&names);
    let imports = if own_mirror {
        format!("Model_{0} Mirror_{0}", names.prefix)
    } else {
        format!("Model_{}", names.prefix)
    };
    let mut text = format!(
        "(* The evaluator's verdicts on {} executions, proved in Coq by computation. *)\n\
         From Mapcheck Require Import Rel Dec Checks Exec Model_wf Mirror_wf {imports}.\n\n",
        s.executions.len(),
    );
    for (k, (name, base, failed)) in s.executions.iter().enumerate() {
        let m = format!("E{k}");
        text.push_str(&format!(
            "(* {name} *)\n{}",
            concrete::module(&m, base, &[&names])
        ));
        for (c, check) in names.axioms() {
            let holds = !failed.contains(&check.name);
            text.push_str(&concrete::check_lemma(
                &names,
                &format!("e{k}_{}", names.check(c)),
                &m,
                c,
                holds,
            ));
        }
        text.push_str(&mirror_lemmas(&wf_names, &wf, k, base));
        if own_mirror {
            text.push_str(&mirror_lemmas(&names, &model, k, base));
        }
    }
    written.write("Fidelity.v", &text).expect("write");
    let written = written.finish().expect("finish");
    coqc_all(&out, &written.files)
        .unwrap_or_else(|e| panic!("Coq disagrees with the evaluator:\n{e}"));
    eprintln!(
        "{model_path}: {} executions, per axiom (holds, fails): {:?}",
        s.executions.len(),
        s.seen
    );
}

/// The evaluator's verdicts on consistency and race freedom of execution `k` (module `E<k>`),
/// proved through the model's mirror as a function of the execution.
fn mirror_lemmas(names: &Names, model: &ir::Model, k: usize, base: &eval::Base) -> String {
    let outcome = eval::evaluate(model, base);
    let m = format!("E{k}");
    let lemma = |prop: &str| format!("e{k}_{prop}_b");
    mirror::decided_lemma(
        &lemma(&names.consistent()),
        &names.consistent(),
        &m,
        outcome.failed.is_empty(),
    ) + &mirror::decided_lemma(
        &lemma(&names.race_free()),
        &names.race_free(),
        &m,
        outcome.flags.is_empty(),
    )
}

#[test]
fn ptx_v6_axioms_agree_with_the_evaluator() {
    if tools::absent(Tool::Coqc) {
        return;
    }
    // FenceSC fails only on a cycle of synchronisation through fence.sc (the evaluator picks the
    // Fence-SC order with the fewest failures), which no small test of the suite has:
    // tests/data/coq/ptx does.
    fidelity(
        "models/ptx-v6.cat",
        &["tests/data/coq/ptx", "tests/data/oracle/dat3m/litmus/PTX"],
    );
}

#[test]
fn scoped_rc11_axioms_agree_with_the_evaluator() {
    if tools::absent(Tool::Coqc) {
        return;
    }
    // The C11 suite has no scopes, so scoped RC11's SC axiom (over `incl`) never fails on it:
    // tests/data/coq/c11 holds scoped tests.
    fidelity(
        "models/rc11-scoped.cat",
        &["tests/data/coq/c11", "tests/data/oracle/dat3m/litmus/C11"],
    );
}
