//! `Mapping::compile_program` on small MP / SB source tests: every rule of rc11-ptx.map produces
//! the expected PTX instructions (written out here as `Instr` values, not read from the table),
//! registers, values, CAS operands, placements and the final condition survive, and the map back
//! to the source says which target instruction carries each source access.
use std::path::Path;

use mapcheck::litmus::{
    Arch, BinOp, Condition, Expr, Instr, Litmus, Placement, Prop, Quantifier, RmwOp, Target, Thread,
};
use mapcheck::mapping::{self, ClassKind, Image, Mapping, Origin, Role};
use mapcheck::vocab::Level;

fn rc11_ptx() -> Mapping {
    mapping::load(Path::new("mappings/rc11-ptx.map")).unwrap()
}

use crate::support::litmus::{fence, ld, rmw, st, tags};

fn exch(v: i64) -> RmwOp {
    RmwOp::Exch(Expr::Const(v))
}

fn cas(expected: i64, desired: i64) -> RmwOp {
    RmwOp::Cas {
        expected: Expr::Const(expected),
        desired: Expr::Const(desired),
    }
}

fn add(v: i64) -> RmwOp {
    RmwOp::Arith(BinOp::Add, Expr::Const(v))
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

/// A two-thread C11 test; P1 sits in another CTA of the same GPU.
fn test(name: &str, p0: Vec<Instr>, p1: Vec<Instr>, prop: Prop) -> Litmus {
    let thread = |n: &str, cta, code| Thread {
        name: n.into(),
        placement: Placement::default().with(Level::Cta, cta),
        code,
        unsequenced: vec![],
    };
    Litmus {
        arch: Arch::C11,
        name: name.into(),
        init_mem: vec![("x".into(), 0), ("y".into(), 0)],
        init_regs: vec![],
        ssw: vec![],
        filter: None,
        loc_tags: vec![],
        aliases: vec![],
        threads: vec![thread("P0", 0, p0), thread("P1", 1, p1)],
        condition: Condition {
            quantifier: Quantifier::Exists,
            prop,
        },
        locations: vec![],
    }
}

/// Compile and return each target thread's code.
fn compiled_code(m: &Mapping, t: &Litmus) -> Vec<Vec<Instr>> {
    let c = m
        .compile_program(t)
        .unwrap_or_else(|e| panic!("{}", e.render()));
    assert_eq!(c.target.arch, Arch::Ptx);
    assert_eq!(c.target.condition, t.condition);
    assert_eq!(c.target.init_mem, t.init_mem);
    for (src, tgt) in t.threads.iter().zip(&c.target.threads) {
        assert_eq!((&src.name, src.placement), (&tgt.name, tgt.placement));
    }
    c.target.threads.into_iter().map(|th| th.code).collect()
}

#[test]
fn mp_release_acquire_non_atomic() {
    // W.NA, W.REL, R.ACQ, R.NA at GPU scope.
    let t = test(
        "MP+rel+acq",
        vec![st("x", 1, &["NA"]), st("y", 1, &["REL", "GPU"])],
        vec![ld("r0", "y", &["ACQ", "GPU"]), ld("r1", "x", &["NA"])],
        Prop::And(Box::new(reg(1, "r0", 1)), Box::new(reg(1, "r1", 0))),
    );
    let code = compiled_code(&rc11_ptx(), &t);
    assert_eq!(
        code[0],
        [st("x", 1, &["WEAK"]), st("y", 1, &["REL", "GPU"])]
    );
    assert_eq!(
        code[1],
        [ld("r0", "y", &["ACQ", "GPU"]), ld("r1", "x", &["WEAK"])]
    );
}

#[test]
fn mp_relaxed_with_release_and_acquire_fences() {
    // W.RLX, F.REL, F.ACQ, R.RLX at CTA scope.
    let t = test(
        "MP+fence.rel+fence.acq",
        vec![
            st("x", 1, &["RLX", "CTA"]),
            fence(&["REL", "CTA"]),
            st("y", 1, &["RLX", "CTA"]),
        ],
        vec![
            ld("r0", "y", &["RLX", "CTA"]),
            fence(&["ACQ", "CTA"]),
            ld("r1", "x", &["RLX", "CTA"]),
        ],
        reg(1, "r1", 0),
    );
    let code = compiled_code(&rc11_ptx(), &t);
    assert_eq!(
        code[0],
        [
            st("x", 1, &["RLX", "CTA"]),
            fence(&["REL", "CTA"]),
            st("y", 1, &["RLX", "CTA"])
        ]
    );
    assert_eq!(
        code[1],
        [
            ld("r0", "y", &["RLX", "CTA"]),
            fence(&["ACQ", "CTA"]),
            ld("r1", "x", &["RLX", "CTA"])
        ]
    );
}

#[test]
fn sb_seq_cst_accesses_get_leading_fences() {
    // W.SC, R.SC at SYS scope: fence.sc; st.release / fence.sc; ld.acquire.
    let t = test(
        "SB+sc",
        vec![st("x", 1, &["SC", "SYS"]), ld("r0", "y", &["SC", "SYS"])],
        vec![st("y", 1, &["SC", "SYS"]), ld("r0", "x", &["SC", "SYS"])],
        Prop::And(Box::new(reg(0, "r0", 0)), Box::new(reg(1, "r0", 0))),
    );
    let code = compiled_code(&rc11_ptx(), &t);
    let sc = fence(&["SC", "SYS"]);
    assert_eq!(
        code[0],
        [
            sc.clone(),
            st("x", 1, &["REL", "SYS"]),
            sc.clone(),
            ld("r0", "y", &["ACQ", "SYS"])
        ]
    );
    assert_eq!(
        code[1],
        [
            sc.clone(),
            st("y", 1, &["REL", "SYS"]),
            sc,
            ld("r0", "x", &["ACQ", "SYS"])
        ]
    );
}

#[test]
fn sb_with_sc_and_acq_rel_fences() {
    // F.SC on P0, F.ACQ_REL on P1, at GPU scope.
    let t = test(
        "SB+fence.sc+fence.acq_rel",
        vec![
            st("x", 1, &["RLX", "GPU"]),
            fence(&["SC", "GPU"]),
            ld("r0", "y", &["RLX", "GPU"]),
        ],
        vec![
            st("y", 1, &["RLX", "GPU"]),
            fence(&["ACQ_REL", "GPU"]),
            ld("r0", "x", &["RLX", "GPU"]),
        ],
        reg(0, "r0", 0),
    );
    let code = compiled_code(&rc11_ptx(), &t);
    assert_eq!(
        code[0],
        [
            st("x", 1, &["RLX", "GPU"]),
            fence(&["SC", "GPU"]),
            ld("r0", "y", &["RLX", "GPU"])
        ]
    );
    assert_eq!(
        code[1],
        [
            st("y", 1, &["RLX", "GPU"]),
            fence(&["ACQ_REL", "GPU"]),
            ld("r0", "x", &["RLX", "GPU"])
        ]
    );
}

#[test]
fn rmws_of_every_order_keep_their_operation() {
    // RMW.REL (exch), RMW.ACQ (cas), RMW.RLX (add), RMW.ACQ_REL (exch), RMW.SC (cas), GPU scope.
    let t = test(
        "MP+rmws",
        vec![
            st("x", 1, &["NA"]),
            rmw("r0", "y", exch(1), &["REL", "GPU"]),
            rmw("r1", "z", add(2), &["RLX", "GPU"]),
        ],
        vec![
            rmw("r0", "y", cas(1, 2), &["ACQ", "GPU"]),
            rmw("r1", "z", exch(5), &["ACQ_REL", "GPU"]),
            rmw("r2", "y", cas(2, 3), &["SC", "GPU"]),
        ],
        reg(1, "r0", 1),
    );
    let code = compiled_code(&rc11_ptx(), &t);
    assert_eq!(
        code[0],
        [
            st("x", 1, &["WEAK"]),
            rmw("r0", "y", exch(1), &["REL", "GPU"]),
            rmw("r1", "z", add(2), &["RLX", "GPU"])
        ]
    );
    assert_eq!(
        code[1],
        [
            rmw("r0", "y", cas(1, 2), &["ACQ", "GPU"]),
            rmw("r1", "z", exch(5), &["ACQ_REL", "GPU"]),
            fence(&["SC", "GPU"]),
            rmw("r2", "y", cas(2, 3), &["ACQ_REL", "GPU"]),
        ]
    );
}

#[test]
fn a_cas_failure_order_becomes_the_atoms_own() {
    let mut failing = rmw("r0", "y", cas(1, 2), &["SC", "CTA"]);
    if let Instr::Rmw { fail_tags, .. } = &mut failing {
        *fail_tags = Some(tags(&["RLX", "CTA"]));
    }
    let t = test("CAS", vec![failing], vec![], Prop::True);
    let code = compiled_code(&rc11_ptx(), &t);
    assert_eq!(
        code[0],
        [
            fence(&["SC", "CTA"]),
            rmw("r0", "y", cas(1, 2), &["ACQ_REL", "CTA"])
        ]
    );
}

#[test]
fn the_map_back_names_the_main_access_of_each_source_instruction() {
    let t = test(
        "SB+sc",
        vec![st("x", 1, &["SC", "GPU"]), ld("r0", "y", &["SC", "GPU"])],
        vec![
            Instr::Label("L".into()),
            ld("r0", "x", &["RLX", "GPU"]),
            Instr::Assign {
                dst: "r1".into(),
                value: Expr::Const(1),
            },
        ],
        Prop::True,
    );
    let c = rc11_ptx().compile_program(&t).unwrap();
    let roles: Vec<Role> = c.origins[0].iter().map(|o| o.role).collect();
    assert_eq!(roles, [Role::Added, Role::Main, Role::Added, Role::Main]);
    assert_eq!(
        c.origin(0, 3),
        Some(Origin {
            source: 1,
            role: Role::Main
        })
    );
    let image = c.image(0, 1).unwrap();
    assert_eq!((image.start, image.len, image.main), (2, 2, Some(3)));
    assert_eq!(image.class.unwrap().to_string(), "R.SC.GPU");
    assert_eq!(
        c.image(1, 0),
        Some(Image {
            start: 0,
            len: 1,
            main: None,
            class: None
        })
    );
    assert_eq!(
        c.origins[1].iter().map(|o| o.role).collect::<Vec<_>>(),
        [Role::Copied, Role::Main, Role::Copied]
    );
    assert_eq!(c.target.threads[1].code[0], Instr::Label("L".into()));
}

#[test]
fn undeclared_classes_and_unknown_tags_are_errors() {
    let m = rc11_ptx();
    let consume = test(
        "consume",
        vec![ld("r0", "x", &["CON", "GPU"])],
        vec![],
        Prop::True,
    );
    let e = m.compile_program(&consume).unwrap_err();
    assert!(
        e.message.contains("P0, instruction 1") && e.message.contains("R.CON.GPU"),
        "{}",
        e.message
    );
    let local = test(
        "local",
        vec![st("x", 1, &["RLX", "GPU", "LOCAL"])],
        vec![],
        Prop::True,
    );
    let e = m.compile_program(&local).unwrap_err();
    assert!(e.message.contains("`LOCAL`"), "{}", e.message);
    assert!(m
        .classify(ClassKind::R, &tags(&["ACQ", "SC", "GPU"]))
        .is_err());
}

#[test]
fn opencl_drops_fence_flags_and_keeps_barriers() {
    let m = mapping::load(Path::new("mappings/opencl-ptx.map")).unwrap();
    let barrier = |t: &[&str]| Instr::Barrier {
        id: Expr::Const(0),
        count: None,
        tags: tags(t),
    };
    let t = test(
        "opencl",
        vec![
            st("x", 1, &["NA", "GLOBAL"]),
            fence(&["REL", "WG", "GLOBAL", "LOCAL"]),
            barrier(&["SYNC", "WG", "GLOBAL"]),
            barrier(&["LOCAL"]),
        ],
        vec![],
        Prop::True,
    );
    let code = compiled_code(&m, &t);
    let bar_sync = barrier(&["SYNC", "CTA"]);
    assert_eq!(
        code[0],
        [
            st("x", 1, &["WEAK"]),
            fence(&["REL", "CTA"]),
            bar_sync.clone(),
            bar_sync
        ]
    );
    let device_barrier = test("dev", vec![barrier(&["SYNC", "DEV"])], vec![], Prop::True);
    assert!(m
        .compile_program(&device_barrier)
        .unwrap_err()
        .message
        .contains("CTA-wide"));
}
