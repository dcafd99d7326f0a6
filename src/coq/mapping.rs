//! The proof obligations of a mapping: a Section whose hypotheses are the well-formedness of
//! both executions (`wf.cat`), the target's consistency, the mapping's lowering conditions and
//! the race freedom of the source program, and one theorem per source axiom (proof `Admitted`,
//! with the bound up to which the search found no counterexample). After the Section, a proof
//! (by computation, not admitted) that the hypotheses hold of a concrete execution pair.
use std::fmt::Write;

use super::concrete;
use super::model::{Names, Side, APPLIED};
use crate::diag;
use crate::exec::{Event, EventKind, Execution};
use crate::litmus::Placement;
use crate::mapping::{Class, ClassKind, Mapping, OpKind, TargetOp};
use crate::rel::Rel;

/// What the search found for one source axiom, for the theorem's comment.
#[derive(Clone, Debug)]
pub enum Evidence {
    /// No counterexample up to this bound.
    CleanTo(usize, String),
    /// A counterexample at this bound: the theorem is false.
    Counterexample(usize, String),
}

/// The three models of an export.
pub struct Models<'a> {
    pub wf: &'a Names<'a>,
    pub source: &'a Names<'a>,
    pub target: &'a Names<'a>,
}

/// The mapping file: lowering, race freedom, the Section and the satisfiability proof.
pub fn print(
    mapping: &Mapping,
    models: &Models,
    evidence: &[(String, Evidence)],
    imports: &str,
) -> diag::Result<String> {
    let mut out = super::header(
        &format!("the proof obligations of {}", mapping.path),
        imports,
    );
    print_co_total(&mut out);
    print_lowering(mapping, &mut out);
    print_drf(models, mapping, &mut out);
    print_section(mapping, models, evidence, &mut out);
    print_satisfiable(mapping, models, &mut out)?;
    Ok(out)
}

fn co_total_needed(model: &crate::ir::Model) -> bool {
    model.coherence == crate::ir::CoKind::Total
}

fn print_co_total(out: &mut String) {
    let _ = writeln!(
        out,
        "(* `coherence total` models (RC11, C11, OpenCL): co orders all writes of a location. *)\n\
         Definition co_total (X : exec) : Prop :=\n\
         \x20 empty (minus (minus (inter (cross (W X) (W X)) (loc X)) (id X)) (union (co X) (inv (co X)))).\n\
         Definition co_total_b (n : nat) (XB : bexec) : bool :=\n\
         \x20 bempty n (bminus (bminus (binter (bcross (b_W XB) (b_W XB)) (b_loc XB)) (b_id XB)) (bunion (b_co XB) (binv (b_co XB)))).\n\
         Lemma co_total_dec : forall n X XB, exec_reflects n X XB -> (co_total_b n XB = true <-> co_total X).\n\
         Proof. intros n X XB H. unfold co_total, co_total_b. check_tac. Qed.\n\
         Global Hint Resolve co_total_dec : mc_reflect.\n"
    );
}

/// `(op a b)` on one side.
fn app(side: Side, op: &str, a: impl std::fmt::Display, b: impl std::fmt::Display) -> String {
    format!("({} {a} {b})", side.op(op))
}

/// The set of events of a source class in `x`: its kind, its order and scope tags, and no scope
/// tag when the class has none.
fn class_body(side: Side, c: &Class, x: &str) -> String {
    let mut s = kind_set(side, c.kind, x);
    for t in c.tags() {
        s = app(side, "set_inter", &s, side.field(t, x));
    }
    if c.scope.is_none() {
        for scope in crate::mapping::class::SCOPES {
            s = app(side, "set_minus", &s, side.field(scope, x));
        }
    }
    s
}

/// The events of one kind of operation: reads or writes outside RMWs, RMW halves, fences.
fn kind_set(side: Side, kind: ClassKind, x: &str) -> String {
    let outside_rmw = |set: &str| app(side, "set_minus", side.field(set, x), side.field("RMW", x));
    match kind {
        ClassKind::R => outside_rmw("R"),
        ClassKind::W => outside_rmw("W"),
        ClassKind::Rmw => side.field("RMW", x),
        ClassKind::F => side.field("F", x),
    }
}

