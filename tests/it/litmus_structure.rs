//! What the litmus front ends produce for representative tests: tags, placements, initial
//! values, condition structure, and the lowering of branches, compare-exchange, barriers and
//! arrays. Corpus files are read from `tests/data/oracle/dat3m/litmus/`; the rest are inline.
use std::path::Path;

use mapcheck::litmus::{
    self, Arch, BinOp, CmpOp, Cond, Expr, Instr, Litmus, Placement, Prop, Quantifier, RmwOp, Target,
};
use mapcheck::vocab::Level;
use mapcheck::vocab::Tag;

fn corpus(rel: &str) -> Litmus {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/oracle/dat3m/litmus")
        .join(rel);
    litmus::parse_file(&path).unwrap_or_else(|e| panic!("{}", e.render()))
}

fn parse(text: &str) -> Litmus {
    litmus::parse_str("inline.litmus", text).unwrap_or_else(|e| panic!("{}", e.render()))
}

fn tags(t: &[&str]) -> Vec<Tag> {
    t.iter().map(|s| Tag::from_name(s).unwrap()).collect()
}

fn reg(r: &str) -> Expr {
    Expr::Reg(r.to_string())
}

fn treg(thread: usize, r: &str) -> Target {
    Target::Reg {
        thread,
        reg: r.to_string(),
    }
}

fn eq(t: Target, v: i64) -> Box<Prop> {
    Box::new(Prop::Eq(t, v))
}

fn label(s: &str) -> Instr {
    Instr::Label(s.to_string())
}

// ------------------------------------------------------------------------------------ PTX

#[test]
fn ptx_ticketlock_rmw_tags_branches_and_register_equality() {
    let t = corpus("PTX/Manual/Ticketlock-acq2rlx-1.litmus");
    assert_eq!(
        (t.arch, t.name.as_str()),
        (Arch::Ptx, "Ticketlock-acq2rlx-1")
    );
    assert_eq!(
        t.init_mem,
        vec![("in".into(), 0), ("out".into(), 0), ("x".into(), 0)]
    );
    let p0 = &t.threads[0].code;
    assert_eq!(
        p0[0],
        Instr::Rmw {
            dst: Some("r1".into()),
            loc: "in".into(),
            op: RmwOp::Arith(BinOp::Add, Expr::Const(1)),
            tags: tags(&["RLX", "GPU"]),
            fail_tags: None
        }
    );
    assert_eq!(p0[1], label("LC00"));
    assert_eq!(
        p0[2],
        Instr::Load {
            dst: "r2".into(),
            loc: "out".into(),
            tags: tags(&["ACQ", "GPU"])
        }
    );
    assert_eq!(
        p0[3],
        Instr::BranchIf {
            cond: Cond {
                op: CmpOp::Eq,
                lhs: reg("r1"),
                rhs: reg("r2")
            },
            target: "LC01".into()
        }
    );
    assert_eq!(p0[4], Instr::Goto("LC00".into()));
    assert_eq!(
        p0[6],
        Instr::Load {
            dst: "r3".into(),
            loc: "x".into(),
            tags: tags(&["WEAK"])
        }
    );
    assert_eq!(
        p0[8].clone(),
        Instr::Rmw {
            dst: Some("r4".into()),
            loc: "out".into(),
            op: RmwOp::Arith(BinOp::Add, Expr::Const(1)),
            tags: tags(&["REL", "GPU"]),
            fail_tags: None
        }
    );
    let expected = Prop::And(
        Box::new(Prop::And(
            Box::new(Prop::And(
                Box::new(Prop::EqTargets(treg(0, "r1"), treg(0, "r2"))),
                Box::new(Prop::EqTargets(treg(1, "r1"), treg(1, "r2"))),
            )),
            eq(treg(0, "r3"), 0),
        )),
        eq(treg(1, "r3"), 0),
    );
    assert_eq!(t.condition.quantifier, Quantifier::Exists);
    assert_eq!(t.condition.prop, expected);
}

