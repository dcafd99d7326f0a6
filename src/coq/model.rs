//! One cat model as a Coq file: every `let` as a Definition over an execution record, each
//! `let rec` as an Inductive (its least fixpoint), each `with w from linearisations(S, o)` as a
//! parameter `w` of everything after it (with the Prop `<w>_lin` saying what it ranges over),
//! every check as a Prop. The cat text of each binding is the comment above it. The boolean
//! mirror of the same expressions (`Side::Bool`) is printed over concrete executions by
//! `concrete` (closed constants) and as functions of the execution by `mirror`.
use std::fmt::Write;

use super::text::{coq_comment, ident};
use crate::cat::ast::CheckKind;
use crate::diag;
use crate::ir::{BinOp, Check, DefBody, DefId, Expr, Kind, Model, Op1, Step};

/// The Coq names of one model's definitions, qualified by the model's prefix, and the witnesses
/// each definition and check is a function of.
pub struct Names<'m> {
    pub(crate) model: &'m Model,
    /// Prefix of every Coq name of the model (`rc11_scoped` for `rc11_scoped.cat`).
    pub prefix: String,
    defs: Vec<String>,
    checks: Vec<String>,
    def_scope: Vec<Vec<DefId>>,
    check_scope: Vec<Vec<DefId>>,
}

impl<'m> Names<'m> {
    /// Unique Coq names for `model`'s definitions (`<prefix>_<name>`) and checks
    /// (`<prefix>_ax_<name>`, `<prefix>_flag_<name>`).
    pub fn new(model: &'m Model, prefix: &str) -> Names<'m> {
        let mut taken = std::collections::HashSet::new();
        let mut unique = |base: String| {
            let mut name = base.clone();
            let mut k = 2;
            while !taken.insert(name.clone()) {
                name = format!("{base}_{k}");
                k += 1;
            }
            name
        };
        let defs = model
            .defs
            .iter()
            .map(|d| unique(format!("{prefix}_{}", ident(&d.name))))
            .collect();
        let checks = model
            .checks
            .iter()
            .map(|c| {
                let role = if c.flag { "flag" } else { "ax" };
                unique(format!("{prefix}_{role}_{}", ident(&c.name)))
            })
            .collect();
        let (def_scope, check_scope) = witness_scopes(model);
        Names {
            model,
            prefix: prefix.to_string(),
            defs,
            checks,
            def_scope,
            check_scope,
        }
    }

    /// The witnesses chosen before definition `id` (its parameters).
    pub(crate) fn def_scope(&self, id: DefId) -> &[DefId] {
        &self.def_scope[id]
    }

    /// The witnesses chosen before check `c`.
    pub(crate) fn check_scope(&self, c: usize) -> &[DefId] {
        &self.check_scope[c]
    }

    /// Every witness of the model, in the order they are chosen.
    pub(crate) fn witnesses(&self) -> Vec<DefId> {
        self.model.witnesses.iter().map(|w| w.def).collect()
    }

    /// ` w1 w2`: the witness arguments of something in `scope`.
    pub(crate) fn args(&self, scope: &[DefId]) -> String {
        scope.iter().map(|w| format!(" {}", self.def(*w))).collect()
    }

    /// ` (w1 : rel) (w2 : rel)`: the witness parameters of something in `scope`.
    pub(crate) fn params(&self, scope: &[DefId]) -> String {
        scope
            .iter()
            .map(|w| format!(" ({} : rel)", self.def(*w)))
            .collect()
    }

    /// `<check> X w…`: a check applied to an execution.
    pub(crate) fn check_call(&self, c: usize, x: &str) -> String {
        format!("{} {x}{}", self.check(c), self.args(self.check_scope(c)))
    }

    /// `<w>_lin X w…`: the witness `w` ranges over linearisations, as a Prop of `x`.
    pub(crate) fn lin_call(&self, w: DefId, x: &str) -> String {
        let mut scope = self.def_scope(w).to_vec();
        scope.push(w);
        format!("{}_lin {x}{}", self.def(w), self.args(&scope))
    }

    /// The conjunction `consistent` stands for: each witness a linearisation, each axiom.
    pub(crate) fn consistent_body(&self, x: &str) -> String {
        let mut items: Vec<String> = self
            .witnesses()
            .iter()
            .map(|w| self.lin_call(*w, x))
            .collect();
        items.extend(self.axioms().map(|(c, _)| self.check_call(c, x)));
        Side::Prop.and(&items)
    }

    pub(crate) fn def(&self, id: DefId) -> &str {
        &self.defs[id]
    }

    /// The Coq name of check `c` (an index into the model's `checks`).
    pub fn check(&self, c: usize) -> &str {
        &self.checks[c]
    }

    /// `<prefix>_consistent`: every non-flag check holds.
    pub fn consistent(&self) -> String {
        format!("{}_consistent", self.prefix)
    }

    /// `<prefix>_race_free`: no flag is raised.
    pub fn race_free(&self) -> String {
        format!("{}_race_free", self.prefix)
    }

    /// The non-flag checks (the model's axioms), in order.
    pub fn axioms(&self) -> impl Iterator<Item = (usize, &'m Check)> {
        self.model
            .checks
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.flag)
    }
}

