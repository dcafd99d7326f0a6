//! Lowering functions: a definition (its parameters, and every name in its body checked where
//! it is defined) and each call, inlined with the parameters bound to the lowered arguments.
use std::rc::Rc;

use super::*;

impl Lowerer {
    pub(super) fn define_function(
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
        let known = |x: &str| {
            params.iter().any(|p| p == x)
                || self.lookup(&env, x).is_some()
                || self.prelude_defines(x)
        };
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
            // `try a with b` is `b` exactly when `a` names something unknown.
            ast::ExprKind::Try(_, b) => self.check_names(file, fname, params, scope_len, b),
            ast::ExprKind::LetIn { bindings, body, .. } => {
                let mut inner = params.to_vec();
                for b in bindings {
                    self.check_names(file, fname, params, scope_len, &b.body)?;
                    inner.push(b.name.text.clone());
                }
                self.check_names(file, fname, &inner, scope_len, body)
            }
            ast::ExprKind::MatchSet { element, rest, .. } => {
                let mut inner = params.to_vec();
                inner.extend([element.text.clone(), rest.text.clone()]);
                children(e)
                    .into_iter()
                    .try_for_each(|c| self.check_names(file, fname, &inner, scope_len, c))
            }
            _ => children(e)
                .into_iter()
                .try_for_each(|c| self.check_names(file, fname, params, scope_len, c)),
        }
    }

    /// Inline a call: the body is lowered with the parameters bound to the lowered arguments.
    pub(super) fn call(
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
}

/// The sub-expressions of an AST expression.
pub(super) fn children(e: &ast::Expr) -> Vec<&ast::Expr> {
    match &e.kind {
        ast::ExprKind::Var(_) | ast::ExprKind::Zero => vec![],
        ast::ExprKind::Binary(_, a, b) | ast::ExprKind::Try(a, b) => vec![a, b],
        ast::ExprKind::Unary(_, a) | ast::ExprKind::Bracket(a) => vec![a],
        ast::ExprKind::App(_, args) => args.iter().collect(),
        ast::ExprKind::LetIn { bindings, body, .. } => {
            let mut out: Vec<&ast::Expr> = bindings.iter().map(|b| &b.body).collect();
            out.push(body);
            out
        }
        ast::ExprKind::If(cond, a, b) => {
            let mut out = match cond.as_ref() {
                ast::Cond::Variant(_) => vec![],
                ast::Cond::Equal(x, y) | ast::Cond::Subset(x, y) => vec![x, y],
            };
            out.extend([a.as_ref(), b.as_ref()]);
            out
        }
        ast::ExprKind::MatchSet {
            scrutinee,
            empty,
            nonempty,
            ..
        } => vec![scrutinee, empty, nonempty],
    }
}
