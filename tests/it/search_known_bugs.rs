//! The mapping check on the known buggy mappings (FACTS.md §2): each bug is found, at its minimal
//! size, and what the search shows is what the runner says of the printed tests — the source
//! model forbids the behaviour, the target model allows the compiled test to show it.
use std::path::Path;

use mapcheck::encode::Backend;
use mapcheck::search::{self, Counterexample, Counting, Options};
use mapcheck::vocab::Level;
use mapcheck::{ir, litmus, mapping, runner};

use crate::support::litmus::{
    assert_source_forbidden_and_compiled_allowed_by, counterexample_bounds, mapping_read_with,
    DEP_WITHOUT_RMW, PTX_READINGS,
};

fn options(bound: usize, axioms: &[&str]) -> Options {
    Options {
        axioms: axioms.iter().map(|a| a.to_string()).collect(),
        ..Options::natural(bound, Backend::BatSat)
    }
}

/// Search `map` up to `bound`; return the counterexamples found, with the bound each was found at.
fn search(map: &str, opts: &Options) -> Vec<Counterexample> {
    let m = mapping::load(Path::new(map)).expect("mapping loads");
    let report = search::check(&m, opts, &|_| {}).expect("search runs");
    report
        .axioms
        .into_iter()
        .filter_map(|a| a.counterexample)
        .collect()
}

/// The printed source test is forbidden by the source model and the printed target test is
/// allowed by the target model: the runner, from the files a user gets.
fn confirmed_by_printed_tests(map: &str, cx: &Counterexample) {
    let m = mapping::load(Path::new(map)).unwrap();
    let source_text = litmus::print_c(&cx.found.source).expect("source prints");
    let target_text = litmus::print_ptx(&cx.found.target).expect("target prints");
    let source = litmus::parse_str("source.litmus", &source_text).expect("source re-parses");
    let target = litmus::parse_str("target.litmus", &target_text).expect("target re-parses");
    let opts = runner::Options::default();
    let s = runner::run(&m.source, &source, &opts).unwrap();
    let t = runner::run(&m.target, &target, &opts).unwrap();
    assert!(
        !s.validated,
        "{map}: the source model allows\n{source_text}"
    );
    assert!(
        s.flags.is_empty(),
        "{map}: the source test is racy\n{source_text}"
    );
    assert!(
        t.validated,
        "{map}: the target model forbids\n{target_text}"
    );
}

/// `map` has a counterexample at `bound` (for some of `axioms`) and none below it.
fn found_at(map: &str, bound: usize, axioms: &[&str]) -> Vec<Counterexample> {
    let found = search(map, &options(bound, axioms));
    assert!(
        !found.is_empty(),
        "{map}: nothing found up to bound {bound}"
    );
    assert!(
        found.iter().all(|cx| cx.bound == bound),
        "{map}: found below bound {bound}: {:?}",
        found
            .iter()
            .map(|c| (&c.axiom, c.bound))
            .collect::<Vec<_>>()
    );
    for cx in &found {
        confirmed_by_printed_tests(map, cx);
    }
    found
}

fn axioms(found: &[Counterexample]) -> Vec<&str> {
    found.iter().map(|c| c.axiom.as_str()).collect()
}

#[test]
fn m1_sc_load_without_its_fence_breaks_store_buffering() {
    let found = found_at("mappings/known-bugs/m1-sc-load-fence-dropped.map", 4, &[]);
    assert_eq!(axioms(&found), ["SC"]);
}

#[test]
fn m2_relaxed_release_store_breaks_message_passing() {
    let found = found_at("mappings/known-bugs/m2-release-store-relaxed.map", 4, &[]);
    assert!(axioms(&found).contains(&"Coherence"));
}

#[test]
fn m3_relaxed_acquire_load_breaks_message_passing() {
    let found = found_at("mappings/known-bugs/m3-acquire-load-relaxed.map", 4, &[]);
    assert_eq!(axioms(&found), ["Coherence"]);
}

#[test]
fn m4_narrowed_scope_breaks_coherence_across_ctas() {
    let found = found_at(
        "mappings/known-bugs/m4-release-acquire-gpu-narrowed.map",
        3,
        &[],
    );
    let cx = &found[0];
    let ctas: Vec<i64> = cx
        .found
        .source
        .threads
        .iter()
        .map(|t| t.placement.id(Level::Cta))
        .collect();
    assert!(
        ctas.windows(2).any(|w| w[0] != w[1]),
        "two CTAs are needed: {ctas:?}"
    );
}

#[test]
fn m5_acq_rel_fence_for_sc_fence_breaks_sc() {
    found_at("mappings/known-bugs/m5-sc-fence-weakened.map", 5, &["SC"]);
}

