//! The PTX side of a mapping: instruction templates such as `ld.acquire.$s`, which combinations
//! PTX has, and `TargetOp`, an instantiated target instruction (an event kind with its tags).
//!
//! Owns: `OpKind`, `Template`, `TargetOp`. Uses: `ast` (spans), `class`, `isa::ptx` (the
//! qualifier words and the vocabulary tags each one stands for).
//! The tags are the ones the PTX litmus front end attaches to the same instructions (models/README.md):
//! `ld.weak` → WEAK; `ld.relaxed.gpu` → RLX GPU; `ld.volatile` → RLX SYS V (PTX: "the same memory
//! synchronization semantics as ld.relaxed.sys"); `fence.sc.cta` and `membar.cta` → SC CTA
//! ("membar is a synonym for fence.sc", ASPLOS'19 §3).
use std::fmt;

pub use crate::isa::ptx::OpKind;
use crate::isa::ptx::{self, Form, FORMS, MEMBAR, MEMBAR_LEVELS, SCOPES, SEMANTICS};
use crate::mapping::ast::{Op, Qual, Span};
use crate::mapping::class::{ClassKind, Tag};

/// How PTX's instruction kinds stand to the mapping's source classes.
impl OpKind {
    /// The instruction kind that does what a source class of `kind` does.
    pub(crate) fn of_class(kind: ClassKind) -> OpKind {
        match kind {
            ClassKind::R => OpKind::Load,
            ClassKind::W => OpKind::Store,
            ClassKind::Rmw => OpKind::Rmw,
            ClassKind::F => OpKind::Fence,
        }
    }
    /// The source class kind that does what this instruction does (inverse of `of_class`).
    pub(crate) fn class_kind(self) -> ClassKind {
        match self {
            OpKind::Load => ClassKind::R,
            OpKind::Store => ClassKind::W,
            OpKind::Rmw => ClassKind::Rmw,
            OpKind::Fence => ClassKind::F,
        }
    }
}

/// How a `.sem` tag is written (every tag of a `Form`'s semantics has a word).
fn sem_word(tag: Tag) -> &'static str {
    SEMANTICS.spelling(tag)
}

/// The scope of a template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScopeRef {
    /// No scope (`.weak`, `.volatile`).
    None,
    Fixed(Tag),
    /// `$s`: the image of the source operation's scope.
    Param,
}

/// One target instruction of a rule, before the scope parameter is filled in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Template {
    pub(crate) kind: OpKind,
    pub(crate) sem: Tag,
    pub(crate) scope: ScopeRef,
    pub(crate) span: Span,
}

/// A problem with a template: where, and what.
pub(crate) type Problem = (Span, String);

/// Read a template. `var` is the scope variable the rule's pattern binds (`$s`), if any.
pub(crate) fn template(op: &Op, var: Option<&str>) -> Result<Template, Problem> {
    let m = op.mnemonic.text.as_str();
    let (form, membar) = match Form::named(m) {
        Some(form) => (form, false),
        None if m == MEMBAR => (OpKind::Fence.form(), true),
        None => {
            let known: Vec<String> = FORMS.iter().map(|f| format!("`{}`", f.mnemonic)).collect();
            let msg = format!(
                "unknown target instruction `{m}`; expected {} or `{MEMBAR}`",
                known.join(", ")
            );
            return Err((op.mnemonic.span, msg));
        }
    };
    let kind = form.kind;
    let (sem, scope) = if membar {
        membar_quals(op)?
    } else {
        quals(op, form, var)?
    };
    check_combination(op, form, sem, scope)?;
    if !form.returns && form.kind == OpKind::Rmw {
        let msg = format!(
            "`{m}` returns no value, so it cannot compile a source RMW, whose read returns the old value; use `atom`"
        );
        return Err((op.mnemonic.span, msg));
    }
    Ok(Template {
        kind,
        sem,
        scope,
        span: op.span,
    })
}

/// `.sem` and `.scope` of an `ld` / `st` / `atom` / `red` / `fence`, each at most once, in any
/// order. An operation word (`.exch`) is refused: the rule takes the source RMW's operation.
fn quals(op: &Op, form: &Form, var: Option<&str>) -> Result<(Tag, ScopeRef), Problem> {
    let (mut sem, mut scope) = (None, ScopeRef::None);
    for q in &op.quals {
        match q {
            Qual::Var(v) if Some(v.text.as_str()) == var => {
                set_scope(&mut scope, ScopeRef::Param, v.span)?
            }
            Qual::Var(v) => return Err((v.span, unbound_variable(&v.text, var))),
            Qual::Word(w) => match (SEMANTICS.tag(&w.text), SCOPES.tag(&w.text)) {
                (Some(t), _) if sem.is_none() => sem = Some(t),
                (Some(_), _) => {
                    return Err((
                        w.span,
                        format!("a second semantics qualifier `.{}`", w.text),
                    ))
                }
                (_, Some(t)) => set_scope(&mut scope, ScopeRef::Fixed(t), w.span)?,
                _ if FORMS.iter().any(|f| f.ops.contains(&w.text.as_str())) => {
                    let refusal = form.op_refusal(&w.text).unwrap_or_else(|| {
                        format!("`.{}`: a rule's `{}` takes the operation of the source RMW; leave it out", w.text, form.mnemonic)
                    });
                    return Err((w.span, refusal));
                }
                _ => return Err((w.span, unknown_qualifier(&w.text, form))),
            },
        }
    }
    Ok((sem.unwrap_or(form.default_semantics), scope))
}

