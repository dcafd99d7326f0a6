//! `compiles`, the lowering part: the event sets of the mapping's classes and target operations,
//! the fences the mapping adds, the conditions stating the lowering of each class, and their
//! printing as Coq definitions.
use std::fmt::Write;

use crate::coq::model::{Side, APPLIED};
use crate::mapping::{Class, ClassKind, Mapping, TargetOp};
use crate::vocab::{Role, SameScope, Tag, SAME_SCOPES};

/// `(op a b)` on one side.
pub(super) fn app(
    side: Side,
    op: &str,
    a: impl std::fmt::Display,
    b: impl std::fmt::Display,
) -> String {
    format!("({} {a} {b})", side.op(op))
}

/// The set of events of a source class in `x`: its kind, its order and scope tags, and no scope
/// tag when the class has none.
pub(super) fn class_body(side: Side, c: &Class, x: &str) -> String {
    let mut s = kind_set(side, c.kind, x);
    for t in c.tags() {
        s = app(side, "set_inter", &s, side.field(t.name(), x));
    }
    if c.scope.is_none() {
        for scope in Tag::with_role(Role::Scope) {
            s = app(side, "set_minus", &s, side.field(scope.name(), x));
        }
    }
    s
}

/// The events of one kind of operation: reads or writes outside RMWs, RMW halves, fences.
pub(super) fn kind_set(side: Side, kind: ClassKind, x: &str) -> String {
    let outside_rmw = |set: &str| app(side, "set_minus", side.field(set, x), side.field("RMW", x));
    match kind {
        ClassKind::R => outside_rmw("R"),
        ClassKind::W => outside_rmw("W"),
        ClassKind::Rmw => side.field("RMW", x),
        ClassKind::F => side.field("F", x),
    }
}

/// The events a target instruction gives: its kind and tags.
pub(super) fn op_body(side: Side, op: &TargetOp, x: &str) -> String {
    op.tags
        .iter()
        .fold(kind_set(side, op.kind.class_kind(), x), |acc, t| {
            app(side, "set_inter", &acc, side.field(t.name(), x))
        })
}

/// The Coq name of a source class's event set (`class_R_SC_CTA`).
pub(super) fn class_name(c: &Class) -> String {
    format!("class_{}", super::super::text::ident(&c.to_string()))
}

/// The Coq name of a target instruction's event set (`op_ld_acquire_cta`).
pub(super) fn op_name(op: &TargetOp) -> String {
    format!("op_{}", super::super::text::ident(&op.to_string()))
}

pub(super) fn class_set(side: Side, c: &Class, x: &str) -> String {
    side.named(&class_name(c), x)
}

pub(super) fn op_set(side: Side, op: &TargetOp, x: &str) -> String {
    side.named(&op_name(op), x)
}

