//! Programs the search never considers are not `searched` in the exported statement, each by a
//! closed Coq proof, beside a near twin that is (so that each proof shows the hypothesis, not a
//! broken program, rejects it). The three a review found the statement let through:
//! - `opencl-ptx.map` declares `locations typed`: an acquire load of `x` and a guarded plain read
//!   of the same `x` (a 3-event GnaRf counterexample when the declaration is taken away) is
//!   rejected; its twin with both reads atomic is searched;
//! - an exchange whose write is guarded by its own read (an `assume`: no such instruction exists)
//!   is rejected under `rc11-ptx-artifact.map`; the exchange without the guard is searched;
//! - a program with no initial write for a location it reads and writes is rejected; with the
//!   initial write it is searched.
//!
//! And the two of issue 59, under `opencl-ptx.map`, whose search tags every event `global` and
//! places one sub-group per work-group:
//! - one work-item's `*x = 1; r0 = *x` with the store in no memory region (`opencl.cat` then
//!   orders nothing before the load by `sb`, so the load may read only 0, while the compiled PTX
//!   reads 1: every lift fails GnaRf) is rejected; with every event `global` it is searched — and
//!   a refutation of GnaRf built from the first no longer compiles (`coq_refutation.rs`);
//! - a relaxed sub-group-scoped store and load in one work-group, in two sub-groups, is rejected;
//!   in one sub-group it is searched.
//!
//! Needs `coqc`.
use std::path::Path;

use mapcheck::coq::program::{bprogram_literal, Program, Programs};
use mapcheck::eval::Base;
use mapcheck::rel::{Rel, Set};
use mapcheck::{coq, litmus, mapping};

use crate::support::coq::{coqc_all, dropped, first_event, scratch_dir, split_subgroups};
use crate::support::litmus::region_program;
use crate::support::tools::{self, Tool};

/// The 3-event GnaRf counterexample `mapcheck check` finds to `opencl-ptx.map` without its
/// `locations typed` line; `READ` is P0's second read.
const UNTYPED: &str = "OPENCL untyped
{ [x] = 0; }
P0@wg 0, dev 0 (global atomic_int* x) {
  int r1;
  int r0 = atomic_load_explicit(x, memory_order_acquire, memory_scope_sub_group);
  if (r0 == 1) {
    READ
  }
}
P1@wg 0, dev 0 (global atomic_int* x) {
  atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_sub_group);
}
exists (P0:r0 == 1)
";

/// A relaxed store and load at sub-group scope, in two threads of one work-group.
const SUBGROUP: &str = "OPENCL subgroup
{ [x] = 0; }
P0@wg 0, dev 0 (global atomic_int* x) {
  atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_sub_group);
}
P1@wg 0, dev 0 (global atomic_int* x) {
  int r0 = atomic_load_explicit(x, memory_order_relaxed, memory_scope_sub_group);
}
exists (P1:r0 == 1)
";

const STORE_LOAD: &str = "C store-load
{ [x] = 0; }
P0 (atomic_int* x) {
  atomic_store_explicit(x, 1, memory_order_relaxed, thread_scope_device);
}
P1 (atomic_int* x) {
  int r0 = atomic_load_explicit(x, memory_order_relaxed, thread_scope_device);
}
exists (P1:r0 == 1)
";

const EXCHANGE: &str = "C exchange
{ [x] = 0; }
P0 (atomic_int* x) {
  int r0 = atomic_exchange_explicit(x, 1, memory_order_relaxed, thread_scope_device);
}
P1 (atomic_int* x) {
  int r0 = atomic_load_explicit(x, memory_order_relaxed, thread_scope_device);
}
exists (P1:r0 == 1)
";

fn programs(m: &mapcheck::Mapping, text: &str) -> Programs {
    let test = litmus::parse_str("class.litmus", text).expect("parses");
    Programs::of(m, &test).expect("programs")
}

/// The first event of `base` in every set of `all` and in none of `none`.
fn event(base: &Base, all: &[&str], none: &[&str]) -> usize {
    first_event(base, all, none).expect("such an event")
}