#[test]
fn ptx_barrier_operands_and_placements() {
    let t = corpus("PTX/Barrier/quorum1-pass.litmus");
    assert_eq!(t.threads.len(), 3);
    let sync = Instr::Barrier {
        id: Expr::Const(1),
        count: Some(Expr::Const(2)),
        tags: tags(&["SYNC", "CTA"]),
    };
    assert_eq!(
        t.threads[0].code,
        vec![
            Instr::Store {
                loc: "x".into(),
                value: Expr::Const(1),
                tags: tags(&["WEAK"])
            },
            sync.clone()
        ]
    );
    assert_eq!(t.threads[2].code, vec![sync]);

    let t = corpus("PTX/Manual/SB+named-bar-reg-const-diff.litmus");
    let ids: Vec<&Expr> = t
        .threads
        .iter()
        .flat_map(|th| &th.code)
        .filter_map(|i| match i {
            Instr::Barrier {
                id, count: None, ..
            } => Some(id),
            _ => None,
        })
        .collect();
    assert_eq!(ids, vec![&reg("r2"), &Expr::Const(1)]);
    assert_eq!(t.condition.quantifier, Quantifier::Forall);

    let t = corpus("PTX/Manual/PC-bar-sync-arrive.litmus");
    assert_eq!(
        t.threads[1].code[0],
        Instr::Barrier {
            id: Expr::Const(1),
            count: None,
            tags: tags(&["ARRIVE", "CTA"])
        }
    );

    let t = corpus("PTX/Manual/CoRR-relaxed-acquire-weak.litmus");
    assert_eq!(t.threads[0].placement, Placement::default());
    assert_eq!(
        t.threads[1].placement,
        Placement::default().with(Level::Cta, 1).with(Level::Gpu, 1)
    );
}

#[test]
fn ptx_cas_red_and_memalloy_moves() {
    let t = corpus("PTX/Manual/MICRO24-Fig4b.litmus");
    assert_eq!(t.init_regs, vec![(1, "r1".into(), 0), (1, "r2".into(), 0)]);
    let p1 = &t.threads[1].code;
    assert_eq!(
        p1[1],
        Instr::Rmw {
            dst: Some("r1".into()),
            loc: "flag".into(),
            op: RmwOp::Cas {
                expected: Expr::Const(1),
                desired: Expr::Const(0)
            },
            tags: tags(&["RLX", "GPU"]),
            fail_tags: None,
        }
    );
    assert_eq!(
        p1[2],
        Instr::BranchIf {
            cond: Cond {
                op: CmpOp::Ne,
                lhs: reg("r1"),
                rhs: Expr::Const(1)
            },
            target: "LC00".into()
        }
    );
    assert_eq!(
        p1[3],
        Instr::Fence {
            tags: tags(&["SC", "CTA"])
        }
    );

    // Dat3M's `red.acq_rel.sys.sub` is not PTX (`red` is `.relaxed` or `.release`, ISA 8.x
    // §9.7.13.6): refused at the qualifier. Written as PTX has it, it reads as an RMW without
    // destination, tagged RED.
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/oracle/dat3m/litmus/PTX/Manual/Red-minus-location_.litmus");
    let e = litmus::parse_file(&path).expect_err("red.acq_rel is refused");
    assert!(e.to_string().ends_with("Red-minus-location_.litmus:9:6: `red` cannot be `.acq_rel`; expected `.relaxed` or `.release`"), "{e}");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("red.acq_rel", "red.release");
    let t = parse(&text);
    assert_eq!(
        t.threads[0].code,
        vec![Instr::Rmw {
            dst: None,
            loc: "x".into(),
            op: RmwOp::Arith(BinOp::Sub, Expr::Const(1)),
            tags: tags(&["REL", "SYS", "RED"]),
            fail_tags: None,
        }]
    );
    assert_eq!(t.condition.prop, Prop::Eq(Target::Mem("x".into()), 0));

    let t = corpus("PTX/Memalloy/IRRWIW1.litmus");
    assert_eq!(
        t.threads[0].code[0],
        Instr::Assign {
            dst: "r0".into(),
            value: Expr::Const(2)
        }
    );
    assert_eq!(
        t.threads[0].code[1],
        Instr::Store {
            loc: "x".into(),
            value: reg("r0"),
            tags: tags(&["WEAK"])
        }
    );
}