/// The Definitions of every class's and target instruction's event set, with their mirrors.
pub(super) fn print_event_sets(mapping: &Mapping, out: &mut String) {
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

pub(super) fn print_set(name: &str, what: &str, body: &dyn Fn(Side) -> String, out: &mut String) {
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
pub(super) fn ipo_steps(side: Side, d: usize) -> String {
    let ipo = side.named("ipo", "Xt");
    (1..d).fold(ipo.clone(), |acc, _| {
        format!("({} {acc} {ipo})", side.op_n("seq"))
    })
}

/// One lowering condition: why, and the statement on both sides.
pub(crate) struct Condition {
    pub(crate) why: String,
    pub prop: String,
    pub(crate) boolean: String,
}

/// The conjunction of `conds`, each with its reason as a comment, and its boolean mirror.
pub(super) fn conjunction(conds: &[Condition]) -> (String, String) {
    let props: Vec<String> = conds
        .iter()
        .map(|c| {
            format!(
                "(* {} *)\n  ({})",
                super::super::text::comment_text(&c.why),
                c.prop
            )
        })
        .collect();
    let bools: Vec<String> = conds.iter().map(|c| c.boolean.clone()).collect();
    (props.join(" /\\\n  "), APPLIED.and(&bools))
}

impl Condition {
    /// A condition from its statement on either side.
    pub(super) fn new(why: String, stmt: &dyn Fn(Side) -> String) -> Condition {
        Condition {
            why,
            prop: stmt(Side::Prop),
            boolean: stmt(APPLIED),
        }
    }
}

/// The events the source and target skeletons share.
pub(super) fn shared_events(side: Side) -> String {
    app(
        side,
        "set_inter",
        side.field("E", "Xs"),
        side.field("E", "Xt"),
    )
}

/// A fence that a rule adds around its main instruction, on both sides: `events` are the source
/// events it is added for (the right half of an RMW), `path` relates the fence to them.
pub(crate) struct AddedFence {
    pub(crate) why: String,
    pub(crate) events: Box<dyn Fn(Side) -> String>,
    pub(crate) path: Box<dyn Fn(Side) -> String>,
}

impl AddedFence {
    /// The relation from each added fence to the event it was added for.
    pub(crate) fn relation(&self, side: Side) -> String {
        let seq = side.op_n("seq");
        format!(
            "({seq} {} ({} {}))",
            (self.path)(side),
            side.op("id_on"),
            (self.events)(side)
        )
    }
}

/// The fences every rule adds: `k` immediate program-order steps before the event (before an
/// RMW's read), or after it (after an RMW's write).
pub(crate) fn added_fences(mapping: &Mapping) -> Vec<AddedFence> {
    let mut added = Vec::new();
    for class in mapping.classes() {
        let Some(rule) = mapping.rule(class) else {
            continue;
        };
        let Some(m) = rule.main else {
            continue;
        };
        for (j, op) in rule.ops.iter().enumerate().filter(|(j, _)| *j != m) {
            let (class, op) = (*class, op.clone());
            let (steps, before) = if j < m { (m - j, true) } else { (j - m, false) };
            let why = format!(
                "{}: `{op}` is {steps} instruction(s) {} it",
                rule.text,
                if before { "before" } else { "after" }
            );
            let events = move |side: Side| {
                let other_half = if before { "W" } else { "R" };
                let rmw_half = app(
                    side,
                    "set_inter",
                    side.field("RMW", "Xs"),
                    side.field(other_half, "Xs"),
                );
                app(side, "set_minus", class_set(side, &class, "Xs"), rmw_half)
            };
            let path = move |side: Side| {
                let steps = ipo_steps(side, steps);
                let steps = if before {
                    steps
                } else {
                    format!("({} {steps})", side.op("inv"))
                };
                let fence = format!("({} {})", side.op("id_on"), op_set(side, &op, "Xt"));
                format!("({} {fence} {steps})", side.op_n("seq"))
            };
            added.push(AddedFence {
                why,
                events: Box::new(events),
                path: Box::new(path),
            });
        }
    }
    added
}

/// The lowering conditions of a mapping, between the skeleton `Xs` of a source program and the
/// skeleton `Xt` of its compilation (every event of each, as if every guard held).
pub(crate) fn lowering_conditions(mapping: &Mapping) -> Vec<Condition> {
    let mut conds = Vec::new();
    let mut push =
        |why: String, stmt: &dyn Fn(Side) -> String| conds.push(Condition::new(why, stmt));
    let set_empty = |side: Side, s: String| format!("{} {s}", side.op_n("set_empty"));
    let minus = |side: Side, a: String, b: String| app(side, "set_minus", a, b);
    for class in mapping.classes() {
        let Some(rule) = mapping.rule(class) else {
            continue;
        };
        let cs = |side: Side| class_set(side, class, "Xs");
        match rule.main {
            None => push(
                format!(
                    "{}: no main instruction, the event is the source's alone",
                    rule.text
                ),
                &|side| {
                    set_empty(
                        side,
                        app(side, "set_inter", cs(side), side.field("E", "Xt")),
                    )
                },
            ),
            Some(m) => push(
                format!(
                    "{}: the event is its own main instruction `{}`",
                    rule.text, rule.ops[m]
                ),
                &|side| {
                    set_empty(
                        side,
                        minus(side, cs(side), op_set(side, &rule.ops[m], "Xt")),
                    )
                },
            ),
        }
    }
    let added = added_fences(mapping);
    for a in &added {
        push(a.why.clone(), &|side| {
            let fenced = format!("({} {})", side.op_n("range"), (a.path)(side));
            set_empty(side, minus(side, (a.events)(side), fenced))
        });
    }
    push(
        "every source event is an initial write or in a declared class".into(),
        &|side| {
            let classes = mapping
                .classes()
                .iter()
                .fold(side.field("IW", "Xs"), |acc, c| {
                    app(side, "set_union", acc, class_set(side, c, "Xs"))
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
        "every target event is a source event or a fence a rule added for one".into(),
        &|side| {
            let fences = added.iter().fold(side.field("E", "Xs"), |acc, a| {
                let domain = format!("({} {})", side.op_n("domain"), a.relation(side));
                app(side, "set_union", acc, domain)
            });
            set_empty(side, minus(side, side.field("E", "Xt"), fences))
        },
    );
    let same_scopes = SAME_SCOPES.map(SameScope::name);
    for f in ["po", "rmw", "loc", "int"].into_iter().chain(same_scopes) {
        for (a, b) in [("Xs", "Xt"), ("Xt", "Xs")] {
            push(
                format!("`{f}` of {a} between shared events is `{f}` of {b}"),
                &|side| {
                    let shared = shared_events(side);
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

pub(super) fn print_lowering(mapping: &Mapping, out: &mut String) {
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
    let (prop, boolean) = conjunction(&lowering_conditions(mapping));
    let _ = writeln!(
        out,
        "Definition lowering (Xs Xt : exec) : Prop :=\n  {}.\n\
         Definition lowering_b (n : nat) (XBs XBt : bexec) : bool :=\n  {}.\n\
         Lemma lowering_dec : forall n Xs Xt XBs XBt, exec_reflects n Xs XBs -> exec_reflects n Xt XBt ->\n\
         \x20 (lowering_b n XBs XBt = true <-> lowering Xs Xt).\n\
         Proof. intros n Xs Xt XBs XBt Hs Ht. unfold lowering, lowering_b. conj_tac. Qed.\n",
        prop, boolean
    );
}
