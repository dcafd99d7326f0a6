//! `searched` and the guards of `compiles`: the statements over execution skeletons (their
//! parameters and printing), the conditions saying which programs the search considers (exact
//! tag sets, no dependencies but guards) and how the guards compile.
use std::fmt::Write;

use super::lowering::{
    added_fences, app, class_set, conjunction, op_set, shared_events, Condition,
};
use crate::coq::model::{Models, Side};
use crate::mapping::{Class, ClassKind, Mapping, TargetOp};
use crate::vocab::{Level, Role, Tag, SAME_SCOPES};

/// A Prop and its boolean mirror, printed as a Definition over an execution skeleton `X` and
/// the guard relations `gr` (guard read to guarded event) and `gw` (the write it must read from)
/// of one program, or over two (`Xs Xt`, `grs gws grt gwt`).
pub(super) struct Statement {
    pub(super) name: &'static str,
    pub(super) what: &'static str,
    pub(super) params: &'static str,
    pub(super) bool_params: &'static str,
    pub(super) reflects: &'static str,
    pub(super) conds: Vec<Condition>,
}

pub(super) fn print_statement(st: &Statement, out: &mut String) {
    let (prop, boolean) = conjunction(&st.conds);
    let name = st.name;
    let _ = writeln!(
        out,
        "(* {} *)\nDefinition {name} {} : Prop :=\n  {}.\n\
         Definition {name}_b (n : nat) {} : bool :=\n  {}.\n\
         Lemma {name}_dec : forall n {}, {} ->\n  ({name}_b n {} = true <-> {name} {}).\n\
         Proof. intros. unfold {name}, {name}_b. conj_tac. Qed.\n",
        st.what,
        st.params,
        prop,
        st.bool_params,
        boolean,
        param_names(st.params, st.bool_params),
        st.reflects,
        param_list(st.bool_params),
        param_list(st.params),
    );
}

