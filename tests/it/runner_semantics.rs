//! The runner on small tests whose allowed outcomes are known by hand: store buffering and
//! message passing under SC and PTX, partial coherence, barriers, RMW chains and loops.
use std::path::Path;

use mapcheck::{ir, litmus, runner};

fn run(model: &str, text: &str) -> runner::Outcome {
    let model = ir::load(Path::new(model)).expect("model loads");
    let test = litmus::parse_str("test.litmus", text).unwrap_or_else(|e| panic!("{}", e.render()));
    runner::run(&model, &test, &runner::Options::default()).expect("runs")
}

const SB_WEAK: &str = "PTX SB
{ x=0; y=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.weak x, 1   | st.weak y, 1   ;
 ld.weak r0, y  | ld.weak r0, x  ;
exists (P0:r0 == 0 /\\ P1:r0 == 0)";

#[test]
fn store_buffering_is_forbidden_by_sc_and_allowed_by_ptx() {
    let sc = run("models/sc.cat", SB_WEAK);
    assert!(!sc.validated);
    assert_eq!(
        sc.states.len(),
        3,
        "SC allows exactly the three interleaving outcomes"
    );
    let ptx = run("models/ptx-v6.cat", SB_WEAK);
    assert!(ptx.validated);
    assert_eq!(ptx.states.len(), 4);
}

#[test]
fn fence_sc_restores_sequential_consistency_for_sb() {
    let text = SB_WEAK.replace(
        " ld.weak r0, y  | ld.weak r0, x  ;",
        " fence.sc.gpu | fence.sc.gpu ;\n ld.weak r0, y  | ld.weak r0, x  ;",
    );
    assert!(!run("models/ptx-v6.cat", &text).validated);
    // Two CTA-scoped fences in different CTAs are not morally strong: SB is back.
    let cta = text.replace("fence.sc.gpu", "fence.sc.cta");
    assert!(run("models/ptx-v6.cat", &cta).validated);
}

#[test]
fn message_passing_needs_release_and_acquire_at_a_common_scope() {
    let mp = |st: &str, ld: &str, p1: &str| {
        format!(
            "PTX MP
{{ x=0; y=0; }}
 P0@cta 0,gpu 0 | {p1} ;
 st.weak x, 1 | {ld} r0, y ;
 {st} y, 1 | ld.weak r1, x ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)"
        )
    };
    assert!(
        !run(
            "models/ptx-v6.cat",
            &mp("st.release.gpu", "ld.acquire.gpu", "P1@cta 1,gpu 0")
        )
        .validated
    );
    assert!(
        run(
            "models/ptx-v6.cat",
            &mp("st.relaxed.gpu", "ld.acquire.gpu", "P1@cta 1,gpu 0")
        )
        .validated
    );
    assert!(
        run(
            "models/ptx-v6.cat",
            &mp("st.release.cta", "ld.acquire.cta", "P1@cta 1,gpu 0")
        )
        .validated
    );
    assert!(
        !run(
            "models/ptx-v6.cat",
            &mp("st.release.cta", "ld.acquire.cta", "P1@cta 0,gpu 0")
        )
        .validated
    );
}

/// PTX ISA §8.5 "Scope": `.cluster` is the set of threads executing in the thread's cluster,
/// so a release and an acquire at `.cluster` are morally strong between two CTAs of one cluster
/// (MP forbidden) and not between two clusters (MP allowed), where `.cta` is neither.
#[test]
fn cluster_scope_includes_the_ctas_of_one_cluster_and_no_other() {
    let mp = |scope: &str, p1: &str| {
        format!(
            "PTX MP-cluster
{{ x=0; y=0; }}
 P0@cta 0,cluster 0,gpu 0 | {p1} ;
 st.weak x, 1 | ld.acquire.{scope} r0, y ;
 st.release.{scope} y, 1 | ld.weak r1, x ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)"
        )
    };
    let allowed = |scope: &str, p1: &str| run("models/ptx-v7.5.cat", &mp(scope, p1)).validated;
    assert!(!allowed("cluster", "P1@cta 1,cluster 0,gpu 0"));
    assert!(allowed("cluster", "P1@cta 1,cluster 1,gpu 0"));
    assert!(allowed("cta", "P1@cta 1,cluster 0,gpu 0"));
    assert!(!allowed("gpu", "P1@cta 1,cluster 1,gpu 0"));
    // Not written, a thread's cluster is 0: two CTAs of one GPU then share a cluster.
    assert!(!allowed("cluster", "P1@cta 1,gpu 0"));
    // The other PTX models read `.cluster` through the same `incl`.
    let v6 = run(
        "models/ptx-v6.cat",
        &mp("cluster", "P1@cta 1,cluster 1,gpu 0"),
    );
    assert!(v6.validated);
}

