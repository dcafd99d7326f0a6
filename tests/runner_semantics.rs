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