fn set_scope(scope: &mut ScopeRef, value: ScopeRef, span: Span) -> Result<(), Problem> {
    if *scope != ScopeRef::None {
        return Err((span, "a second scope qualifier".to_string()));
    }
    *scope = value;
    Ok(())
}

/// `membar.cta|gl|sys`: exactly one level.
fn membar_quals(op: &Op) -> Result<(Tag, ScopeRef), Problem> {
    match op.quals.as_slice() {
        [Qual::Word(w)] => match MEMBAR_LEVELS.tag(&w.text) {
            Some(t) => Ok((Tag::Sc, ScopeRef::Fixed(t))),
            None => Err((
                w.span,
                format!(
                    "unknown membar level `.{}`; expected {}",
                    w.text,
                    ptx::listed_words(&MEMBAR_LEVELS)
                ),
            )),
        },
        _ => Err((
            op.span,
            format!(
                "`{MEMBAR}` takes exactly one level: {}",
                ptx::listed_words(&MEMBAR_LEVELS)
            ),
        )),
    }
}

fn unbound_variable(name: &str, var: Option<&str>) -> String {
    match var {
        Some(v) => format!("unknown variable `{name}`; this rule's pattern binds `{v}`"),
        None => format!(
            "unknown variable `{name}`; this rule's pattern binds no scope variable (write `.$s` in the pattern)"
        ),
    }
}

fn unknown_qualifier(word: &str, form: &Form) -> String {
    let sems: Vec<String> = (form.semantics.iter())
        .map(|&t| format!("`.{}`", sem_word(t)))
        .collect();
    format!(
        "unknown qualifier `.{word}` on `{}`; expected a semantics ({}) or a scope ({}, `$s`)",
        form.mnemonic,
        sems.join(", "),
        scope_words()
    )
}

/// PTX's rules: the semantics must exist on the instruction; `.weak` and `.volatile` take no scope
/// (volatile is system-scoped); every other semantics needs one (written out: mapcheck does not
/// apply PTX's `.gpu` default, so that every rule shows its scope).
fn check_combination(op: &Op, form: &Form, sem: Tag, scope: ScopeRef) -> Result<(), Problem> {
    let (kind, sem_word) = (form.kind, sem_word(sem));
    if let Some(refusal) = form.semantics_refusal(sem) {
        return Err((op.span, refusal));
    }
    match (!ptx::is_scoped(sem), scope) {
        (true, ScopeRef::None) | (false, ScopeRef::Fixed(_) | ScopeRef::Param) => Ok(()),
        (true, _) => Err((op.span, format!("`.{sem_word}` accesses have no scope"))),
        (false, ScopeRef::None) => Err((
            op.span,
            format!(
                "`{}` needs a scope: {} or `$s`",
                op_text(kind, sem),
                scope_words()
            ),
        )),
    }
}

/// PTX's scope words, as the mapping's messages list them: "`.cta`, `.gpu`, `.sys`".
fn scope_words() -> String {
    let words: Vec<String> = ptx::scope_order()
        .map(|t| format!("`.{}`", SCOPES.spelling(t)))
        .collect();
    words.join(", ")
}

fn op_text(kind: OpKind, sem: Tag) -> String {
    format!("{}.{}", kind.mnemonic(), sem_word(sem))
}

impl Template {
    /// The instruction for a source operation whose scope's image is `scope` (`None`: unscoped).
    /// `None` if the template needs a scope parameter and there is none.
    pub(crate) fn instantiate(&self, scope: Option<Tag>) -> Option<TargetOp> {
        let scope = match self.scope {
            ScopeRef::None => None,
            ScopeRef::Fixed(t) => Some(t),
            ScopeRef::Param => Some(scope?),
        };
        Some(TargetOp::new(self.kind, self.sem, scope))
    }
}

/// A target instruction: an event kind and the vocabulary tags of its events.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TargetOp {
    /// The instruction's event kind: load, store, RMW or fence.
    pub kind: OpKind,
    /// Vocabulary tags of its events: semantics then scope (`RLX, SYS, V` for `.volatile`); no
    /// scope tag when unscoped.
    pub tags: Vec<Tag>,
}