#[test]
fn ptx_qualifier_defaults_and_synonyms() {
    let t = parse(
        "PTX synonyms\n\"a description\nover two lines\"\n{ x=0; y=0; }\n\
         P0@cta 0,gpu 1 ;\n\
         ld.volatile.global.u32 r0, [x] ;\n\
         st.relaxed.cta.s32 y, r0 ;\n\
         membar.gl ;\n\
         fence.sys ;\n\
         atom.add.u32 r1, x, 1 ;\n\
         atom.acquire.sys.exch.b32 r2, y, 3 ;\n\
         mov.u32 r3, r2 ;\n\
         add.s32 r3, r3, -1 ;\n\
         bar.sync 0 ;\n\
         L: bra.uni L ;\n\
         exists (x = 1 => ~(0:r0 != 2) \\/ false)",
    );
    assert_eq!(
        t.threads[0].placement,
        Placement::default().with(Level::Cta, 0).with(Level::Gpu, 1)
    );
    assert_eq!(
        t.threads[0].code,
        vec![
            Instr::Load {
                dst: "r0".into(),
                loc: "x".into(),
                tags: tags(&["RLX", "SYS", "V"])
            },
            Instr::Store {
                loc: "y".into(),
                value: reg("r0"),
                tags: tags(&["RLX", "CTA"])
            },
            Instr::Fence {
                tags: tags(&["SC", "GPU"])
            },
            Instr::Fence {
                tags: tags(&["ACQ_REL", "SYS"])
            },
            Instr::Rmw {
                dst: Some("r1".into()),
                loc: "x".into(),
                op: RmwOp::Arith(BinOp::Add, Expr::Const(1)),
                tags: tags(&["RLX", "GPU"]),
                fail_tags: None
            },
            Instr::Rmw {
                dst: Some("r2".into()),
                loc: "y".into(),
                op: RmwOp::Exch(Expr::Const(3)),
                tags: tags(&["ACQ", "SYS"]),
                fail_tags: None
            },
            Instr::Assign {
                dst: "r3".into(),
                value: reg("r2")
            },
            Instr::Assign {
                dst: "r3".into(),
                value: Expr::Bin(BinOp::Add, Box::new(reg("r3")), Box::new(Expr::Const(-1)))
            },
            Instr::Barrier {
                id: Expr::Const(0),
                count: None,
                tags: tags(&["SYNC", "CTA"])
            },
            label("L"),
            Instr::Goto("L".into()),
        ]
    );
    let expected = Prop::Implies(
        eq(Target::Mem("x".into()), 1),
        Box::new(Prop::Or(
            Box::new(Prop::Not(Box::new(Prop::Not(eq(treg(0, "r0"), 2))))),
            Box::new(Prop::False),
        )),
    );
    assert_eq!(t.condition.prop, expected);
}

// ------------------------------------------------------------------------------------ C11