/// The events a target instruction gives: its kind and tags.
fn op_body(side: Side, op: &TargetOp, x: &str) -> String {
    let kind = match op.kind {
        OpKind::Load => ClassKind::R,
        OpKind::Store => ClassKind::W,
        OpKind::Rmw => ClassKind::Rmw,
        OpKind::Fence => ClassKind::F,
    };
    op.tags.iter().fold(kind_set(side, kind, x), |acc, t| {
        app(side, "set_inter", &acc, side.field(t, x))
    })
}

/// The Coq name of a source class's event set (`class_R_SC_CTA`).
fn class_name(c: &Class) -> String {
    format!("class_{}", super::ident(&c.to_string()))
}

/// The Coq name of a target instruction's event set (`op_ld_acquire_cta`).
fn op_name(op: &TargetOp) -> String {
    format!("op_{}", super::ident(&op.to_string()))
}

fn class_set(side: Side, c: &Class, x: &str) -> String {
    side.named(&class_name(c), x)
}

fn op_set(side: Side, op: &TargetOp, x: &str) -> String {
    side.named(&op_name(op), x)
}

/// The Definitions of every class's and target instruction's event set, with their mirrors.
fn print_event_sets(mapping: &Mapping, out: &mut String) {
    let mut ops: Vec<&TargetOp> = Vec::new();
    for class in mapping.classes() {
        let body = |side| class_body(side, class, "X");
        print_set(
            &class_name(class),
            &format!("source class {class}"),
            &body,
            out,
        );
        for op in mapping.compile(class) {
            if !ops.contains(&op) {
                ops.push(op);
            }
        }
    }
    for op in ops {
        let body = |side| op_body(side, op, "X");
        print_set(
            &op_name(op),
            &format!("target instruction `{op}`"),
            &body,
            out,
        );
    }
}

fn print_set(name: &str, what: &str, body: &dyn Fn(Side) -> String, out: &mut String) {
    let _ = writeln!(
        out,
        "(* The events of {what}. *)\n\
         Definition {name} (X : exec) : set := {}.\n\
         Definition {name}_b (n : nat) (XB : bexec) : bset := {}.\n\
         Lemma {name}_r : forall n X XB, exec_reflects n X XB -> reflects_set n ({name} X) ({name}_b n XB).\n\
         Proof. intros n X XB H. unfold {name}, {name}_b. reflect_tac. Qed.\n\
         Global Hint Resolve {name}_r : mc_reflect.\n",
        body(Side::Prop),
        body(APPLIED)
    );
}

/// `d` immediate program-order steps of the target.
fn ipo_steps(side: Side, d: usize) -> String {
    let ipo = side.named("ipo", "Xt");
    (1..d).fold(ipo.clone(), |acc, _| {
        format!("({} {acc} {ipo})", side.op_n("seq"))
    })
}

/// One lowering condition: why, and the statement on both sides.
pub struct Condition {
    pub why: String,
    pub prop: String,
    pub boolean: String,
}

