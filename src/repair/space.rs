//! The rules a repair may give one class, generated from the target's vocabulary (PTX's
//! semantics and scopes per instruction, `TargetOp::vocabulary`), never listed by hand.
//!
//! - `strengthenings`: every rule one edit stronger than the current one (and the current one):
//!   one instruction's scope widened among the mapping's target scopes (`Scopes`: cta < gpu <
//!   sys for a mapping to PTX 6.0, in `isa::ptx::scope_order`) and/or its
//!   semantics strengthened along `isa::ptx::STRONGER`, or one fence of any kind and scope added
//!   before or after the access where the rule has none there. One edit per class keeps the product over classes small enough to
//!   walk in cost order; several edits to one rule are out of the space (decision 013).
//! - `weakenings`: every rule one step weaker: a fence dropped, one scope narrowed one step, one
//!   semantics weakened one step.
//!
//! What the space cannot express (an access lowered to an RMW, to two accesses, to another
//! kind) is in docs/decisions/013-repair.md.
//!
//! Owns: `Scopes`, `strengthenings`, `weakenings`. Uses: `isa` (PTX's scope order and semantics steps),
//! `mapping` (`Class`, `TargetOp`, `OpKind`).
use std::collections::BTreeSet;

use crate::isa::ptx::{self, STRONGER};
use crate::mapping::{Class, ClassKind, Mapping, OpKind, TargetOp};
use crate::vocab::Tag;

/// The target scopes a repair may give an instruction, narrowest first (`isa::ptx::scope_order`):
/// those the mapping's `scope` lines and rules name, or PTX 6.0's where it names none. A scope it
/// never names (`.cluster` in a mapping to PTX 6.0) is never proposed: PTX 6.0 has none, and the
/// search places no threads at a level no row names (`Mapping::searched_levels`).
#[derive(Clone, Debug)]
pub(crate) struct Scopes(Vec<Tag>);

impl Scopes {
    pub(crate) fn of(mapping: &Mapping) -> Scopes {
        let rules = mapping.classes().iter().flat_map(|c| mapping.compile(c));
        let named: Vec<Tag> = (mapping.scopes.iter().map(|&(_, t)| t))
            .chain(rules.filter_map(TargetOp::scope))
            .collect();
        let scopes: Vec<Tag> = ptx::scope_order().filter(|t| named.contains(t)).collect();
        match scopes.is_empty() {
            true => Scopes(ptx::scopes_of_ptx_6().collect()),
            false => Scopes(scopes),
        }
    }

    pub(crate) fn as_slice(&self) -> &[Tag] {
        &self.0
    }

    fn widest(&self) -> Tag {
        *self.0.last().expect("a repair has a scope")
    }
}

/// The semantics one step stronger (`up`) or weaker than `sem` on an instruction of `kind`.
fn step(kind: OpKind, sem: Tag, up: bool) -> impl Iterator<Item = Tag> {
    STRONGER
        .iter()
        .filter_map(move |&(k, weak, strong)| match up {
            true if k == kind && weak == sem => Some(strong),
            false if k == kind && strong == sem => Some(weak),
            _ => None,
        })
}

/// `sem` and every semantics stronger than it on `kind`.
fn at_least(kind: OpKind, sem: Tag) -> BTreeSet<Tag> {
    let mut all = BTreeSet::from([sem]);
    let mut todo = vec![sem];
    while let Some(s) = todo.pop() {
        for t in step(kind, s, true) {
            if all.insert(t) {
                todo.push(t);
            }
        }
    }
    all
}

/// The scopes an instruction of semantics `sem` may have when the current one has `scope`: none
/// for `.weak`; otherwise `scope` and every wider one (every scope when there was none).
fn scopes_from(sem: Tag, scope: Option<Tag>, scopes: &Scopes) -> Vec<Option<Tag>> {
    if !ptx::is_scoped(sem) {
        return vec![None];
    }
    let order = scopes.as_slice();
    let from = scope.map_or(0, |s| order.iter().position(|&t| t == s).unwrap_or(0));
    order[from..].iter().map(|&s| Some(s)).collect()
}