/// Which reading of an expression to print: the predicate over `X : exec`, or its boolean
/// mirror, whose references to named things (definitions, checks) take the form `Refs` says.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Prop,
    Bool(Refs),
}

/// How the boolean mirror names a definition or check `<x>`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refs {
    /// `<x>_c`: a closed constant inside a concrete execution's Module (`concrete`), where `n`
    /// and `XB` are constants too; `vm_compute` evaluates it once.
    Closed,
    /// `(<x>_b n XB)`: the mirror as a function of the execution (`mapping`'s event sets),
    /// recomputed at every reference.
    Applied,
    /// `v_<x>`: a variable bound to the value, computed once (`mirror`: the parameters of its
    /// `_f` functions and its `blet` chains).
    Bound,
}

/// The boolean mirror as a function of `n` and `XB` (`Refs::Applied`).
pub(crate) const APPLIED: Side = Side::Bool(Refs::Applied);

impl Side {
    /// The library name of an operator on this side (`union` / `bunion`).
    pub(crate) fn op(self, prop: &str) -> String {
        match self {
            Side::Prop => prop.to_string(),
            Side::Bool(_) => format!("b{prop}"),
        }
    }

    /// An operator that quantifies over the events: the Bool side takes `n`.
    pub(crate) fn op_n(self, prop: &str) -> String {
        match self {
            Side::Prop => prop.to_string(),
            Side::Bool(_) => format!("b{prop} n"),
        }
    }

    /// The execution's value of a vocabulary name (`_` is `E`).
    pub(crate) fn base(self, name: &str) -> String {
        self.field(name, "X")
    }

    /// The value of a vocabulary name in execution `x` (`Xs` on the Prop side, `XBs` on the
    /// Bool side).
    pub(crate) fn field(self, name: &str, x: &str) -> String {
        let field = if name == "_" { "E" } else { name };
        match self {
            Side::Prop => format!("({field} {x})"),
            Side::Bool(_) => format!("(b_{field} {})", x.replacen('X', "XB", 1)),
        }
    }

    /// The value of the named definition or check `name` in execution `x` (witness arguments
    /// aside): `(<name> X)` on the Prop side, the mirror's form (`Refs`) on the Bool side.
    pub(crate) fn named(self, name: &str, x: &str) -> String {
        match self {
            Side::Prop => format!("({name} {x})"),
            Side::Bool(Refs::Closed) => format!("{name}_c"),
            Side::Bool(Refs::Applied) => format!("({name}_b n {})", x.replacen('X', "XB", 1)),
            Side::Bool(Refs::Bound) => format!("v_{name}"),
        }
    }

    /// `~ (a)` or `negb (a)`.
    pub(crate) fn not(self, a: &str) -> String {
        match self {
            Side::Prop => format!("~ ({a})"),
            Side::Bool(_) => format!("negb ({a})"),
        }
    }

    /// `a /\ b /\ …` or `a && (b && …)`, right-nested like Coq's `/\`.
    pub(crate) fn and(self, items: &[String]) -> String {
        let (op, unit) = match self {
            Side::Prop => ("/\\", "True"),
            Side::Bool(_) => ("&&", "true"),
        };
        match items {
            [] => unit.to_string(),
            [one] => one.clone(),
            [first, rest @ ..] => format!("{first} {op} ({})", self.and(rest)),
        }
    }