/// The lowering conditions of a mapping.
pub fn lowering_conditions(mapping: &Mapping) -> Vec<Condition> {
    let mut conds = Vec::new();
    let mut push = |why: String, stmt: &dyn Fn(Side) -> String| {
        conds.push(Condition {
            why,
            prop: stmt(Side::Prop),
            boolean: stmt(APPLIED),
        })
    };
    let set_empty = |side: Side, s: String| format!("{} {s}", side.op_n("set_empty"));
    let minus = |side: Side, a: String, b: String| app(side, "set_minus", a, b);
    for class in mapping.classes() {
        let Some(rule) = mapping.rule(class) else {
            continue;
        };
        let cs = |side: Side| class_set(side, class, "Xs");
        let Some(m) = rule.main else {
            push(
                format!(
                    "{}: no main instruction, the event is the source's alone",
                    rule.text
                ),
                &|side| {
                    let inter = format!(
                        "({} {} {})",
                        side.op("set_inter"),
                        cs(side),
                        side.field("E", "Xt")
                    );
                    set_empty(side, inter)
                },
            );
            continue;
        };
        let main = &rule.ops[m];
        push(
            format!(
                "{}: the event is its own main instruction `{main}`",
                rule.text
            ),
            &|side| set_empty(side, minus(side, cs(side), op_set(side, main, "Xt"))),
        );
        // An RMW's added fences are placed before its read and after its write.
        let half = |side: Side, drop: &str| {
            let other = app(
                side,
                "set_inter",
                side.field("RMW", "Xs"),
                side.field(drop, "Xs"),
            );
            minus(side, cs(side), other)
        };
        for (j, op) in rule.ops.iter().enumerate().filter(|(j, _)| *j != m) {
            let added = |side: Side| format!("({} {})", side.op("id_on"), op_set(side, op, "Xt"));
            if j < m {
                push(
                    format!(
                        "{}: `{op}` is {} instruction(s) before it",
                        rule.text,
                        m - j
                    ),
                    &|side| {
                        let before = format!(
                            "({} ({} {} {}))",
                            side.op_n("range"),
                            side.op_n("seq"),
                            added(side),
                            ipo_steps(side, m - j)
                        );
                        set_empty(side, minus(side, half(side, "W"), before))
                    },
                );
            } else {
                push(
                    format!("{}: `{op}` is {} instruction(s) after it", rule.text, j - m),
                    &|side| {
                        let after = format!(
                            "({} ({} {} {}))",
                            side.op_n("domain"),
                            side.op_n("seq"),
                            ipo_steps(side, j - m),
                            added(side)
                        );
                        set_empty(side, minus(side, half(side, "R"), after))
                    },
                );
            }
        }
    }
    push(
        "every source event is an initial write or in a declared class".into(),
        &|side| {
            let classes = mapping
                .classes()
                .iter()
                .fold(side.field("IW", "Xs"), |acc, c| {
                    format!(
                        "({} {acc} {})",
                        side.op("set_union"),
                        class_set(side, c, "Xs")
                    )
                });
            set_empty(side, minus(side, side.field("E", "Xs"), classes))
        },
    );
    for (a, b) in [("Xs", "Xt"), ("Xt", "Xs")] {
        push(
            format!("the initial writes of {a} are those of {b}"),
            &|side| set_empty(side, minus(side, side.field("IW", a), side.field("IW", b))),
        );
    }
    push(
        "every target event is a source event or a fence a rule added".into(),
        &|side| {
            let allowed = app(
                side,
                "set_union",
                side.field("E", "Xs"),
                side.field("F", "Xt"),
            );
            set_empty(side, minus(side, side.field("E", "Xt"), allowed))
        },
    );
    for f in ["po", "rf", "co", "rmw", "loc", "int", "scta", "sgpu"] {
        for (a, b) in [("Xs", "Xt"), ("Xt", "Xs")] {
            push(
                format!("`{f}` of {a} between shared events is `{f}` of {b}"),
                &|side| {
                    let shared = app(
                        side,
                        "set_inter",
                        side.field("E", "Xs"),
                        side.field("E", "Xt"),
                    );
                    let between = format!(
                        "({} {} ({} {shared} {shared}))",
                        side.op("inter"),
                        side.field(f, a),
                        side.op("cross")
                    );
                    format!(
                        "{} ({} {between} {})",
                        side.op_n("empty"),
                        side.op("minus"),
                        side.field(f, b)
                    )
                },
            );
        }
    }
    conds
}

fn print_lowering(mapping: &Mapping, out: &mut String) {
    print_event_sets(mapping, out);
    let _ = writeln!(
        out,
        "(* Immediate program order of the target. *)\n\
         Definition ipo (X : exec) : rel := minus (po X) (seq (po X) (po X)).\n\
         Definition ipo_b (n : nat) (XB : bexec) : brel := bminus (b_po XB) (bseq n (b_po XB) (b_po XB)).\n\
         Lemma ipo_r : forall n X XB, exec_reflects n X XB -> reflects n (ipo X) (ipo_b n XB).\n\
         Proof. intros n X XB H. unfold ipo, ipo_b. reflect_tac. Qed.\n\
         Global Hint Resolve ipo_r : mc_reflect.\n\n\
         (* The lowering of {}: the source execution Xs is the target execution Xt read back. They\n\
         \x20  share their events' numbers: each source access (and each fence compiled to one fence)\n\
         \x20  is the event of its main target instruction; the fences a rule adds are target events\n\
         \x20  only. *)",
        mapping.path
    );
    let conds = lowering_conditions(mapping);
    let props: Vec<String> = conds
        .iter()
        .map(|c| format!("(* {} *)\n  ({})", super::comment_text(&c.why), c.prop))
        .collect();
    let bools: Vec<String> = conds.iter().map(|c| c.boolean.clone()).collect();
    let _ = writeln!(
        out,
        "Definition lowering (Xs Xt : exec) : Prop :=\n  {}.\n\
         Definition lowering_b (n : nat) (XBs XBt : bexec) : bool :=\n  {}.\n\
         Lemma lowering_dec : forall n Xs Xt XBs XBt, exec_reflects n Xs XBs -> exec_reflects n Xt XBt ->\n\
         \x20 (lowering_b n XBs XBt = true <-> lowering Xs Xt).\n\
         Proof. intros n Xs Xt XBs XBt Hs Ht. unfold lowering, lowering_b. conj_tac. Qed.\n",
        props.join(" /\\\n  "),
        APPLIED.and(&bools)
    );
}

