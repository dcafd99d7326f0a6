//! Syntax tree of a mapping file, as `grammar/mapping.lalrpop` produces it: every name with its
//! byte span, nothing resolved. `lower` gives it meaning.
//!
//! Owns: `File`, `Item`, `Pattern`, `Seq`, `Op` and their parts. Uses `diag::Span` only.

pub(crate) use crate::diag::Span;

/// A name, variable (`$s`, kept with its `$`) or string contents, with its span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Word {
    pub(crate) text: String,
    pub(crate) span: Span,
}

impl Word {
    pub(crate) fn new(text: &str, lo: usize, hi: usize) -> Word {
        Word {
            text: text.to_string(),
            span: Span::new(lo, hi),
        }
    }
}

/// A whole mapping file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct File {
    /// Path of the source model, relative to the mapping file.
    pub(crate) source: Word,
    /// The herd variants the source model is read with (`variant "cxx20"`).
    pub(crate) source_variants: Vec<Word>,
    /// The target instruction set (`ptx`).
    pub(crate) target_isa: Word,
    /// Path of the target model, relative to the mapping file.
    pub(crate) target: Word,
    /// The herd variants the target model is read with (`variant "dep-without-rmw"`).
    pub(crate) target_variants: Vec<Word>,
    pub(crate) items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Item {
    /// `scope WG -> cta`
    Scope { from: Word, to: Word, span: Span },
    /// `drop GLOBAL, LOCAL`
    Drop(Vec<Word>),
    /// `locations typed` / `locations mixed`
    Locations(Word),
    /// `inexpressible "…"`: a row of the shipped table the language cannot state yet
    Inexpressible(Word),
    /// `class R.{RLX, ACQ}.$s`
    Class(Pattern),
    /// `R.SC.$s -> fence.sc.$s; ld.acquire.$s`
    Rule {
        pattern: Pattern,
        seq: Seq,
        span: Span,
    },
}

/// One tag or a `{…}` set of tags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Choice {
    One(Word),
    Set(Vec<Word>),
}

impl Choice {
    pub(crate) fn words(&self) -> &[Word] {
        match self {
            Choice::One(w) => std::slice::from_ref(w),
            Choice::Set(ws) => ws,
        }
    }
}

/// The scope position of a pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ScopePat {
    /// `_` or nothing: operations without a scope.
    Unscoped,
    /// Named scope tags.
    Tags(Choice),
    /// `$s`: every scope.
    Var(Word),
}

/// `KIND.orders.scopes`: a set of source operation classes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pattern {
    pub(crate) kind: Word,
    pub(crate) orders: Choice,
    pub(crate) scope: ScopePat,
    pub(crate) span: Span,
}

/// The right-hand side of a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Seq {
    /// `skip`: no target instruction.
    Skip(Span),
    Ops(Vec<Op>),
}

/// One target instruction template: `fence.sc.$s`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Op {
    pub(crate) mnemonic: Word,
    pub(crate) quals: Vec<Qual>,
    pub(crate) span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Qual {
    Word(Word),
    Var(Word),
}
