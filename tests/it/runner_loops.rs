//! The runner's value domain against an oracle that does not share it (issue 60): a test with a
//! loop run with its own condition and with the tautology `true`. A final state is a state of the
//! program, not of the condition, so both runs must show the same final states (of the registers
//! and locations the condition names), under every model that forbids thin-air values (the
//! condition's constants seed every location, which only a thin-air cycle can use); and a
//! condition that is weaker and names the same constants (`P \/ true`) may not give fewer
//! candidates. Run on every shipped litmus test with a branch (the Dat3M suites vendored in
//! `tests/data/oracle`) and on generated loop tests: counter barriers, flag waits and CAS loops.
//!
//! The domain once grew only from traces that complete, so two threads that each add 1 to `x` and
//! spin until it holds 2 had no execution with the condition `0:r1=0` ("Never", 0 candidates),
//! and 54 with `0:r1=0 /\ 1:r2=2`: `the_counter_barrier_is_sometimes`.
use std::path::{Path, PathBuf};

use mapcheck::litmus::{self, Litmus, Prop, Target};
use mapcheck::runner::{self, Options};
use mapcheck::{ir, Model};

use crate::support::random::Rng;

/// The most candidates a comparison enumerates (three runs of each test under each model): a
/// larger test is not compared.
const MAX_CANDIDATES: u64 = 200_000;

/// The models of an architecture that forbid thin-air values, and those that do not.
fn models(test: &Litmus) -> Vec<(&'static str, bool)> {
    match test.arch {
        litmus::Arch::Ptx => vec![("ptx-v6.cat", true), ("ptx-v7.5.cat", true)],
        litmus::Arch::C11 => vec![("rc11.cat", true)],
        litmus::Arch::OpenCl => vec![("opencl.cat", false)],
        litmus::Arch::Vulkan => vec![("vulkan.cat", false)],
    }
}

fn load(name: &str) -> Model {
    ir::load(Path::new(&format!("models/{name}"))).expect("model loads")
}

/// `test` with condition `prop`, showing the targets `observed` in every final state.
fn with_condition(test: &Litmus, prop: Prop, observed: &[Target]) -> Litmus {
    let mut t = test.clone();
    t.condition.prop = prop;
    t.locations = observed.to_vec();
    t
}

/// What is wrong with `test` under `model`, if anything: the states under `true` differ from
/// those under the test's own condition (`thin_air_free` models only), or `P \/ true` gives
/// fewer candidates than `P`.
fn oracle_failure(test: &Litmus, model: &Model, thin_air_free: bool) -> Option<String> {
    let opts = Options {
        max_candidates: MAX_CANDIDATES,
        ..Options::default()
    };
    let mut observed: Vec<Target> = test.condition.prop.targets().into_iter().cloned().collect();
    for t in &test.locations {
        if !observed.contains(t) {
            observed.push(t.clone());
        }
    }
    let run = |prop: Prop| {
        runner::run(model, &with_condition(test, prop, &observed), &opts)
            .map_err(|e| format!("does not run: {}", e.message))
    };
    let prop = test.condition.prop.clone();
    let outcomes = run(prop.clone()).and_then(|own| {
        let weaker = run(Prop::Or(Box::new(prop), Box::new(Prop::True)))?;
        Ok((own, weaker, run(Prop::True)?))
    });
    let (own, weaker, tautology) = match outcomes {
        Ok(outcomes) => outcomes,
        Err(why) => return Some(why),
    };
    if weaker.candidates < own.candidates {
        return Some(format!(
            "`P \\/ true` has {} candidates, `P` {}",
            weaker.candidates, own.candidates
        ));
    }
    let states = |o: &runner::Outcome| o.states.keys().cloned().collect::<Vec<_>>();
    if thin_air_free && states(&own) != states(&tautology) {
        return Some(format!(
            "final states under its condition {:?} ({} candidates), under `true` {:?} ({} candidates)",
            states(&own),
            own.candidates,
            states(&tautology),
            tautology.candidates
        ));
    }
    None
}

