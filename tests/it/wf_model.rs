//! `models/wf.cat` states what every candidate execution satisfies (the Coq export's `wf`
//! hypotheses). Here the Rust side is held to it: every candidate execution the runner builds for
//! the litmus suites passes every check of wf.cat, and each check can fail (a mutated execution
//! is caught). And the converse, through the relational encoder: every `rf`/`co` that wf.cat
//! allows over a test's events is one of the runner's candidates, so that the Coq statement's
//! executions are no more than the runner's.
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::support::litmus::litmus_files;
use mapcheck::encode::{Bounds, Encoding};
use mapcheck::rel::{Rel, Set};
use mapcheck::{eval, ir, litmus, runner};

/// Every candidate of every test in `dir` under `model`, judged by wf.cat; returns
/// (candidates seen, failures as "test: check").
fn check_suite(dir: &str, model: &str) -> (usize, Vec<String>) {
    let wf = ir::load(Path::new("models/wf.cat")).expect("wf.cat loads");
    let model = ir::load(Path::new(model)).expect("model loads");
    let opts = runner::Options::default();
    let (mut seen, mut failures) = (0, Vec::new());
    for path in litmus_files(Path::new(dir)) {
        let Ok(test) = litmus::parse_file(&path) else {
            continue;
        };
        let _ = runner::for_each_candidate(&model, &test, &opts, &mut |c| {
            seen += 1;
            let verdict = eval::evaluate(&wf, &c.execution.base());
            for check in verdict.failed {
                failures.push(format!("{}: {check}", path.display()));
            }
        });
    }
    failures.dedup();
    (seen, failures)
}

