//! Syntax tree of a mapping file, as `grammar/mapping.lalrpop` produces it: every name with its
//! byte span, nothing resolved. `lower` gives it meaning.
//!
//! Owns: `File`, `Item`, `Pattern`, `Seq`, `Op` and their parts. Uses `diag::Span` only.

pub use crate::diag::Span;

/// A name, variable (`$s`, kept with its `$`) or string contents, with its span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    pub span: Span,
}

impl Word {
    pub fn new(text: &str, lo: usize, hi: usize) -> Word {
        Word {
            text: text.to_string(),
            span: Span::new(lo, hi),
        }
    }
}

/// A whole mapping file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    /// Path of the source model, relative to the mapping file.
    pub source: Word,
    /// The target instruction set (`ptx`).
    pub target_isa: Word,
    /// Path of the target model, relative to the mapping file.
    pub target: Word,
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// `scope WG -> cta`
    Scope { from: Word, to: Word, span: Span },
    /// `drop GLOBAL, LOCAL`
    Drop(Vec<Word>),
    /// `locations typed` / `locations mixed`
    Locations(Word),
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
pub enum Choice {
    One(Word),
    Set(Vec<Word>),
}

impl Choice {
    pub fn words(&self) -> &[Word] {
        match self {
            Choice::One(w) => std::slice::from_ref(w),
            Choice::Set(ws) => ws,
        }
    }
}

/// The scope position of a pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScopePat {
    /// `_` or nothing: operations without a scope.
    Unscoped,
    /// Named scope tags.
    Tags(Choice),
    /// `$s`: every scope.
    Var(Word),
}

/// `KIND.orders.scopes`: a set of source operation classes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub kind: Word,
    pub orders: Choice,
    pub scope: ScopePat,
    pub span: Span,
}

/// The right-hand side of a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seq {
    /// `skip`: no target instruction.
    Skip(Span),
    Ops(Vec<Op>),
}

/// One target instruction template: `fence.sc.$s`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    pub mnemonic: Word,
    pub quals: Vec<Qual>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Qual {
    Word(Word),
    Var(Word),
}