    fn events(self) -> String {
        self.base("E")
    }
}

/// For each definition and each check, the witnesses chosen before it.
fn witness_scopes(model: &Model) -> (Vec<Vec<DefId>>, Vec<Vec<DefId>>) {
    let mut defs = vec![Vec::new(); model.defs.len()];
    let mut checks = vec![Vec::new(); model.checks.len()];
    let mut chosen = Vec::new();
    for step in &model.steps {
        match step {
            Step::Define(id) => defs[*id] = chosen.clone(),
            Step::Fixpoint(ids) => ids.iter().for_each(|id| defs[*id] = chosen.clone()),
            Step::Check(c) => checks[*c] = chosen.clone(),
            Step::Choose(w) => {
                let def = model.witnesses[*w].def;
                defs[def] = chosen.clone();
                chosen.push(def);
            }
        }
    }
    (defs, checks)
}

/// The Coq text of an expression; `self_ref` names the relation variable standing for the
/// `let rec` being defined, if any.
pub(crate) fn expr(names: &Names, side: Side, e: &Expr, self_ref: Option<(DefId, &str)>) -> String {
    let sub = |e: &Expr| expr(names, side, e, self_ref);
    let kind = |e: &Expr| names.model.kind_of(e);
    match e {
        Expr::Empty(Kind::Set) => side.op("set0"),
        Expr::Empty(Kind::Rel) => side.op("rel0"),
        Expr::Base { name, .. } => side.base(name),
        Expr::Def(id) => match (self_ref, side, &names.model.defs[*id].body) {
            (Some((me, var)), ..) if me == *id => var.to_string(),
            (_, Side::Prop, DefBody::Witness(_)) => names.def(*id).to_string(),
            (_, Side::Prop, _) => {
                format!("({} X{})", names.def(*id), names.args(names.def_scope(*id)))
            }
            (_, Side::Bool(_), _) => side.named(names.def(*id), "X"),
        },
        Expr::Binary(op, a, b) => {
            let set = kind(a) == Kind::Set;
            let name = match (op, set) {
                (BinOp::Union, true) => side.op("set_union"),
                (BinOp::Union, false) => side.op("union"),
                (BinOp::Inter, true) => side.op("set_inter"),
                (BinOp::Inter, false) => side.op("inter"),
                (BinOp::Diff, true) => side.op("set_minus"),
                (BinOp::Diff, false) => side.op("minus"),
                (BinOp::Seq, _) => side.op_n("seq"),
                (BinOp::Product, _) => side.op("cross"),
            };
            format!("({name} {} {})", sub(a), sub(b))
        }
        Expr::Unary(op, a) => {
            let events = side.events();
            let set = kind(a) == Kind::Set;
            let head = match op {
                Op1::Complement if set => format!("{} {events}", side.op("set_compl")),
                Op1::Complement => format!("{} {events}", side.op("compl")),
                Op1::Inverse => side.op("inv"),
                Op1::Plus => side.op_n("tc"),
                Op1::Star => format!("{} {events}", side.op_n("rtc")),
                Op1::Opt => format!("{} {events}", side.op("opt")),
                Op1::IdOn => side.op("id_on"),
                Op1::Domain => side.op_n("domain"),
                Op1::Range => side.op_n("range"),
            };
            format!("({head} {})", sub(a))
        }
    }
}

/// The Coq statement of a check (Prop) or its decision (bool).
pub(crate) fn check_text(names: &Names, side: Side, c: &Check) -> String {
    let set = names.model.kind_of(&c.expr) == Kind::Set;
    let word = match (c.kind, set) {
        (CheckKind::Acyclic, _) => side.op_n("acyclic"),
        (CheckKind::Irreflexive, _) => side.op_n("irreflexive"),
        (CheckKind::Empty, true) => side.op_n("set_empty"),
        (CheckKind::Empty, false) => side.op_n("empty"),
    };
    let body = format!("{word} {}", expr(names, side, &c.expr, None));
    if c.negated {
        side.not(&body)
    } else {
        body
    }
}