/// Race freedom of the source program: every consistent, well-formed execution with the same
/// events, labels and program order (any `rf` and `co`) raises no flag.
fn print_drf(models: &Models, mapping: &Mapping, out: &mut String) {
    let s = models.source;
    let total = if co_total_needed(&mapping.source) {
        "co_total X -> "
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "(* The source program is race free: every well-formed consistent execution of it (same\n\
         \x20  skeleton, any rf and co) raises no flag. Executions in which a guard takes the other\n\
         \x20  branch have other events and are not quantified over: see\n\
         \x20  docs/decisions/005-coq-export.md. *)\n\
         Definition drf (Xs : exec) : Prop :=\n\
         \x20 forall X, same_skeleton Xs X -> {} X -> {total}{} X -> {} X.\n",
        models.wf.consistent(),
        s.consistent(),
        s.race_free()
    );
}

fn print_section(
    mapping: &Mapping,
    models: &Models,
    evidence: &[(String, Evidence)],
    out: &mut String,
) {
    let (wf, s, t) = (models.wf, models.source, models.target);
    let mut hyps = vec![
        ("Hwf_s", format!("{} Xs", wf.consistent())),
        ("Hwf_t", format!("{} Xt", wf.consistent())),
    ];
    if co_total_needed(&mapping.source) {
        hyps.push(("Hco_s", "co_total Xs".into()));
    }
    if co_total_needed(&mapping.target) {
        hyps.push(("Hco_t", "co_total Xt".into()));
    }
    hyps.push(("Hcons_t", format!("{} Xt", t.consistent())));
    hyps.push(("Hlower", "lowering Xs Xt".into()));
    hyps.push(("Hdrf", "drf Xs".into()));
    let _ = writeln!(
        out,
        "Section Obligations.\n\
         (* A target execution Xt of a compiled program, consistent under the target model, and the\n\
         \x20  source execution Xs it reads back to. *)\n\
         Variables Xs Xt : exec."
    );
    for (name, stmt) in &hyps {
        let _ = writeln!(out, "Hypothesis {name} : {stmt}.");
    }
    let _ = writeln!(out);
    for (c, check) in s.axioms() {
        let axiom = s.check(c);
        let note = match evidence.iter().find(|(a, _)| *a == check.name) {
            Some((_, Evidence::CleanTo(b, how))) => {
                format!("mapcheck found no counterexample up to bound {b} ({how})")
            }
            Some((_, Evidence::Counterexample(b, how))) => format!(
                "FALSE: mapcheck found a counterexample at bound {b} ({how}); no proof can exist"
            ),
            None => "not checked by mapcheck in this export".into(),
        };
        let _ = writeln!(
            out,
            "{}\n(* {} *)\nTheorem obligation_{} : {axiom} Xs.\nProof. Admitted.\n",
            super::coq_comment(&check.source_text),
            super::comment_text(&note),
            axiom
        );
    }
    let _ = writeln!(out, "End Obligations.\n");
    let _ = writeln!(
        out,
        "Definition hypotheses (Xs Xt : exec) : Prop :=\n  {}.\n",
        hyps.iter()
            .map(|(_, s)| s.clone())
            .collect::<Vec<_>>()
            .join(" /\\\n  ")
    );
}

/// A proof of `P1 /\\ (P2 /\\ …)` from one tactic per conjunct, without unfolding any of them.
fn conjunction_proof(steps: &[String]) -> String {
    let (last, init) = steps.split_last().expect("at least one hypothesis");
    let mut lines: Vec<String> = init
        .iter()
        .map(|s| format!("  split. {{ {s}. }}"))
        .collect();
    lines.push(format!("  {last}."));
    lines.join("\n")
}