/// The two C++ versions (decision 018): message passing through a release sequence that a
/// later relaxed store of the releasing thread continues synchronises under C++11's release
/// sequences (the default reading) and not under C++20's (`--variant cxx20`, P0982R1), in every
/// C++ model that reads release sequences from rc11-base.cat, scoped or not.
#[test]
fn a_later_store_of_the_releasing_thread_continues_a_release_sequence_before_cxx20_only() {
    let path = "tests/data/litmus/cxx-versions/MP+rel-rlx+acq.litmus";
    let test = litmus::parse_file(Path::new(path)).expect("parses");
    for model in ["rc11", "c11", "rc11-scoped", "cuda"] {
        let file = format!("models/{model}.cat");
        let allowed = |variants: &[&str]| {
            let opts = ir::LoadOptions {
                variants: variants.iter().map(|v| v.to_string()).collect(),
                ..ir::LoadOptions::default()
            };
            let m = ir::load_with(Path::new(&file), &opts).expect("model loads");
            let outcome = runner::run(&m, &test, &runner::Options::default()).expect("runs");
            assert!(outcome.flags.is_empty(), "{model} {variants:?}: racy");
            outcome.validated
        };
        assert!(!allowed(&[]), "{model}: C++11 release sequences");
        assert!(allowed(&["cxx20"]), "{model}: C++20 release sequences");
    }
}