/// `p` with its RMW's write guarded by the RMW's own read, on the initial write (and `ctrl`
/// following the guard, as the statement asks of every guard).
fn self_guarded(p: &Program) -> Program {
    let s = &p.skeleton;
    let (read, write) = s.rels["rmw"].pairs().next().expect("one RMW");
    let init = event(s, &["IW"], &[]);
    let mut skeleton = s.clone();
    let mut ctrl = s.rels["ctrl"].clone();
    ctrl.insert(read, write);
    skeleton.rels.insert("ctrl", ctrl);
    Program {
        skeleton,
        gread: vec![(read, write)],
        gwrite: vec![(init, write)],
    }
}

/// `p` (one store and one load of one location) without its initial write: the event gone from
/// every set and relation, the load reading the store instead (so that the skeleton is still an
/// execution).
fn without_initial_write(p: &Program) -> Program {
    let s = &p.skeleton;
    let init = event(s, &["IW"], &[]);
    let read = event(s, &["R"], &[]);
    let write = event(s, &["W"], &["IW"]);
    let mut skeleton = dropped(s, init);
    skeleton
        .rels
        .insert("rf", Rel::from_pairs(s.n, [(write, read)]));
    skeleton.rels.insert("fr", Rel::empty(s.n));
    Program {
        skeleton,
        gread: p.gread.clone(),
        gwrite: p.gwrite.clone(),
    }
}

/// `base`, which has no event `gone`, numbered without it (the evaluator's universe is every
/// number below `n`; Coq's is the events).
fn renumbered_without(base: &Base, gone: usize) -> Base {
    let at = |e: usize| if e > gone { e - 1 } else { e };
    let mut out = base.clone();
    out.n = base.n - 1;
    for (name, set) in &base.sets {
        out.sets.insert(name, Set::from_iter(set.iter().map(at)));
    }
    for (name, rel) in &base.rels {
        out.rels.insert(
            name,
            Rel::from_pairs(out.n, rel.pairs().map(|(a, b)| (at(a), at(b)))),
        );
    }
    out
}

/// Export `map` and, beside it, `Class.v`: for each `(name, program, searched)` a closed proof
/// that the program is `searched` or that no compilation starts from it. Returns coqc's log.
fn prove(map: &str, obligations: &str, imports: &str, cases: &[(&str, &Program, usize, bool)]) {
    let m = mapping::load(Path::new(map)).expect("mapping loads");
    let stem = Path::new(map)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .to_string();
    let dir = scratch_dir(&format!("class-{stem}"));
    let mut written = coq::export_mapping(&m, &[], &[], &dir).expect("export");
    let mut text = coq::header(
        &format!("programs in and out of the searched class of {map}"),
        &format!("Rel Dec Checks Exec Model_wf Program {imports} {obligations}"),
    );
    text.push_str(
        "Lemma in_class : forall m PB, searched_on_b m (bpr PB) (bgread PB) (bgwrite PB) = true -> searched (of_bprogram m PB).\n\
         Proof.\n  intros m PB B. pose proof (of_bprogram_reflects m PB) as R. unfold searched.\n  \
         apply (dec_true _ _ (searched_on_dec m _ _ _ _ _ _ (rp_pr _ _ _ R) (rp_gread _ _ _ R) (rp_gwrite _ _ _ R))). exact B.\nQed.\n\
         Lemma out_of_class : forall m PB, searched_on_b m (bpr PB) (bgread PB) (bgwrite PB) = false -> ~ searched (of_bprogram m PB).\n\
         Proof.\n  intros m PB B. pose proof (of_bprogram_reflects m PB) as R. unfold searched.\n  \
         apply (dec_false _ _ (searched_on_dec m _ _ _ _ _ _ (rp_pr _ _ _ R) (rp_gread _ _ _ R) (rp_gwrite _ _ _ R))). exact B.\nQed.\n\n",
    );
    for (name, program, n, searched) in cases {
        let (statement, lemma) = if *searched {
            (format!("searched (of_bprogram {n} PB_{name})"), "in_class")
        } else {
            (
                format!("~ searched (of_bprogram {n} PB_{name})"),
                "out_of_class",
            )
        };
        text.push_str(&format!(
            "Definition PB_{name} : bprogram := {}.\n\
             Lemma {name} : {statement}.\nProof. apply {lemma}. vm_compute. reflexivity. Qed.\n\
             Print Assumptions {name}.\n\n",
            bprogram_literal(program)
        ));
    }
    written.write("Class.v", &text).expect("write");
    let log = coqc_all(&dir, &written.files).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        log.matches("Closed under the global context").count(),
        1 + cases.len(),
        "the satisfiability proof and every case must be axiom-free:\n{log}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_untyped_location_is_not_searched_under_a_typed_mapping() {
    if tools::absent(Tool::Coqc) {
        return;
    }
    let map = "mappings/opencl-ptx.map";
    let m = mapping::load(Path::new(map)).unwrap();
    assert!(m.typed_locations, "{map} declares `locations typed`");
    let plain = programs(&m, &UNTYPED.replace("READ", "r1 = *x;"));
    let atomic = programs(
        &m,
        &UNTYPED.replace(
            "READ",
            "r1 = atomic_load_explicit(x, memory_order_relaxed, memory_scope_sub_group);",
        ),
    );
    prove(
        map,
        "Obligations_opencl_ptx",
        "Model_opencl Mirror_opencl Model_ptx_v6",
        &[
            ("untyped", &plain.source, plain.numbering.n, false),
            ("typed", &atomic.source, atomic.numbering.n, true),
        ],
    );
}