/// `op` and every instruction of its kind at least as strong (semantics, then scope).
fn stronger_ops(op: &TargetOp, scopes: &Scopes) -> Vec<TargetOp> {
    if op.sem() == Tag::V {
        return vec![op.clone()];
    }
    let mut all = vec![];
    for sem in at_least(op.kind, op.sem()) {
        for scope in scopes_from(sem, op.scope(), scopes) {
            all.push(TargetOp::new(op.kind, sem, scope));
        }
    }
    all
}

/// No fence, or any fence PTX has at one of `scopes`.
fn added_fence(scopes: &Scopes) -> Vec<Option<TargetOp>> {
    let fences = TargetOp::vocabulary()
        .into_iter()
        .filter(|op| op.kind == OpKind::Fence && op.scope().is_none_or(|s| scopes.0.contains(&s)));
    std::iter::once(None).chain(fences.map(Some)).collect()
}

/// `rule` and every rule one edit stronger (a rule of `class`): one instruction replaced by a
/// stronger one of its kind (semantics and scope at once), or one fence of any kind and scope
/// added before the access (after it) where the rule has no fence there, or as a fence class's
/// rule when it has none.
pub(crate) fn strengthenings(
    class: Class,
    rule: &[TargetOp],
    scopes: &Scopes,
) -> Vec<Vec<TargetOp>> {
    let mut all = vec![rule.to_vec()];
    for (i, op) in rule.iter().enumerate() {
        for stronger in stronger_ops(op, scopes).into_iter().filter(|s| s != op) {
            let mut r = rule.to_vec();
            r[i] = stronger;
            all.push(r);
        }
    }
    let fences = || added_fence(scopes).into_iter().flatten();
    let is_access = |op: Option<&TargetOp>| op.is_some_and(|op| op.kind.is_access());
    if class.kind != ClassKind::F && is_access(rule.first()) {
        all.extend(fences().map(|f| [vec![f], rule.to_vec()].concat()));
    }
    if rule.is_empty() || (class.kind != ClassKind::F && is_access(rule.last())) {
        all.extend(fences().map(|f| [rule.to_vec(), vec![f]].concat()));
    }
    all
}

/// The strongest rule above `rule` that has no more SC fences than it: every instruction at its
/// strongest semantics and widest scope, and an acq_rel system fence before and after the
/// access where the rule has none (a fence class: its fences at their strongest, or one acq_rel
/// system fence for `skip`). Every strengthening of `rule` that adds no SC fence is at most as
/// strong as it. (SC fences are left out because each one multiplies the SC orders the runner
/// goes through.)
pub(crate) fn strongest(class: Class, rule: &[TargetOp], scopes: &Scopes) -> Vec<TargetOp> {
    let acq_rel_sys = || TargetOp::new(OpKind::Fence, Tag::AcqRel, Some(scopes.widest()));
    let top = |op: &TargetOp| match op.sem() {
        Tag::V => op.clone(),
        sem => {
            let maximal = at_least(op.kind, sem)
                .into_iter()
                .rfind(|&t| step(op.kind, t, true).next().is_none())
                .unwrap_or(sem);
            TargetOp::new(op.kind, maximal, Some(scopes.widest()))
        }
    };
    let mut all: Vec<TargetOp> = rule.iter().map(top).collect();
    let is_access = |op: Option<&TargetOp>| op.is_some_and(|op| op.kind.is_access());
    if class.kind != ClassKind::F && is_access(rule.first()) {
        all.insert(0, acq_rel_sys());
    }
    if rule.is_empty() || (class.kind != ClassKind::F && is_access(rule.last())) {
        all.push(acq_rel_sys());
    }
    all
}

/// The number of SC fences in a rule.
pub(crate) fn sc_fences(rule: &[TargetOp]) -> usize {
    rule.iter()
        .filter(|op| op.kind == OpKind::Fence && op.sem() == Tag::Sc)
        .count()
}