/// Every failure of `tests` under each model of its architecture, and how many (test, model)
/// pairs were compared: a test over `MAX_CANDIDATES` is not (`run` hands those over the
/// runner's own limit to the solver, which has no value domain).
fn failures(tests: &[(String, Litmus)]) -> (Vec<String>, usize) {
    use rayon::prelude::*;
    let mut models_used: Vec<(&str, bool, Model)> = vec![];
    for (_, t) in tests {
        for (name, free) in models(t) {
            if !models_used.iter().any(|(n, _, _)| *n == name) {
                models_used.push((name, free, load(name)));
            }
        }
    }
    let judged: Vec<Option<String>> = tests
        .par_iter()
        .flat_map(|(name, test)| {
            models(test)
                .into_iter()
                .map(|(m, _)| {
                    let (_, free, model) = models_used.iter().find(|(n, _, _)| *n == m)?;
                    oracle_failure(test, model, *free).map(|why| format!("{name} under {m}: {why}"))
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let over_limit = |f: &String| f.contains("does not run: more than");
    let compared = judged
        .iter()
        .filter(|f| !f.as_ref().is_some_and(over_limit))
        .count();
    let failed = judged
        .into_iter()
        .flatten()
        .filter(|f| !over_limit(f))
        .collect();
    (failed, compared)
}

fn shipped_loop_tests() -> Vec<(String, Litmus)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("a directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "litmus") {
                out.push(path);
            }
        }
    }
    let mut paths = vec![];
    walk(Path::new("tests/data/oracle/dat3m/litmus"), &mut paths);
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let test = litmus::parse_file(&p).ok()?;
            let branches = test
                .threads
                .iter()
                .flat_map(|t| &t.code)
                .any(|i| matches!(i, litmus::Instr::Goto(_) | litmus::Instr::BranchIf { .. }));
            branches.then(|| (p.display().to_string(), test))
        })
        .collect()
}

#[test]
fn the_counter_barrier_is_sometimes() {
    let model = load("ptx-v6.cat");
    for condition in ["0:r1=0", "0:r1=0 /\\ 1:r2=2"] {
        let test = litmus::parse_str("counter.litmus", &counter_barrier(condition)).unwrap();
        let o = runner::run(&model, &test, &Options::default()).expect("runs");
        assert!(o.positive > 0, "{condition}: {}", runner::render_herd(&o));
        assert_eq!(o.candidates, 54, "{condition}");
    }
}

/// Two threads each add 1 to `x`, then spin until they read 2.
fn counter_barrier(condition: &str) -> String {
    format!(
        "PTX counter-barrier
{{ x=0; }}
 P0@cta 0,gpu 0                | P1@cta 0,gpu 0                ;
 atom.relaxed.gpu.add r1, x, 1 | atom.relaxed.gpu.add r1, x, 1 ;
 LC00:                         | LC00:                         ;
 ld.relaxed.gpu r2, x          | ld.relaxed.gpu r2, x          ;
 beq r2,2,LC01                 | beq r2,2,LC01                 ;
 goto LC00                     | goto LC00                     ;
 LC01:                         | LC01:                         ;
exists ({condition})
"
    )
}

#[test]
fn every_shipped_loop_test_shows_the_same_states_under_a_tautology() {
    let tests = shipped_loop_tests();
    assert!(tests.len() >= 20, "only {} shipped loop tests", tests.len());
    let (failed, compared) = failures(&tests);
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert!(
        compared >= 20,
        "only {compared} (test, model) pairs compared"
    );
}

