//! Lowering: `cat::ast` to the typed IR.
//!
//! Owns: name resolution (parameters, earlier `let`s, the vocabulary, the primitives `domain`,
//! `range`, `linearisations`), kind checking, function inlining (a function body is resolved in
//! the scope of its definition, as in herd), `let rec` kinds and monotonicity, `include`
//! (relative to the including file, cycles rejected) and the size limits that keep inlining from
//! exploding. Uses: `cat`, `vocab`, `diag`, `ir::names`.
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use super::names;
use super::*;
use crate::cat::{self, ast};

/// Deepest IR expression accepted (after inlining); keeps evaluation recursion shallow.
const MAX_IR_DEPTH: usize = 1_000;
/// Most IR nodes one expression, or the whole model, may have after inlining.
const MAX_IR_NODES: usize = 1_000_000;
/// Functions built into the language rather than the vocabulary.
const PRIMITIVES: &[&str] = &["domain", "range", "linearisations"];

const NOTE_SEQ: &str = "`;` composes relations; [S] turns a set S into a relation";
const NOTE_PRODUCT: &str = "`S * T` is the cartesian product of two sets; domain(r) and range(r) turn a relation into a set";
const NOTE_POSTFIX: &str = "`^-1`, `+`, `*` and `?` apply to relations";
const NOTE_BRACKET: &str = "`[S]` is the identity relation on a set S";
const NOTE_DOMAIN: &str = "`domain(r)` and `range(r)` take a relation and give a set";
const NOTE_CHECK: &str =
    "`acyclic` and `irreflexive` test relations; `empty` tests sets or relations";
const NOTE_LIN: &str = "`linearisations(S, r)` takes a set S and a relation r";
const NOTE_SAME: &str =
    "[S] turns a set S into a relation; domain(r) and range(r) turn a relation into a set";

/// Stack for lowering: recursion follows expression nesting (at most `ast::MAX_DEPTH`, more after
/// inlining), and unoptimised builds use several KiB per level. Models are loaded once, so a
/// dedicated thread is cheap.
const LOWERING_STACK: usize = 256 << 20;

pub(super) fn lower_top(
    path: &str,
    text: Arc<str>,
    dir: Option<&Path>,
    file: Option<&Path>,
) -> diag::Result<Model> {
    let work = || lower_top_here(path, text.clone(), dir, file);
    std::thread::scope(|s| {
        match std::thread::Builder::new()
            .stack_size(LOWERING_STACK)
            .spawn_scoped(s, work)
        {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => work(),
        }
    })
}

fn lower_top_here(
    path: &str,
    text: Arc<str>,
    dir: Option<&Path>,
    file: Option<&Path>,
) -> diag::Result<Model> {
    let file_ast = cat::parse(path, &text)?;
    let mut lw = Lowerer::default();
    lw.model.path = path.to_string();
    lw.model.title = file_ast.title.as_ref().map(|t| t.text.clone());
    let id = lw.add_file(path, text, dir);
    if let Some(f) = file {
        lw.including.push((
            std::fs::canonicalize(f).unwrap_or_else(|_| f.to_path_buf()),
            path.to_string(),
        ));
    }
    lw.lower_stmts(id, &file_ast.stmts)?;
    Ok(lw.model)
}

type FileId = usize;

struct SourceFile {
    path: String,
    text: Arc<str>,
    /// Where its `include`s are resolved; `None` for text with no directory.
    dir: Option<PathBuf>,
}

/// An expression being lowered: its IR, its kind (`None` for the polymorphic `0`), its size.
#[derive(Clone, Debug)]
struct Lowered {
    expr: Expr,
    kind: Option<Kind>,
    depth: usize,
    size: usize,
}

impl Lowered {
    fn leaf(expr: Expr, kind: Option<Kind>) -> Lowered {
        Lowered {
            expr,
            kind,
            depth: 1,
            size: 1,
        }
    }
    fn unary(op: Op1, a: Lowered, kind: Option<Kind>) -> Lowered {
        Lowered {
            depth: a.depth + 1,
            size: a.size + 1,
            expr: Expr::Unary(op, Box::new(a.expr)),
            kind,
        }
    }
    fn binary(op: BinOp, a: Lowered, b: Lowered, kind: Option<Kind>) -> Lowered {
        Lowered {
            depth: a.depth.max(b.depth) + 1,
            size: a.size + b.size + 1,
            expr: Expr::Binary(op, Box::new(a.expr), Box::new(b.expr)),
            kind,
        }
    }
    fn settled_opt(self, k: Option<Kind>) -> Lowered {
        match k {
            Some(k) => self.settled(k),
            None => self,
        }
    }
    /// Fix the kind of a polymorphic (`0`-only) expression; other expressions are unchanged.
    fn settled(mut self, k: Kind) -> Lowered {
        if self.kind.is_none() {
            self.expr = settle(self.expr, k);
            self.kind = Some(k);
        }
        self
    }
}

