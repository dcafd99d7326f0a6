//! Lowering a dialect's prelude (`library::prelude`): a name that nothing in scope defines is
//! looked up in the dialect's prelude files before the vocabulary, and its binding is lowered on
//! first use, in an empty scope (it sees the vocabulary and the rest of the prelude, never the
//! model's own definitions, as herd's stdlib does).
use std::rc::Rc;

use super::*;
use crate::ir::library;

impl Lowerer {
    /// Parse the dialect's prelude files (bundled, so a parse error is mapcheck's own bug, still
    /// reported as an error).
    pub(super) fn load_prelude(&mut self) -> diag::Result<()> {
        for name in library::prelude(self.dialect()) {
            let text: Arc<str> = Arc::from(library::file(name).unwrap_or_default());
            let shown = format!("{}/{name}", library::SHOWN_DIR);
            let parsed = cat::parse(&shown, &text)?;
            let id = self.add_file(&shown, text, None);
            self.prelude.push((id, Rc::new(parsed)));
        }
        Ok(())
    }

    /// Does the dialect's prelude define `name`?
    pub(super) fn prelude_defines(&self, name: &str) -> bool {
        self.prelude_stmt(name).is_some()
    }

    /// The prelude statement that defines `name`: a `let` binding or a `with` witness.
    fn prelude_stmt(&self, name: &str) -> Option<(FileId, Defining)> {
        self.prelude.iter().find_map(|(file, parsed)| {
            let found = parsed.stmts.iter().rev().find_map(|s| match &s.kind {
                ast::StmtKind::With { var, from } if var.text == name => {
                    Some(Defining::Witness(s.span, var.clone(), from.clone()))
                }
                _ => binding_in(s, name).map(|b| Defining::Binding(b.clone())),
            });
            found.map(|d| (*file, d))
        })
    }

    /// What `name` denotes in the dialect's prelude, lowered on its first use. A prelude binding
    /// that names itself (`let sr = sr & …`) means the vocabulary's name there.
    pub(super) fn prelude_entry(&mut self, name: &str) -> diag::Result<Option<Entry>> {
        if let Some((_, e)) = self.prelude_defined.iter().find(|(n, _)| n == name) {
            return Ok(Some(e.clone()));
        }
        if self.prelude_busy.iter().any(|n| n == name) {
            return Ok(None);
        }
        let Some((file, defining)) = self.prelude_stmt(name) else {
            return Ok(None);
        };
        self.prelude_busy.push(name.to_string());
        let entry = match &defining {
            Defining::Binding(b) => match &b.params {
                Some(params) => self.define_function(file, b, params, 0),
                None => self.define_value(file, b, 0),
            },
            Defining::Witness(span, var, from) => self.prelude_witness(file, *span, var, from),
        };
        self.prelude_busy.pop();
        let entry = entry?;
        self.prelude_defined.push((name.to_string(), entry.clone()));
        Ok(Some(entry))
    }
}

/// The `let` binding of `name` in statement `s`, if it is one.
pub(super) fn binding_in<'s>(s: &'s ast::Stmt, name: &str) -> Option<&'s ast::Binding> {
    match &s.kind {
        ast::StmtKind::Let { bindings, .. } => bindings.iter().find(|b| b.name.text == name),
        _ => None,
    }
}

/// What a prelude statement defines a name with.
enum Defining {
    Binding(ast::Binding),
    /// `with x from linearisations(S, r)`: chosen where the name is first used.
    Witness(ast::Span, ast::Name, ast::Expr),
}

impl Lowerer {
    /// A prelude witness: lowered as a model's own `with` is, in an empty scope.
    fn prelude_witness(
        &mut self,
        file: FileId,
        span: ast::Span,
        var: &ast::Name,
        from: &ast::Expr,
    ) -> diag::Result<Entry> {
        let scope = std::mem::take(&mut self.scope);
        let entry = self.lower_with(file, span, var, from);
        self.scope = scope;
        entry
    }
}
