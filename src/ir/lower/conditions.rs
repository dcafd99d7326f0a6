//! Lowering herd's expression forms that choose or bind: `let … in`, `if … then … else`,
//! `try … with` and `match` over a set. A variant condition (`if "name"`) and `try` are decided
//! while lowering; a condition on values (`e1 = e2`, `e1 subset e2`) and `match` on emptiness
//! depend on the execution, so they become a gate: the set of all events when the condition
//! holds, else the empty set (`~domain(_ * S)` is all events exactly when `S` is empty), and
//! `if c then a else b` is `(a & g) | (b \ g)`.
use super::*;

const NOTE_COND: &str = "`=` and `subset` compare two sets or two relations";

impl Lowerer {
    /// `let b1 and b2 … in body`: each bound expression is lowered once, in the scope before the
    /// `let`, and stands for its name in `body`.
    pub(super) fn lower_let_in(
        &mut self,
        env: &Env,
        span: ast::Span,
        rec: bool,
        bindings: &[ast::Binding],
        body: &ast::Expr,
    ) -> diag::Result<Lowered> {
        if rec {
            return Err(self
                .err(env.file, span, "`let rec … in` is not supported")
                .with_note("define the fixpoint with a top-level `let rec`"));
        }
        let mut params = env.params.to_vec();
        for b in bindings {
            if b.params.is_some() {
                return Err(self
                    .err(env.file, b.name.span, format!("local function `{}`: functions defined with `let … in` are not supported", b.name.text))
                    .with_note("define it with a top-level `let`"));
            }
            params.push((b.name.text.clone(), self.lower_expr(env, &b.body)?));
        }
        let inner = Env {
            file: env.file,
            params: &params,
            scope_len: env.scope_len,
        };
        self.lower_expr(&inner, body)
    }

    pub(super) fn lower_if(
        &mut self,
        env: &Env,
        cond: &ast::Cond,
        a: &ast::Expr,
        b: &ast::Expr,
    ) -> diag::Result<Lowered> {
        let (x, y, both_ways) = match cond {
            ast::Cond::Variant(v) => {
                let on = self.variant_on(&v.text);
                return self.lower_expr(env, if on { a } else { b });
            }
            ast::Cond::Equal(x, y) => (x, y, true),
            ast::Cond::Subset(x, y) => (x, y, false),
        };
        let (lx, ly) = (self.lower_expr(env, x)?, self.lower_expr(env, y)?);
        let k = self.one_kind(env.file, y, lx.kind, ly.kind, NOTE_COND)?;
        let (lx, ly) = (lx.settled(k), ly.settled(k));
        let outside = Lowered::binary(BinOp::Diff, lx.clone(), ly.clone(), Some(k));
        let differ = if both_ways {
            let back = Lowered::binary(BinOp::Diff, ly, lx, Some(k));
            Lowered::binary(BinOp::Union, outside, back, Some(k))
        } else {
            outside
        };
        let gate = self.all_if_empty(differ);
        self.choose(env, gate, a, b)
    }

    /// `try a with b`: `a`, unless `a` has no meaning here (an unknown name, a kind error).
    pub(super) fn lower_try(
        &mut self,
        env: &Env,
        a: &ast::Expr,
        b: &ast::Expr,
    ) -> diag::Result<Lowered> {
        match self.lower_expr(env, a) {
            Ok(l) => Ok(l),
            Err(_) => self.lower_expr(env, b),
        }
    }

    /// `match s with {} -> empty || x ++ rest -> nonempty end`; `nonempty` may not use `x` or
    /// `rest` (that would need one value per element, which a relational IR does not have).
    pub(super) fn lower_match_set(
        &mut self,
        env: &Env,
        scrutinee: &ast::Expr,
        empty: &ast::Expr,
        bound: [&ast::Name; 2],
        nonempty: &ast::Expr,
    ) -> diag::Result<Lowered> {
        for name in bound.iter().filter(|n| n.text != "_") {
            if let Some(at) = find_use(nonempty, &name.text) {
                return Err(self
                    .err(env.file, at, format!("`{}` is bound by the `match` pattern, which mapcheck cannot use", name.text))
                    .with_note("mapcheck's `match` tells an empty set from a non-empty one; write the pattern `_ ++ _` and use the set itself"));
            }
        }
        let s = self.lower_expr(env, scrutinee)?;
        let gate = self.all_if_empty(s);
        self.choose(env, gate, empty, nonempty)
    }

    /// `a` where `gate` is all events, `b` where it is empty.
    fn choose(
        &mut self,
        env: &Env,
        gate: Lowered,
        a: &ast::Expr,
        b: &ast::Expr,
    ) -> diag::Result<Lowered> {
        let (la, lb) = (self.lower_expr(env, a)?, self.lower_expr(env, b)?);
        let note = "both branches must be sets, or both relations";
        let k = self.one_kind(env.file, b, la.kind, lb.kind, note)?;
        let g = match k {
            Kind::Set => gate,
            Kind::Rel => Lowered::binary(BinOp::Product, gate.clone(), gate, Some(Kind::Rel)),
        };
        let when = Lowered::binary(BinOp::Inter, la.settled(k), g.clone(), Some(k));
        let otherwise = Lowered::binary(BinOp::Diff, lb.settled(k), g, Some(k));
        Ok(Lowered::binary(BinOp::Union, when, otherwise, Some(k)))
    }

    /// All events when `d` (a set or a relation) is empty, else no event.
    fn all_if_empty(&mut self, d: Lowered) -> Lowered {
        let d = d.settled(Kind::Rel);
        let s = match d.kind {
            Some(Kind::Rel) => Lowered::unary(Op1::Domain, d, Some(Kind::Set)),
            _ => d,
        };
        let all = Lowered::leaf(self.base("_"), Some(Kind::Set));
        let pairs = Lowered::binary(BinOp::Product, all, s, Some(Kind::Rel));
        let any = Lowered::unary(Op1::Domain, pairs, Some(Kind::Set));
        Lowered::unary(Op1::Complement, any, Some(Kind::Set))
    }

    /// The one kind of two expressions (a relation when both are `0`).
    fn one_kind(
        &self,
        file: FileId,
        at: &ast::Expr,
        a: Option<Kind>,
        b: Option<Kind>,
        note: &str,
    ) -> diag::Result<Kind> {
        match (a, b) {
            (Some(x), Some(y)) if x != y => Err(self
                .err(
                    file,
                    at.span,
                    format!("expected a {}, found a {}", kind_word(x), kind_word(y)),
                )
                .with_note(note)),
            (x, y) => Ok(x.or(y).unwrap_or(Kind::Rel)),
        }
    }
}

/// Where `name` is used in `e`, if it is.
fn find_use(e: &ast::Expr, name: &str) -> Option<ast::Span> {
    match &e.kind {
        ast::ExprKind::Var(x) if x == name => Some(e.span),
        ast::ExprKind::App(f, _) if f.text == name => Some(f.span),
        _ => super::functions::children(e)
            .into_iter()
            .find_map(|c| find_use(c, name)),
    }
}