/// The whole model file.
pub(crate) fn print(names: &Names, imports: &str) -> diag::Result<String> {
    let m = names.model;
    let mut out = super::text::header(&format!("the model {}", m.path), imports);
    for step in &m.steps {
        match step {
            Step::Define(id) => print_value(names, *id, &mut out),
            Step::Fixpoint(ids) => print_fixpoint(names, ids, &mut out)?,
            Step::Check(c) => print_check(names, *c, &mut out),
            Step::Choose(w) => print_witness(names, *w, &mut out),
        }
    }
    print_summary(names, &mut out)?;
    Ok(out)
}

pub(crate) fn kind_type(kind: Kind) -> &'static str {
    match kind {
        Kind::Set => "set",
        Kind::Rel => "rel",
    }
}

fn print_value(names: &Names, id: DefId, out: &mut String) {
    let d = &names.model.defs[id];
    let DefBody::Value(e) = &d.body else {
        return; // functions are inlined at their calls
    };
    let body = expr(names, Side::Prop, e, None);
    let kind = kind_type(names.model.kind_of(e));
    let params = names.params(names.def_scope(id));
    definition(&d.source_text, names.def(id), &params, kind, &body, out);
}

/// `(* cat text *) Definition <name> (X : exec) <params> : <ty> := <body>.`
fn definition(cat: &str, name: &str, params: &str, ty: &str, body: &str, out: &mut String) {
    let _ = writeln!(
        out,
        "{}\nDefinition {name} (X : exec){params} : {ty} := {body}.\n",
        coq_comment(cat)
    );
}

/// `with w from linearisations(S, o)`: the Prop that `w` is one (its value is a parameter of
/// everything after it).
fn print_witness(names: &Names, w: usize, out: &mut String) {
    let witness = &names.model.witnesses[w];
    let mut scope = names.def_scope(witness.def).to_vec();
    scope.push(witness.def);
    let name = names.def(witness.def);
    let body = format!(
        "linearisation (E X) {} {} {name}",
        expr(names, Side::Prop, &witness.set, None),
        expr(names, Side::Prop, &witness.order, None)
    );
    let params = names.params(&scope);
    definition(
        &witness.source_text,
        &format!("{name}_lin"),
        &params,
        "Prop",
        &body,
        out,
    );
}

/// A `let rec` variable: an Inductive with one constructor per top-level union branch, each
/// branch a `;`-chain whose atoms are the variable itself or expressions without it.
fn print_fixpoint(names: &Names, ids: &[DefId], out: &mut String) -> diag::Result<()> {
    let m = names.model;
    if ids.iter().any(|id| !names.def_scope(*id).is_empty()) {
        return Err(diag::Error::file(
            &m.path,
            "the Coq export handles `let rec` before any `with … from` witness only",
        ));
    }
    let [id] = ids else {
        return Err(diag::Error::file(
            &m.path,
            format!(
                "the Coq export handles `let rec` with one variable, not a group of {}",
                ids.len()
            ),
        ));
    };
    let d = &m.defs[*id];
    let DefBody::Fixpoint(body) = &d.body else {
        unreachable!("a Fixpoint step names fixpoint definitions")
    };
    let name = names.def(*id);
    let mut ctors = Vec::new();
    for (k, branch) in flatten(BinOp::Union, body).into_iter().enumerate() {
        let atoms = flatten(BinOp::Seq, branch);
        let vars = chain_vars(atoms.len());
        let mut premises = Vec::new();
        for (i, atom) in atoms.iter().enumerate() {
            let (a, b) = (&vars[i], &vars[i + 1]);
            let premise = if matches!(atom, Expr::Def(x) if x == id) {
                format!("{name} X {a} {b}")
            } else if mentions(atom, *id) {
                return Err(diag::Error::file(
                    &m.path,
                    format!(
                        "`let rec {}`: the Coq export needs each union branch of the body to \
                         be a `;`-chain whose parts are `{}` itself or do not mention it",
                        d.name, d.name
                    ),
                ));
            } else {
                format!("{} {a} {b}", expr(names, Side::Prop, atom, None))
            };
            premises.push(premise);
        }
        ctors.push(format!(
            "| {name}_{} : forall {}, {} -> {name} X {} {}",
            k + 1,
            vars.join(" "),
            premises.join(" -> "),
            vars[0],
            vars[vars.len() - 1]
        ));
    }
    let _ = writeln!(
        out,
        "{}\nInductive {name} (X : exec) : rel :=\n{}.\n\n\
         (* The body of {name} as a function of the relation it defines. *)\n\
         Definition {name}_F (X : exec) (r : rel) : rel := {}.\n",
        coq_comment(&d.source_text),
        ctors.join("\n"),
        expr(names, Side::Prop, body, Some((*id, "r")))
    );
    Ok(())
}

