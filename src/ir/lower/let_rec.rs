//! Lowering `let rec` groups: the kinds of the group's names (read off the bodies' shapes, then
//! corrected by lowering until they agree) and the monotonicity that makes the least fixpoint
//! exist.
use super::*;

impl Lowerer {
    /// `let rec x = e1 and y = e2`: kinds are first read off the bodies' shapes (relations when
    /// the shape does not tell), then corrected by lowering until they agree; each body must be
    /// monotone in the group so that the least fixpoint exists.
    pub(super) fn lower_let_rec(
        &mut self,
        file: FileId,
        bindings: &[ast::Binding],
    ) -> diag::Result<()> {
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
            ast::ExprKind::LetIn { body, .. } => self.guess_kind(env, group, body),
            ast::ExprKind::If(_, a, b)
            | ast::ExprKind::Try(a, b)
            | ast::ExprKind::MatchSet {
                empty: a,
                nonempty: b,
                ..
            } => self
                .guess_kind(env, group, a)
                .or_else(|| self.guess_kind(env, group, b)),
        }
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