#[test]
fn a_self_guarded_rmw_and_a_missing_initial_write_are_not_searched() {
    if tools::absent(Tool::Coqc) {
        return;
    }
    let map = "mappings/rc11-ptx-artifact.map";
    let m = mapping::load(Path::new(map)).unwrap();
    let exchange = programs(&m, EXCHANGE);
    let store_load = programs(&m, STORE_LOAD);
    let wf = coq::wf_model().expect("wf");
    let no_init = without_initial_write(&store_load.source);
    let init = event(&store_load.source.skeleton, &["IW"], &[]);
    assert_eq!(
        mapcheck::eval::evaluate(&wf, &renumbered_without(&no_init.skeleton, init)).failed,
        Vec::<String>::new(),
        "without its initial write the skeleton is still well formed"
    );
    let n = exchange.numbering.n;
    prove(
        map,
        "Obligations_rc11_ptx_artifact",
        "Model_rc11_scoped Mirror_rc11_scoped Model_ptx_v6",
        &[
            ("exchange", &exchange.source, n, true),
            ("self_guarded", &self_guarded(&exchange.source), n, false),
            (
                "store_load",
                &store_load.source,
                store_load.numbering.n,
                true,
            ),
            ("no_initial_write", &no_init, store_load.numbering.n, false),
        ],
    );
}

/// A test that declares no initial values (litmus reads them as 0) is the same program as the one
/// that declares them: its Coq skeleton has every thread event and one initial write per
/// location. (Its skeleton was once taken from an execution that left guarded events out, since
/// the count looked only at the declared initial values: a panic in `check --test --coq`.)
#[test]
fn undeclared_initial_values_give_the_same_program() {
    let m = mapping::load(Path::new("mappings/rc11-ptx-artifact.map")).unwrap();
    let declared =
        std::fs::read_to_string("tests/data/search/rc11-ptx-artifact-atomicity-8.litmus").unwrap();
    let undeclared = declared.replace("[x] = 0;", "").replace("[y] = 0;", "");
    assert_ne!(declared, undeclared);
    let (a, b) = (programs(&m, &declared), programs(&m, &undeclared));
    assert_eq!(a.numbering.n, b.numbering.n);
    for (x, y) in [(&a.source, &b.source), (&a.target, &b.target)] {
        assert_eq!(x.skeleton.sets["E"], y.skeleton.sets["E"]);
        assert_eq!(x.skeleton.sets["IW"], y.skeleton.sets["IW"]);
        assert_eq!((&x.gread, &x.gwrite), (&y.gread, &y.gwrite));
    }
}

