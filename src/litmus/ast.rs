//! Syntax trees shared by every litmus dialect: spans, grammar-action errors, the initial state and
//! the final condition, as the `litmus_common` grammar produces them.
//!
//! Owns: `Spanned`, `UserError` (an error raised inside a grammar action), the nesting
//! guard `Deep`, and the init / condition trees. Uses `diag::Span` only; `cond` turns these
//! trees into `program` types.
use lalrpop_util::ParseError;

/// Deepest nesting of expressions, propositions or statements a file may use. Bounding it keeps
/// every recursive walk (and drop) of a tree far from the stack limit, whatever the input.
pub(crate) const MAX_DEPTH: u32 = 200;

pub(crate) use crate::diag::Span;

/// A value with the span it was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Spanned<T> {
    pub(crate) node: T,
    pub(crate) span: Span,
}

impl<T> Spanned<T> {
    pub(crate) fn new(node: T, lo: usize, hi: usize) -> Spanned<T> {
        Spanned {
            node,
            span: Span::new(lo, hi),
        }
    }
}

/// An error found by a grammar action (bad integer, nesting too deep, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct UserError {
    pub(crate) span: Span,
    pub(crate) message: String,
}

/// The error type of every generated parser.
pub(crate) type GrammarError<'a> = ParseError<usize, lalrpop_util::lexer::Token<'a>, UserError>;

/// Build a grammar-action error.
pub(crate) fn user_error<'a>(span: Span, message: impl Into<String>) -> GrammarError<'a> {
    ParseError::User {
        error: UserError {
            span,
            message: message.into(),
        },
    }
}

/// Parse a decimal or `0x` hexadecimal literal, optionally negative.
pub(crate) fn parse_int<'a>(text: &str, span: Span) -> Result<i64, GrammarError<'a>> {
    let (neg, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let value = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => i64::from_str_radix(hex, 16),
        None => digits.parse::<i64>(),
    };
    let value =
        value.map_err(|_| user_error(span, format!("integer `{text}` does not fit in 64 bits")))?;
    Ok(if neg { -value } else { value })
}

/// A tree node together with its nesting depth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Deep<T> {
    pub(crate) node: T,
    pub(crate) depth: u32,
}

impl<T> Deep<T> {
    pub(crate) fn leaf(node: T) -> Deep<T> {
        Deep { node, depth: 1 }
    }
    /// A node one level above children of the given depth; an error past `MAX_DEPTH`.
    pub(crate) fn above<'a>(
        node: T,
        child_depth: u32,
        span: Span,
    ) -> Result<Deep<T>, GrammarError<'a>> {
        let depth = child_depth + 1;
        if depth > MAX_DEPTH {
            return Err(user_error(
                span,
                format!("nested more than {MAX_DEPTH} levels deep"),
            ));
        }
        Ok(Deep { node, depth })
    }
}

/// `P1` or `1` before the `:` of `P1:r0`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ThreadRef {
    Name(String),
    Index(i64),
}

/// One entry of the initial state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum InitItem {
    /// `x = 1`, `[x] = 1`, `int x = 1`, `atomic_int x;` (value 0).
    Loc {
        name: Spanned<String>,
        value: i64,
        types: Vec<Spanned<String>>,
    },
    /// `P0:r0 = 1` or `0:r0 = 1`.
    Reg {
        thread: Spanned<ThreadRef>,
        reg: Spanned<String>,
        value: i64,
    },
    /// `atomic_int y[2] = {0, 0}` (values absent: all 0).
    Array {
        name: Spanned<String>,
        size: Spanned<i64>,
        values: Option<Spanned<Vec<i64>>>,
        types: Vec<Spanned<String>>,
    },
    /// `y @ generic aliases x` (a PTX 7.5 virtual alias; only PTX tests may declare one):
    /// `keyword` must be `aliases`, `proxy` a proxy word.
    Alias {
        name: Spanned<String>,
        proxy: Spanned<String>,
        keyword: Spanned<String>,
        target: Spanned<String>,
    },
}

/// The explanation given when a test uses a PTX 7.5 mixed-proxy feature mapcheck does not model.
pub(crate) const MIXED_PROXY: &str = "belongs to the part of the PTX 7.5 mixed-proxy model that mapcheck does not support (surface atomics and reductions)";

/// One side of a comparison in the final condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Operand {
    Reg {
        thread: Spanned<ThreadRef>,
        reg: String,
        span: Span,
    },
    /// A location, `y[1]` written as `("y", Some(1))`.
    Loc {
        name: String,
        index: Option<i64>,
        span: Span,
    },
    Const(i64, Span),
}

impl Operand {
    pub(super) fn span(&self) -> Span {
        match self {
            Operand::Reg { span, .. } | Operand::Loc { span, .. } | Operand::Const(_, span) => {
                *span
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PropAst {
    True,
    False,
    /// `a = b` / `a == b` (`equal`), or `a != b`.
    Cmp {
        lhs: Operand,
        rhs: Operand,
        equal: bool,
        span: Span,
    },
    Not(Box<PropAst>),
    And(Box<PropAst>, Box<PropAst>),
    Or(Box<PropAst>, Box<PropAst>),
    Implies(Box<PropAst>, Box<PropAst>),
}

/// Combine two propositions under a binary connective, checking the nesting depth.
pub(crate) fn prop2<'a>(
    make: fn(Box<PropAst>, Box<PropAst>) -> PropAst,
    a: Deep<PropAst>,
    b: Deep<PropAst>,
    span: Span,
) -> Result<Deep<PropAst>, GrammarError<'a>> {
    let depth = a.depth.max(b.depth);
    Deep::above(make(Box::new(a.node), Box::new(b.node)), depth, span)
}

/// The clauses after the threads: `locations`, `filter`, and the final condition (`exists`,
/// `~exists` or `forall` and its proposition), which only a test with a filter may leave out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CondAst {
    /// herd's `locations [...]` clause: registers and locations whose final values are reported.
    pub(crate) locations: Vec<Operand>,
    /// herd's `filter` proposition.
    pub(crate) filter: Option<PropAst>,
    /// The quantifier and proposition of the final condition.
    pub(crate) clause: Option<(crate::litmus::program::Quantifier, PropAst)>,
}

/// Words that may make up a C type in declarations and parameters: integer types, their atomic
/// versions, qualifiers, and the OpenCL address spaces (whose meaning `c` handles).
pub(crate) const C_TYPE_WORDS: &[&str] = &[
    "int",
    "unsigned",
    "signed",
    "long",
    "short",
    "char",
    "bool",
    "_Bool",
    "uint",
    "ulong",
    "intptr_t",
    "uintptr_t",
    "size_t",
    "int32_t",
    "int64_t",
    "uint32_t",
    "uint64_t",
    "atomic_int",
    "atomic_uint",
    "atomic_long",
    "atomic_ulong",
    "atomic_bool",
    "atomic_intptr_t",
    "atomic_uintptr_t",
    "atomic_size_t",
    "_Atomic",
    "volatile",
    "const",
    "restrict",
    "global",
    "__global",
    "local",
    "__local",
];