/// Is instruction `a` at most as strong as `b`: the same kind, `b`'s semantics `a`'s or stronger,
/// `b`'s scope `a`'s or wider (a `.weak` access has none)?
fn op_at_most(a: &TargetOp, b: &TargetOp) -> bool {
    let rank = |s: Option<Tag>| s.and_then(|s| ptx::scope_order().position(|t| t == s));
    a.kind == b.kind
        && (a == b
            || (a.sem() != Tag::V
                && at_least(a.kind, a.sem()).contains(&b.sem())
                && rank(a.scope()) <= rank(b.scope())))
}

/// Is rule `a` at most as strong as rule `b`: `b` is `a` with fences added and instructions
/// strengthened (`a` embeds into `b` in order, each instruction at most as strong as its match)?
pub(crate) fn weaker_or_equal(a: &[TargetOp], b: &[TargetOp]) -> bool {
    let mut rest = b.iter();
    a.iter().all(|x| rest.any(|y| op_at_most(x, y)))
        && a.iter().filter(|x| x.kind.is_access()).count()
            == b.iter().filter(|y| y.kind.is_access()).count()
}

/// Every rule one step weaker than `rule`: a fence dropped, one instruction's scope narrowed one
/// step, or its semantics weakened one step (a `.weak` access has no scope).
pub(crate) fn weakenings(rule: &[TargetOp], scopes: &Scopes) -> Vec<Vec<TargetOp>> {
    let mut all = vec![];
    for (i, op) in rule.iter().enumerate() {
        let mut replace = |with: Option<TargetOp>| {
            let mut r = rule.to_vec();
            match with {
                Some(w) => r[i] = w,
                None => {
                    r.remove(i);
                }
            }
            all.push(r);
        };
        if op.kind == OpKind::Fence {
            replace(None);
        }
        if op.sem() == Tag::V {
            continue;
        }
        for sem in step(op.kind, op.sem(), false) {
            let scope = if ptx::is_scoped(sem) {
                op.scope()
            } else {
                None
            };
            replace(Some(TargetOp::new(op.kind, sem, scope)));
        }
        // The scope one step narrower, where there is one.
        let narrower = (op.scope()).and_then(|s| {
            let order = scopes.0.iter().copied();
            order.take_while(|&t| t != s).last()
        });
        if let Some(narrower) = narrower {
            replace(Some(TargetOp::new(op.kind, op.sem(), Some(narrower))));
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PTX 6.0's scopes, as a repair of a mapping to PTX 6.0 has them.
    fn ptx_6() -> Scopes {
        Scopes(ptx::scopes_of_ptx_6().collect())
    }

    fn op(kind: OpKind, sem: Tag, scope: Option<Tag>) -> TargetOp {
        TargetOp::new(kind, sem, scope)
    }

    fn text(rules: &[Vec<TargetOp>]) -> Vec<String> {
        rules
            .iter()
            .map(|r| crate::mapping::ptx::sequence_text(r))
            .collect()
    }

    const SC_LOAD: Class = Class {
        kind: ClassKind::R,
        order: Tag::Sc,
        scope: Some(Tag::Cta),
    };

    #[test]
    fn a_strengthening_keeps_the_rule_first_and_only_adds_order() {
        let rule = vec![
            op(OpKind::Fence, Tag::Sc, Some(Tag::Cta)),
            op(OpKind::Load, Tag::Acq, Some(Tag::Cta)),
        ];
        let all = strengthenings(SC_LOAD, &rule, &ptx_6());
        assert_eq!(all[0], rule);
        // The rule; the fence at 2 wider scopes; the load at 2; a trailing fence: one of 4
        // semantics × 3 scopes.
        assert_eq!(all.len(), 1 + 2 + 2 + 12);
        let names = text(&all);
        assert!(names.contains(&"fence.sc.gpu; ld.acquire.cta".to_string()));
        assert!(names.contains(&"fence.sc.cta; ld.acquire.cta; fence.acq_rel.gpu".to_string()));
        assert!(!names
            .iter()
            .any(|n| n.contains("ld.relaxed") || n.contains("fence.acq_rel.cta; ld")));
        assert!(
            !names.contains(&"fence.sc.gpu; ld.acquire.gpu".to_string()),
            "two edits"
        );
    }

    #[test]
    fn a_weak_access_gains_a_scope_when_it_becomes_relaxed() {
        let na = Class {
            kind: ClassKind::W,
            order: Tag::Na,
            scope: None,
        };
        let names = text(&strengthenings(
            na,
            &[op(OpKind::Store, Tag::Weak, None)],
            &ptx_6(),
        ));
        // The rule, relaxed ×3, release ×3, a leading or a trailing fence (12 each).
        assert_eq!(names.len(), 1 + 6 + 12 + 12);
        assert!(names.contains(&"st.relaxed.cta".to_string()));
        assert!(names.contains(&"fence.sc.sys; st.weak".to_string()));
        assert!(names.contains(&"st.weak; fence.acquire.cta".to_string()));
    }

    #[test]
    fn the_order_between_rules() {
        let f = |sem, s| op(OpKind::Fence, sem, Some(s));
        let ld = |sem, s| op(OpKind::Load, sem, s);
        let plain = vec![ld(Tag::Weak, None)];
        let relaxed = vec![ld(Tag::Rlx, Some(Tag::Cta))];
        let fenced = vec![f(Tag::Sc, Tag::Gpu), ld(Tag::Acq, Some(Tag::Gpu))];
        assert!(weaker_or_equal(&plain, &relaxed) && !weaker_or_equal(&relaxed, &plain));
        assert!(weaker_or_equal(&relaxed, &fenced) && !weaker_or_equal(&fenced, &relaxed));
        let narrower = vec![f(Tag::AcqRel, Tag::Cta), ld(Tag::Acq, Some(Tag::Cta))];
        assert!(weaker_or_equal(&narrower, &fenced));
        let trailing = vec![ld(Tag::Acq, Some(Tag::Gpu)), f(Tag::Sc, Tag::Gpu)];
        assert!(!weaker_or_equal(&fenced, &trailing) && !weaker_or_equal(&trailing, &fenced));
        for rule in [&plain, &relaxed, &fenced, &trailing] {
            assert!(weaker_or_equal(rule, rule));
            for w in weakenings(rule, &ptx_6()) {
                assert!(weaker_or_equal(&w, rule) && !weaker_or_equal(rule, &w));
            }
            let top = strongest(SC_LOAD, rule, &ptx_6());
            assert_eq!(sc_fences(&top), sc_fences(rule));
            for s in strengthenings(SC_LOAD, rule, &ptx_6()) {
                let below = weaker_or_equal(&s, &top);
                assert_eq!(below, sc_fences(&s) == sc_fences(rule), "{s:?} and {top:?}");
            }
        }
    }

    #[test]
    fn weakenings_are_single_steps() {
        let rule = vec![
            op(OpKind::Fence, Tag::Sc, Some(Tag::Gpu)),
            op(OpKind::Rmw, Tag::AcqRel, Some(Tag::Cta)),
        ];
        let mut names = text(&weakenings(&rule, &ptx_6()));
        names.sort();
        assert_eq!(
            names,
            [
                "atom.acq_rel.cta",
                "fence.acq_rel.gpu; atom.acq_rel.cta",
                "fence.sc.cta; atom.acq_rel.cta",
                "fence.sc.gpu; atom.acquire.cta",
                "fence.sc.gpu; atom.release.cta",
            ]
        );
        let load = [op(OpKind::Load, Tag::Rlx, Some(Tag::Gpu))];
        let mut names = text(&weakenings(&load, &ptx_6()));
        names.sort();
        assert_eq!(names, ["ld.relaxed.cta", "ld.weak"]);
    }
}
