//! End to end through the runner. For each known-buggy mapping, the counterexample its header
//! describes is race-free and forbidden in the source model, stays forbidden when compiled with the
//! Figure 11 mapping (rc11-ptx.map), and becomes allowed when compiled with the bug. Message
//! passing in OpenCL and CUDA vocabulary stays forbidden through opencl-ptx.map and cuda-ptx.map.
//! This ties the tags the mappings emit to what models/ptx-v6.cat reads.
use std::path::Path;

use mapcheck::litmus::{
    Arch, CmpOp, Cond, Condition, Expr, Instr, Litmus, Placement, Prop, Quantifier, RmwOp, Target,
    Thread,
};
use mapcheck::mapping::{self, Mapping};
use mapcheck::runner::{self, Options};
use mapcheck::vocab::Level;

use crate::support::litmus::{fence, ld, st, tags};

/// `if (r != v) goto END`
fn skip_unless(r: &str, v: i64) -> Instr {
    let cond = Cond {
        op: CmpOp::Ne,
        lhs: Expr::Reg(r.into()),
        rhs: Expr::Const(v),
    };
    Instr::BranchIf {
        cond,
        target: "END".into(),
    }
}

fn end() -> Instr {
    Instr::Label("END".into())
}

fn reg(thread: usize, r: &str, v: i64) -> Prop {
    Prop::Eq(
        Target::Reg {
            thread,
            reg: r.into(),
        },
        v,
    )
}

fn and(a: Prop, b: Prop) -> Prop {
    Prop::And(Box::new(a), Box::new(b))
}

fn test(name: &str, threads: Vec<(i64, Vec<Instr>)>, prop: Prop) -> Litmus {
    let threads = threads
        .into_iter()
        .enumerate()
        .map(|(i, (cta, code))| Thread {
            name: format!("P{i}"),
            placement: Placement::default().with(Level::Cta, cta),
            code,
            unsequenced: vec![],
        })
        .collect();
    Litmus {
        arch: Arch::C11,
        name: name.into(),
        init_mem: vec![],
        init_regs: vec![],
        ssw: vec![],
        filter: None,
        loc_tags: vec![],
        aliases: vec![],
        threads,
        condition: Condition {
            quantifier: Quantifier::Exists,
            prop,
        },
        locations: vec![],
    }
}

fn load(path: &str) -> Mapping {
    mapping::load(Path::new(path)).unwrap_or_else(|e| panic!("{}", e.render()))
}

fn run(model: &mapcheck::ir::Model, t: &Litmus) -> runner::Outcome {
    runner::run(model, t, &Options::default()).unwrap_or_else(|e| panic!("{}", e.render()))
}

/// Does `model` allow the outcome of `t`?
fn allows(model: &mapcheck::ir::Model, t: &Litmus) -> bool {
    run(model, t).positive > 0
}

/// The source test is race-free (no consistent execution raises `data-race`) and forbids the bad
/// outcome; compiled with Figure 11 it is still forbidden; compiled with the bug it is allowed.
fn check(bug: &str, t: &Litmus) {
    let good = load("mappings/rc11-ptx.map");
    let bad = load(&format!("mappings/known-bugs/{bug}.map"));
    let source = run(&good.source, t);
    assert!(
        !source.flags.contains("data-race"),
        "{bug}: the source test is racy"
    );
    assert_eq!(
        source.positive, 0,
        "{bug}: the source model allows the outcome"
    );
    let good_target = good.compile_program(t).unwrap().target;
    assert!(
        !allows(&good.target, &good_target),
        "{bug}: Figure 11 lets the outcome through: {good_target:#?}"
    );
    let bad_target = bad.compile_program(t).unwrap().target;
    assert!(
        allows(&bad.target, &bad_target),
        "{bug}: the buggy mapping does not produce the outcome"
    );
}

/// MP with a non-atomic payload read only when the flag is seen.
fn mp(w: &[&str], r: &[&str], reader_cta: i64) -> Litmus {
    test(
        "MP",
        vec![
            (0, vec![st("x", 1, &["NA"]), st("y", 1, w)]),
            (
                reader_cta,
                vec![
                    ld("r0", "y", r),
                    skip_unless("r0", 1),
                    ld("r1", "x", &["NA"]),
                    end(),
                ],
            ),
        ],
        and(reg(1, "r0", 1), reg(1, "r1", 0)),
    )
}

#[test]
fn m1_store_buffering_with_sc_accesses() {
    let sc = ["SC", "GPU"];
    let t = test(
        "SB+sc",
        vec![
            (0, vec![st("x", 1, &sc), ld("r0", "y", &sc)]),
            (0, vec![st("y", 1, &sc), ld("r0", "x", &sc)]),
        ],
        and(reg(0, "r0", 0), reg(1, "r0", 0)),
    );
    check("m1-sc-load-fence-dropped", &t);
}