/// `op` over `items` as a balanced tree (`op` is associative); `a op (b op c)` for three.
fn balanced(op: BinOp, mut items: Vec<Lowered>, kind: Option<Kind>) -> Lowered {
    if items.len() <= 1 {
        return items
            .pop()
            .unwrap_or_else(|| Lowered::leaf(Expr::Empty(kind.unwrap_or(Kind::Rel)), kind));
    }
    let right = items.split_off(items.len() / 2);
    Lowered::binary(
        op,
        balanced(op, items, kind),
        balanced(op, right, kind),
        kind,
    )
}

/// The operands of the chain `a op b`, left to right, through any nesting of the same `op`.
fn chain_operands<'e>(op: BinOp, a: &'e ast::Expr, b: &'e ast::Expr) -> Vec<&'e ast::Expr> {
    let mut out = Vec::new();
    let mut todo = vec![b, a];
    while let Some(x) = todo.pop() {
        match &x.kind {
            ast::ExprKind::Binary(o, l, r) if *o == op => todo.extend([r.as_ref(), l.as_ref()]),
            _ => out.push(x),
        }
    }
    out
}

/// Give every `0` in a polymorphic expression the kind `k`.
fn settle(e: Expr, k: Kind) -> Expr {
    match e {
        Expr::Empty(_) => Expr::Empty(k),
        Expr::Binary(op, a, b) => {
            Expr::Binary(op, Box::new(settle(*a, k)), Box::new(settle(*b, k)))
        }
        Expr::Unary(op, a) => Expr::Unary(op, Box::new(settle(*a, k))),
        other => other,
    }
}

/// What a name in scope denotes.
#[derive(Clone, Debug)]
enum Entry {
    Value(DefId, Kind),
    /// A definition whose value is `0` (of no fixed kind): inlined where used.
    Poly(Lowered),
    Function(Rc<Function>),
    Param(Lowered),
}

#[derive(Debug)]
struct Function {
    name: String,
    file: FileId,
    origin: String,
    params: Vec<String>,
    body: ast::Expr,
    /// The body sees the scope as it was at the definition.
    scope_len: usize,
}

/// Where names are looked up: a function's parameters, then the first `scope_len` scope entries.
struct Env<'a> {
    file: FileId,
    params: &'a [(String, Lowered)],
    scope_len: usize,
}

#[derive(Default)]
struct Lowerer {
    files: Vec<SourceFile>,
    /// Files being lowered (canonical path, path as shown), outermost first.
    including: Vec<(PathBuf, String)>,
    scope: Vec<(String, Entry)>,
    model: Model,
    coherence: Option<(CoKind, String)>,
    nodes: usize,
}

/// "1 argument", "2 arguments".
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// "1 was", "2 were".
fn was_were(n: usize) -> String {
    if n == 1 {
        "1 was".to_string()
    } else {
        format!("{n} were")
    }
}

fn kind_word(k: Kind) -> &'static str {
    match k {
        Kind::Set => "set",
        Kind::Rel => "relation",
    }
}

impl Lowerer {
    // ---- files and errors ----

    fn add_file(&mut self, path: &str, text: Arc<str>, dir: Option<&Path>) -> FileId {
        self.files.push(SourceFile {
            path: path.to_string(),
            text,
            dir: dir.map(Path::to_path_buf),
        });
        self.files.len() - 1
    }

    fn err(&self, file: FileId, span: ast::Span, message: impl Into<String>) -> diag::Error {
        let f = &self.files[file];
        diag::Error::at(&f.path, &f.text, span.range(), message)
    }

    fn text(&self, file: FileId, span: ast::Span) -> String {
        span.text(&self.files[file].text).to_string()
    }

    /// `path:line:col` of a span.
    fn position(&self, file: FileId, span: ast::Span) -> String {
        let e = self.err(file, span, "");
        match e.line_col() {
            Some((l, c)) => format!("{}:{l}:{c}", e.path),
            None => e.path,
        }
    }