/// A test that declares a location no instruction accesses is the same program as the one that
/// does not: the search never makes such a location, and `searched` (every initial write at an
/// accessed location) would reject the extra initial write.
#[test]
fn an_unused_declared_location_gives_the_same_program() {
    let m = mapping::load(Path::new("mappings/rc11-ptx-artifact.map")).unwrap();
    let plain =
        std::fs::read_to_string("tests/data/search/rc11-ptx-artifact-atomicity-8.litmus").unwrap();
    let extra = plain.replace("[x] = 0;", "[x] = 0; [unused] = 0;");
    assert_ne!(plain, extra);
    let (a, b) = (programs(&m, &plain), programs(&m, &extra));
    assert_eq!(a.numbering.n, b.numbering.n);
    for (x, y) in [(&a.source, &b.source), (&a.target, &b.target)] {
        assert_eq!(bprogram_literal(x), bprogram_literal(y));
    }
}

#[test]
fn an_event_outside_the_memory_region_and_two_sub_groups_are_not_searched() {
    if tools::absent(Tool::Coqc) {
        return;
    }
    let map = "mappings/opencl-ptx.map";
    let m = mapping::load(Path::new(map)).unwrap();
    let global = Programs::of(&m, &region_program(true)).expect("programs");
    let untagged = Programs::of(&m, &region_program(false)).expect("programs");
    let one = programs(&m, SUBGROUP);
    let two = split_subgroups(&one.source);
    let wf = coq::wf_model().expect("wf");
    assert_eq!(
        mapcheck::eval::evaluate(&wf, &two.skeleton).failed,
        Vec::<String>::new(),
        "in two sub-groups the skeleton is still well formed"
    );
    assert_ne!(two.skeleton.rels["ssg"], one.source.skeleton.rels["ssg"]);
    prove(
        map,
        "Obligations_opencl_ptx",
        "Model_opencl Mirror_opencl Model_ptx_v6",
        &[
            ("global", &global.source, global.numbering.n, true),
            ("no_region", &untagged.source, untagged.numbering.n, false),
            ("one_subgroup", &one.source, one.numbering.n, true),
            ("two_subgroups", &two, one.numbering.n, false),
        ],
    );
}

/// Decision 005's audit of the class lists every tag and relation a shipped mapping's source
/// model reads, each with what `searched` does with it: "fixed by the search to …", "free in
/// both" or "constrained by wf.cat".
#[test]
fn decision_005_audits_every_name_the_source_models_read() {
    let doc = std::fs::read_to_string("docs/decisions/005-coq-export.md").expect("decision 005");
    let audit = doc
        .split("### What `searched` fixes")
        .nth(1)
        .expect("an audit section")
        .split("\n#")
        .next()
        .unwrap();
    // Each row: its first cell's names (`rf`, `co`, `fr`), each with the row's last cell.
    let rows: std::collections::BTreeMap<String, String> = audit
        .lines()
        .filter(|l| l.starts_with("| `"))
        .flat_map(|l| {
            let cells: Vec<&str> = l.split('|').collect();
            let last = cells[cells.len() - 2].to_string();
            let names: Vec<String> = cells[1]
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect();
            names.into_iter().map(move |n| (n, last.clone()))
        })
        .collect();
    for rest in rows.values() {
        assert!(
            [
                "fixed by the search to",
                "free in both",
                "constrained by wf.cat"
            ]
            .iter()
            .any(|c| rest.contains(c)),
            "a row without its category: {rest}"
        );
    }
    let mut missing = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir("mappings").unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "map") {
            continue;
        }
        let m = mapping::load(&path).expect("mapping loads");
        for name in m.source.used_builtins() {
            let is_event_kind =
                ["_", "R", "W", "M", "F", "E", "IW", "RMW", "BAR", "EF", "XF"].contains(&name);
            if !is_event_kind && !rows.contains_key(name) {
                missing.insert(format!("{name} ({})", path.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "not in decision 005's audit: {missing:?}"
    );
}