/// `(X : exec) (gr gw : rel)` → `X gr gw`.
pub(super) fn param_list(params: &str) -> String {
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
pub(super) fn param_names(params: &str, bool_params: &str) -> String {
    format!("{} {}", param_list(params), param_list(bool_params))
}

/// A guard relation on one side (`gr` / `grb`).
pub(super) fn rel_param(side: Side, name: &str) -> String {
    match side {
        Side::Prop => name.to_string(),
        Side::Bool(_) => format!("{name}b"),
    }
}

/// `empty (a \ b)` on one side: relation `a` lies within `b`.
pub(super) fn within(side: Side, a: String, b: String) -> String {
    format!("{} {}", side.op_n("empty"), app(side, "minus", a, b))
}

/// The tags a model can tell apart: those it names, and the scope tags (wf.cat reads `incl`
/// and `sr` off them). An event of a class has none of them but the class's own.
pub(super) fn told_apart(model: &crate::ir::Model) -> Vec<Tag> {
    let used = model.used_builtins();
    crate::vocab::TAGS
        .into_iter()
        .filter(|t| used.contains(&t.name()) || t.role() == Role::Scope)
        .collect()
}

/// Each of `kinds` (an event set and its own tags) cut to its exact events: those without any
/// tag of `told` beyond the kind's own. (The sets overlap: a volatile load is also a relaxed
/// system-scope load; its tags say which one it is.)
pub(super) fn exact_sets(
    side: Side,
    kinds: &[(String, Vec<Tag>)],
    told: &[Tag],
    x: &str,
) -> Vec<String> {
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

/// The union of `sets` (`set0` when there are none).
fn union_of_sets(side: Side, sets: impl IntoIterator<Item = String>) -> String {
    sets.into_iter()
        .reduce(|a, b| app(side, "set_union", a, b))
        .unwrap_or_else(|| side.op("set0"))
}

/// Every event of `x` but its initial writes is in one of the `exact` sets.
pub(super) fn exactly_one_of(side: Side, exact: &[String], x: &str) -> String {
    let covered = union_of_sets(side, exact.iter().cloned());
    let events = app(side, "set_minus", side.field("E", x), side.field("IW", x));
    format!(
        "{} {}",
        side.op_n("set_empty"),
        app(side, "set_minus", events, covered)
    )
}

/// Each `rmw` pair of `x` is one instruction: the read immediately before the write, both in one
/// of the `exact` sets.
pub(super) fn rmw_one_instruction(side: Side, exact: &[String], x: &str) -> String {
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
pub(super) fn searched_conditions(mapping: &Mapping, models: &Models) -> Vec<Condition> {
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
    push(
        "no RMW's write is guarded by its own read (one instruction runs whole or not at all)",
        &|side| {
            within(
                side,
                app(side, "inter", gr(side), side.field("rmw", "X")),
                side.op("rel0"),
            )
        },
    );
    push(
        "every location has exactly one initial write: each memory event shares its location with one, no two share one, and each is at a location some event accesses",
        &|side| one_initial_write_per_location(side, "X"),
    );
    if mapping.typed_locations {
        push(
            "locations are typed (`locations typed`): no location takes both a non-atomic access and an atomic one",
            &|side| typed_locations(side, mapping, "X"),
        );
    }
    if let Some(region) = mapping.region() {
        push(
            "every event is in the search's memory region: each memory event, fence and initial write carries its tag",
            &|side| {
                let outside = app(side, "set_minus", side.field("E", "X"), side.field(region.name(), "X"));
                format!("{} {outside}", side.op_n("set_empty"))
            },
        );
    }
    push(
        "an initial write has no tag its models tell apart but the search's memory region",
        &|side| {
            let tags = told
                .iter()
                .filter(|&&t| Some(t) != mapping.region())
                .map(|t| side.field(t.name(), "X"));
            let tagged = app(
                side,
                "set_inter",
                side.field("IW", "X"),
                union_of_sets(side, tags),
            );
            format!("{} {tagged}", side.op_n("set_empty"))
        },
    );
    unsearched_levels(mapping, &mut push);
    conds
}

/// A placed level the search does not place threads at has one instance per instance of the
/// next searched level outside it (`Mapping::searched_levels`), or one for all threads.
fn unsearched_levels(mapping: &Mapping, push: &mut impl FnMut(&str, &dyn Fn(Side) -> String)) {
    let searched = mapping.searched_levels();
    let same = |level: Level| {
        let relation = SAME_SCOPES.into_iter().find(|s| s.level() == level);
        relation
            .expect("a placed level has a same-instance relation")
            .name()
    };
    for level in Level::PLACED.into_iter().filter(|l| !searched.contains(l)) {
        let inner = level.placed_name().unwrap_or("?");
        match searched.iter().find(|&&l| l > level) {
            Some(&outer) => push(
                &format!(
                    "one {inner} per {0}, as the search places threads: two events of one {0} share a {inner}",
                    outer.placed_name().unwrap_or("?")
                ),
                &|side| within(side, side.field(same(outer), "X"), side.field(same(level), "X")),
            ),
            None => push(
                &format!("one {inner} for all threads, as the search places them: two threaded events share a {inner}"),
                &|side| {
                    let threaded = app(side, "set_minus", side.field("E", "X"), side.field("IW", "X"));
                    let pairs = format!("({} {threaded} {threaded})", side.op("cross"));
                    within(side, pairs, side.field(same(level), "X"))
                },
            ),
        }
    }
}

/// Every memory event of `x` is at the location of an initial write, no two initial writes share
/// a location, and every initial write's location is accessed (the search gives an initial write
/// to the locations its program uses, and only to them).
fn one_initial_write_per_location(side: Side, x: &str) -> String {
    let iw = format!("({} {})", side.op("id_on"), side.field("IW", x));
    let at_iw = format!(
        "({} ({} {} {iw}))",
        side.op_n("domain"),
        side.op_n("seq"),
        side.field("loc", x)
    );
    let covered = format!(
        "{} {}",
        side.op_n("set_empty"),
        app(side, "set_minus", side.field("M", x), at_iw)
    );
    let iw_pairs = format!(
        "({} {iw} ({} {} {iw}))",
        side.op_n("seq"),
        side.op_n("seq"),
        side.field("loc", x)
    );
    let accesses = app(side, "set_minus", side.field("M", x), side.field("IW", x));
    let accessed = format!(
        "({} ({} {} ({} {accesses})))",
        side.op_n("domain"),
        side.op_n("seq"),
        side.field("loc", x),
        side.op("id_on")
    );
    let used = format!(
        "{} {}",
        side.op_n("set_empty"),
        app(side, "set_minus", side.field("IW", x), accessed)
    );
    side.and(&[covered, within(side, iw_pairs, side.field("id", x)), used])
}

/// No non-atomic access of `x` (a class of order `NA`) shares its location with an atomic one
/// (a memory class of another order).
fn typed_locations(side: Side, mapping: &Mapping, x: &str) -> String {
    let union_of = |keep: &dyn Fn(&Class) -> bool| {
        let accesses = mapping
            .classes()
            .iter()
            .filter(|c| c.kind != ClassKind::F && keep(c));
        union_of_sets(side, accesses.map(|c| class_set(side, c, x)))
    };
    let plain = union_of(&|c| c.order == Tag::Na);
    let atomic = union_of(&|c| c.order != Tag::Na);
    let mixed = app(
        side,
        "inter",
        app(side, "cross", plain, atomic),
        side.field("loc", x),
    );
    within(side, mixed, side.op("rel0"))
}

/// Skeleton `x` has no address or data dependencies (the search's values are constants).
pub(super) fn no_dependencies(side: Side, x: &str) -> String {
    let deps = app(side, "union", side.field("addr", x), side.field("data", x));
    within(side, deps, side.op("rel0"))
}

pub(super) fn ctrl_why() -> String {
    "control dependencies run from each guard read to every event inside it".into()
}

/// `ctrl` of skeleton `x` is the transitive closure of its guard reads `gr`.
pub(super) fn ctrl_is_guards(side: Side, x: &str, gr: &str) -> String {
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
pub(super) fn compiled_guard_conditions(mapping: &Mapping, models: &Models) -> Vec<Condition> {
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
