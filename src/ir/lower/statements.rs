//! Lowering statements: `let` (values; functions are `functions`' job, `let rec` `let_rec`'s),
//! checks, `include` (relative to the including file, cycles rejected), `with x from
//! linearisations(S, r)` witnesses and `coherence` declarations, each recorded in the model's
//! steps in order.
use std::sync::Arc;

use super::*;
use crate::ir::library;

/// An included file, found.
struct Included {
    shown: String,
    text: Arc<str>,
    /// Where its own `include`s are looked for first (none for a bundled file).
    dir: Option<PathBuf>,
    /// What include cycles are detected by.
    canon: PathBuf,
    /// Whether it lies outside every include root (read under `include_anywhere`).
    outside_roots: bool,
}

const NOTE_CHECK: &str =
    "`acyclic` and `irreflexive` test relations; `empty` tests sets or relations";
const NOTE_SHOW: &str = "pictures draw relations between events";
const NOTE_LIN: &str = "`linearisations(S, r)` takes a set S and a relation r";

impl Lowerer {
    pub(super) fn lower_stmts(&mut self, file: FileId, stmts: &[ast::Stmt]) -> diag::Result<()> {
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
            ast::StmtKind::Show { hide, items, label } => {
                self.lower_show(file, *hide, items, label.as_ref());
                Ok(())
            }
            ast::StmtKind::With { var, from } => {
                let entry = self.lower_with(file, stmt.span, var, from)?;
                self.scope.push(var.text.clone(), entry);
                Ok(())
            }
            ast::StmtKind::Coherence(word) => self.declare_coherence(file, word),
            ast::StmtKind::Dialect(word) => self.dialect_statement(file, word),
            ast::StmtKind::IfVariant {
                variant,
                then,
                otherwise,
            } => {
                let on = self.variant_on(&variant.text);
                self.lower_stmts(file, if on { then } else { otherwise })
            }
        }
    }

    pub(super) fn push_def(
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

    pub(super) fn define_value(
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

    /// `show e1, e2 …` / `show e as name`: each relation is kept, labelled with its text or the
    /// `as` name, for pictures of executions (a later `show` of a label replaces it); `unshow
    /// n1, n2 …` drops those labels. herd's meaning. No check reads them, so an item that has
    /// no meaning here (an unknown name, a set) is a warning, never a reason to refuse the model.
    fn lower_show(
        &mut self,
        file: FileId,
        hide: bool,
        items: &[ast::Expr],
        label: Option<&ast::Name>,
    ) {
        for item in items {
            let label = match label {
                Some(name) if items.len() == 1 => name.text.clone(),
                _ => self.text(file, item.span),
            };
            self.model.shown.retain(|s| s.label != label);
            if hide {
                continue;
            }
            let lowered = self
                .lower_expr(&self.top_env(file), item)
                .and_then(|l| self.want(file, item, l, Kind::Rel, NOTE_SHOW));
            match lowered {
                Ok(l) => self.model.shown.push(Shown {
                    label,
                    expr: l.expr,
                }),
                Err(e) => {
                    let at = self.position(file, item.span);
                    self.model.warnings.push(format!(
                        "{at}: warning: `show {label}` is not drawn: {}",
                        e.message
                    ));
                }
            }
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
            // `undefined_unless T` is reported as `flag ~T` is: when T fails.
            flag: c.flag || c.undefined_unless,
            negated: c.negated != c.undefined_unless,
            source_text: self.text(file, span),
        };
        self.model.checks.push(check);
        self.model.steps.push(Step::Check(index));
        Ok(())
    }

    fn include(&mut self, file: FileId, path: &str, span: ast::Span) -> diag::Result<()> {
        let found = self.find_include(file, path, span)?;
        if let Some(pos) = self.including.iter().position(|(p, _)| *p == found.canon) {
            let chain: Vec<&str> = self.including[pos..]
                .iter()
                .map(|(_, s)| s.as_str())
                .chain([found.shown.as_str()])
                .collect();
            return Err(self
                .err(file, span, "include cycle")
                .with_note(chain.join(" includes ")));
        }
        let outside = found.outside_roots;
        let included =
            cat::parse(&found.shown, &found.text).map_err(|e| e.span_only_if(outside))?;
        let id = self.add_file(&found.shown, found.text, found.dir.as_deref());
        self.files[id].outside_roots = outside;
        self.including.push((found.canon, found.shown));
        self.lower_stmts(id, &included.stmts)?;
        self.including.pop();
        Ok(())
    }

    /// Bundled file `path` (`library`), as an included file.
    fn bundled(path: &str, text: &'static str) -> Included {
        let shown = format!("{}/{path}", library::SHOWN_DIR);
        Included {
            canon: PathBuf::from(&shown),
            shown,
            text: Arc::from(text),
            dir: None,
            outside_roots: false,
        }
    }

    /// Where `include "path"` is read from, as herd looks: the including file's directory, each
    /// `-I` directory in order, then the bundled library (`library`); in the herd dialect the
    /// bundled `cos.cat` and `stdlib.cat` come first (`library::replaces_herds`), with a warning
    /// when herd's is on the path. The file found must lie
    /// under an include root, symbolic links followed, unless `include_anywhere`; one that does
    /// not is refused before it is read.
    fn find_include(
        &mut self,
        file: FileId,
        path: &str,
        span: ast::Span,
    ) -> diag::Result<Included> {
        let dirs: Vec<PathBuf> = self.files[file]
            .dir
            .iter()
            .chain(&self.options.include_dirs)
            .cloned()
            .collect();
        let on_path = dirs.iter().map(|d| d.join(path)).find(|f| f.is_file());
        if let Some(why) = library::replaces_herds(self.dialect(), path) {
            if let Some(herds) = &on_path {
                let at = self.position(file, span);
                self.model.warnings.push(format!(
                    "{at}: warning: herd's `{path}` ({}) {why}: mapcheck's bundled `{path}` is read in its place",
                    herds.display()
                ));
            }
            if let Some(text) = library::file(path) {
                return Ok(Self::bundled(path, text));
            }
        }
        if let Some(full) = on_path {
            let shown = full.display().to_string();
            let read = |e: std::io::Error| {
                self.err(
                    file,
                    span,
                    format!("cannot read included file `{shown}`: {e}"),
                )
            };
            let canon = std::fs::canonicalize(&full).map_err(read)?;
            let outside_roots = !self.include_roots.iter().any(|r| canon.starts_with(r));
            if outside_roots && !self.options.include_anywhere {
                return Err(self.outside_roots(file, span, path, &canon));
            }
            let text = crate::diag::source_text(&shown, std::fs::read(&full).map_err(read)?)
                .map_err(|e| e.span_only_if(outside_roots))?;
            let dir = full.parent().map(Path::to_path_buf);
            return Ok(Included {
                shown,
                text,
                dir,
                canon,
                outside_roots,
            });
        }
        if let Some(text) = library::file(path) {
            return Ok(Self::bundled(path, text));
        }
        let Some(first) = dirs.first().map(|d| d.join(path)) else {
            return Err(self
                .err(file, span, format!("cannot include `{path}`: this model was given as text, with no directory to look in"))
                .with_note("load the model from a file, or pass an include directory"));
        };
        let why = std::fs::metadata(&first)
            .err()
            .map_or_else(|| "not a file".to_string(), |e| e.to_string());
        let mut e = self.err(
            file,
            span,
            format!("cannot read included file `{}`: {why}", first.display()),
        );
        if dirs.len() > 1 {
            let rest: Vec<String> = dirs[1..].iter().map(|d| d.display().to_string()).collect();
            e = e.with_note(format!(
                "also looked in {} and mapcheck's cat-lib",
                rest.join(", ")
            ));
        }
        Err(e)
    }

    /// The refusal of an include that resolved to `canon`, outside every include root.
    fn outside_roots(
        &self,
        file: FileId,
        span: ast::Span,
        path: &str,
        canon: &Path,
    ) -> diag::Error {
        let roots: Vec<String> = self
            .include_roots
            .iter()
            .map(|r| r.display().to_string())
            .collect();
        self.err(
            file,
            span,
            format!(
                "cannot include `{path}`: it is `{}`, outside the directories a model may include from",
                canon.display()
            ),
        )
        .with_note(format!(
            "a model includes from under its own directory, each -I directory (a mapping's models: either model's directory) and mapcheck's cat-lib; here: {}",
            if roots.is_empty() { "cat-lib only".to_string() } else { roots.join(", ") }
        ))
        .with_note("pass --allow-include-anywhere to read it all the same")
    }

    pub(super) fn lower_with(
        &mut self,
        file: FileId,
        span: ast::Span,
        var: &ast::Name,
        from: &ast::Expr,
    ) -> diag::Result<Entry> {
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
            failures_grow: false,
            read: true,
            source_text,
        });
        self.model.steps.push(Step::Choose(index));
        Ok(Entry::Value(def, Kind::Rel))
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
}