    fn top_env(&self, file: FileId) -> Env<'static> {
        Env {
            file,
            params: &[],
            scope_len: self.scope.len(),
        }
    }

    // ---- statements ----

    fn lower_stmts(&mut self, file: FileId, stmts: &[ast::Stmt]) -> diag::Result<()> {
        stmts.iter().try_for_each(|s| self.lower_stmt(file, s))
    }

    fn lower_stmt(&mut self, file: FileId, stmt: &ast::Stmt) -> diag::Result<()> {
        match &stmt.kind {
            ast::StmtKind::Let {
                rec: false,
                bindings,
            } => self.lower_let(file, bindings),
            ast::StmtKind::Let {
                rec: true,
                bindings,
            } => self.lower_let_rec(file, bindings),
            ast::StmtKind::Check(c) => self.lower_check(file, stmt.span, c),
            ast::StmtKind::Include { path, path_span } => self.include(file, path, *path_span),
            ast::StmtKind::Show => Ok(()),
            ast::StmtKind::With { var, from } => self.lower_with(file, stmt.span, var, from),
            ast::StmtKind::Coherence(word) => self.declare_coherence(file, word),
        }
    }

    fn push_def(
        &mut self,
        file: FileId,
        name: &str,
        span: ast::Span,
        kind: Option<Kind>,
        body: DefBody,
    ) -> DefId {
        let origin = self.position(file, span);
        let origin = origin
            .rsplit_once(':')
            .map_or(origin.clone(), |(file_line, _col)| file_line.to_string());
        let def = Def {
            name: name.to_string(),
            kind,
            body,
            source_text: self.text(file, span),
            origin,
        };
        self.model.defs.push(def);
        self.model.defs.len() - 1
    }

    /// `let b1 and b2 …`: every body sees the scope before the statement.
    fn lower_let(&mut self, file: FileId, bindings: &[ast::Binding]) -> diag::Result<()> {
        let scope_len = self.scope.len();
        let mut entries = Vec::new();
        for b in bindings {
            let entry = match &b.params {
                Some(params) => self.define_function(file, b, params, scope_len)?,
                None => self.define_value(file, b, scope_len)?,
            };
            entries.push((b.name.text.clone(), entry));
        }
        self.scope.extend(entries);
        Ok(())
    }

    fn define_value(
        &mut self,
        file: FileId,
        b: &ast::Binding,
        scope_len: usize,
    ) -> diag::Result<Entry> {
        let l = self.lower_expr(
            &Env {
                file,
                params: &[],
                scope_len,
            },
            &b.body,
        )?;
        self.count_nodes(file, b.span, &l)?;
        // A definition that is only `0` is recorded as a relation and inlined where used.
        let settled = l.clone().settled(Kind::Rel);
        let id = self.push_def(
            file,
            &b.name.text,
            b.span,
            settled.kind,
            DefBody::Value(settled.expr),
        );
        self.model.steps.push(Step::Define(id));
        Ok(match l.kind {
            Some(k) => Entry::Value(id, k),
            None => Entry::Poly(l),
        })
    }

    fn define_function(
        &mut self,
        file: FileId,
        b: &ast::Binding,
        params: &[ast::Name],
        scope_len: usize,
    ) -> diag::Result<Entry> {
        for (i, p) in params.iter().enumerate() {
            if params[..i].iter().any(|q| q.text == p.text) {
                return Err(self.err(
                    file,
                    p.span,
                    format!("parameter `{}` appears twice", p.text),
                ));
            }
        }
        let names: Vec<String> = params.iter().map(|p| p.text.clone()).collect();
        self.check_names(file, &b.name.text, &names, scope_len, &b.body)?;
        let def = DefBody::Function {
            params: names.clone(),
        };
        let id = self.push_def(file, &b.name.text, b.span, None, def);
        let origin = self.model.defs[id].origin.clone();
        let f = Function {
            name: b.name.text.clone(),
            file,
            origin,
            params: names,
            body: b.body.clone(),
            scope_len,
        };
        Ok(Entry::Function(Rc::new(f)))
    }

    /// Every name in a function body must be a parameter or visible at the definition
    /// (kinds are checked at each call, where the arguments' kinds are known).
    fn check_names(
        &self,
        file: FileId,
        fname: &str,
        params: &[String],
        scope_len: usize,
        e: &ast::Expr,
    ) -> diag::Result<()> {
        let env = Env {
            file,
            params: &[],
            scope_len,
        };
        let known = |x: &str| params.iter().any(|p| p == x) || self.lookup(&env, x).is_some();
        match &e.kind {
            ast::ExprKind::Var(x)
                if !known(x)
                    && vocab::kind_of(x).is_none()
                    && !PRIMITIVES.contains(&x.as_str()) =>
            {
                Err(self.unknown_name(&env, params, e.span, x))
            }
            ast::ExprKind::App(f, _) if f.text == fname => Err(self
                .err(
                    file,
                    f.span,
                    format!("`{fname}` calls itself: recursive functions are not supported"),
                )
                .with_note("`let rec` defines recursive sets and relations")),
            ast::ExprKind::App(f, _)
                if !known(&f.text) && !PRIMITIVES.contains(&f.text.as_str()) =>
            {
                Err(self.unknown_name(&env, params, f.span, &f.text))
            }
            _ => children(e).try_for_each(|c| self.check_names(file, fname, params, scope_len, c)),
        }
    }

    /// `let rec x = e1 and y = e2`: kinds are first read off the bodies' shapes (relations when
    /// the shape does not tell), then corrected by lowering until they agree; each body must be
    /// monotone in the group so that the least fixpoint exists.
    fn lower_let_rec(&mut self, file: FileId, bindings: &[ast::Binding]) -> diag::Result<()> {
        if let Some(b) = bindings.iter().find(|b| b.params.is_some()) {
            return Err(self
                .err(file, b.name.span, "recursive functions are not supported")
                .with_note("`let rec` defines sets and relations as least fixpoints"));
        }
        let first = self.model.defs.len();
        let ids: Vec<DefId> = (first..first + bindings.len()).collect();
        for b in bindings {
            self.push_def(
                file,
                &b.name.text,
                b.span,
                Some(Kind::Rel),
                DefBody::Fixpoint(Expr::Empty(Kind::Rel)),
            );
        }
        let (bodies, kinds) = self.lower_rec_bodies(file, bindings, &ids)?;
        for (i, (body, kind)) in bodies.into_iter().zip(kinds).enumerate() {
            self.set_fixpoint_body(file, &bindings[i], &ids, ids[i], body.settled(kind))?;
        }
        self.model.steps.push(Step::Fixpoint(ids));
        Ok(())
    }

    /// Lower a `let rec` group's bodies with the group in scope. Kinds start from the bodies'
    /// shapes and are corrected until every body has the kind its name was given.
    fn lower_rec_bodies(
        &mut self,
        file: FileId,
        bindings: &[ast::Binding],
        ids: &[DefId],
    ) -> diag::Result<(Vec<Lowered>, Vec<Kind>)> {
        let base_len = self.scope.len();
        let group: Vec<&str> = bindings.iter().map(|b| b.name.text.as_str()).collect();
        let mut kinds = self.guess_rec_kinds(file, bindings);
        for _round in 0..=bindings.len() {
            self.scope.truncate(base_len);
            let entries: Vec<(String, Entry)> = group
                .iter()
                .zip(ids)
                .zip(&kinds)
                .map(|((n, &id), &k)| (n.to_string(), Entry::Value(id, k)))
                .collect();
            self.scope.extend(entries);
            let env = self.top_env(file);
            let bodies: Vec<Lowered> = bindings
                .iter()
                .map(|b| self.lower_expr(&env, &b.body))
                .collect::<diag::Result<_>>()?;
            let found: Vec<Kind> = bodies
                .iter()
                .zip(&kinds)
                .map(|(l, k)| l.kind.unwrap_or(*k))
                .collect();
            if found == kinds {
                return Ok((bodies, kinds));
            }
            kinds = found;
        }
        Err(self.err(file, bindings[0].name.span, "cannot decide whether this `let rec` defines sets or relations")
            .with_note("each name must have the kind of its body; write the kinds out with `[S]`, `domain` or `range`"))
    }

    /// Record one `let rec` body, after checking it is monotone in the group.
    fn set_fixpoint_body(
        &mut self,
        file: FileId,
        b: &ast::Binding,
        group: &[DefId],
        id: DefId,
        body: Lowered,
    ) -> diag::Result<()> {
        self.count_nodes(file, b.span, &body)?;
        if let Some(bad) = negative_use(&body.expr, group, true) {
            return Err(self
                .err(file, b.name.span, format!("the definition of `{}` is not monotone in `{}`", b.name.text, self.model.defs[bad].name))
                .with_note("in a `let rec`, the group's names may not occur under `~` or on the right of `\\`; otherwise the least fixpoint may not exist"));
        }
        self.model.defs[id].kind = body.kind;
        self.model.defs[id].body = DefBody::Fixpoint(body.expr);
        Ok(())
    }

    /// The kinds of a `let rec` group read off the bodies' shapes, each name taking the kind
    /// guessed for its body so far (relations where the shapes do not tell).
    fn guess_rec_kinds(&self, file: FileId, bindings: &[ast::Binding]) -> Vec<Kind> {
        let env = self.top_env(file);
        let mut group: Vec<(&str, Option<Kind>)> = bindings
            .iter()
            .map(|b| (b.name.text.as_str(), None))
            .collect();
        for _round in 0..bindings.len() {
            for (i, b) in bindings.iter().enumerate() {
                group[i].1 = self.guess_kind(&env, &group, &b.body);
            }
        }
        group.iter().map(|(_, k)| k.unwrap_or(Kind::Rel)).collect()
    }

    /// The kind of an expression read off its shape; `group` gives the guesses for a `let rec`.
    fn guess_kind(&self, env: &Env, group: &[(&str, Option<Kind>)], e: &ast::Expr) -> Option<Kind> {
        match &e.kind {
            ast::ExprKind::Var(x) if group.iter().any(|(n, _)| n == x) => group
                .iter()
                .rev()
                .find(|(n, _)| n == x)
                .and_then(|(_, k)| *k),
            ast::ExprKind::Var(x) => match self.lookup(env, x) {
                Some(Entry::Value(_, k)) => Some(k),
                Some(Entry::Param(l) | Entry::Poly(l)) => l.kind,
                Some(Entry::Function(_)) => None,
                None => vocab::kind_of(x),
            },
            ast::ExprKind::Zero => None,
            ast::ExprKind::Binary(BinOp::Seq | BinOp::Product, ..) | ast::ExprKind::Bracket(_) => {
                Some(Kind::Rel)
            }
            ast::ExprKind::Binary(_, a, b) => self
                .guess_kind(env, group, a)
                .or_else(|| self.guess_kind(env, group, b)),
            ast::ExprKind::Unary(ast::UnOp::Complement, a) => self.guess_kind(env, group, a),
            ast::ExprKind::Unary(..) => Some(Kind::Rel),
            ast::ExprKind::App(f, _) if matches!(f.text.as_str(), "domain" | "range") => {
                Some(Kind::Set)
            }
            ast::ExprKind::App(..) => None,
        }
    }

    fn lower_check(&mut self, file: FileId, span: ast::Span, c: &ast::Check) -> diag::Result<()> {
        let l = self.lower_expr(&self.top_env(file), &c.expr)?;
        let l = match c.kind {
            ast::CheckKind::Empty => l.settled(Kind::Rel),
            _ => self.want(file, &c.expr, l, Kind::Rel, NOTE_CHECK)?,
        };
        self.count_nodes(file, span, &l)?;
        let index = self.model.checks.len();
        let name = c.name.as_ref().map_or_else(
            || format!("{}#{}", c.kind.keyword(), index + 1),
            |n| n.text.clone(),
        );
        let check = Check {
            kind: c.kind,
            expr: l.expr,
            name,
            flag: c.flag,
            negated: c.negated,
            source_text: self.text(file, span),
        };
        self.model.checks.push(check);
        self.model.steps.push(Step::Check(index));
        Ok(())
    }

    fn include(&mut self, file: FileId, path: &str, span: ast::Span) -> diag::Result<()> {
        let Some(dir) = self.files[file].dir.clone() else {
            return Err(self
                .err(file, span, format!("cannot include `{path}`: this model was given as text, with no directory to look in"))
                .with_note("load the model from a file, or pass an include directory"));
        };
        let full = dir.join(path);
        let shown = full.display().to_string();
        let canon = std::fs::canonicalize(&full).map_err(|e| {
            self.err(
                file,
                span,
                format!("cannot read included file `{shown}`: {e}"),
            )
        })?;
        if let Some(pos) = self.including.iter().position(|(p, _)| *p == canon) {
            let chain: Vec<&str> = self.including[pos..]
                .iter()
                .map(|(_, s)| s.as_str())
                .chain([shown.as_str()])
                .collect();
            return Err(self
                .err(file, span, "include cycle")
                .with_note(chain.join(" includes ")));
        }
        let text: Arc<str> = std::fs::read_to_string(&full).map(Arc::from).map_err(|e| {
            self.err(
                file,
                span,
                format!("cannot read included file `{shown}`: {e}"),
            )
        })?;
        let included = cat::parse(&shown, &text)?;
        let id = self.add_file(&shown, text, full.parent());
        self.including.push((canon, shown));
        self.lower_stmts(id, &included.stmts)?;
        self.including.pop();
        Ok(())
    }

    fn lower_with(
        &mut self,
        file: FileId,
        span: ast::Span,
        var: &ast::Name,
        from: &ast::Expr,
    ) -> diag::Result<()> {
        let (set, order) = match &from.kind {
            ast::ExprKind::App(f, args) if f.text == "linearisations" && args.len() == 2 => {
                (&args[0], &args[1])
            }
            _ => {
                return Err(self
                    .err(
                        file,
                        from.span,
                        "mapcheck supports `with x from linearisations(S, r)` only",
                    )
                    .with_note("x then ranges over every strict total order on S that contains r"))
            }
        };
        let env = self.top_env(file);
        let s = self.lower_expr(&env, set)?;
        let s = self.want(file, set, s, Kind::Set, NOTE_LIN)?;
        let r = self.lower_expr(&env, order)?;
        let r = self.want(file, order, r, Kind::Rel, NOTE_LIN)?;
        self.count_nodes(file, span, &s)?;
        self.count_nodes(file, span, &r)?;
        let index = self.model.witnesses.len();
        let def = self.push_def(
            file,
            &var.text,
            span,
            Some(Kind::Rel),
            DefBody::Witness(index),
        );
        let source_text = self.text(file, span);
        self.model.witnesses.push(Witness {
            name: var.text.clone(),
            def,
            set: s.expr,
            order: r.expr,
            source_text,
        });
        self.model.steps.push(Step::Choose(index));
        self.scope
            .push((var.text.clone(), Entry::Value(def, Kind::Rel)));
        Ok(())
    }

    fn declare_coherence(&mut self, file: FileId, word: &ast::Name) -> diag::Result<()> {
        let kind = match word.text.as_str() {
            "total" => CoKind::Total,
            "partial" => CoKind::Partial,
            other => {
                return Err(self.err(
                    file,
                    word.span,
                    format!("expected `total` or `partial` after `coherence`, found `{other}`"),
                ))
            }
        };
        if let Some((earlier, at)) = &self.coherence {
            if *earlier != kind {
                return Err(self
                    .err(file, word.span, "conflicting `coherence` declarations")
                    .with_note(format!(
                        "{at} declares `coherence {}`",
                        if *earlier == CoKind::Total {
                            "total"
                        } else {
                            "partial"
                        }
                    )));
            }
        }
        self.coherence = Some((kind, self.position(file, word.span)));
        self.model.coherence = kind;
        Ok(())
    }

    // ---- expressions ----

    fn lower_expr(&mut self, env: &Env, e: &ast::Expr) -> diag::Result<Lowered> {
        let l = match &e.kind {
            ast::ExprKind::Var(x) => self.lower_var(env, e.span, x)?,
            ast::ExprKind::Zero => Lowered::leaf(Expr::Empty(Kind::Rel), None),
            ast::ExprKind::Binary(op, a, b) => self.lower_binary(env, *op, a, b)?,
            ast::ExprKind::Unary(op, a) => self.lower_unary(env, *op, a)?,
            ast::ExprKind::Bracket(a) => {
                let s = self.lower_expr(env, a)?;
                Lowered::unary(
                    Op1::IdOn,
                    self.want(env.file, a, s, Kind::Set, NOTE_BRACKET)?,
                    Some(Kind::Rel),
                )
            }
            ast::ExprKind::App(f, args) => self.lower_app(env, e.span, f, args)?,
        };
        self.bounded(env.file, e.span, l)
    }

    fn lower_var(&mut self, env: &Env, span: ast::Span, name: &str) -> diag::Result<Lowered> {
        match self.lookup(env, name) {
            Some(Entry::Param(l) | Entry::Poly(l)) => Ok(l),
            Some(Entry::Value(id, k)) => Ok(Lowered::leaf(Expr::Def(id), Some(k))),
            Some(Entry::Function(f)) => Err(self.err(
                env.file,
                span,
                format!(
                    "`{name}` is a function; call it with {}: `{name}(…)`",
                    count(f.params.len(), "argument")
                ),
            )),
            None => match vocab::kind_of(name) {
                Some(k) => Ok(Lowered::leaf(self.base(name), Some(k))),
                None if PRIMITIVES.contains(&name) => Err(self.err(
                    env.file,
                    span,
                    format!("`{name}` is a function; call it as `{name}(…)`"),
                )),
                None => Err(self.unknown_name(env, &[], span, name)),
            },
        }
    }

    /// The IR for a vocabulary name, registering it in `Model::bases`.
    fn base(&mut self, name: &str) -> Expr {
        let name: &'static str = vocab::all_names().find(|n| *n == name).unwrap_or("_");
        let slot = match self.model.bases.iter().position(|b| *b == name) {
            Some(slot) => slot,
            None => {
                self.model.bases.push(name);
                self.model.bases.len() - 1
            }
        };
        Expr::Base { name, slot }
    }

    fn lower_binary(
        &mut self,
        env: &Env,
        op: BinOp,
        a: &ast::Expr,
        b: &ast::Expr,
    ) -> diag::Result<Lowered> {
        let (want, note) = match op {
            BinOp::Union | BinOp::Inter | BinOp::Seq => {
                return self.lower_chain(env, op, &chain_operands(op, a, b))
            }
            BinOp::Diff => {
                let (la, lb) = (self.lower_expr(env, a)?, self.lower_expr(env, b)?);
                let k = self.same_kind(env.file, op, b, la.kind, lb.kind)?;
                return Ok(Lowered::binary(op, la.settled_opt(k), lb.settled_opt(k), k));
            }
            BinOp::Product => (Kind::Set, NOTE_PRODUCT),
        };
        let la = self.lower_expr(env, a)?;
        let la = self.want(env.file, a, la, want, note)?;
        let lb = self.lower_expr(env, b)?;
        let lb = self.want(env.file, b, lb, want, note)?;
        Ok(Lowered::binary(op, la, lb, Some(Kind::Rel)))
    }

    /// `a | b | c …` (and `&`, `;`): associative, so lowered operand by operand and rebuilt as a
    /// balanced tree; long chains then cost neither recursion nor evaluation depth.
    fn lower_chain(
        &mut self,
        env: &Env,
        op: BinOp,
        operands: &[&ast::Expr],
    ) -> diag::Result<Lowered> {
        let mut lowered = Vec::with_capacity(operands.len());
        let mut kind = None;
        for x in operands {
            let l = self.lower_expr(env, x)?;
            let l = if op == BinOp::Seq {
                self.want(env.file, x, l, Kind::Rel, NOTE_SEQ)?
            } else {
                l
            };
            kind = self.same_kind(env.file, op, x, kind, l.kind)?;
            lowered.push(l);
        }
        let lowered = lowered.into_iter().map(|l| l.settled_opt(kind)).collect();
        Ok(balanced(op, lowered, kind))
    }

    fn same_kind(
        &self,
        file: FileId,
        op: BinOp,
        at: &ast::Expr,
        before: Option<Kind>,
        this: Option<Kind>,
    ) -> diag::Result<Option<Kind>> {
        match (before, this) {
            (Some(x), Some(y)) if x != y => Err(self
                .err(file, at.span, format!("`{}` needs operands of one kind: this is a {}, but what comes before it is a {}", op.symbol(), kind_word(y), kind_word(x)))
                .with_note(NOTE_SAME)),
            (x, y) => Ok(x.or(y)),
        }
    }

    fn lower_unary(&mut self, env: &Env, op: ast::UnOp, a: &ast::Expr) -> diag::Result<Lowered> {
        let la = self.lower_expr(env, a)?;
        let op1 = match op {
            ast::UnOp::Complement => {
                let k = la.kind;
                return Ok(Lowered::unary(Op1::Complement, la, k));
            }
            ast::UnOp::Inverse => Op1::Inverse,
            ast::UnOp::Plus => Op1::Plus,
            ast::UnOp::Star => Op1::Star,
            ast::UnOp::Opt => Op1::Opt,
        };
        Ok(Lowered::unary(
            op1,
            self.want(env.file, a, la, Kind::Rel, NOTE_POSTFIX)?,
            Some(Kind::Rel),
        ))
    }

    fn lower_app(
        &mut self,
        env: &Env,
        span: ast::Span,
        f: &ast::Name,
        args: &[ast::Expr],
    ) -> diag::Result<Lowered> {
        match self.lookup(env, &f.text) {
            Some(Entry::Function(func)) => return self.call(env, span, func, args),
            Some(_) => {
                return Err(self.err(env.file, f.span, format!("`{}` is not a function", f.text)))
            }
            None => {}
        }
        let op = match f.text.as_str() {
            "domain" => Op1::Domain,
            "range" => Op1::Range,
            "linearisations" => {
                return Err(self.err(
                    env.file,
                    span,
                    "`linearisations` can only be used in `with x from linearisations(S, r)`",
                ))
            }
            name if vocab::kind_of(name).is_some() => {
                return Err(self.err(
                    env.file,
                    f.span,
                    format!(
                        "`{name}` is a {} of the vocabulary, not a function",
                        kind_word(vocab::kind_of(name).unwrap_or(Kind::Rel))
                    ),
                ))
            }
            name => return Err(self.unknown_name(env, &[], f.span, name)),
        };
        let [arg] = args else {
            return Err(self.err(
                env.file,
                span,
                format!(
                    "`{}` takes 1 argument, but {} given",
                    f.text,
                    was_were(args.len())
                ),
            ));
        };
        let la = self.lower_expr(env, arg)?;
        Ok(Lowered::unary(
            op,
            self.want(env.file, arg, la, Kind::Rel, NOTE_DOMAIN)?,
            Some(Kind::Set),
        ))
    }

    /// Inline a call: the body is lowered with the parameters bound to the lowered arguments.
    fn call(
        &mut self,
        env: &Env,
        span: ast::Span,
        func: Rc<Function>,
        args: &[ast::Expr],
    ) -> diag::Result<Lowered> {
        if args.len() != func.params.len() {
            return Err(self
                .err(
                    env.file,
                    span,
                    format!(
                        "`{}` takes {}, but {} given",
                        func.name,
                        count(func.params.len(), "argument"),
                        was_were(args.len())
                    ),
                )
                .with_note(format!("`{}` is defined at {}", func.name, func.origin)));
        }
        let lowered = args
            .iter()
            .map(|a| self.lower_expr(env, a))
            .collect::<diag::Result<Vec<_>>>()?;
        let params: Vec<(String, Lowered)> = func.params.iter().cloned().zip(lowered).collect();
        let inner = Env {
            file: func.file,
            params: &params,
            scope_len: func.scope_len,
        };
        self.lower_expr(&inner, &func.body).map_err(|e| {
            e.with_note(format!(
                "while expanding the call of `{}` at {}",
                func.name,
                self.position(env.file, span)
            ))
        })
    }

    // ---- names, kinds, limits ----

    fn lookup(&self, env: &Env, name: &str) -> Option<Entry> {
        if let Some((_, l)) = env.params.iter().rev().find(|(n, _)| n == name) {
            return Some(Entry::Param(l.clone()));
        }
        self.scope[..env.scope_len]
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, e)| e.clone())
    }

    fn unknown_name(
        &self,
        env: &Env,
        extra: &[String],
        span: ast::Span,
        name: &str,
    ) -> diag::Error {
        let mut visible: Vec<&str> = env.params.iter().map(|(n, _)| n.as_str()).collect();
        visible.extend(extra.iter().map(String::as_str));
        visible.extend(self.scope[..env.scope_len].iter().map(|(n, _)| n.as_str()));
        for n in vocab::all_names().chain(PRIMITIVES.iter().copied()) {
            visible.push(n);
        }
        let mut e = self.err(env.file, span, format!("unknown name `{name}`"));
        if let Some(note) = names::did_you_mean(&names::suggestions(name, visible)) {
            e = e.with_note(note);
        }
        if let Some(note) = names::herd_derived_note(name) {
            e = e.with_note(note);
        }
        e
    }

    /// `l` at kind `k`: a polymorphic `0` takes the kind, anything else must already have it.
    fn want(
        &self,
        file: FileId,
        at: &ast::Expr,
        l: Lowered,
        k: Kind,
        note: &str,
    ) -> diag::Result<Lowered> {
        match l.kind {
            Some(found) if found != k => Err(self
                .err(
                    file,
                    at.span,
                    format!("expected a {}, found a {}", kind_word(k), kind_word(found)),
                )
                .with_note(note)),
            _ => Ok(l.settled(k)),
        }
    }

    fn bounded(&self, file: FileId, span: ast::Span, l: Lowered) -> diag::Result<Lowered> {
        if l.depth > MAX_IR_DEPTH || l.size > MAX_IR_NODES {
            return Err(self
                .err(file, span, format!("expression too large after expanding function calls ({} nodes, {} levels deep)", l.size, l.depth))
                .with_note("mapcheck inlines functions; name intermediate results with `let` to share them"));
        }
        Ok(l)
    }

    fn count_nodes(&mut self, file: FileId, span: ast::Span, l: &Lowered) -> diag::Result<()> {
        self.nodes += l.size;
        if self.nodes > MAX_IR_NODES {
            return Err(self.err(file, span, format!("model too large: more than {MAX_IR_NODES} expression nodes after expanding function calls")));
        }
        Ok(())
    }
}