/// The witness: a one-thread program of one fence, of a class compiled to exactly that one
/// fence. Its executions have no memory events, so any execution of the same program is the
/// witness itself up to `rf`/`co`/`fr`, which well-formedness makes empty.
fn witness(mapping: &Mapping) -> diag::Result<(Class, Execution, Execution)> {
    let single_fence = |c: &&Class| {
        c.kind == ClassKind::F
            && mapping
                .rule(c)
                .is_some_and(|r| r.ops.len() == 1 && r.main == Some(0))
    };
    let class = *mapping.classes().iter().find(single_fence).ok_or_else(|| {
        diag::Error::file(
            &mapping.path,
            "the Coq export builds its satisfiability witness from a fence class compiled to \
             exactly one fence, and this mapping has none",
        )
    })?;
    let fence = |tags: Vec<&'static str>| Execution {
        events: vec![Event {
            thread: Some(0),
            kind: EventKind::Fence,
            loc: None,
            value: 0,
            tags,
            barrier: None,
        }],
        locations: vec![],
        placements: vec![Placement::default()],
        po: Rel::empty(1),
        rf: Rel::empty(1),
        co: Rel::empty(1),
        rmw: Rel::empty(1),
        addr: Rel::empty(1),
        data: Rel::empty(1),
        ctrl: Rel::empty(1),
        syncbar: Rel::empty(1),
    };
    let target_tags = mapping.compile(&class)[0].tags.clone();
    Ok((class, fence(class.tags()), fence(target_tags)))
}

fn print_satisfiable(mapping: &Mapping, models: &Models, out: &mut String) -> diag::Result<()> {
    let (class, xs, xt) = witness(mapping)?;
    let (wf, s, t) = (models.wf, models.source, models.target);
    let _ = writeln!(
        out,
        "(* The hypotheses are satisfiable, so the Section is not vacuous: the one-thread program\n\
         \x20  `{class}` compiled to `{}`. *)\n{}\n{}",
        mapping.compile(&class)[0],
        concrete::module("WitnessS", &xs.base(), &[wf, s]),
        concrete::module("WitnessT", &xt.base(), &[wf, t]),
    );
    let holds = |m: &str, prop: &str| {
        format!("apply {m}.{prop}_ok; [vm_compute; reflexivity | apply of_bexec_reflects]")
    };
    let co_total = |m: &str| {
        format!("apply (dec_true _ _ (co_total_dec {m}.n {m}.X {m}.XB (of_bexec_reflects {m}.n {m}.XB))); vm_compute; reflexivity")
    };
    let mut steps = vec![
        holds("WitnessS", &wf.consistent()),
        holds("WitnessT", &wf.consistent()),
    ];
    if co_total_needed(&mapping.source) {
        steps.push(co_total("WitnessS"));
    }
    if co_total_needed(&mapping.target) {
        steps.push(co_total("WitnessT"));
    }
    steps.push(holds("WitnessT", &t.consistent()));
    steps.push("apply lowering_witness".into());
    steps.push("apply drf_witness".into());
    let _ = writeln!(
        out,
        "Lemma lowering_witness : lowering WitnessS.X WitnessT.X.\n\
         Proof.\n\
         \x20 apply (dec_true _ _ (lowering_dec 1 _ _ WitnessS.XB WitnessT.XB (of_bexec_reflects _ _) (of_bexec_reflects _ _))).\n\
         \x20 vm_compute. reflexivity.\nQed.\n\n\
         (* The witness has no memory events, so every execution of its program has no rf, co or fr\n\
         \x20  (Skeleton.v): the witness's mirror is a mirror of it too. *)\n\
         Lemma drf_witness : drf WitnessS.X.\n\
         Proof.\n\
         \x20 intros Y Hsk Hwf. intros.\n\
         \x20 assert (HY : exec_reflects WitnessS.n Y WitnessS.XB)\n\
         \x20   by (apply (no_memory_skeleton _ _ Y _ (of_bexec_reflects _ _) Hsk Hwf); vm_compute; reflexivity).\n\
         \x20 apply (dec_true _ _ (WitnessS.{race}_cd Y HY)). vm_compute. reflexivity.\nQed.\n\n\
         Lemma hypotheses_satisfiable : exists Xs Xt, hypotheses Xs Xt.\n\
         Proof.\n\
         \x20 exists WitnessS.X, WitnessT.X. unfold hypotheses.\n{}\nQed.\n\
         Print Assumptions hypotheses_satisfiable.",
        conjunction_proof(&steps),
        race = s.race_free()
    );
    Ok(())
}