#[test]
fn c11_compare_exchange_reads_expected_and_writes_it_back() {
    let t = corpus("C11/auto/c_pq.litmus");
    assert_eq!(t.arch, Arch::C11);
    assert_eq!(t.threads[0].placement, Placement::default());
    assert!(t.loc_tags.is_empty());
    let p0 = &t.threads[0].code;
    // int r0 = atomic_load_explicit(x, relaxed); if (r0) { t = CAS(p, one, 2, acquire, relaxed); … }
    assert_eq!(
        p0[0],
        Instr::Load {
            dst: "r0".into(),
            loc: "x".into(),
            tags: tags(&["RLX"])
        }
    );
    let Instr::BranchIf {
        cond,
        target: end_if,
    } = &p0[1]
    else {
        panic!("{:?}", p0[1])
    };
    assert_eq!(
        (cond.op, &cond.lhs, &cond.rhs),
        (CmpOp::Eq, &reg("r0"), &Expr::Const(0))
    );
    let Instr::Load {
        dst: expected,
        loc,
        tags: na,
    } = &p0[2]
    else {
        panic!("{:?}", p0[2])
    };
    assert_eq!((loc.as_str(), na.clone()), ("one", tags(&["NA"])));
    let Instr::Rmw {
        dst: Some(old),
        loc,
        op,
        tags: succ,
        fail_tags,
    } = &p0[3]
    else {
        panic!("{:?}", p0[3])
    };
    assert_eq!(loc, "p");
    assert_eq!(
        op,
        &RmwOp::Cas {
            expected: reg(expected),
            desired: Expr::Const(2)
        }
    );
    assert_eq!(
        (succ.clone(), fail_tags.clone()),
        (tags(&["ACQ"]), Some(tags(&["RLX"])))
    );
    assert_eq!(
        p0[4],
        Instr::Assign {
            dst: "t".into(),
            value: Expr::Const(1)
        }
    );
    let Instr::BranchIf { cond, target: ok } = &p0[5] else {
        panic!("{:?}", p0[5])
    };
    assert_eq!(
        cond,
        &Cond {
            op: CmpOp::Eq,
            lhs: reg(old),
            rhs: reg(expected)
        }
    );
    assert_eq!(
        p0[6],
        Instr::Assign {
            dst: "t".into(),
            value: Expr::Const(0)
        }
    );
    assert_eq!(
        p0[7],
        Instr::Store {
            loc: "one".into(),
            value: reg(old),
            tags: tags(&["NA"])
        }
    );
    assert_eq!(&p0[8], &label(ok));
    assert_eq!(p0.last(), Some(&label(end_if)));
    assert_eq!(
        t.condition.prop,
        Prop::And(
            eq(Target::Mem("p".into()), 1),
            eq(Target::Mem("q".into()), 1)
        )
    );
}

#[test]
fn c11_fences_plain_accesses_and_if() {
    let t = corpus("C11/manual/mp_fences.litmus");
    assert_eq!(
        t.threads[0].code,
        vec![
            Instr::Store {
                loc: "x".into(),
                value: Expr::Const(1),
                tags: tags(&["NA"])
            },
            Instr::Fence {
                tags: tags(&["REL"])
            },
            Instr::Store {
                loc: "y".into(),
                value: Expr::Const(1),
                tags: tags(&["RLX"])
            },
        ]
    );
    let p1 = &t.threads[1].code;
    assert_eq!(
        p1[1],
        Instr::Fence {
            tags: tags(&["ACQ"])
        }
    );
    assert_eq!(
        p1[2],
        Instr::Assign {
            dst: "r1".into(),
            value: Expr::Const(-1)
        }
    );
    // if (1 == r0) { r1 = *x; }: jump over the body when 1 != r0.
    let Instr::BranchIf { cond, target } = &p1[3] else {
        panic!("{:?}", p1[3])
    };
    assert_eq!(
        cond,
        &Cond {
            op: CmpOp::Ne,
            lhs: Expr::Const(1),
            rhs: reg("r0")
        }
    );
    assert_eq!(
        p1[4],
        Instr::Load {
            dst: "r1".into(),
            loc: "x".into(),
            tags: tags(&["NA"])
        }
    );
    assert_eq!(p1[5], label(target));
    assert_eq!(
        t.condition.prop,
        Prop::And(eq(treg(1, "r0"), 1), eq(treg(1, "r1"), 0))
    );
}