#[test]
fn every_ptx_candidate_is_well_formed() {
    let (seen, failures) = check_suite("tests/data/oracle/dat3m/litmus/PTX", "models/ptx-v6.cat");
    assert!(seen > 10_000, "only {seen} candidates");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
#[ignore = "CI tier (scripts/test)"]
fn every_c11_opencl_and_vulkan_candidate_is_well_formed() {
    for (dir, model) in [
        ("tests/data/oracle/dat3m/litmus/C11", "models/rc11.cat"),
        ("tests/data/oracle/dat3m/litmus/OPENCL", "models/opencl.cat"),
        ("tests/data/oracle/dat3m/litmus/VULKAN", "models/vulkan.cat"),
    ] {
        let (seen, failures) = check_suite(dir, model);
        assert!(seen > 100, "{dir}: only {seen} candidates");
        assert!(
            failures.is_empty(),
            "{dir}: {} failures:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
}

#[test]
fn each_check_of_wf_cat_can_fail() {
    // An execution where po runs backwards against a second po edge, rf reads across locations…
    // built by hand as a Base so that each named check is seen failing.
    let wf = ir::load(Path::new("models/wf.cat")).expect("wf.cat loads");
    let mut base = eval::Base::empty(2);
    let rel = |pairs: &[(usize, usize)]| {
        let mut r = mapcheck::rel::Rel::empty(2);
        for &(a, b) in pairs {
            r.insert(a, b);
        }
        eval::Value::Rel(r)
    };
    base.set("po", rel(&[(0, 0)]));
    base.set("rf", rel(&[(0, 1)]));
    let failed = eval::evaluate(&wf, &base).failed;
    for check in ["po_int", "po_irreflexive", "rf_shape"] {
        assert!(
            failed.iter().any(|f| f == check),
            "{check} not failed: {failed:?}"
        );
    }
}

#[test]
fn every_vocabulary_name_lies_within_the_events() {
    // In Coq each name is a free field of the execution record; wf.cat's `labels_in_events` and
    // `relations_in_events` keep every one inside E, so an execution cannot label an event it
    // leaves out. A name added to the vocabulary must be added there too.
    let text = std::fs::read_to_string("models/wf.cat").expect("wf.cat");
    let check = |name: &str| -> Vec<String> {
        let line = text
            .lines()
            .find(|l| l.ends_with(&format!("as {name}")))
            .unwrap_or_else(|| panic!("wf.cat has no check {name}"));
        line.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map(str::to_string)
            .collect()
    };
    let (labels, relations) = (check("labels_in_events"), check("relations_in_events"));
    for name in mapcheck::vocab::all_names() {
        let listed = match mapcheck::vocab::kind_of(name) {
            Some(mapcheck::vocab::Kind::Set) => {
                name == "_" || name == "E" || labels.iter().any(|w| w == name)
            }
            _ => relations.iter().any(|w| w == name),
        };
        assert!(listed, "wf.cat does not keep `{name}` within the events");
    }
}

/// The relations of an execution that wf.cat constrains but a test does not fix.
const CHOSEN: [&str; 3] = ["rf", "co", "fr"];

type Choice = (Vec<(usize, usize)>, Vec<(usize, usize)>);

fn choice_of(rf: &Rel, co: &Rel) -> Choice {
    (rf.pairs().collect(), co.pairs().collect())
}

/// Every `rf`/`co` that `model` (wf.cat, with totality for `coherence total` models) allows with
/// the test's events and static relations as in `fixed`, enumerated by SAT with blocking
/// clauses; stops at `limit` choices.
fn well_formed_choices(model: &ir::Model, fixed: &eval::Base, limit: usize) -> BTreeSet<Choice> {
    let n = fixed.n;
    let mut bounds = Bounds::new(n);
    for (name, set) in &fixed.sets {
        bounds.exact_set(name, *set).expect("set bound");
    }
    for (name, rel) in fixed.rels.iter().filter(|(name, _)| !CHOSEN.contains(name)) {
        bounds.exact_rel(name, rel).expect("relation bound");
    }
    let full = Rel::product(n, mapcheck::rel::Set::full(n), mapcheck::rel::Set::full(n));
    for name in CHOSEN {
        bounds
            .bound_rel(name, Rel::empty(n), full.clone())
            .expect("open bound");
    }
    let mut enc = Encoding::new(model, &bounds);
    let consistent = enc.consistent();
    // The cells of rf and co: a solution is blocked by requiring one of them to differ.
    let cells: Vec<_> = ["rf", "co"]
        .iter()
        .flat_map(|name| enc.rel(name).unwrap().cells().to_vec())
        .collect();
    let mut found = BTreeSet::new();
    while found.len() < limit && enc.solve(&[consistent]).is_sat() {
        let (rf, co) = (enc.rel_value("rf").unwrap(), enc.rel_value("co").unwrap());
        let values = enc.read(&cells);
        let differs: Vec<_> = cells
            .iter()
            .zip(values)
            .map(|(&cell, value)| if value { !cell } else { cell })
            .collect();
        let block = enc.circuit_mut().or(differs);
        enc.assert(block);
        found.insert(choice_of(&rf, &co));
    }
    found
}

/// Does `test` have the search's kind of instructions: loads, fences, and stores and exchanges
/// of constants? Only then does every `rf` choice give consistent values (an `atom.add` cannot
/// read its own write, a store of a register needs its value first), so that the runner's
/// candidates are all the well-formed choices; wf.cat has no values.
fn constant_values(test: &litmus::Litmus) -> bool {
    use litmus::{Expr, Instr, RmwOp};
    test.threads.iter().flat_map(|t| &t.code).all(|i| match i {
        Instr::Load { .. } | Instr::Fence { .. } => true,
        Instr::Store { value, .. } => matches!(value, Expr::Const(_)),
        Instr::Rmw { op, .. } => matches!(op, RmwOp::Exch(Expr::Const(_))),
        _ => false,
    })
}

/// For each test of `dir` with constant values and at most `max` candidates: the tests
/// compared, and the tests where wf.cat allows a choice of `rf`/`co` that the runner does not
/// build, or the converse.
fn compare_suite(dir: &str, model: &str, max: usize) -> (usize, Vec<String>) {
    let model = ir::load(Path::new(model)).expect("model loads");
    let mut wf_text = std::fs::read_to_string("models/wf.cat").expect("wf.cat");
    if model.coherence == ir::CoKind::Total {
        wf_text.push_str("\nempty (((W * W) & loc) \\ id) \\ (co | co^-1) as co_total\n");
    }
    let wf = ir::load_str("wf.cat", &wf_text, None).expect("wf.cat loads");
    let (mut compared, mut mismatches) = (0, Vec::new());
    for path in litmus_files(Path::new(dir)) {
        let Ok(test) = litmus::parse_file(&path) else {
            continue;
        };
        if !constant_values(&test) {
            continue;
        }
        let mut bases = Vec::new();
        let outcome =
            runner::for_each_candidate(&model, &test, &runner::Options::default(), &mut |c| {
                if bases.len() <= max {
                    bases.push(c.execution.base());
                }
            });
        if outcome.is_err() || bases.is_empty() || bases.len() > max {
            continue;
        }
        let static_part = |b: &eval::Base| {
            let sets: BTreeMap<_, _> = b.sets.iter().collect();
            let rels: BTreeMap<_, _> = b
                .rels
                .iter()
                .filter(|(name, _)| !CHOSEN.contains(name))
                .collect();
            format!("{sets:?}{rels:?}")
        };
        assert!(
            bases
                .iter()
                .all(|b| static_part(b) == static_part(&bases[0])),
            "{}: without control flow every candidate has the same events",
            path.display()
        );
        let runner: BTreeSet<Choice> = bases
            .iter()
            .map(|b| choice_of(&b.rels["rf"], &b.rels["co"]))
            .collect();
        // One more than the runner's: enough to see that wf.cat allows a choice too many.
        let allowed = well_formed_choices(&wf, &bases[0], runner.len() + 1);
        compared += 1;
        if allowed != runner {
            let extra: Vec<_> = allowed.difference(&runner).take(2).collect();
            let missing: Vec<_> = runner.difference(&allowed).take(2).collect();
            mismatches.push(format!(
                "{}: wf.cat allows (rf, co) the runner does not build: {extra:?}; the runner builds (rf, co) wf.cat rejects: {missing:?}",
                path.display(),
            ));
        }
    }
    (compared, mismatches)
}

#[test]
fn every_well_formed_choice_is_a_runner_candidate() {
    for (dir, model, max, at_least) in [
        (
            "tests/data/oracle/dat3m/litmus/PTX",
            "models/ptx-v6.cat",
            2000,
            30,
        ),
        (
            "tests/data/oracle/dat3m/litmus/C11",
            "models/rc11.cat",
            2000,
            30,
        ),
        (
            "tests/data/oracle/dat3m/litmus/OPENCL",
            "models/opencl.cat",
            2000,
            50,
        ),
    ] {
        let (compared, mismatches) = compare_suite(dir, model, max);
        assert!(
            compared >= at_least,
            "{dir}: only {compared} tests compared"
        );
        assert!(
            mismatches.is_empty(),
            "{dir}: {} of {compared} tests differ:\n{}",
            mismatches.len(),
            mismatches.join("\n")
        );
    }
}

/// The checks of wf.cat that make RC11's `eco` equal to its normal form.
const ECO_ASSUMPTIONS: [&str; 6] = [
    "kinds_disjoint",
    "rf_shape",
    "rf_functional",
    "co_shape",
    "co_transitive",
    "fr_def",
];

/// Whether some labelling of `n` events with reads, writes, locations, `rf`, `co` and `fr` that
/// passes the checks `ECO_ASSUMPTIONS` of wf.cat but `dropped` has an `eco`
/// (models/rc11-base.cat) other than `(rf | co | fr)+`.
fn eco_can_differ_from_closure(n: usize, dropped: Option<&str>) -> bool {
    let wf = std::fs::read_to_string("models/wf.cat").expect("wf.cat");
    let text = format!(
        "{wf}\ninclude \"rc11-base.cat\"\nlet closure = (rf | co | fr)+\n\
         empty (closure \\ eco) | (eco \\ closure) as eco_normal_form\n"
    );
    let model = ir::load_str("wf-eco.cat", &text, Some(Path::new("models"))).expect("loads");
    let last = model.checks.len() - 1;
    assert_eq!(model.checks[last].name, "eco_normal_form");
    let mut bounds = Bounds::new(n);
    for set in ["R", "W"] {
        bounds
            .bound_set(set, Set::from_iter([]), Set::full(n))
            .expect("set bound");
    }
    for rel in ["rf", "co", "fr", "loc"] {
        bounds
            .bound_rel(
                rel,
                Rel::empty(n),
                Rel::product(n, Set::full(n), Set::full(n)),
            )
            .expect("relation bound");
    }
    let mut enc = Encoding::new(&model, &bounds);
    let mut assumptions = vec![];
    for name in ECO_ASSUMPTIONS {
        let i = model.checks.iter().position(|c| c.name == name);
        let i = i.unwrap_or_else(|| panic!("wf.cat has no check {name}"));
        if Some(name) != dropped {
            assumptions.push(enc.check_holds(i));
        }
    }
    assumptions.push(enc.check_fails(last));
    enc.solve(&assumptions).is_sat()
}

#[test]
fn eco_is_its_normal_form_on_every_well_formed_execution() {
    // models/rc11-base.cat writes RC11's eco = (rf | mo | rb)+ in the normal form
    // rf | (mo | rb); rf?; the argument there covers every size, this checks it up to five events
    // (any sets and relations over them, with only the six checks of wf.cat assumed).
    for n in 1..=5 {
        assert!(!eco_can_differ_from_closure(n, None), "{n} events");
    }
    // Each assumption is needed: without it the two differ.
    for dropped in ECO_ASSUMPTIONS {
        assert!(eco_can_differ_from_closure(4, Some(dropped)), "{dropped}");
    }
}
