//! The proof obligations of a mapping, stated over programs: `searched` (the programs the search
//! considers: a skeleton of every event and its guards), `compiles` (the mapping's lowering of
//! the skeleton and the guards), `compilation` (a race-free program with a meaning, its
//! compilation, a target execution the target model allows and a source execution with its `rf`
//! and a coherence order containing its `co`), `unexplained`, and for each source axiom a Section
//! theorem (`Admitted`, with what the search found) and `claim_<axiom>`, the closed statement the
//! search refutes exactly when it finds a counterexample (docs/decisions/005-coq-export.md).
use std::fmt::Write;

use super::model::{Names, Side, APPLIED};
use crate::diag;
use crate::mapping::{Class, ClassKind, Mapping, OpKind, TargetOp};
use crate::vocab::{Role, Tag};

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
    print_programs(mapping, models, evidence, &mut out);
    out.push_str(&super::program::satisfiable(mapping, models)?);
    Ok(out)
}

pub fn co_total_needed(model: &crate::ir::Model) -> bool {
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
        app(side, "set_inter", &acc, side.field(t.name(), x))
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

impl Condition {
    /// A condition from its statement on either side.
    fn new(why: String, stmt: &dyn Fn(Side) -> String) -> Condition {
        Condition {
            why,
            prop: stmt(Side::Prop),
            boolean: stmt(APPLIED),
        }
    }
}

/// The events the source and target skeletons share.
fn shared_events(side: Side) -> String {
    app(
        side,
        "set_inter",
        side.field("E", "Xs"),
        side.field("E", "Xt"),
    )
}

/// A fence that a rule adds around its main instruction, on both sides: `events` are the source
/// events it is added for (the right half of an RMW), `path` relates the fence to them.
pub struct AddedFence {
    pub why: String,
    pub events: Box<dyn Fn(Side) -> String>,
    pub path: Box<dyn Fn(Side) -> String>,
}

impl AddedFence {
    /// The relation from each added fence to the event it was added for.
    pub fn relation(&self, side: Side) -> String {
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
pub fn added_fences(mapping: &Mapping) -> Vec<AddedFence> {
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
pub fn lowering_conditions(mapping: &Mapping) -> Vec<Condition> {
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
    for f in ["po", "rmw", "loc", "int", "scta", "sgpu"] {
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

/// A Prop and its boolean mirror, printed as a Definition over an execution skeleton `X` and
/// the guard relations `gr` (guard read to guarded event) and `gw` (the write it must read from)
/// of one program, or over two (`Xs Xt`, `grs gws grt gwt`).
struct Statement {
    name: &'static str,
    what: &'static str,
    params: &'static str,
    bool_params: &'static str,
    reflects: &'static str,
    conds: Vec<Condition>,
}

fn print_statement(st: &Statement, out: &mut String) {
    let props: Vec<String> = st
        .conds
        .iter()
        .map(|c| format!("(* {} *)\n  ({})", super::comment_text(&c.why), c.prop))
        .collect();
    let bools: Vec<String> = st.conds.iter().map(|c| c.boolean.clone()).collect();
    let name = st.name;
    let _ = writeln!(
        out,
        "(* {} *)\nDefinition {name} {} : Prop :=\n  {}.\n\
         Definition {name}_b (n : nat) {} : bool :=\n  {}.\n\
         Lemma {name}_dec : forall n {}, {} ->\n  ({name}_b n {} = true <-> {name} {}).\n\
         Proof. intros. unfold {name}, {name}_b. conj_tac. Qed.\n",
        st.what,
        st.params,
        props.join(" /\\\n  "),
        st.bool_params,
        APPLIED.and(&bools),
        param_names(st.params, st.bool_params),
        st.reflects,
        param_list(st.bool_params),
        param_list(st.params),
    );
}

/// `(X : exec) (gr gw : rel)` → `X gr gw`.
fn param_list(params: &str) -> String {
    params
        .split(['(', ')'])
        .filter_map(|group| {
            group
                .split_once(':')
                .map(|(names, _)| names.trim().to_string())
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The names of both parameter lists, the Prop side's first (the order of a `_dec` lemma's binders).
fn param_names(params: &str, bool_params: &str) -> String {
    format!("{} {}", param_list(params), param_list(bool_params))
}

/// A guard relation on one side (`gr` / `grb`).
fn rel_param(side: Side, name: &str) -> String {
    match side {
        Side::Prop => name.to_string(),
        Side::Bool(_) => format!("{name}b"),
    }
}

/// `empty (a \ b)` on one side: relation `a` lies within `b`.
fn within(side: Side, a: String, b: String) -> String {
    format!("{} {}", side.op_n("empty"), app(side, "minus", a, b))
}

/// The tags a model can tell apart: those it names, and the scope tags (wf.cat reads `incl`
/// and `sr` off them). An event of a class has none of them but the class's own.
fn told_apart(model: &crate::ir::Model) -> Vec<Tag> {
    let used = model.used_builtins();
    crate::vocab::TAGS
        .into_iter()
        .filter(|t| used.contains(&t.name()) || t.role() == Role::Scope)
        .collect()
}

/// Each of `kinds` (an event set and its own tags) cut to its exact events: those without any
/// tag of `told` beyond the kind's own. (The sets overlap: a volatile load is also a relaxed
/// system-scope load; its tags say which one it is.)
fn exact_sets(side: Side, kinds: &[(String, Vec<Tag>)], told: &[Tag], x: &str) -> Vec<String> {
    kinds
        .iter()
        .map(|(events, own)| {
            told.iter()
                .filter(|t| !own.contains(t))
                .map(|t| side.field(t.name(), x))
                .fold(events.clone(), |acc, t| app(side, "set_minus", acc, t))
        })
        .collect()
}

/// Every event of `x` but its initial writes is in one of the `exact` sets.
fn exactly_one_of(side: Side, exact: &[String], x: &str) -> String {
    let covered = exact
        .iter()
        .cloned()
        .reduce(|a, b| app(side, "set_union", a, b))
        .unwrap_or_else(|| side.op("set0"));
    let events = app(side, "set_minus", side.field("E", x), side.field("IW", x));
    format!(
        "{} {}",
        side.op_n("set_empty"),
        app(side, "set_minus", events, covered)
    )
}

/// Each `rmw` pair of `x` is one instruction: the read immediately before the write, both in one
/// of the `exact` sets.
fn rmw_one_instruction(side: Side, exact: &[String], x: &str) -> String {
    let pairs = exact
        .iter()
        .map(|set| app(side, "cross", set, set))
        .reduce(|a, b| app(side, "union", a, b))
        .unwrap_or_else(|| side.op("rel0"));
    within(
        side,
        side.field("rmw", x),
        app(side, "inter", side.named("ipo", x), pairs),
    )
}

/// The programs the search considers, as conditions on a skeleton `X` and its guards.
fn searched_conditions(mapping: &Mapping, models: &Models) -> Vec<Condition> {
    let told = told_apart(models.source.model);
    let mut conds = Vec::new();
    let mut push =
        |why: &str, stmt: &dyn Fn(Side) -> String| conds.push(Condition::new(why.into(), stmt));
    let gr = |side| rel_param(side, "gr");
    let gw = |side| rel_param(side, "gw");
    let wf = models.wf.consistent();
    push(
        "the skeleton is an execution: well formed with some rf and co (every read from its initial write)",
        &|side| match side {
            Side::Prop => format!("{wf} X"),
            Side::Bool(_) => format!("{wf}_b n XB"),
        },
    );
    push(
        "the program is finite: its events are numbered below some number",
        &|side| match side {
            Side::Prop => "set_finite (E X)".to_string(),
            Side::Bool(_) => "true".to_string(),
        },
    );
    push("no barriers", &|side| {
        format!("{} {}", side.op_n("set_empty"), side.field("BAR", "X"))
    });
    push("no address or data dependencies", &|side| {
        no_dependencies(side, "X")
    });
    push("a guard is a read earlier in the same thread", &|side| {
        let before = format!(
            "({} ({} {}) {})",
            side.op_n("seq"),
            side.op("id_on"),
            side.field("R", "X"),
            side.field("po", "X")
        );
        within(side, gr(side), before)
    });
    push(
        "the write a guard names is a write to the guard read's location, not the write of the read's own RMW",
        &|side| {
            let pair = format!(
                "({} {} ({} {}))",
                side.op_n("seq"),
                gw(side),
                side.op("inv"),
                gr(side)
            );
            let shape = app(
                side,
                "inter",
                app(side, "cross", side.field("W", "X"), side.field("R", "X")),
                side.field("loc", "X"),
            );
            let own_rmw = format!("({} {})", side.op("inv"), side.field("rmw", "X"));
            within(side, pair, app(side, "minus", shape, own_rmw))
        },
    );
    for (g, what) in [("gr", "one guard read"), ("gw", "one guard write")] {
        let why = format!("an event has at most {what} (its innermost guard's)");
        push(&why, &|side| {
            let g = rel_param(side, g);
            let twice = format!("({} {g} ({} {g}))", side.op_n("seq"), side.op("inv"));
            within(side, twice, side.field("id", "X"))
        });
    }
    push(
        "a guarded event has both a guard read and a guard write",
        &|side| {
            let (a, b) = (
                format!("({} {})", side.op_n("range"), gr(side)),
                format!("({} {})", side.op_n("range"), gw(side)),
            );
            let empty = |x: String, y: String| {
                format!(
                    "{} {}",
                    side.op_n("set_empty"),
                    app(side, "set_minus", x, y)
                )
            };
            side.and(&[empty(a.clone(), b.clone()), empty(b, a)])
        },
    );
    push(
        "a guard closes at the end of its thread: every later event (but the write of its own RMW) is inside it",
        &|side| {
            let after = format!(
                "({} ({} ({} {})) {})",
                side.op_n("seq"),
                side.op("id_on"),
                side.op_n("domain"),
                gr(side),
                app(side, "minus", side.field("po", "X"), side.field("rmw", "X"))
            );
            within(side, after, format!("({} {})", side.op_n("tc"), gr(side)))
        },
    );
    push(&ctrl_why(), &|side| ctrl_is_guards(side, "X", &gr(side)));
    let exact_classes = |side, keep: &dyn Fn(&Class) -> bool| {
        let kinds: Vec<(String, Vec<Tag>)> = mapping
            .classes()
            .iter()
            .filter(|c| keep(c))
            .map(|c| {
                let mut own = c.tags();
                own.extend(mapping.region());
                (class_set(side, c, "X"), own)
            })
            .collect();
        exact_sets(side, &kinds, &told, "X")
    };
    push(
        "every event is exactly one class: no tag its models tell apart beyond the class's own (and the search's memory region)",
        &|side| exactly_one_of(side, &exact_classes(side, &|_| true), "X"),
    );
    push(
        "the read and the write of an RMW are one instruction: the read immediately before the write, both of the same RMW class",
        &|side| {
            let rmw_classes = exact_classes(side, &|c| c.kind == ClassKind::Rmw);
            rmw_one_instruction(side, &rmw_classes, "X")
        },
    );
    conds
}

/// Skeleton `x` has no address or data dependencies (the search's values are constants).
fn no_dependencies(side: Side, x: &str) -> String {
    let deps = app(side, "union", side.field("addr", x), side.field("data", x));
    within(side, deps, side.op("rel0"))
}

fn ctrl_why() -> String {
    "control dependencies run from each guard read to every event inside it".into()
}

/// `ctrl` of skeleton `x` is the transitive closure of its guard reads `gr`.
fn ctrl_is_guards(side: Side, x: &str, gr: &str) -> String {
    let tc = format!("({} {gr})", side.op_n("tc"));
    let ctrl = side.field("ctrl", x);
    side.and(&[
        within(side, ctrl.clone(), tc.clone()),
        within(side, tc, ctrl),
    ])
}

/// The compiled program: its skeleton is well formed; a shared event keeps its guard; a fence a
/// rule adds has the guard of the event it was added for; `ctrl` follows the guards; a target
/// event has no tag beyond its instruction's.
fn compiled_guard_conditions(mapping: &Mapping, models: &Models) -> Vec<Condition> {
    let told = told_apart(models.target.model);
    let added = added_fences(mapping);
    let mut conds = Vec::new();
    let mut push =
        |why: String, stmt: &dyn Fn(Side) -> String| conds.push(Condition::new(why, stmt));
    let wf = models.wf.consistent();
    push(
        "the target skeleton is an execution: well formed with some rf and co (its labels within its events)".into(),
        &|side| match side {
            Side::Prop => format!("{wf} Xt"),
            Side::Bool(_) => format!("{wf}_b n XBt"),
        },
    );
    for (g, name) in [("gr", "guard read"), ("gw", "guard write")] {
        let (gs, gt) = (format!("{g}s"), format!("{g}t"));
        for (a, b) in [(&gs, &gt), (&gt, &gs)] {
            push(
                format!(
                    "a shared event's {name} in the {} program is its {name} in the other",
                    if a == &gs { "source" } else { "target" }
                ),
                &|side| {
                    let shared = shared_events(side);
                    let on_shared = format!(
                        "({} {} ({} {shared}))",
                        side.op_n("seq"),
                        rel_param(side, a),
                        side.op("id_on")
                    );
                    within(side, on_shared, rel_param(side, b))
                },
            );
        }
        for a in &added {
            push(
                format!("{}: the fence has the {name} of its event", a.why),
                &|side| {
                    let seq = side.op_n("seq");
                    let rel = a.relation(side);
                    let t = rel_param(side, &gt);
                    let inv = format!("({} {rel})", side.op("inv"));
                    side.and(&[
                        within(side, format!("({seq} {t} {rel})"), t.clone()),
                        within(side, format!("({seq} {t} {inv})"), t.clone()),
                    ])
                },
            );
        }
    }
    push(ctrl_why(), &|side| {
        ctrl_is_guards(side, "Xt", &rel_param(side, "grt"))
    });
    push("no address or data dependencies".into(), &|side| {
        no_dependencies(side, "Xt")
    });
    let mut ops: Vec<&TargetOp> = Vec::new();
    for class in mapping.classes() {
        for op in mapping.compile(class) {
            if !ops.contains(&op) {
                ops.push(op);
            }
        }
    }
    push(
        "every target event is exactly one instruction: no tag its models tell apart beyond the instruction's own".into(),
        &|side| {
            let kinds: Vec<(String, Vec<Tag>)> = ops
                .iter()
                .map(|op| (op_set(side, op, "Xt"), op.tags.to_vec()))
                .collect();
            exactly_one_of(side, &exact_sets(side, &kinds, &told, "Xt"), "Xt")
        },
    );
    conds
}

/// The program-level statement: the searched programs, their compilation, and for each source
/// axiom the claim that the search refutes exactly when it finds a counterexample.
fn print_programs(
    mapping: &Mapping,
    models: &Models,
    evidence: &[(String, Evidence)],
    out: &mut String,
) {
    let (wf, s) = (models.wf.consistent(), models.source);
    print_statement(
        &Statement {
            name: "searched_on",
            what: "The programs the search considers, on a program's skeleton X (every event, as if every\n   guard held) and its guards: gr r e, event e runs only if read r reads from the write w of gw w e.",
            params: "(X : exec) (gr gw : rel)",
            bool_params: "(XB : bexec) (grb gwb : brel)",
            reflects: "exec_reflects n X XB -> reflects n gr grb -> reflects n gw gwb",
            conds: searched_conditions(mapping, models),
        },
        out,
    );
    print_statement(
        &Statement {
            name: "guards_compiled",
            what: "The compiled program's skeleton Xt and its guards, against the source's Xs.",
            params: "(Xs Xt : exec) (grs gws grt gwt : rel)",
            bool_params: "(XBs XBt : bexec) (grsb gwsb grtb gwtb : brel)",
            reflects: "exec_reflects n Xs XBs -> exec_reflects n Xt XBt -> reflects n grs grsb -> reflects n gws gwsb -> reflects n grt grtb -> reflects n gwt gwtb",
            conds: compiled_guard_conditions(mapping, models),
        },
        out,
    );
    let total = co_total_needed(&mapping.source);
    let co_s = if total { "co_total X -> " } else { "" };
    let co_y = if total { "co_total Y -> " } else { "" };
    let (s_cons, s_race) = (s.consistent(), s.race_free());
    let fields: Vec<String> = compilation_fields(mapping, models)
        .iter()
        .map(|(name, stmt)| format!("  {name} : {stmt}"))
        .collect();
    let _ = writeln!(
        out,
        "Definition searched (P : program) : Prop := searched_on (pr P) (gread P) (gwrite P).\n\
         Definition compiles (Ps Pt : program) : Prop :=\n\
         \x20 lowering (pr Ps) (pr Pt) /\\ guards_compiled (pr Ps) (pr Pt) (gread Ps) (gwrite Ps) (gread Pt) (gwrite Pt).\n\n\
         (* Race freedom, the search's: no consistent execution of the program raises a flag. *)\n\
         Definition drf (P : program) : Prop :=\n\
         \x20 forall X, runs P X -> {wf} X -> {co_s}{s_cons} X -> {s_race} X.\n\n\
         (* A race-free program of the searched class with a meaning (some consistent execution), its\n\
         \x20  compilation Pt, an execution Xt of Pt the target model allows, and an execution Xs of the\n\
         \x20  source program with Xt's rf and a coherence order containing Xt's. *)\n\
         Record compilation (Ps Pt : program) (Xs Xt : exec) : Prop := {{\n{}\n}}.\n\n\
         (* No execution of the source program explains Xt: every one with Xt's rf and a coherence\n\
         \x20  order containing Xt's is inconsistent. *)\n\
         Definition unexplained (Ps : program) (Xt : exec) : Prop :=\n\
         \x20 forall Y, runs Ps Y -> {wf} Y -> {co_y}same_rel (rf Y) (rf Xt) -> inclusion (co Xt) (co Y) -> ~ {s_cons} Y.\n",
        fields.join(";\n")
    );
    print_claims(models, evidence, out);
}
/// The fields of the Record `compilation`, in order: name and statement over `Ps Pt Xs Xt`.
pub fn compilation_fields(mapping: &Mapping, models: &Models) -> Vec<(&'static str, String)> {
    let (wf, s, t) = (models.wf.consistent(), models.source, models.target);
    let co_and = if co_total_needed(&mapping.source) {
        "co_total X /\\ "
    } else {
        ""
    };
    let mut fields = vec![
        ("c_searched", "searched Ps".to_string()),
        ("c_compiles", "compiles Ps Pt".into()),
        (
            "c_meaning",
            format!(
                "exists X, runs Ps X /\\ {wf} X /\\ {co_and}{} X",
                s.consistent()
            ),
        ),
        ("c_drf", "drf Ps".into()),
        ("c_runs_t", "runs Pt Xt".into()),
        ("c_wf_t", format!("{wf} Xt")),
    ];
    if co_total_needed(&mapping.target) {
        fields.push(("c_co_t", "co_total Xt".into()));
    }
    fields.push(("c_consistent_t", format!("{} Xt", t.consistent())));
    fields.push(("c_runs_s", "runs Ps Xs".into()));
    fields.push(("c_wf_s", format!("{wf} Xs")));
    if co_total_needed(&mapping.source) {
        fields.push(("c_co_s", "co_total Xs".into()));
    }
    fields.push(("c_lift_rf", "same_rel (rf Xs) (rf Xt)".into()));
    fields.push(("c_lift_co", "inclusion (co Xt) (co Xs)".into()));
    fields
}

/// One Section theorem per source axiom (Admitted, with what the search found), and after the
/// Section `claim_<axiom>`, the closed statement a refutation negates.
fn print_claims(models: &Models, evidence: &[(String, Evidence)], out: &mut String) {
    let s = models.source;
    let _ = writeln!(
        out,
        "Section Obligations.\n\
         Variables (Ps Pt : program) (Xs Xt : exec).\n\
         Hypothesis H : compilation Ps Pt Xs Xt.\n\
         Hypothesis U : unexplained Ps Xt.\n"
    );
    for (c, check) in s.axioms() {
        let note = match evidence.iter().find(|(a, _)| *a == check.name) {
            Some((_, Evidence::CleanTo(b, how))) => format!(
                "open: mapcheck found no counterexample to {} up to bound {b} ({how})",
                check.name
            ),
            Some((_, Evidence::Counterexample(b, how))) => format!(
                "FALSE: mapcheck found a counterexample at bound {b} ({how}); {} proves ~ {}",
                refutation_file(&check.name),
                claim_name(s, c)
            ),
            None => "open: not searched by mapcheck in this export".into(),
        };
        let _ = writeln!(
            out,
            "{}\n(* {} *)\nTheorem obligation_{} : {} Xs.\nProof using H U. Admitted.\n",
            super::coq_comment(&check.source_text),
            super::comment_text(&note),
            s.check(c),
            s.check(c)
        );
    }
    let _ = writeln!(out, "End Obligations.\n");
    for (c, _) in s.axioms() {
        let _ = writeln!(
            out,
            "Definition {} : Prop :=\n  forall Ps Pt Xs Xt, compilation Ps Pt Xs Xt -> unexplained Ps Xt -> {} Xs.\n\
             Check (obligation_{} : {}).\n",
            claim_name(s, c),
            s.check(c),
            s.check(c),
            claim_name(s, c)
        );
    }
}

/// `claim_<source axiom>`.
pub fn claim_name(source: &Names, c: usize) -> String {
    format!("claim_{}", source.check(c))
}

/// The file that refutes the claim for `axiom` (written beside the obligations).
pub fn refutation_file(axiom: &str) -> String {
    format!("Refutation_{}.v", super::ident(axiom))
}
