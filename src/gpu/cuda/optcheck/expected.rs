//! What each test instruction must become in the SASS (the table measured with ptxas, in the
//! module header): the PTX as the harness writes it, the expected SASS, and what a fence or a
//! releasing or acquiring access needs around it.
use super::sass::scope_word;
use crate::gpu::cuda::events::{Event, Op, Scope, Sem, Strength};
use crate::vocab::Tag;

/// The PTX of an event, as the harness writes it (address by location).
pub(super) fn ptx_text(e: &Event) -> String {
    match e {
        Event::Fence(f) => format!("fence{}{}", f.sem.ptx(), f.scope.ptx()),
        Event::Access(a) => {
            let (word, op) = match a.op {
                Op::Load => ("ld", String::new()),
                Op::Store => ("st", String::new()),
                Op::Atom(o) => ("atom", o.ptx().to_string()),
                Op::Red(o) => ("red", o.ptx().to_string()),
            };
            let op = op
                .split('.')
                .nth(1)
                .map(|o| format!(".{o}"))
                .unwrap_or_default();
            let guard = if a.guarded { " (guarded)" } else { "" };
            format!(
                "{word}{}.global{op} [{}]{guard}",
                a.strength.ptx(),
                a.location
            )
        }
    }
}

/// The SASS an event must become.
pub(super) fn expected_text(e: &Event) -> String {
    match e {
        Event::Fence(f) => match fence_need(f.sem, f.scope) {
            Need::Membar { sc, scope } => membar_text(sc, scope),
            Need::Invalidate => "CCTL.IVALL".into(),
            Need::Nothing => "(nothing)".into(),
        },
        Event::Access(a) => {
            let mut parts = vec![];
            if let Some(s) = release_scope(a.op, a.strength) {
                parts.push(membar_text(false, s));
            }
            let strong = a.strength.scope().map_or(String::new(), |s| {
                format!(".STRONG.{}", scope_word(s, true))
            });
            parts.push(format!("{}{strong} [+{:#x}]", op_text(a.op), a.tag));
            if acquire_invalidates(a.strength) {
                parts.push("CCTL.IVALL".into());
            }
            parts.join("; ")
        }
    }
}

pub(super) fn op_text(op: Op) -> String {
    match op {
        Op::Load => "LDG.E".into(),
        Op::Store => "STG.E".into(),
        Op::Atom(o) => format!("ATOMG.E.{}", o.sass()),
        Op::Red(o) => format!("REDG.E.{}", o.sass()),
    }
}

pub(super) fn membar_text(sc: bool, scope: Scope) -> String {
    format!(
        "MEMBAR.{}.{}",
        if sc { "SC" } else { "ALL" },
        scope_word(scope, false)
    )
}

/// What a fence needs in its gap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Need {
    Membar { sc: bool, scope: Scope },
    Invalidate,
    Nothing,
}

pub(super) fn fence_need(sem: Sem, scope: Scope) -> Need {
    match (sem, scope) {
        (Sem(Tag::Sc), _) => Need::Membar { sc: true, scope },
        (Sem(Tag::AcqRel | Tag::Rel), _) => Need::Membar { sc: false, scope },
        (_, Scope(Tag::Cta)) => Need::Nothing,
        _ => Need::Invalidate,
    }
}

/// The scope of the `MEMBAR.ALL` a releasing write needs before it.
pub(super) fn release_scope(op: Op, s: Strength) -> Option<Scope> {
    match (op, s) {
        (Op::Load, _) => None,
        (_, Strength::Strong(sem, scope)) if sem.releases() => Some(scope),
        _ => None,
    }
}

/// Does an acquiring access need a `CCTL.IVALL` after it?
pub(super) fn acquire_invalidates(s: Strength) -> bool {
    matches!(s, Strength::Strong(sem, scope) if sem.acquires() && scope != Scope(Tag::Cta))
}