#[test]
fn concurrent_increments_are_atomic() {
    let text = "PTX INC
{ x=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 atom.relaxed.gpu.add r0, x, 1 | atom.relaxed.gpu.add r0, x, 1 ;
exists (x == 1)";
    let o = run("models/ptx-v6.cat", text);
    assert!(
        !o.validated,
        "two morally strong increments cannot lose one"
    );
    assert!(o.states.keys().all(|s| s.contains("x=2")));
}

#[test]
fn spin_loop_is_unrolled_and_sees_the_flag() {
    let text = "PTX SPIN
{ x=0; y=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.weak x, 1 | LC00: ;
 st.release.gpu y, 1 | ld.acquire.gpu r0, y ;
 | bne r0, 1, LC00 ;
 | ld.weak r1, x ;
forall (P1:r0 == 1 /\\ P1:r1 == 1)";
    let o = run("models/ptx-v6.cat", text);
    assert!(o.validated, "{o:?}");
    assert!(o.positive > 0);
}

#[test]
fn a_barrier_short_of_its_quorum_blocks_the_threads_behind_it() {
    let text = "PTX HANG
{ x=0; }
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;
 bar.cta.sync 1, 1, 3 | bar.cta.sync 1, 1, 3 ;
 st.weak x, 1 | ;
exists (x == 1)";
    assert!(!run("models/ptx-v6.cat", text).validated);
}

/// A thread that passes a barrier without a thread count twice arrives in two generations: the
/// barrier waits for the threads that reach it, not for all their arrivals at once (which left
/// such a test with no execution at all). Message passing through the second phase: the load
/// after it reads the store before it; with both accesses after the second phase, either value.
#[test]
fn a_barrier_passed_twice_synchronises_twice() {
    let phases = "PTX BAR2
{ x=0; }
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;
 bar.sync 0 | bar.sync 0 ;
 st.weak x, 1 | bar.sync 0 ;
 bar.sync 0 | ld.weak r0, x ;
exists (P1:r0 == 0)";
    for model in ["models/ptx-v6.cat", "models/ptx-v6-alloy.cat"] {
        let o = run(model, phases);
        assert!(!o.validated, "{model}: {o:?}");
        assert_eq!(o.states.len(), 1, "{model}: {o:?}");
        let after = phases.replace(
            " st.weak x, 1 | bar.sync 0 ;\n bar.sync 0 | ld.weak r0, x ;",
            " bar.sync 0 | bar.sync 0 ;\n st.weak x, 1 | ld.weak r0, x ;",
        );
        assert_ne!(after, phases);
        let o = run(model, &after);
        assert!(o.validated, "{model}: {o:?}");
        assert_eq!(o.states.len(), 2, "{model}: {o:?}");
    }
}

/// A generic alias is another address of the same location: reads through it read the location's
/// writes (SC: a later read sees the write), and PTX 7.5 orders the two addresses only with
/// `fence.proxy.alias` between them; the final value is the location's.
#[test]
fn aliases_share_a_location_and_need_the_alias_fence_in_ptx_75() {
    let text = "PTX alias
{ x=0; y @ generic aliases x; }
 P0@cta 0,gpu 0 ;
 st.weak x, 1 ;
 ld.weak r0, y ;
exists (P0:r0 == 0 /\\ x == 1)";
    assert!(!run("models/sc.cat", text).validated);
    let ptx = run("models/ptx-v7.5.cat", text);
    assert!(
        ptx.validated,
        "without the alias fence the old value may be read"
    );
    assert_eq!(ptx.states.len(), 2);
    let fenced = text.replace(" ld.weak r0, y ;", " fence.proxy.alias ;\n ld.weak r0, y ;");
    assert!(!run("models/ptx-v7.5.cat", &fenced).validated);
}

/// herd's `Witnesses` line counts executions for and against the clause: for `~exists c` it
/// swaps the proposition's counts (herd's `check_wit`), while `Observation` keeps them.
#[test]
fn not_exists_witnesses_follow_herd() {
    let text = SB_WEAK.replace("exists (", "~exists (");
    let o = run("models/sc.cat", &text);
    assert!(o.validated, "SC forbids the store-buffering outcome");
    assert_eq!(o.positive, 0, "no execution satisfies the proposition");
    assert!(o.negative > 0);
    assert_eq!(runner::witnesses(&o), (o.negative, o.positive));
    let shown = runner::render_herd(&o);
    let n = o.negative;
    assert!(
        shown.contains(&format!("Positive: {n} Negative: 0")),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("Observation SB Never 0 {n}")),
        "{shown}"
    );
    let exists = run("models/sc.cat", SB_WEAK);
    assert_eq!(
        runner::witnesses(&exists),
        (0, n),
        "exists keeps the proposition's counts"
    );
}

/// herd's `locations [...]` clause: the final states show those registers and locations beside
/// the condition's own.
#[test]
fn locations_clause_adds_to_the_final_states() {
    let text = SB_WEAK.replace("exists (", "locations [x; y;]\nexists (");
    let o = run("models/sc.cat", &text);
    let plain = run("models/sc.cat", SB_WEAK);
    assert_eq!(o.validated, plain.validated);
    assert_eq!(
        o.states.len(),
        plain.states.len(),
        "x and y end at 1 in every execution"
    );
    for state in o.states.keys() {
        assert!(state.ends_with(" x=1; y=1;"), "{state}");
    }
}

/// A compare-exchange whose failure order is `memory_order_release` (C11 7.17.7.4 forbids it;
/// the reference tool, Dat3M, reads such tests with the success order alone): the failed read
/// keeps the success order, so a failed `acq_rel` compare-exchange that reads the flag acquires
/// it, and message passing holds. With a relaxed failure order it does not.
#[test]
fn a_release_failure_order_reads_with_the_success_order() {
    let mp = |failure: &str| {
        format!(
            "C MP+cas-failure
{{ [x] = 0; [y] = 0; }}

P0 (atomic_int* x, atomic_int* y) {{
  atomic_store_explicit(y, 1, memory_order_relaxed);
  atomic_store_explicit(x, 1, memory_order_release);
}}

P1 (atomic_int* x, atomic_int* y) {{
  int e = 2;
  int ok = atomic_compare_exchange_strong_explicit(x, &e, 3, memory_order_acq_rel, {failure});
  int r1 = atomic_load_explicit(y, memory_order_relaxed);
}}

exists (1:ok=0 /\\ 1:e=1 /\\ 1:r1=0)"
        )
    };
    assert!(!run("models/rc11.cat", &mp("memory_order_release")).validated);
    assert!(!run("models/rc11.cat", &mp("memory_order_acquire")).validated);
    assert!(run("models/rc11.cat", &mp("memory_order_relaxed")).validated);
}

/// C11 6.5p2: the operands of `+` are unsequenced. In `atomic_load_explicit(x, acquire) + *y`
/// the plain read of `y` is not sequenced after the acquire, so the release/acquire pair does not
/// make `P0`'s write of `y` visible to it: C11 (visible side effects) forbids reading 1, and RC11,
/// which has no such axiom, lets it read 1 only in a racy execution. Written as two statements,
/// the read is sequenced after the acquire and reading 1 is allowed without a race.
#[test]
fn operands_of_an_operator_are_unsequenced() {
    let mp = |reader: &str| {
        format!(
            "C MP+unsequenced
{{ [x] = 0; [y] = 0; }}

P0 (atomic_int* x, int* y) {{
  *y = 1;
  atomic_store_explicit(x, 1, memory_order_release);
}}

P1 (atomic_int* x, int* y) {{
  {reader}
}}

exists (1:t=2)"
        )
    };
    let unsequenced = mp("int t = atomic_load_explicit(x, memory_order_acquire) + *y;");
    let sequenced = mp("int a = atomic_load_explicit(x, memory_order_acquire);\n  int t = a + *y;");
    assert!(!run("models/c11.cat", &unsequenced).validated);
    assert!(run("models/c11.cat", &sequenced).validated);
    let rc11 = run("models/rc11.cat", &unsequenced);
    assert!(rc11.validated && rc11.flags.contains("data-race"));
}

/// The shape of Dat3M's `C11/auto/linearisation` (its reference verdict under C11 is 0; the
/// vendored `linearisation2`, the same program with the sum written as two statements, is 1):
/// the unsequenced plain read of `y` cannot see `P2`'s write through `P0`'s acquire.
#[test]
fn an_unsequenced_read_is_not_ordered_by_the_acquire_beside_it() {
    let text = |p0: &str| {
        format!(
            "C linearisation
{{ [x] = 0; [y] = 0; [w] = 0; [z] = 0; }}

P0 (atomic_int* w, atomic_int* x, volatile int* y) {{
  {p0}
  if (t == 2) {{
    atomic_store_explicit(w, 1, memory_order_release);
  }}
}}

P1 (atomic_int* w, atomic_int* z) {{
  int r0 = atomic_load_explicit(w, memory_order_relaxed);
  if (r0) {{
    atomic_store_explicit(z, 1, memory_order_relaxed);
  }}
}}

P2 (atomic_int* x, volatile int* y, atomic_int* z) {{
  int r1 = atomic_load_explicit(z, memory_order_relaxed);
  if (r1) {{
    *y = 1;
    atomic_store_explicit(x, 1, memory_order_release);
  }}
}}

exists (0:t=2 /\\ w=1 /\\ x=1 /\\ y=1 /\\ z=1)"
        )
    };
    let one = text("int t = atomic_load_explicit(x, memory_order_acquire) + *y;");
    let two = text("int t = atomic_load_explicit(x, memory_order_acquire);\n  t = t + *y;");
    assert!(!run("models/c11.cat", &one).validated);
    assert!(run("models/c11.cat", &two).validated);
}

/// Unsequenced events have no `po` between them, but both stay `po`-after what comes before the
/// expression and `po`-before what follows.
#[test]
fn unsequenced_operands_keep_po_with_the_rest_of_the_thread() {
    let test = litmus::parse_str(
        "t.litmus",
        "C t
{ [x] = 0; [y] = 0; [z] = 0; }
P0 (atomic_int* x, atomic_int* y, atomic_int* z) {
  atomic_store_explicit(z, 1, memory_order_relaxed);
  int t = atomic_load_explicit(x, memory_order_relaxed) + atomic_load_explicit(y, memory_order_relaxed);
  atomic_store_explicit(z, 2, memory_order_relaxed);
}
exists (0:t=0)",
    )
    .unwrap_or_else(|e| panic!("{}", e.render()));
    let model = ir::load(Path::new("models/sc.cat")).expect("model loads");
    let mut checked = 0;
    runner::for_each_candidate(&model, &test, &runner::Options::default(), &mut |c| {
        // Events: three initial writes, then W z, R x, R y, W z.
        let po = &c.execution.po;
        assert!(!po.contains(4, 5) && !po.contains(5, 4), "the two reads");
        for read in [4, 5] {
            assert!(po.contains(3, read) && po.contains(read, 6));
        }
        assert!(po.contains(3, 6));
        checked += 1;
    })
    .expect("runs");
    assert!(checked > 0);
}

/// OpenCL 2.0 (§3.3.6, and the scoped model of Batty, Donaldson and Wickerson): a release and
/// an acquire synchronise the memory region of the location they access. A `local` flag at
/// work-group scope publishes `local` data to the work-group, but not `global` data.
#[test]
fn local_memory_synchronises_its_own_region() {
    let mp = |data: &str| {
        format!(
            "OPENCL MP+local-flag
{{ [x] = 0; [y] = 0; }}

P0@wg 0, dev 0 ({data} int* x, local atomic_int* y) {{
  *x = 1;
  atomic_store_explicit(y, 1, memory_order_release, memory_scope_work_group);
}}

P1@wg 0, dev 0 ({data} int* x, local atomic_int* y) {{
  int r0 = atomic_load_explicit(y, memory_order_acquire, memory_scope_work_group);
  int r1 = -1;
  if (r0 == 1) {{
    r1 = *x;
  }}
}}

exists (1:r1=0)"
        )
    };
    let local = run("models/opencl.cat", &mp("local"));
    assert!(!local.validated && local.flags.is_empty());
    let global = run("models/opencl.cat", &mp("global"));
    assert!(global.validated && global.flags.contains("data-race"));
}

/// herd's `filter`: executions whose final state falsifies it are not considered, neither for
/// the states nor for the model's flags. Vulkan message passing with release and acquire races on
/// `x` only when the acquire does not read the release.
#[test]
fn filter_drops_executions_before_states_and_flags() {
    let mp = "Vulkan MP
{ x=0; y=0; }
 P0@sg 0, wg 0, qf 0             | P1@sg 0, wg 1, qf 0             ;
 st.av.dv.sc0 x, 1               | ld.atom.acq.dv.sc0.semsc0 r0, y ;
 st.atom.rel.dv.sc0.semsc0 y, 1  | ld.vis.dv.sc0 r1, x             ;
FILTER
exists (P1:r0 == 1 /\\ P1:r1 == 0)";
    let unfiltered = run("models/vulkan.cat", &mp.replace("FILTER", ""));
    assert_eq!(unfiltered.states.len(), 3, "{:?}", unfiltered.states);
    assert!(!unfiltered.validated);
    assert!(unfiltered.flags.contains("racy"));
    let synchronised = run(
        "models/vulkan.cat",
        &mp.replace("FILTER", "filter (P1:r0 == 1)"),
    );
    assert_eq!(synchronised.states.len(), 1, "{:?}", synchronised.states);
    assert!(!synchronised.validated);
    assert!(synchronised.flags.is_empty(), "{:?}", synchronised.flags);
}

/// A test without a final condition is read as herd reads it, `forall (true)`: every execution
/// satisfies it, and a state shows what the `locations` clause names (nothing without one).
#[test]
fn a_test_without_a_final_condition_asks_nothing_of_its_states() {
    let body = "PTX no-condition\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n \
                st.weak x, 1 | ld.weak r0, x ;\n";
    let bare = run("models/ptx-v6.cat", body);
    assert_eq!(bare.states.len(), 1);
    assert!(bare.validated && bare.negative == 0 && bare.positive == 2);
    let shown = run("models/ptx-v6.cat", &format!("{body}locations [1:r0;]\n"));
    let states: Vec<&String> = shown.states.keys().collect();
    assert_eq!(states, ["1:r0=0;", "1:r0=1;"]);
    assert!(shown.validated);
}
