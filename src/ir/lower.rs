//! Lowering: `cat::ast` to the typed IR.
//!
//! Owns: name resolution (parameters, earlier `let`s, the vocabulary, the primitives `domain`,
//! `range`, `linearisations`), kind checking, function inlining (a function body is resolved in
//! the scope of its definition, as in herd), `let rec` kinds and monotonicity, `include`
//! (relative to the including file, cycles rejected) and the size limits that keep inlining from
//! exploding. Uses: `cat`, `vocab`, `diag`, `ir::names`.
//!
//! This file: the entry point, the lowerer's state and what every part of it uses (files and
//! errors, names in scope, kinds and size limits). The parts: `statements` (`let`, checks,
//! `include`, `with`, `coherence`), `expressions` (operators, applications of `domain` and
//! `range`), `functions` (definitions, their names, inlining at calls), `let_rec` (fixpoint
//! groups: kinds and monotonicity).
//!
//! Files:
//! - `lower/statements.rs`: `let`, checks, `include`, `with`, `coherence`, `if "variant"`.
//! - `lower/expressions.rs`: names, operators with their kind rules, `domain` and `range`.
//! - `lower/conditions.rs`: `let … in`, `if`, `try` and `match`, lowered to gates.
//! - `lower/functions.rs`: function definitions, and inlining at calls.
//! - `lower/let_rec.rs`: the kinds and monotonicity of fixpoint groups.
//! - `lower/prelude.rs`: a dialect's prelude names, lowered on first use.
//! - `lower/dialect.rs`: whose vocabulary a model speaks, and warnings for names herd7 or Dartagnan
//!   read otherwise.
mod conditions;
mod dialect;
mod expressions;
mod functions;
mod let_rec;
mod prelude;
mod statements;

use std::collections::HashMap;
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

/// Stack for lowering: recursion follows expression nesting (at most `ast::MAX_DEPTH`, more after
/// inlining), and unoptimised builds use several KiB per level. Models are loaded once, so a
/// dedicated thread is cheap.
const LOWERING_STACK: usize = 256 << 20;

pub(super) fn lower_top(
    path: &str,
    text: Arc<str>,
    dir: Option<&Path>,
    file: Option<&Path>,
    opts: &LoadOptions,
) -> diag::Result<Model> {
    let work = || lower_top_here(path, text.clone(), dir, file, opts);
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
    opts: &LoadOptions,
) -> diag::Result<Model> {
    let file_ast = cat::parse(path, &text)?;
    let mut lw = Lowerer {
        options: opts.clone(),
        ..Lowerer::default()
    };
    lw.include_roots = dir
        .into_iter()
        .chain(opts.include_dirs.iter().map(PathBuf::as_path))
        .chain(opts.include_roots.iter().map(PathBuf::as_path))
        .filter_map(|d| std::fs::canonicalize(d).ok())
        .collect();
    lw.model.path = path.to_string();
    lw.model.title = file_ast.title.as_ref().map(|t| t.text.clone());
    lw.model.arch = file_ast.title.as_ref().and_then(|t| t.arch.clone());
    let id = lw.add_file(path, text, dir);
    lw.settle_dialect(id, &file_ast.stmts, opts.dialect)?;
    lw.load_prelude()?;
    if let Some(f) = file {
        lw.including.push((
            std::fs::canonicalize(f).unwrap_or_else(|_| f.to_path_buf()),
            path.to_string(),
        ));
    }
    lw.lower_stmts(id, &file_ast.stmts)?;
    if lw.coherence.is_none() && lw.dialect().partial_co(lw.model.arch.as_deref()) {
        lw.model.coherence = CoKind::Partial;
    }
    for w in 0..lw.model.witnesses.len() {
        lw.model.witnesses[w].failures_grow = lw.model.failures_grow_with(w);
        lw.model.witnesses[w].read = lw.model.witness_read(w);
    }
    Ok(lw.model)
}

type FileId = usize;

struct SourceFile {
    path: String,
    text: Arc<str>,
    lines: diag::Lines,
    /// Where its `include`s are resolved; `None` for text with no directory.
    dir: Option<PathBuf>,
    /// Whether it lies outside the include roots (read under `include_anywhere`): its
    /// diagnostics echo only their spans.
    outside_roots: bool,
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

/// The names bound so far, in binding order, with each name's positions: a lookup is a search
/// of its own positions, not a scan of every earlier binding.
#[derive(Default)]
struct Scope {
    entries: Vec<(String, Entry)>,
    positions: HashMap<String, Vec<usize>>,
}

impl Scope {
    fn len(&self) -> usize {
        self.entries.len()
    }