fn chain_vars(atoms: usize) -> Vec<String> {
    let mut vars = vec!["x".to_string()];
    vars.extend((1..atoms).map(|i| format!("z{i}")));
    vars.push("y".to_string());
    vars
}

/// The operands of nested applications of `op` (left to right).
fn flatten(op: BinOp, e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Binary(o, a, b) if *o == op => {
            let mut v = flatten(op, a);
            v.extend(flatten(op, b));
            v
        }
        _ => vec![e],
    }
}

fn mentions(e: &Expr, id: DefId) -> bool {
    match e {
        Expr::Def(x) => *x == id,
        Expr::Binary(_, a, b) => mentions(a, id) || mentions(b, id),
        Expr::Unary(_, a) => mentions(a, id),
        Expr::Empty(_) | Expr::Base { .. } => false,
    }
}

fn print_check(names: &Names, c: usize, out: &mut String) {
    let check = &names.model.checks[c];
    let body = check_text(names, Side::Prop, check);
    let params = names.params(names.check_scope(c));
    definition(
        &check.source_text,
        names.check(c),
        &params,
        "Prop",
        &body,
        out,
    );
}

/// `<prefix>_consistent` (some choice of the witnesses makes every axiom hold) and
/// `<prefix>_race_free` (no flag is raised).
fn print_summary(names: &Names, out: &mut String) -> diag::Result<()> {
    let witnesses: Vec<&str> = names.witnesses().iter().map(|w| names.def(*w)).collect();
    let exists = if witnesses.is_empty() {
        String::new()
    } else {
        format!("exists {}, ", witnesses.join(" "))
    };
    if names
        .model
        .checks
        .iter()
        .enumerate()
        .any(|(c, k)| k.flag && !names.check_scope(c).is_empty())
    {
        return Err(diag::Error::file(
            &names.model.path,
            "the Coq export handles flags before any `with … from` witness only",
        ));
    }
    let _ = writeln!(
        out,
        "(* Some choice of the witnesses makes every axiom hold. *)\n\
         Definition {} (X : exec) : Prop := {exists}{}.\n\n\
         (* No flag is raised. *)\n\
         Definition {} (X : exec) : Prop := {}.\n",
        names.consistent(),
        names.consistent_body("X"),
        names.race_free(),
        race_free_body(names, Side::Prop)
    );
    if witnesses.is_empty() {
        // Each axiom on its own, for proofs that use one of them.
        let axioms: Vec<(String, String)> = names
            .axioms()
            .map(|(c, _)| {
                let check = names.check(c);
                let axiom = check.strip_prefix(&format!("{}_ax_", names.prefix));
                (names.check_call(c, "X"), axiom.unwrap_or(check).to_string())
            })
            .collect();
        let (props, checks): (Vec<String>, Vec<String>) = axioms.into_iter().unzip();
        out.push_str(&super::text::projections(
            &names.consistent(),
            &format!("forall X, {} X", names.consistent()),
            &props,
            &checks,
        ));
    }
    Ok(())
}

/// The conjunction of the flags' negations, as a Prop of `X` or a mirror (flags come before any
/// witness, `print_summary`, so they take no witness arguments).
pub(crate) fn race_free_body(names: &Names, side: Side) -> String {
    let items: Vec<String> = names
        .model
        .checks
        .iter()
        .enumerate()
        .filter(|(_, c)| c.flag)
        .map(|(c, _)| side.not(&side.named(names.check(c), "X")))
        .collect();
    side.and(&items)
}

/// The three models of an export.
pub(crate) struct Models<'a> {
    pub(crate) wf: &'a Names<'a>,
    pub(crate) source: &'a Names<'a>,
    pub(crate) target: &'a Names<'a>,
}