/// B1 under Dartagnan's reading of PTX (an RMW's write does not depend on its read): a 4-event
/// Coherence counterexample in which the exchange reads a plain store guarded by a read of the
/// exchange's own write. Under NVIDIA's reading (the default) that is a No-Thin-Air cycle, and
/// B1's Coherence counterexample is the published 7-event ISA2 program (the search finds none
/// below 7: `mappings/EXPECTED.tsv`, README; `b1_published_isa2_program_is_a_counterexample`).
#[test]
fn b1_rmw_sc_without_release_is_found_at_4_without_the_rmw_dependency() {
    let m = mapping_read_with(
        "mappings/known-bugs/b1-rmw-sc-release-dropped.map",
        "dep-without-rmw",
    );
    let report = search::check(&m, &options(4, &[]), &|_| {}).expect("search runs");
    let found: Vec<&Counterexample> = report
        .axioms
        .iter()
        .filter_map(|a| a.counterexample.as_ref())
        .collect();
    let at: Vec<(&str, usize)> = found.iter().map(|c| (c.axiom.as_str(), c.bound)).collect();
    assert_eq!(at, [("Coherence", 4)]);
    let uses_sc_rmw = found.iter().all(|cx| {
        cx.found.source.threads.iter().flat_map(|t| &t.code).any(
            |i| matches!(i, litmus::Instr::Rmw { tags, .. } if tags.iter().any(|t| t.name() == "SC")),
        )
    });
    assert!(uses_sc_rmw, "the B1 counterexamples need an SC RMW");
}

/// The ISA2 program of ASPLOS'19 Fig. 12 (FACTS.md B1; guarded so that it is race-free) is a
/// Coherence counterexample to B1 at 7 events under every PTX reading, and to nothing else.
#[test]
fn b1_published_isa2_program_is_a_counterexample() {
    let map = "mappings/known-bugs/b1-rmw-sc-release-dropped.map";
    let source = litmus::parse_file(Path::new("tests/data/search/b1-isa2-7.litmus")).unwrap();
    assert_source_forbidden_and_compiled_allowed_by(map, &source, &PTX_READINGS);
    for m in [
        mapping::load(Path::new(map)).unwrap(),
        mapping_read_with(map, "dep-without-rmw"),
    ] {
        let found = counterexample_bounds(&m, &source);
        let want = [("Coherence", Some(7)), ("Atomicity", None), ("SC", None)];
        assert_eq!(found, want.map(|(a, b)| (a.to_string(), b)));
    }
}

#[test]
fn an_unknown_axiom_is_an_error() {
    let m = mapping::load(Path::new("mappings/rc11-ptx.map")).unwrap();
    let err = search::check(&m, &options(2, &["Coherense"]), &|_| {}).unwrap_err();
    assert!(
        err.message.contains("Coherence, Atomicity, SC"),
        "{}",
        err.message
    );
}

/// The source model the search reads is the file the mapping names.
#[test]
fn the_models_are_the_mapping_files() {
    let m = mapping::load(Path::new("mappings/rc11-ptx.map")).unwrap();
    let src = ir::load(Path::new("models/rc11-scoped.cat")).unwrap();
    let names = |m: &ir::Model| m.checks.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&m.source), names(&src));
}

/// Figure 11's rows for SC loads and stores (which the ASPLOS'19 Alloy model and Coq proof leave
/// out) break scoped RC11's SC axiom when scopes are mixed: an IRIW-like test of 5 events in
/// which one thread's SC load has a narrower scope than the rest, so its leading `fence.sc` is
/// not morally strong with another thread's. Found, minimal and confirmed by the runner (see
/// docs/decisions/002-mapping-check.md, the `rc11-ptx.map` result).
#[test]
fn rc11_ptx_sc_accesses_with_mixed_scopes_break_sc() {
    let found = found_at("mappings/rc11-ptx.map", 5, &["SC"]);
    let mut scopes: Vec<&str> = found[0]
        .found
        .source
        .threads
        .iter()
        .flat_map(|t| &t.code)
        .filter_map(|i| match i {
            litmus::Instr::Load { tags, .. } | litmus::Instr::Store { tags, .. } => tags
                .iter()
                .find(|t| ["CTA", "GPU", "SYS"].contains(&t.name())),
            _ => None,
        })
        .map(|t| t.name())
        .collect();
    scopes.sort();
    scopes.dedup();
    assert!(scopes.len() > 1, "mixed scopes are needed: {scopes:?}");
}

#[test]
fn both_solvers_agree() {
    for (map, bound) in [
        ("mappings/known-bugs/m4-release-acquire-gpu-narrowed.map", 3),
        ("mappings/rc11-ptx.map", 3),
    ] {
        let verdicts: Vec<Vec<Option<usize>>> = [Backend::BatSat, Backend::Cadical]
            .into_iter()
            .map(|backend| {
                let m = mapping::load(Path::new(map)).unwrap();
                let opts = Options {
                    backend,
                    ..options(bound, &[])
                };
                let r = search::check(&m, &opts, &|_| {}).unwrap();
                r.axioms
                    .iter()
                    .map(|a| a.counterexample.as_ref().map(|c| c.bound))
                    .collect()
            })
            .collect();
        assert_eq!(verdicts[0], verdicts[1], "{map}");
    }
}

