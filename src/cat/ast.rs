//! The cat abstract syntax tree: what a model file says, with byte spans, before names mean anything.
//!
//! Owns: `File`, `Stmt`, `Expr` and the node constructors the grammar's actions call (they also
//! enforce the nesting limit, so that no input can build a tree deep enough to overflow the stack).
//! Uses: `diag::Span` only.

/// Deepest expression nesting accepted (real models stay far below; see `MAX_DEPTH` uses).
pub(crate) const MAX_DEPTH: u32 = 500;

pub(crate) use crate::diag::Span;

/// One parsed model file.
#[derive(Clone, Debug)]
pub(crate) struct File {
    /// The optional title line: `"name"`, `Name`, `Arch "name"` or `Arch Name`.
    pub(crate) title: Option<Title>,
    pub(crate) stmts: Vec<Stmt>,
}

#[derive(Clone, Debug)]
pub(crate) struct Title {
    pub(crate) text: String,
    pub(crate) span: Span,
}

/// A name as written, with where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Name {
    pub(crate) text: String,
    pub(crate) span: Span,
}

#[derive(Clone, Debug)]
pub(crate) struct Stmt {
    pub(crate) span: Span,
    pub(crate) kind: StmtKind,
}

#[derive(Clone, Debug)]
pub(crate) enum StmtKind {
    /// `let b1 and b2 …` or `let rec b1 and b2 …`.
    Let { rec: bool, bindings: Vec<Binding> },
    /// `[flag] [~](acyclic|irreflexive|empty) e [as name]`.
    Check(Check),
    /// `include "file.cat"`.
    Include { path: String, path_span: Span },
    /// `show …` / `unshow …`: accepted and ignored.
    Show,
    /// `with x from e` (mapcheck accepts `e = linearisations(S, r)` only; checked when lowering).
    With { var: Name, from: Expr },
    /// `coherence total` / `coherence partial` (the word is checked when lowering).
    Coherence(Name),
}

/// `name = body` or `name(p1, …) = body`; the span starts at its `let` or `and`.
#[derive(Clone, Debug)]
pub(crate) struct Binding {
    pub(crate) span: Span,
    pub(crate) name: Name,
    pub(crate) params: Option<Vec<Name>>,
    pub(crate) body: Expr,
}

/// What a check tests of its expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CheckKind {
    Acyclic,
    Irreflexive,
    Empty,
}

impl CheckKind {
    pub(crate) fn keyword(self) -> &'static str {
        match self {
            CheckKind::Acyclic => "acyclic",
            CheckKind::Irreflexive => "irreflexive",
            CheckKind::Empty => "empty",
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Check {
    pub flag: bool,
    pub negated: bool,
    pub kind: CheckKind,
    pub(crate) expr: Expr,
    pub name: Option<Name>,
}

#[derive(Clone, Debug)]
pub(crate) struct Expr {
    pub(crate) span: Span,
    /// Nesting depth of this node (a leaf has depth 1).
    pub(crate) depth: u32,
    pub(crate) kind: ExprKind,
}

#[derive(Clone, Debug)]
pub(crate) enum ExprKind {
    Var(String),
    /// `0`: the empty set or relation.
    Zero,
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Unary(UnOp, Box<Expr>),
    /// `[e]`: the identity on a set.
    Bracket(Box<Expr>),
    /// `f(e1, …)`: a defined function or a primitive (`domain`, `range`, `linearisations`).
    App(Name, Vec<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Union,
    Inter,
    Diff,
    Seq,
    Product,
}

impl BinOp {
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            BinOp::Union => "|",
            BinOp::Inter => "&",
            BinOp::Diff => "\\",
            BinOp::Seq => ";",
            BinOp::Product => "*",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum UnOp {
    Complement,
    Inverse,
    Plus,
    Star,
    Opt,
}

// Node constructors for the grammar. Each checks the nesting limit.

type Built = Result<Expr, super::lexer::SyntaxError>;

fn node(span: Span, child_depths: impl IntoIterator<Item = u32>, kind: ExprKind) -> Built {
    let depth = 1 + child_depths.into_iter().max().unwrap_or(0);
    if depth > MAX_DEPTH {
        return Err(super::lexer::SyntaxError::new(
            span,
            format!("expression nested too deeply (more than {MAX_DEPTH} levels)"),
        )
        .with_note("split it into several `let` definitions"));
    }
    Ok(Expr { span, depth, kind })
}

pub(crate) fn leaf(l: usize, r: usize, kind: ExprKind) -> Expr {
    Expr {
        span: Span::new(l, r),
        depth: 1,
        kind,
    }
}

pub(crate) fn binary(l: usize, r: usize, op: BinOp, a: Expr, b: Expr) -> Built {
    node(
        Span::new(l, r),
        [a.depth, b.depth],
        ExprKind::Binary(op, Box::new(a), Box::new(b)),
    )
}

pub(crate) fn unary(l: usize, r: usize, op: UnOp, a: Expr) -> Built {
    node(Span::new(l, r), [a.depth], ExprKind::Unary(op, Box::new(a)))
}

pub(crate) fn bracket(l: usize, r: usize, a: Expr) -> Built {
    node(Span::new(l, r), [a.depth], ExprKind::Bracket(Box::new(a)))
}

pub(crate) fn app(l: usize, r: usize, f: Name, args: Vec<Expr>) -> Built {
    let depths: Vec<u32> = args.iter().map(|a| a.depth).collect();
    node(Span::new(l, r), depths, ExprKind::App(f, args))
}

/// A parenthesised expression keeps its node but widens its span to the parentheses.
pub(crate) fn paren(l: usize, r: usize, e: Expr) -> Expr {
    Expr {
        span: Span::new(l, r),
        ..e
    }
}

/// The statement `let [rec] b1 and b2 …`: the first binding's span starts at `let`.
pub(crate) fn let_stmt(
    l: usize,
    r: usize,
    rec: bool,
    mut first: Binding,
    rest: Vec<Binding>,
) -> Stmt {
    first.span.lo = l;
    let mut bindings = vec![first];
    bindings.extend(rest);
    Stmt {
        span: Span::new(l, r),
        kind: StmtKind::Let { rec, bindings },
    }
}

/// A title line: a string wins over a bare name (`PTX "Lustig et al."` is titled by the string).
pub(crate) fn title(
    l: usize,
    r: usize,
    word: Option<&str>,
    word2: Option<&str>,
    string: Option<&str>,
) -> Title {
    let text = match (string, word, word2) {
        (Some(s), _, _) => s.to_string(),
        (None, Some(a), Some(b)) => format!("{a} {b}"),
        (None, Some(a), None) => a.to_string(),
        (None, None, _) => String::new(),
    };
    Title {
        text,
        span: Span::new(l, r),
    }
}
