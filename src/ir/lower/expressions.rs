//! Lowering expressions: names (definitions, parameters, the vocabulary), the operators with
//! their kind rules, associative chains as balanced trees, and `domain` / `range` (calls of
//! functions are `functions`' job).
use super::*;

const NOTE_SEQ: &str = "`;` composes relations; [S] turns a set S into a relation";
const NOTE_PRODUCT: &str = "`S * T` is the cartesian product of two sets; domain(r) and range(r) turn a relation into a set";
const NOTE_POSTFIX: &str = "`^-1`, `+`, `*` and `?` apply to relations";
const NOTE_BRACKET: &str = "`[S]` is the identity relation on a set S";
const NOTE_DOMAIN: &str = "`domain(r)` and `range(r)` take a relation and give a set";
const NOTE_SAME: &str =
    "[S] turns a set S into a relation; domain(r) and range(r) turn a relation into a set";

impl Lowerer {
    pub(super) fn lower_expr(&mut self, env: &Env, e: &ast::Expr) -> diag::Result<Lowered> {
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
            ast::ExprKind::LetIn {
                rec,
                bindings,
                body,
            } => self.lower_let_in(env, e.span, *rec, bindings, body)?,
            ast::ExprKind::If(cond, a, b) => self.lower_if(env, cond, a, b)?,
            ast::ExprKind::Try(a, b) => self.lower_try(env, a, b)?,
            ast::ExprKind::MatchSet {
                scrutinee,
                empty,
                element,
                rest,
                nonempty,
            } => self.lower_match_set(env, scrutinee, empty, [element, rest], nonempty)?,
        };
        self.bounded(env.file, e.span, l)
    }

    /// What `name` denotes: the scope, then the dialect's prelude.
    fn resolve(&mut self, env: &Env, name: &str) -> diag::Result<Option<Entry>> {
        match self.lookup(env, name) {
            Some(entry) => Ok(Some(entry)),
            None => self.prelude_entry(name),
        }
    }

    fn lower_var(&mut self, env: &Env, span: ast::Span, name: &str) -> diag::Result<Lowered> {
        match self.resolve(env, name)? {
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
                Some(k) => {
                    self.note_vocabulary_use(env.file, span, name);
                    Ok(Lowered::leaf(self.base(name), Some(k)))
                }
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
    pub(super) fn base(&mut self, name: &str) -> Expr {
        let typed =
            vocab::Name::from_name(name).unwrap_or(vocab::Name::Set(vocab::EventSet::Wildcard));
        let name = typed.name();
        let slot = match self.model.bases.iter().position(|b| *b == typed) {
            Some(slot) => slot,
            None => {
                self.model.bases.push(typed);
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
        match self.resolve(env, &f.text)? {
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