#[test]
fn m2_and_m3_message_passing() {
    let t = mp(&["REL", "GPU"], &["ACQ", "GPU"], 0);
    check("m2-release-store-relaxed", &t);
    check("m3-acquire-load-relaxed", &t);
}

#[test]
fn m4_message_passing_across_two_ctas() {
    check(
        "m4-release-acquire-gpu-narrowed",
        &mp(&["REL", "GPU"], &["ACQ", "GPU"], 1),
    );
}

#[test]
fn m5_store_buffering_with_sc_fences() {
    let (rlx, f) = (["RLX", "GPU"], ["SC", "GPU"]);
    let t = test(
        "SB+fences",
        vec![
            (0, vec![st("x", 1, &rlx), fence(&f), ld("r0", "y", &rlx)]),
            (0, vec![st("y", 1, &rlx), fence(&f), ld("r0", "x", &rlx)]),
        ],
        and(reg(0, "r0", 0), reg(1, "r0", 0)),
    );
    check("m5-sc-fence-weakened", &t);
}

#[test]
fn b1_isa2_variant_of_figure_12() {
    let g = |o: &'static str| [o, "GPU"];
    // A CAS 1 -> 2, so that T2 reading 3 implies the RMW read T0's release write.
    let cas = RmwOp::Cas {
        expected: Expr::Const(1),
        desired: Expr::Const(2),
    };
    let rmw = Instr::Rmw {
        dst: Some("r0".into()),
        loc: "y".into(),
        op: cas,
        tags: tags(&g("SC")),
        fail_tags: None,
    };
    let t = test(
        "ISA2+rmw.sc",
        vec![
            (0, vec![st("x", 1, &["NA"]), st("y", 1, &g("REL"))]),
            (
                0,
                vec![rmw, skip_unless("r0", 1), st("y", 3, &g("RLX")), end()],
            ),
            (
                0,
                vec![
                    ld("r0", "y", &g("ACQ")),
                    skip_unless("r0", 3),
                    ld("r1", "x", &["NA"]),
                    end(),
                ],
            ),
        ],
        and(and(reg(1, "r0", 1), reg(2, "r0", 3)), reg(2, "r1", 0)),
    );
    check("b1-rmw-sc-release-dropped", &t);
}

#[test]
fn the_race_check_is_not_vacuous() {
    // MP whose reader reads x unconditionally races with the writer when it misses the flag.
    let racy = test(
        "MP+racy",
        vec![
            (0, vec![st("x", 1, &["NA"]), st("y", 1, &["REL", "GPU"])]),
            (
                0,
                vec![ld("r0", "y", &["ACQ", "GPU"]), ld("r1", "x", &["NA"])],
            ),
        ],
        and(reg(1, "r0", 1), reg(1, "r1", 0)),
    );
    assert!(run(&load("mappings/rc11-ptx.map").source, &racy)
        .flags
        .contains("data-race"));
}

/// Forbidden and race-free in the source model, and still forbidden once compiled.
fn stays_forbidden(map: &str, t: &Litmus) {
    let m = load(map);
    let source = run(&m.source, t);
    assert!(
        !source.flags.contains("data-race"),
        "{map}: the source test is racy: {:?}",
        source.flags
    );
    assert_eq!(
        source.positive, 0,
        "{map}: the source model allows the outcome"
    );
    let target = m
        .compile_program(t)
        .unwrap_or_else(|e| panic!("{}", e.render()))
        .target;
    assert!(
        !allows(&m.target, &target),
        "{map}: the compiled test allows the outcome"
    );
}

#[test]
fn opencl_message_passing_across_work_groups_stays_forbidden() {
    let mut t = mp(&["REL", "DEV"], &["ACQ", "DEV"], 1);
    t.loc_tags = vec![
        ("x".into(), tags(&["GLOBAL"])),
        ("y".into(), tags(&["GLOBAL"])),
    ];
    stays_forbidden("mappings/opencl-ptx.map", &t);
}

#[test]
fn cuda_volatile_flag_with_threadfence_stays_forbidden() {
    // x = 1; __threadfence(); flag = 1 (volatile)  ||  while-free: r0 = flag; if (r0 == 1) { __threadfence(); r1 = x; }
    let (volatile, threadfence) = (["RLX", "SYS", "V"], ["SC", "GPU"]);
    let t = test(
        "MP+volatile+threadfence",
        vec![
            (
                0,
                vec![
                    st("x", 1, &["NA"]),
                    fence(&threadfence),
                    st("y", 1, &volatile),
                ],
            ),
            (
                1,
                vec![
                    ld("r0", "y", &volatile),
                    skip_unless("r0", 1),
                    fence(&threadfence),
                    ld("r1", "x", &["NA"]),
                    end(),
                ],
            ),
        ],
        and(reg(1, "r0", 1), reg(1, "r1", 0)),
    );
    stays_forbidden("mappings/cuda-ptx.map", &t);
}