impl TargetOp {
    /// The instruction of `kind` with semantics `sem` and `scope` (`None` for `.weak` and
    /// `.volatile`, which have none).
    pub(crate) fn new(kind: OpKind, sem: Tag, scope: Option<Tag>) -> TargetOp {
        let tags = match (sem, scope) {
            (Tag::V, _) => ptx::VOLATILE.to_vec(),
            (sem, Some(s)) => vec![sem, s],
            (sem, None) => vec![sem],
        };
        TargetOp { kind, tags }
    }
    /// Its semantics (`V` for `.volatile`).
    pub(crate) fn sem(&self) -> Tag {
        if self.tags.contains(&Tag::V) {
            Tag::V
        } else {
            self.tags[0]
        }
    }
    /// Its scope as written (`None` for `.weak` and `.volatile`).
    pub(crate) fn scope(&self) -> Option<Tag> {
        match self.sem() {
            Tag::V => None,
            _ => self.tags.get(1).copied(),
        }
    }
    /// Every instruction PTX has: each kind with each of its semantics and, where it takes one,
    /// each scope.
    pub(crate) fn vocabulary() -> Vec<TargetOp> {
        let mut all = vec![];
        for kind in OpKind::ALL {
            for &sem in kind.form().semantics {
                match ptx::is_scoped(sem) {
                    false => all.push(TargetOp::new(kind, sem, None)),
                    true => {
                        all.extend(ptx::scope_order().map(|s| TargetOp::new(kind, sem, Some(s))))
                    }
                }
            }
        }
        all
    }
}

/// A rule's right-hand side as a mapping file writes it: `fence.sc.gpu; ld.acquire.cta`, or
/// `skip` for no instruction.
pub(crate) fn sequence_text(ops: &[TargetOp]) -> String {
    match ops {
        [] => "skip".to_string(),
        ops => ops
            .iter()
            .map(|op| op.to_string())
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// PTX spelling: `ld.acquire.gpu`, `st.weak`, `ld.volatile`, `fence.sc.cta`.
impl fmt::Display for TargetOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.kind.mnemonic(), ptx::quals(&self.tags))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::ast::Word;

    fn op(text: &str) -> Op {
        let mut parts = text.split('.');
        let mnemonic = Word::new(parts.next().unwrap(), 0, 1);
        let quals = parts
            .map(|p| {
                if p.starts_with('$') {
                    Qual::Var(Word::new(p, 0, 1))
                } else {
                    Qual::Word(Word::new(p, 0, 1))
                }
            })
            .collect();
        Op {
            mnemonic,
            quals,
            span: Span::new(0, text.len()),
        }
    }

    fn inst(text: &str, scope: Option<Tag>) -> Result<TargetOp, String> {
        let t = template(&op(text), Some("$s")).map_err(|(_, m)| m)?;
        t.instantiate(scope).ok_or_else(|| "no scope".to_string())
    }

    #[test]
    fn qualifiers_become_tags() {
        assert_eq!(
            inst("ld.acquire.$s", Some(Tag::Gpu)).unwrap().tags,
            vec![Tag::Acq, Tag::Gpu]
        );
        assert_eq!(inst("ld.weak", None).unwrap().tags, vec![Tag::Weak]);
        assert_eq!(inst("ld", None).unwrap().tags, vec![Tag::Weak]);
        assert_eq!(
            inst("st.volatile", None).unwrap().tags,
            vec![Tag::Rlx, Tag::Sys, Tag::V]
        );
        assert_eq!(
            inst("atom.cta", None).unwrap().tags,
            vec![Tag::Rlx, Tag::Cta]
        );
        assert_eq!(
            inst("membar.gl", None).unwrap().tags,
            vec![Tag::Sc, Tag::Gpu]
        );
        assert_eq!(
            inst("fence.sc.$s", Some(Tag::Sys)).unwrap().to_string(),
            "fence.sc.sys"
        );
        assert_eq!(
            inst("ld.volatile", None).unwrap().to_string(),
            "ld.volatile"
        );
    }

    #[test]
    fn ptx_combinations_are_checked() {
        for bad in [
            "ld.release.gpu",
            "st.acquire.gpu",
            "atom.weak",
            "ld.relaxed",
            "ld.weak.gpu",
            "fence.weak.gpu",
            "ld.acquire.relaxed.gpu",
            "ld.acquire.gpu.cta",
            "ld.acquire.$t",
            "ld.cg",
            "membar",
            "mov.gpu",
        ] {
            assert!(inst(bad, Some(Tag::Gpu)).is_err(), "{bad} accepted");
        }
    }
}