#[test]
fn generated_loop_tests_show_the_same_states_under_a_tautology() {
    let mut rng = Rng(0x100b5);
    // About one test in twelve is over `MAX_CANDIDATES` under a model: 230 give 200 tests'
    // worth of (test, model) pairs.
    let tests: Vec<(String, Litmus)> = (0..230)
        .map(|i| {
            let text = generated_loop_test(i, &mut rng);
            let test = litmus::parse_str("generated.litmus", &text)
                .unwrap_or_else(|e| panic!("{e}\n{text}"));
            (text, test)
        })
        .collect();
    let (failed, compared) = failures(&tests);
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
    assert!(
        compared >= 400,
        "only {compared} (test, model) pairs compared"
    );
}

/// A PTX test of two or three threads, each running one loop between a few plain accesses: a
/// counter barrier (add 1 to `x`, spin until it holds the thread count), a flag wait (spin while
/// `f` is 0; another thread sets it) or a CAS loop (add 1 to `x` by compare-and-swap, retrying
/// on failure); the condition is a conjunction of register values.
fn generated_loop_test(i: usize, rng: &mut Rng) -> String {
    let threads = 2 + (rng.next() % 4 == 0) as usize;
    let sem = |rng: &mut Rng| ["relaxed", "acquire", "release"][(rng.next() % 3) as usize];
    let load_sem = |rng: &mut Rng| ["relaxed", "acquire"][(rng.next() % 2) as usize];
    let mut columns: Vec<Vec<String>> = vec![];
    for t in 0..threads {
        let mut code = vec![];
        if rng.next() % 2 == 0 {
            code.push("st.weak y, 1".to_string());
        }
        match rng.next() % 3 {
            0 => {
                code.push(format!("atom.{}.gpu.add r1, x, 1", sem(rng)));
                code.push(format!("LC{t}0:"));
                code.push(format!("ld.{}.gpu r2, x", load_sem(rng)));
                code.push(format!("bne r2, {threads}, LC{t}0"));
            }
            1 if t > 0 => {
                code.push(format!("LC{t}0:"));
                code.push(format!("ld.{}.gpu r2, f", load_sem(rng)));
                code.push(format!("beq r2, 0, LC{t}0"));
            }
            1 => code.push("st.release.gpu f, 1".to_string()),
            _ => {
                code.push(format!("LC{t}0:"));
                code.push("ld.relaxed.gpu r1, x".to_string());
                code.push("add r3, r1, 1".to_string());
                code.push(format!("atom.{}.gpu.cas r2, x, r1, r3", sem(rng)));
                code.push(format!("bne r2, r1, LC{t}0"));
            }
        }
        if rng.next() % 2 == 0 {
            code.push("ld.weak r4, y".to_string());
        }
        columns.push(code);
    }
    let used: Vec<(usize, &str)> = columns
        .iter()
        .enumerate()
        .flat_map(|(t, code)| {
            ["r1", "r2"]
                .into_iter()
                .filter(move |r| code.iter().any(|line| line.contains(&format!(" {r},"))))
                .map(move |r| (t, r))
        })
        .collect();
    let rows = columns.iter().map(Vec::len).max().unwrap_or(0);
    let cell = |c: &Vec<String>, r: usize| c.get(r).cloned().unwrap_or_default();
    let headers: Vec<String> = (0..threads)
        .map(|t| format!("P{t}@cta {t},gpu 0"))
        .collect();
    let mut text = format!(
        "PTX generated-{i}\n{{ x=0; y=0; f=0; }}\n {} ;\n",
        headers.join(" | ")
    );
    for r in 0..rows {
        let cells: Vec<String> = columns.iter().map(|c| cell(c, r)).collect();
        text.push_str(&format!(" {} ;\n", cells.join(" | ")));
    }
    let conjuncts: Vec<String> = (0..1 + rng.next() % 2)
        .filter_map(|_| {
            let (t, reg) = used.get(rng.next() as usize % used.len().max(1))?;
            Some(format!("{t}:{reg}={}", rng.next() % 3))
        })
        .collect();
    let prop = if conjuncts.is_empty() {
        "x=1".to_string()
    } else {
        conjuncts.join(" /\\ ")
    };
    text.push_str(&format!("exists ({prop})\n"));
    text
}