/// The Alloy counting leaves out classes compiled with added fences (Fig. 11's SC loads and
/// stores), as the artifact did: the SC-access counterexample of rc11-ptx.map is out of its reach,
/// and what remains is clean at the bound the artifact needed 15 minutes for.
#[test]
fn alloy_counting_leaves_out_sc_accesses() {
    let opts = Options {
        counting: Counting::Alloy,
        ..options(5, &["SC"])
    };
    assert!(search("mappings/rc11-ptx.map", &opts).is_empty());
}

/// A check stopped before a bound starts (as a deadline can fall between two bounds) reports,
/// for every open axiom, that bound as unfinished with no shape done — never a missing record.
#[test]
fn a_stop_between_bounds_records_the_next_bound_as_unfinished() {
    let m = mapping::load(Path::new("mappings/rc11-ptx.map")).unwrap();
    let opts = options(3, &["Coherence", "Atomicity"]);
    opts.stop.request();
    let report = search::check(&m, &opts, &|_| {}).unwrap();
    assert!(report.stopped);
    for a in &report.axioms {
        let unfinished = a
            .unfinished
            .as_ref()
            .expect("the stopped bound is recorded");
        assert_eq!(
            (a.clean_to, unfinished.bound, unfinished.shapes_done),
            (0, 1, 0),
            "{}",
            a.axiom
        );
        assert!(unfinished.shapes > 0);
    }
}

/// PTX 6.0's Fence-SC order is a witness (`with sco from linearisations`): the solver guesses
/// one under which a source axiom fails, the runner asks whether another makes it hold. A PTX
/// model mapped onto itself by the identity must then be clean, not an internal error.
#[test]
fn a_witness_source_model_mapped_onto_itself_is_clean() {
    let text = r#"
        source "ptx-v6-alloy.cat"
        target ptx "ptx-v6-alloy.cat"
        scope CTA -> cta
        scope GPU -> gpu
        scope SYS -> sys
        class W.WEAK
        class R.ACQ.$s
        class F.SC.$s
        W.WEAK -> st.weak
        R.ACQ.$s -> ld.acquire.$s
        F.SC.$s -> fence.sc.$s
    "#;
    let m = mapping::load_str("ptx-identity.map", text, Some(Path::new("models"))).unwrap();
    let report = search::check(&m, &options(2, &[]), &|_| {}).expect("no internal error");
    for a in &report.axioms {
        assert!(a.counterexample.is_none(), "{}", a.axiom);
        assert_eq!(a.clean_to, 2, "{}", a.axiom);
    }
}

/// The first counterexample the search found to `rc11-ptx-artifact.map` (Fig. 11 without SC
/// loads and stores, the rows the ASPLOS'19 Coq proof covers) when an RMW's write did not depend
/// on its read, at natural bound 7, Coherence (decision 002). P0's plain store `*y = 2` runs only
/// if P0 read P1's release store of x and then the RMW's write of y; in every consistent source
/// execution those two reads contradict each other, so the store never runs and the program is
/// race-free. PTX keeps no order from the `ld.relaxed` to the `st.weak` behind it, so the RMW
/// may read that store — unless the RMW's write depends on its read (NVIDIA's reading, the
/// default), which closes the No-Thin-Air cycle `st.weak y` →rf atom →rmw →rf `ld y` →ctrl.
/// So the runner forbids the compiled test under every default reading and allows it under each
/// `dep-without-rmw` one; the source models forbid the outcome without a race.
#[test]
fn artifact_rows_break_coherence_at_7_only_without_the_rmw_dependency() {
    let path = Path::new("tests/data/search/rc11-ptx-artifact-coherence-7.litmus");
    let source = litmus::parse_file(path).unwrap();
    assert_source_forbidden_and_compiled_allowed_by(
        "mappings/rc11-ptx-artifact.map",
        &source,
        &DEP_WITHOUT_RMW,
    );
}

/// A mapping with a `.cluster` row (`tests/data/mapping/cluster/`), checked at bound 5 under
/// PTX 7.5: Fig. 11's artifact rows with a cluster scope carried through are clean, and the same
/// rows with the cluster scope narrowed to `.cta` break Coherence at 3 with two threads in two
/// CTAs of one cluster, confirmed by the printed tests (which place them with `cluster`).
#[test]
fn a_cluster_scope_is_searched_and_its_narrowing_found() {
    let sound = "tests/data/mapping/cluster/rc11-ptx-cluster.map";
    assert!(search(sound, &options(5, &[])).is_empty(), "{sound}");
    let narrowed = "tests/data/mapping/cluster/cluster-as-cta.map";
    let found = found_at(narrowed, 3, &["Coherence", "Atomicity"]);
    for cx in &found {
        let threads = &cx.found.source.threads;
        let placed = |l| {
            threads
                .iter()
                .map(|t| t.placement.instance(l))
                .collect::<Vec<_>>()
        };
        let ctas = placed(Level::Cta);
        let clusters = placed(Level::Cluster);
        let two_ctas_one_cluster = (0..threads.len())
            .any(|a| (0..a).any(|b| ctas[a] != ctas[b] && clusters[a] == clusters[b]));
        assert!(two_ctas_one_cluster, "{}: {:?}", cx.axiom, threads);
    }
}
