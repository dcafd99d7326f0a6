//! Syntax trees of the thread section of a C11 / OpenCL litmus test, as `grammar/litmus_c.lalrpop`
//! produces them: thread headers, parameters, statements and C expressions. Builtin calls
//! (`atomic_load_explicit`, …) are plain `Call`s here; `c_lower` gives them meaning.
//!
//! Owns: `CThread`, `Param`, `Stmt`, `CExpr` and the node constructors the grammar uses (which
//! bound the nesting depth). Uses `ast` for spans and depth checks.
use crate::litmus::ast::{Deep, GrammarError, Span, Spanned};

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CThread {
    pub(crate) name: Spanned<String>,
    /// `(key, value)` pairs after `@` (`wg 0`, `dev 0`, `cta 1`); empty when absent.
    pub(crate) placement: Vec<(Spanned<String>, Spanned<i64>)>,
    pub(crate) params: Vec<Param>,
    pub(crate) body: Vec<Stmt>,
}

/// `global atomic_int* x`: the words before `*` and the parameter name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Param {
    pub(crate) words: Vec<Spanned<String>>,
    pub(crate) name: Spanned<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum StmtKind {
    /// `int r0 = e;` / `int r0;` (the words before the name are the type).
    Decl {
        types: Vec<Spanned<String>>,
        name: Spanned<String>,
        init: Option<CExpr>,
    },
    /// `r = e;`
    Assign {
        dst: Spanned<String>,
        value: CExpr,
    },
    /// `*a = e;` or `a[i] = e;` (`target` is the address).
    Store {
        target: CExpr,
        value: CExpr,
    },
    /// `e;` (a call, usually).
    Expr(CExpr),
    If {
        cond: CExpr,
        then: Box<Stmt>,
        otherwise: Option<Box<Stmt>>,
    },
    While {
        cond: CExpr,
        body: Box<Stmt>,
    },
    Block(Vec<Stmt>),
    Labeled {
        label: Spanned<String>,
        stmt: Box<Stmt>,
    },
    Goto(Spanned<String>),
    Empty,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stmt {
    pub(crate) kind: StmtKind,
    pub(crate) span: Span,
    pub(crate) depth: u32,
}

impl Stmt {
    /// A statement without sub-statements (its expressions are bounded separately).
    pub(crate) fn simple(kind: StmtKind, span: Span) -> Stmt {
        Stmt {
            kind,
            span,
            depth: 1,
        }
    }
    /// A statement containing the given sub-statements; an error past `ast::MAX_DEPTH`.
    pub(crate) fn nested<'a>(
        kind: StmtKind,
        children: &[&Stmt],
        span: Span,
    ) -> Result<Stmt, GrammarError<'a>> {
        let child = children.iter().map(|s| s.depth).max().unwrap_or(0);
        let deep = Deep::above((), child, span)?;
        Ok(Stmt {
            kind,
            span,
            depth: deep.depth,
        })
    }
    pub(crate) fn block<'a>(stmts: Vec<Stmt>, span: Span) -> Result<Stmt, GrammarError<'a>> {
        let refs: Vec<&Stmt> = stmts.iter().collect();
        let deep = Stmt::nested(StmtKind::Empty, &refs, span)?;
        Ok(Stmt {
            kind: StmtKind::Block(stmts),
            ..deep
        })
    }
    pub(crate) fn if_else<'a>(
        cond: CExpr,
        then: Stmt,
        otherwise: Option<Stmt>,
        span: Span,
    ) -> Result<Stmt, GrammarError<'a>> {
        let mut children = vec![&then];
        children.extend(otherwise.as_ref());
        let deep = Stmt::nested(StmtKind::Empty, &children, span)?;
        let kind = StmtKind::If {
            cond,
            then: Box::new(then),
            otherwise: otherwise.map(Box::new),
        };
        Ok(Stmt { kind, ..deep })
    }
    pub(crate) fn while_loop<'a>(
        cond: CExpr,
        body: Stmt,
        span: Span,
    ) -> Result<Stmt, GrammarError<'a>> {
        let deep = Stmt::nested(StmtKind::Empty, &[&body], span)?;
        Ok(Stmt {
            kind: StmtKind::While {
                cond,
                body: Box::new(body),
            },
            ..deep
        })
    }
    pub(crate) fn labeled<'a>(
        label: Spanned<String>,
        stmt: Stmt,
        span: Span,
    ) -> Result<Stmt, GrammarError<'a>> {
        let deep = Stmt::nested(StmtKind::Empty, &[&stmt], span)?;
        Ok(Stmt {
            kind: StmtKind::Labeled {
                label,
                stmt: Box::new(stmt),
            },
            ..deep
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UnOp {
    /// `-e`
    Neg,
    /// `!e`
    Not,
    /// `~e`
    BitNot,
    /// `*e`
    Deref,
    /// `&e`
    AddrOf,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOpC {
    Add,
    Sub,
    Mul,
    BitAnd,
    BitOr,
    BitXor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LogAnd,
    LogOr,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ExprKind {
    Int(i64),
    Name(String),
    Unary(UnOp, Box<CExpr>),
    Binary(BinOpC, Box<CExpr>, Box<CExpr>),
    /// `f(args)`; the span of `f` is `name.span`.
    Call {
        name: Spanned<String>,
        args: Vec<CExpr>,
    },
    /// `a[i]`
    Index(Box<CExpr>, Box<CExpr>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CExpr {
    pub(crate) kind: ExprKind,
    pub(crate) span: Span,
    pub(crate) depth: u32,
}

impl CExpr {
    pub(crate) fn leaf(kind: ExprKind, span: Span) -> CExpr {
        CExpr {
            kind,
            span,
            depth: 1,
        }
    }
    pub(crate) fn unary<'a>(op: UnOp, e: CExpr, span: Span) -> Result<CExpr, GrammarError<'a>> {
        let deep = Deep::above((), e.depth, span)?;
        Ok(CExpr {
            kind: ExprKind::Unary(op, Box::new(e)),
            span,
            depth: deep.depth,
        })
    }
    pub(crate) fn binary<'a>(
        op: BinOpC,
        a: CExpr,
        b: CExpr,
        span: Span,
    ) -> Result<CExpr, GrammarError<'a>> {
        let deep = Deep::above((), a.depth.max(b.depth), span)?;
        Ok(CExpr {
            kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
            span,
            depth: deep.depth,
        })
    }
    pub(crate) fn index<'a>(a: CExpr, i: CExpr, span: Span) -> Result<CExpr, GrammarError<'a>> {
        let deep = Deep::above((), a.depth.max(i.depth), span)?;
        Ok(CExpr {
            kind: ExprKind::Index(Box::new(a), Box::new(i)),
            span,
            depth: deep.depth,
        })
    }
    pub(crate) fn call<'a>(
        name: Spanned<String>,
        args: Vec<CExpr>,
        span: Span,
    ) -> Result<CExpr, GrammarError<'a>> {
        let child = args.iter().map(|a| a.depth).max().unwrap_or(0);
        let deep = Deep::above((), child, span)?;
        Ok(CExpr {
            kind: ExprKind::Call { name, args },
            span,
            depth: deep.depth,
        })
    }
}

/// `lhs = value;`: a register assignment (`r = e`), or a store through `*a` or `a[i]`.
pub(crate) fn assignment<'a>(
    lhs: CExpr,
    value: CExpr,
    span: Span,
) -> Result<Stmt, GrammarError<'a>> {
    let kind = match lhs.kind {
        ExprKind::Name(name) => StmtKind::Assign {
            dst: Spanned {
                node: name,
                span: lhs.span,
            },
            value,
        },
        ExprKind::Unary(UnOp::Deref, target) => StmtKind::Store {
            target: *target,
            value,
        },
        ExprKind::Index(a, i) => {
            let target = CExpr::binary(BinOpC::Add, *a, *i, lhs.span)?;
            StmtKind::Store { target, value }
        }
        _ => {
            return Err(crate::litmus::ast::user_error(
                lhs.span,
                "cannot assign to this expression; expected a register `r`, `*p` or `p[i]`",
            ))
        }
    };
    Ok(Stmt::simple(kind, span))
}