    fn push(&mut self, name: String, entry: Entry) {
        let at = self.entries.len();
        self.positions.entry(name.clone()).or_default().push(at);
        self.entries.push((name, entry));
    }

    fn extend(&mut self, entries: impl IntoIterator<Item = (String, Entry)>) {
        entries.into_iter().for_each(|(n, e)| self.push(n, e));
    }

    /// Unbind everything bound after the first `len` entries.
    fn truncate(&mut self, len: usize) {
        let len = len.min(self.entries.len());
        for (name, _) in self.entries.drain(len..) {
            if let Some(at) = self.positions.get_mut(&name) {
                at.pop();
            }
        }
    }

    /// The last binding of `name` among the first `len` entries.
    fn lookup(&self, name: &str, len: usize) -> Option<&Entry> {
        let at = self.positions.get(name)?;
        let before = at.partition_point(|&i| i < len);
        let i = *at[..before].last()?;
        Some(&self.entries[i].1)
    }

    /// The names of the first `len` entries.
    fn names(&self, len: usize) -> impl Iterator<Item = &str> {
        self.entries[..len].iter().map(|(n, _)| n.as_str())
    }
}

/// Where names are looked up: a function's parameters, then the first `scope_len` scope entries.
struct Env<'a> {
    file: FileId,
    params: &'a [(String, Lowered)],
    scope_len: usize,
}

/// Per other dialect, how a warning names it and its prelude files (text, parsed).
pub(super) type OtherPreludes = Vec<(&'static str, Vec<(&'static str, ast::File)>)>;

#[derive(Default)]
struct Lowerer {
    files: Vec<SourceFile>,
    /// Files being lowered (canonical path, path as shown), outermost first.
    including: Vec<(PathBuf, String)>,
    /// The directories, canonical, that an included file must lie under (`LoadOptions`).
    include_roots: Vec<PathBuf>,
    scope: Scope,
    model: Model,
    coherence: Option<(CoKind, String)>,
    nodes: usize,
    options: LoadOptions,
    /// The dialect's prelude files (`library::prelude`), the names lowered from them so far, and
    /// those being lowered.
    prelude: Vec<(FileId, Rc<ast::File>)>,
    prelude_defined: Vec<(String, Entry)>,
    prelude_busy: Vec<String>,
    /// The dialect asked for or declared (`None`: neither), where the top file declares it, the
    /// vocabulary names already checked for a meaning in another dialect, and the other
    /// dialects' preludes, parsed on the first such check (`dialect`).
    dialect: Option<Dialect>,
    dialect_statement: Option<(FileId, ast::Span)>,
    vocabulary_checked: Vec<String>,
    other_preludes: Option<OtherPreludes>,
}

impl Lowerer {
    /// Is herd's variant `name` enabled? Records that the model tests it.
    fn variant_on(&mut self, name: &str) -> bool {
        self.model.variants_tested.insert(name.to_string());
        let on = self.options.variants.iter().any(|v| v == name);
        if on {
            self.model.variants_enabled.insert(name.to_string());
        }
        on
    }
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
            lines: diag::Lines::new(&text),
            text,
            dir: dir.map(Path::to_path_buf),
            outside_roots: false,
        });
        self.files.len() - 1
    }

    fn err(&self, file: FileId, span: ast::Span, message: impl Into<String>) -> diag::Error {
        let f = &self.files[file];
        diag::Error::at(&f.path, &f.text, span.range(), message).span_only_if(f.outside_roots)
    }

    fn text(&self, file: FileId, span: ast::Span) -> String {
        span.text(&self.files[file].text).to_string()
    }

    /// `path:line:col` of a span.
    fn position(&self, file: FileId, span: ast::Span) -> String {
        let f = &self.files[file];
        let (l, c) = f
            .lines
            .line_col(&f.text, span.lo.min(span.hi).min(f.text.len()));
        format!("{}:{l}:{c}", f.path)
    }

    fn top_env(&self, file: FileId) -> Env<'static> {
        Env {
            file,
            params: &[],
            scope_len: self.scope.len(),
        }
    }

    // ---- names, kinds, limits ----

    fn lookup(&self, env: &Env, name: &str) -> Option<Entry> {
        if let Some((_, l)) = env.params.iter().rev().find(|(n, _)| n == name) {
            return Some(Entry::Param(l.clone()));
        }
        self.scope.lookup(name, env.scope_len).cloned()
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
        visible.extend(self.scope.names(env.scope_len));
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