/// The sub-expressions of an AST expression.
fn children(e: &ast::Expr) -> Box<dyn Iterator<Item = &ast::Expr> + '_> {
    match &e.kind {
        ast::ExprKind::Var(_) | ast::ExprKind::Zero => Box::new(std::iter::empty()),
        ast::ExprKind::Binary(_, a, b) => Box::new([a.as_ref(), b.as_ref()].into_iter()),
        ast::ExprKind::Unary(_, a) | ast::ExprKind::Bracket(a) => {
            Box::new(std::iter::once(a.as_ref()))
        }
        ast::ExprKind::App(_, args) => Box::new(args.iter()),
    }
}

/// A definition of `group` that occurs in `e` with negative polarity (under `~`, right of `\`).
fn negative_use(e: &Expr, group: &[DefId], positive: bool) -> Option<DefId> {
    match e {
        Expr::Def(id) if !positive && group.contains(id) => Some(*id),
        Expr::Binary(BinOp::Diff, a, b) => {
            negative_use(a, group, positive).or_else(|| negative_use(b, group, !positive))
        }
        Expr::Binary(_, a, b) => {
            negative_use(a, group, positive).or_else(|| negative_use(b, group, positive))
        }
        Expr::Unary(Op1::Complement, a) => negative_use(a, group, !positive),
        Expr::Unary(_, a) => negative_use(a, group, positive),
        Expr::Empty(_) | Expr::Base { .. } | Expr::Def(_) => None,
    }
}
