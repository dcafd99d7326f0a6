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
    /// herd's architecture word, the first name of the line (`PTX` in `PTX "ptx-v6"`).
    pub(crate) arch: Option<String>,
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
    /// `show e1, e2 …` / `show e as name` / `unshow n1, n2 …`: the relations pictures of an
    /// execution draw (herd's meaning; no check reads them).
    Show {
        hide: bool,
        items: Vec<Expr>,
        label: Option<Name>,
    },
    /// `with x from e` (mapcheck accepts `e = linearisations(S, r)` only; checked when lowering).
    With { var: Name, from: Expr },
    /// `coherence total` / `coherence partial` (the word is checked when lowering).
    Coherence(Name),
    /// `dialect mapcheck` / `herd` / `dat3m` (the word is checked when lowering).
    Dialect(Name),
    /// herd's `if "variant" stmts [else stmts] end`: one branch, chosen by the variants enabled.
    IfVariant {
        variant: Name,
        then: Vec<Stmt>,
        otherwise: Vec<Stmt>,
    },
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
    /// `acyclic e`: the relation `e` has no cycle.
    Acyclic,
    /// `irreflexive e`: the relation `e` relates no event to itself.
    Irreflexive,
    /// `empty e`: the set or relation `e` is empty.
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
    /// herd's `undefined_unless TEST`: the execution's behaviour is undefined when TEST fails.
    pub undefined_unless: bool,
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
    /// `f(e1, …)` or `f e`: a defined function or a primitive (`domain`, `range`, `linearisations`).
    App(Name, Vec<Expr>),
    /// `let [rec] b1 and b2 … in body`: bindings visible in `body` only.
    LetIn {
        rec: bool,
        bindings: Vec<Binding>,
        body: Box<Expr>,
    },
    /// `if cond then e1 else e2`.
    If(Box<Cond>, Box<Expr>, Box<Expr>),
    /// `try e1 with e2`: `e1`, or `e2` where `e1` has no meaning (an unknown name, a kind error).
    Try(Box<Expr>, Box<Expr>),
    /// `match s with {} -> e1 || x ++ rest -> e2 end`: `e1` when `s` is empty, else `e2`.
    MatchSet {
        scrutinee: Box<Expr>,
        empty: Box<Expr>,
        element: Name,
        rest: Name,
        nonempty: Box<Expr>,
    },
}

/// The condition of an `if`.
#[derive(Clone, Debug)]
pub(crate) enum Cond {
    /// `"name"`: whether the variant `name` is enabled.
    Variant(Name),
    /// `e1 = e2`.
    Equal(Expr, Expr),
    /// `e1 subset e2`.
    Subset(Expr, Expr),
}

impl Cond {
    fn depth(&self) -> u32 {
        match self {
            Cond::Variant(_) => 1,
            Cond::Equal(a, b) | Cond::Subset(a, b) => a.depth.max(b.depth),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// A binary operator of cat expressions.
pub enum BinOp {
    /// `e1 | e2`: union.
    Union,
    /// `e1 & e2`: intersection.
    Inter,
    /// `e1 \ e2`: difference.
    Diff,
    /// `r1 ; r2`: sequential composition of relations.
    Seq,
    /// `S1 * S2`: cartesian product of two sets, a relation.
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

/// `a op b op c …` for an associative `op` (`|`, `&`, `;`): a balanced tree of `op`, so that a
/// long flat chain (a generated model's union of hundreds of terms) nests only logarithmically.
pub(crate) fn chain(op: BinOp, first: Expr, rest: Vec<Expr>) -> Built {
    let mut terms = vec![first];
    terms.extend(rest);
    balanced(op, terms)
}

fn balanced(op: BinOp, mut terms: Vec<Expr>) -> Built {
    if terms.len() == 1 {
        return Ok(terms.pop().expect("one term"));
    }
    let right = terms.split_off(terms.len() / 2);
    let (a, b) = (balanced(op, terms)?, balanced(op, right)?);
    binary(a.span.lo, b.span.hi, op, a, b)
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

pub(crate) fn let_in(
    l: usize,
    r: usize,
    rec: bool,
    mut first: Binding,
    rest: Vec<Binding>,
    body: Expr,
) -> Built {
    first.span.lo = l;
    let mut depths: Vec<u32> = rest.iter().map(|b| b.body.depth).collect();
    depths.extend([first.body.depth, body.depth]);
    let mut bindings = vec![first];
    bindings.extend(rest);
    let kind = ExprKind::LetIn {
        rec,
        bindings,
        body: Box::new(body),
    };
    node(Span::new(l, r), depths, kind)
}

pub(crate) fn if_expr(l: usize, r: usize, cond: Cond, a: Expr, b: Expr) -> Built {
    node(
        Span::new(l, r),
        [cond.depth(), a.depth, b.depth],
        ExprKind::If(Box::new(cond), Box::new(a), Box::new(b)),
    )
}

pub(crate) fn try_expr(l: usize, r: usize, a: Expr, b: Expr) -> Built {
    node(
        Span::new(l, r),
        [a.depth, b.depth],
        ExprKind::Try(Box::new(a), Box::new(b)),
    )
}

/// `match s with {} -> empty || element ++ rest -> nonempty end`.
pub(crate) fn match_set(
    l: usize,
    r: usize,
    scrutinee: Expr,
    empty: Expr,
    (element, rest, nonempty): (Name, Name, Expr),
) -> Built {
    let depths = [scrutinee.depth, empty.depth, nonempty.depth];
    let kind = ExprKind::MatchSet {
        scrutinee: Box::new(scrutinee),
        empty: Box::new(empty),
        element,
        rest,
        nonempty: Box::new(nonempty),
    };
    node(Span::new(l, r), depths, kind)
}

/// A parenthesised expression keeps its node but widens its span to the parentheses.
pub(crate) fn paren(l: usize, r: usize, e: Expr) -> Expr {
    Expr {
        span: Span::new(l, r),
        ..e
    }
}

/// The statement `let [rec] b1 and b2 …`: the first binding's span starts at `let`.
/// `show`/`unshow` with its items, in order.
pub(crate) fn show_stmt(hide: bool, first: Expr, rest: Vec<Expr>, label: Option<Name>) -> StmtKind {
    let mut items = vec![first];
    items.extend(rest);
    StmtKind::Show { hide, items, label }
}

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
pub(crate) fn title(word: Option<&str>, word2: Option<&str>, string: Option<&str>) -> Title {
    let text = match (string, word, word2) {
        (Some(s), _, _) => s.to_string(),
        (None, Some(a), Some(b)) => format!("{a} {b}"),
        (None, Some(a), None) => a.to_string(),
        (None, None, _) => String::new(),
    };
    Title {
        text,
        arch: word.map(str::to_string),
    }
}