#[test]
fn c11_array_with_register_index_becomes_a_branch_per_element() {
    let t = corpus("C11/manual/imm-E3.5.litmus");
    assert_eq!(t.init_mem, vec![("y".into(), 0), ("y[1]".into(), 0)]);
    let loads: Vec<&str> = t.threads[0]
        .code
        .iter()
        .filter_map(|i| match i {
            Instr::Load { dst, loc, .. } if dst == "r1" => Some(loc.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(loads, vec!["y", "y[1]"]);
    let guards: Vec<&Cond> = t.threads[0]
        .code
        .iter()
        .filter_map(|i| match i {
            Instr::BranchIf { cond, .. } => Some(cond),
            _ => None,
        })
        .collect();
    assert_eq!(
        guards,
        vec![
            &Cond {
                op: CmpOp::Eq,
                lhs: reg("r0"),
                rhs: Expr::Const(0)
            },
            &Cond {
                op: CmpOp::Eq,
                lhs: reg("r0"),
                rhs: Expr::Const(1)
            },
        ]
    );
}

#[test]
fn c11_loops_else_short_circuit_and_reads_in_expressions() {
    let t = parse(
        "C loops\n{ [x] = 0; int y = 2; }\n\
         P0 (atomic_int* x, int* y) {\n\
           int r = 0;\n\
           while (atomic_load_explicit(x, memory_order_acquire) == 0 && r < 3) { r = r + 1; }\n\
           if (!r || *y) { atomic_store(x, 5); } else { r = atomic_fetch_sub_explicit(x, 2, memory_order_acq_rel); }\n\
           int b = (r == 4);\n\
           atomic_thread_fence(memory_order_seq_cst);\n\
           atomic_exchange(x, b);\n\
         }\n\
         forall (0:r = 4 \\/ ~(x = 5))",
    );
    assert_eq!(t.init_mem, vec![("x".into(), 0), ("y".into(), 2)]);
    let code = &t.threads[0].code;
    // Every jump lands on a label of the thread.
    let labels: Vec<&String> = code
        .iter()
        .filter_map(|i| {
            if let Instr::Label(l) = i {
                Some(l)
            } else {
                None
            }
        })
        .collect();
    for i in code {
        if let Instr::Goto(l) | Instr::BranchIf { target: l, .. } = i {
            assert!(labels.contains(&l), "jump to missing label {l}");
        }
    }
    let accesses: Vec<&Instr> = code
        .iter()
        .filter(|i| {
            matches!(
                i,
                Instr::Load { .. } | Instr::Store { .. } | Instr::Rmw { .. } | Instr::Fence { .. }
            )
        })
        .collect();
    assert!(
        matches!(accesses[0], Instr::Load { loc, tags: t, .. } if loc == "x" && *t == tags(&["ACQ"]))
    );
    assert!(
        matches!(accesses[1], Instr::Load { loc, tags: t, .. } if loc == "y" && *t == tags(&["NA"]))
    );
    assert!(
        matches!(accesses[2], Instr::Store { loc, value: Expr::Const(5), tags: t } if loc == "x" && *t == tags(&["SC"]))
    );
    assert!(
        matches!(accesses[3], Instr::Rmw { dst: Some(d), op: RmwOp::Arith(BinOp::Sub, Expr::Const(2)), tags: t, .. } if d == "r" && *t == tags(&["ACQ_REL"]))
    );
    assert_eq!(
        accesses[4],
        &Instr::Fence {
            tags: tags(&["SC"])
        }
    );
    assert!(
        matches!(accesses[5], Instr::Rmw { dst: None, op: RmwOp::Exch(v), .. } if *v == reg("b"))
    );
    assert_eq!(t.condition.quantifier, Quantifier::Forall);
}

#[test]
fn c11_thread_scopes_placement_and_volatile_accesses() {
    let t = parse(
        "C scoped\n{ [x] = 0; [y] = 0; }\n\
         P0@cta 0, gpu 1 (int* x, atomic_int* y) {\n\
           volatile_store(x, 1);\n\
           atomic_thread_fence(memory_order_release, thread_scope_device);\n\
           atomic_store_explicit(y, 1, memory_order_relaxed, thread_scope_system);\n\
         }\n\
         P1@gpu 1, cta 2 (int* x, atomic_int* y) {\n\
           int r0 = atomic_fetch_add_explicit(y, 1, memory_order_acquire, thread_scope_block);\n\
           int r1 = volatile_load(x);\n\
           int r2 = atomic_load_explicit(x, memory_order_relaxed, thread_scope_thread);\n\
           int r3 = atomic_load_explicit(y, memory_order_acquire);\n\
           atomic_thread_fence(memory_order_seq_cst);\n\
         }\n\
         exists (1:r0=1)",
    );
    assert_eq!(
        t.threads[0].placement,
        Placement::default().with(Level::Cta, 0).with(Level::Gpu, 1)
    );
    assert_eq!(
        t.threads[1].placement,
        Placement::default().with(Level::Cta, 2).with(Level::Gpu, 1)
    );
    let all_tags: Vec<Vec<Tag>> = t
        .threads
        .iter()
        .flat_map(|t| &t.code)
        .map(|i| match i {
            Instr::Load { tags, .. }
            | Instr::Store { tags, .. }
            | Instr::Rmw { tags, .. }
            | Instr::Fence { tags } => tags.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        all_tags,
        vec![
            tags(&["RLX", "SYS", "V"]),
            tags(&["REL", "GPU"]),
            tags(&["RLX", "SYS"]),
            tags(&["ACQ", "CTA"]),
            tags(&["RLX", "SYS", "V"]),
            tags(&["RLX", "WI"]),
            tags(&["ACQ"]),
            tags(&["SC"]),
        ]
    );
    // A `volatile int*` parameter alone changes nothing: `*x` stays a plain access.
    let plain = parse("C v\n{ }\nP0 (volatile int* x) { *x = 1; }\nexists (x=1)");
    assert_eq!(
        plain.threads[0].code,
        vec![Instr::Store {
            loc: "x".into(),
            value: Expr::Const(1),
            tags: tags(&["NA"])
        }]
    );
}

// ------------------------------------------------------------------------------------ OpenCL

#[test]
fn opencl_scopes_regions_and_fence_flags() {
    let t = corpus("OPENCL/overhauling/example6.litmus");
    assert_eq!(t.arch, Arch::OpenCl);
    assert_eq!(
        t.loc_tags,
        vec![
            ("x".into(), tags(&["GLOBAL"])),
            ("y".into(), tags(&["LOCAL"]))
        ]
    );
    assert_eq!(
        t.threads[0].code,
        vec![
            Instr::Store {
                loc: "x".into(),
                value: Expr::Const(42),
                tags: tags(&["NA"])
            },
            Instr::Fence {
                tags: tags(&["REL", "WG", "GLOBAL", "LOCAL"])
            },
            Instr::Store {
                loc: "y".into(),
                value: Expr::Const(1),
                tags: tags(&["RLX", "WG"])
            },
        ]
    );

    let t = corpus("OPENCL/herd/3LB.litmus");
    assert_eq!(
        t.threads[2].placement,
        Placement::default().with(Level::Cta, 1)
    );
    // atomic_load / atomic_store: seq_cst at device scope.
    assert_eq!(
        t.threads[0].code[0],
        Instr::Load {
            dst: "r0".into(),
            loc: "x".into(),
            tags: tags(&["SC", "DEV"])
        }
    );

    let t = corpus("OPENCL/overhauling/MP_ra_dev_broken.litmus");
    assert_eq!(
        t.threads[1].placement,
        Placement::default().with(Level::Cta, 0).with(Level::Gpu, 1)
    );
}

#[test]
fn opencl_labelled_barriers_share_ids_across_threads() {
    let t = corpus("OPENCL/herd/global_barrier_mo.litmus");
    let ids = |th: usize| -> Vec<Expr> {
        t.threads[th]
            .code
            .iter()
            .filter_map(|i| match i {
                Instr::Barrier {
                    id,
                    count: None,
                    tags: tg,
                } if *tg == tags(&["SYNC", "WG", "GLOBAL"]) => Some(id.clone()),
                _ => None,
            })
            .collect()
    };
    assert_eq!(ids(0), ids(1)); // B1, B3
    assert_eq!(ids(2), ids(3)); // B2
    assert_eq!(ids(4), ids(5)); // B11, B31
    assert_eq!(ids(0).len(), 2);
    assert_ne!(ids(0)[0], ids(0)[1]);
    assert_ne!(ids(0)[0], ids(4)[0]);

    let t = parse(
        "OPENCL unlabelled\n{ x=0; }\n\
         P0@wg 0, dev 0 (global int* x) { work_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_work_group); }\n\
         exists (x=0)",
    );
    assert_eq!(
        t.threads[0].code,
        vec![Instr::Barrier {
            id: Expr::Const(0),
            count: None,
            tags: tags(&["SYNC", "WG", "LOCAL"])
        }]
    );
}

#[test]
fn condition_on_a_pointer_parameter_compares_an_address() {
    // `0:x` names thread 0's pointer parameter `x`, an address that equals no integer.
    let t = corpus("OPENCL/herd/barrier_example.litmus");
    assert_eq!(
        t.condition.prop,
        Prop::And(Box::new(Prop::False), Box::new(Prop::False))
    );
}

#[test]
fn opencl_array_elements_share_the_array_region() {
    let t = corpus("OPENCL/portedFromC11/manual/imm-E3.5.litmus");
    let region = |loc: &str| {
        t.loc_tags
            .iter()
            .find(|(l, _)| l == loc)
            .map(|(_, tg)| tg.clone())
    };
    assert_eq!(region("y"), Some(tags(&["GLOBAL"])));
    assert_eq!(region("y[1]"), Some(tags(&["GLOBAL"])));
    assert_eq!(region("x"), Some(tags(&["GLOBAL"])));
}

/// The header lines herd and diy write between the title and the initial state (a quoted
/// description, `Key=value` info lines) change nothing in the test.
#[test]
fn diy_header_lines_are_accepted() {
    let body = "{ [x] = 0; [y] = 0; }

P0 (atomic_int* x, atomic_int* y) {
  atomic_store_explicit(x, 1, memory_order_relaxed);
  int r0 = atomic_load_explicit(y, memory_order_relaxed);
}

P1 (atomic_int* x, atomic_int* y) {
  atomic_store_explicit(y, 1, memory_order_relaxed);
  int r0 = atomic_load_explicit(x, memory_order_relaxed);
}

exists (0:r0=0 /\\ 1:r0=0)";
    let headers = "\"Fre PodWR Fre PodWR\"
Generator=diy7 (version 7.57)
Prefetch=0:x=F,0:y=T,1:y=F,1:x=T
Com=Fr Fr
Orig=PodWR Fre PodWR Fre
Cycle=Fre PodWR Fre PodWR
Relax=
Safe=Fre PodWR
Variant=
Scopes=
hash = 0123abcd
";
    let plain = parse(&format!("C SB\n{body}"));
    let with_headers = parse(&format!("C SB\n{headers}{body}"));
    assert_eq!(with_headers, plain);
}

/// herd's `locations [...]` clause is kept, resolved like the condition's names.
#[test]
fn locations_clause_is_kept() {
    let t = parse(
        "PTX MP
{ x=0; y=0; }
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;
 st.weak x, 1   | ld.weak r0, y  ;
 st.weak y, 1   | ld.weak r1, x  ;
locations [x; P1:r0;]
exists (P1:r1 == 0)",
    );
    assert_eq!(t.locations, vec![Target::Mem("x".into()), treg(1, "r0")]);
}

#[test]
fn vulkan_placement_ssw_block_and_aliases() {
    let t = corpus("VULKAN/Kronos-Group/ssw4.litmus");
    assert_eq!(t.arch, Arch::Vulkan);
    assert_eq!(t.ssw, vec![(0, 1)]);
    assert_eq!(t.aliases.len(), 1);
    assert_eq!(
        (t.aliases[0].name.as_str(), t.aliases[0].target.as_str()),
        ("y", "x")
    );
    assert_eq!(
        t.aliases[0].proxy, None,
        "a second reference, as a generic alias"
    );
    assert_eq!(t.location_of("y"), "x");
    assert_eq!(
        t.threads[1].placement,
        Placement::default()
            .with(Level::Subgroup, 1)
            .with(Level::Cta, 0)
    );
    assert_eq!(
        t.threads[1].code,
        vec![Instr::Load {
            dst: "r0".into(),
            loc: "y".into(),
            tags: tags(&["NONPRIV", "VIS", "DV", "SC1"]),
        }]
    );
    let chained = corpus("VULKAN/Kronos-Group/ssw7.litmus");
    assert_eq!(chained.ssw, vec![(0, 1), (1, 2)]);
}

#[test]
fn vulkan_filter_without_a_final_condition() {
    let t = corpus("VULKAN/Data-Race/mp3-filter.litmus");
    assert_eq!(
        t.filter,
        Some(Prop::And(eq(treg(1, "r0"), 1), eq(treg(2, "r1"), 1)))
    );
    assert_eq!(t.condition.quantifier, Quantifier::Forall);
    assert_eq!(t.condition.prop, Prop::True);
    let both = parse(
        "Vulkan both\n{ x=0; }\nP0@sg 0, wg 0, qf 0;\nld.sc0 r0, x;\nfilter (P0:r0 = 0)\nexists (P0:r0 = 1)\n",
    );
    assert_eq!(both.filter, Some(Prop::Eq(treg(0, "r0"), 0)));
    assert_eq!(both.condition.quantifier, Quantifier::Exists);
}

#[test]
fn vulkan_quorum_barrier_and_rmw_operations() {
    let t = corpus("VULKAN/Barrier/quorum1-pass.litmus");
    assert_eq!(
        t.threads[1].code[0],
        Instr::Barrier {
            id: Expr::Const(1),
            count: Some(Expr::Const(2)),
            tags: tags(&["DV", "ACQ_REL", "SEMSC0"]),
        }
    );
    let rmw = parse(
        "Vulkan rmw\n{ x=0; }\nP0@sg 0, wg 0, qf 0;\nrmw.atom.acq.wg.sc0.semsc0.add r1, x, 1;\nrmw.atom.dv.sc0 r2, x, 5;\nadd r3, r1, 2;\nexists (x = 6)\n",
    );
    let code = &rmw.threads[0].code;
    assert!(matches!(
        &code[0],
        Instr::Rmw {
            op: RmwOp::Arith(BinOp::Add, Expr::Const(1)),
            ..
        }
    ));
    assert!(matches!(
        &code[1],
        Instr::Rmw {
            op: RmwOp::Exch(Expr::Const(5)),
            ..
        }
    ));
    assert_eq!(
        code[2],
        Instr::Assign {
            dst: "r3".into(),
            value: Expr::Bin(BinOp::Add, Box::new(reg("r1")), Box::new(Expr::Const(2))),
        }
    );
}

/// A description line may quote a word (`is "enforced" by the`), as Khronos' tests do.
#[test]
fn quotes_inside_a_description_line() {
    let t = corpus("VULKAN/Kronos-Group/corr.litmus");
    assert_eq!(t.name, "corr");
}
