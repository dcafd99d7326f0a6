//! `Mirror_<model>.v`: the boolean mirror of a model as a function of the execution, for
//! deciding the model on many executions inside Coq. For every definition `<x>` of
//! `Model_<model>.v`:
//! - `<x>_f n XB v_<y>…`: its mirror, tabulated by `bmat`/`bvec`, as a function of the values
//!   `v_<y>` of the definitions `<y>` it references (`Side::Bool(Refs::Bound)`: the one
//!   expression printer, `model::expr`), and `<x>_fr`: it reflects `<x> X` whenever `XB` mirrors
//!   `X` and each `v_<y>` reflects `<y> X`;
//! - `<x>_b n XB`: `<x>_f` applied to the `<y>_b n XB`, and `<x>_r` (a hint in `mc_reflect`).
//!
//! Every check likewise (`<c>_f`, `<c>_fdec`, `<c>_b`, `<c>_dec`). `<x>_b` recomputes each
//! reference, so `<model>_consistent_b` and `<model>_race_free_b` bind the execution's fields
//! tabulated (`btab`) and every definition their checks need once, in a `blet` chain, and their
//! `_dec` lemmas follow the chain with the `_fr` lemmas.
//!
//! A separate file rather than more of `Model_<model>.v`: the model file stays the statement a
//! reader audits, and the mirror (proved, so it needs no reading) is compiled only where it is
//! imported. Models with a `with … from` witness (PTX) have no mirror: the witness is a free
//! parameter there, which a function of the execution alone does not decide.
use std::fmt::Write;

use super::model::{check_text, expr, Names, Refs, Side};
use crate::ir::{DefBody, DefId, Expr, Kind, Step};

/// References to definitions are the bound values `v_<y>`.
const BOUND: Side = Side::Bool(Refs::Bound);

/// Whether the model gets a mirror file: only models without witnesses do.
pub fn has_mirror(names: &Names) -> bool {
    names.witnesses().is_empty()
}

/// The text of `Mirror_<prefix>.v`, importing `imports` (the model file among them).
pub(crate) fn print(names: &Names, imports: &str) -> String {
    let m = names.model;
    let mut out = super::text::header(
        &format!(
            "the boolean mirror of {} as a function of the execution",
            m.path
        ),
        imports,
    );
    // The conjunctions inside `blet`'s functions are not typed `bool` where they are parsed.
    out.push_str("Local Open Scope bool_scope.\n\n");
    for step in &m.steps {
        match step {
            Step::Define(id) => print_value(names, *id, &mut out),
            Step::Fixpoint(ids) => print_fixpoint(names, ids[0], &mut out),
            Step::Check(c) => print_check(names, *c, &mut out),
            Step::Choose(_) => unreachable!("models with witnesses have no mirror (has_mirror)"),
        }
    }
    let axioms: Vec<usize> = names.axioms().map(|(c, _)| c).collect();
    let flags: Vec<usize> = (0..m.checks.len()).filter(|c| m.checks[*c].flag).collect();
    print_chain(names, &names.consistent(), &axioms, false, &mut out);
    print_chain(names, &names.race_free(), &flags, true, &mut out);
    out
}

/// The definitions an expression references directly (not `me`, a `let rec` itself), in order.
fn refs(e: &Expr, me: Option<DefId>, out: &mut Vec<DefId>) {
    match e {
        Expr::Def(id) if Some(*id) != me && !out.contains(id) => out.push(*id),
        Expr::Binary(_, a, b) => {
            refs(a, me, out);
            refs(b, me, out);
        }
        Expr::Unary(_, a) => refs(a, me, out),
        _ => {}
    }
}

fn direct(e: &Expr, me: Option<DefId>) -> Vec<DefId> {
    let mut out = Vec::new();
    refs(e, me, &mut out);
    out.sort();
    out
}

/// The body of a definition (`let` or `let rec`), if it has one.
fn body<'m>(names: &Names<'m>, id: DefId) -> Option<&'m Expr> {
    match &names.model.defs[id].body {
        DefBody::Value(e) | DefBody::Fixpoint(e) => Some(e),
        _ => None,
    }
}

/// The definitions a definition's body references directly.
fn def_deps(names: &Names, id: DefId) -> Vec<DefId> {
    body(names, id).map_or_else(Vec::new, |e| direct(e, Some(id)))
}

/// The mirror's type, tabulation and reflection predicate for a definition of kind `kind`.
fn kind_words(kind: Kind) -> (&'static str, &'static str, &'static str) {
    match kind {
        Kind::Set => ("bset", "bvec", "reflects_set"),
        Kind::Rel => ("brel", "bmat", "reflects"),
    }
}

fn def_kind(names: &Names, id: DefId) -> Kind {
    match &names.model.defs[id].body {
        DefBody::Fixpoint(_) => Kind::Rel,
        _ => body(names, id).map_or(Kind::Rel, |e| names.model.kind_of(e)),
    }
}

/// The pieces of text that pass the values of definitions `deps` to a `_f` function.
struct Args {
    /// ` (v_y : brel)…`
    params: String,
    /// ` v_y…`
    vars: String,
    /// ` reflects n (y X) v_y ->…`
    premises: String,
    /// ` H_y…`: the premises' names.
    hyps: String,
    /// ` (y_b n XB)…`
    applied: String,
    /// ` (y_r n X XB H)…`: proofs of the premises for `applied`.
    proofs: String,
}

fn args(names: &Names, deps: &[DefId]) -> Args {
    let mut a = Args {
        params: String::new(),
        vars: String::new(),
        premises: String::new(),
        hyps: String::new(),
        applied: String::new(),
        proofs: String::new(),
    };
    for id in deps {
        let y = names.def(*id);
        let (ty, _, reflects) = kind_words(def_kind(names, *id));
        let _ = write!(a.params, " (v_{y} : {ty})");
        let _ = write!(a.vars, " v_{y}");
        let _ = write!(a.premises, " {reflects} n ({y} X) v_{y} ->");
        let _ = write!(a.hyps, " H_{y}");
        let _ = write!(a.applied, " ({y}_b n XB)");
        let _ = write!(a.proofs, " ({y}_r n X XB H)");
    }
    a
}

/// `let x = e`: `<x>_f`, `<x>_fr`, `<x>_b`, `<x>_r`.
fn print_value(names: &Names, id: DefId, out: &mut String) {
    let DefBody::Value(e) = &names.model.defs[id].body else {
        return; // functions are inlined at their calls
    };
    let (_, tab, _) = kind_words(names.model.kind_of(e));
    let value = format!("{tab} n {}", expr(names, BOUND, e, None));
    let x = names.def(id);
    let proof = format!("unfold {x}, {x}_f. reflect_tac.");
    print_def(names, id, &value, &proof, out);
}

/// `let rec x = …`: `<x>_f` is the least fixpoint of the body (`blfp`), proved against the
/// Inductive.
fn print_fixpoint(names: &Names, id: DefId, out: &mut String) {
    let DefBody::Fixpoint(e) = &names.model.defs[id].body else {
        return;
    };
    let value = format!(
        "blfp n (fun r => {})",
        expr(names, BOUND, e, Some((id, "r")))
    );
    let x = names.def(id);
    let proof = format!(
        "unfold {x}_f.\n  apply (lfp_reflects n ({x} X) ({x}_F X)); unfold {x}_F;\n    \
         [mono_tac | lfp_ctor_tac | lfp_ind_tac | lfp_bF_tac]."
    );
    print_def(names, id, &value, &proof, out);
}

fn print_def(names: &Names, id: DefId, value: &str, proof: &str, out: &mut String) {
    let x = names.def(id);
    let (ty, _, reflects) = kind_words(def_kind(names, id));
    let a = args(names, &def_deps(names, id));
    let _ = writeln!(
        out,
        "Definition {x}_f (n : nat) (XB : bexec){} : {ty} := {value}.\n\
         Lemma {x}_fr : forall n X XB{}, exec_reflects n X XB ->{} {reflects} n ({x} X) ({x}_f n XB{}).\n\
         Proof.\n  intros n X XB{} H{}. {proof}\nQed.\n\
         Definition {x}_b (n : nat) (XB : bexec) : {ty} := {x}_f n XB{}.\n\
         Lemma {x}_r : forall n X XB, exec_reflects n X XB -> {reflects} n ({x} X) ({x}_b n XB).\n\
         Proof. intros n X XB H. exact ({x}_fr n X XB{} H{}). Qed.\n\
         Global Hint Resolve {x}_r : mc_reflect.\n",
        a.params, a.vars, a.premises, a.vars, a.vars, a.hyps, a.applied, a.applied, a.proofs
    );
}

/// A check: `<c>_f`, `<c>_fdec`, `<c>_b`, `<c>_dec`.
fn print_check(names: &Names, c: usize, out: &mut String) {
    let name = names.check(c);
    let a = args(names, &direct(&names.model.checks[c].expr, None));
    let _ = writeln!(
        out,
        "Definition {name}_f (n : nat) (XB : bexec){} : bool := {}.\n\
         Lemma {name}_fdec : forall n X XB{}, exec_reflects n X XB ->{} ({name}_f n XB{} = true <-> {name} X).\n\
         Proof. intros n X XB{} H{}. unfold {name}, {name}_f. check_tac. Qed.\n\
         Definition {name}_b (n : nat) (XB : bexec) : bool := {name}_f n XB{}.\n\
         Lemma {name}_dec : forall n X XB, exec_reflects n X XB -> ({name}_b n XB = true <-> {name} X).\n\
         Proof. intros n X XB H. exact ({name}_fdec n X XB{} H{}). Qed.\n\
         Global Hint Resolve {name}_dec : mc_reflect.\n",
        a.params,
        check_text(names, BOUND, &names.model.checks[c]),
        a.vars,
        a.premises,
        a.vars,
        a.vars,
        a.hyps,
        a.applied,
        a.applied,
        a.proofs
    );
}

/// Every definition the checks `checks` need, directly or through other definitions, in the
/// order they are defined.
fn needed(names: &Names, checks: &[usize]) -> Vec<DefId> {
    let mut todo: Vec<DefId> = checks
        .iter()
        .flat_map(|c| direct(&names.model.checks[*c].expr, None))
        .collect();
    let mut seen = Vec::new();
    while let Some(id) = todo.pop() {
        if !seen.contains(&id) {
            seen.push(id);
            todo.extend(def_deps(names, id));
        }
    }
    seen.sort();
    seen
}

/// `XB` with the fields that `checks` and the definitions `defs` read tabulated (`bmat`,
/// `bvec`): a literal's field searches a list at every lookup. Only those: tabulating a field
/// costs n·n such searches.
fn tabulated(names: &Names, checks: &[usize], defs: &[DefId]) -> String {
    let mut read = vec!["E".to_string()]; // complements, `*` and `?` read the events
    for c in checks {
        fields_read(&names.model.checks[*c].expr, &mut read);
    }
    for id in defs {
        if let Some(e) = body(names, *id) {
            fields_read(e, &mut read);
        }
    }
    let items: Vec<String> = super::exec::fields()
        .into_iter()
        .map(|(f, kind)| {
            let value = if read.iter().any(|r| r == f) {
                let (_, tab, _) = kind_words(kind);
                format!("{tab} n (b_{f} XB)")
            } else {
                format!("b_{f} XB")
            };
            format!("b_{f} := {value}")
        })
        .collect();
    format!("{{| {} |}}", items.join("; "))
}

/// The vocabulary names an expression reads (`_` is `E`).
fn fields_read(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Base { name, .. } => {
            let f = if *name == "_" { "E" } else { name };
            if !out.iter().any(|r| r == f) {
                out.push(f.to_string());
            }
        }
        Expr::Binary(_, a, b) => {
            fields_read(a, out);
            fields_read(b, out);
        }
        Expr::Unary(_, a) => fields_read(a, out),
        Expr::Def(_) | Expr::Empty(_) => {}
    }
}

/// `<prop>_b` (the conjunction of checks `checks`, negated when they are flags) with the
/// fields they read tabulated and every definition they need bound once (`blet`), and `<prop>_dec`, proved by following the chain
/// with the `_fr` lemmas and deciding each check with its `_fdec`.
fn print_chain(names: &Names, prop: &str, checks: &[usize], flags: bool, out: &mut String) {
    let chain = needed(names, checks);
    // First the execution itself, the fields read tabulated, under the same name `XB`.
    let mut lets = format!("\n  blet {} (fun XB =>", tabulated(names, checks, &chain));
    let mut steps =
        "\n  apply (blet_dec (exec_reflects n X)); [destruct H; constructor; simpl;\n    \
                     first [apply bmat_reflects | apply bvec_reflects | idtac]; assumption\n    \
                     | clear H XB; intros XB H]."
            .to_string();
    for id in &chain {
        let y = names.def(*id);
        let a = args(names, &def_deps(names, *id));
        let (_, _, reflects) = kind_words(def_kind(names, *id));
        let _ = write!(lets, "\n  blet ({y}_f n XB{}) (fun v_{y} =>", a.vars);
        let _ = write!(
            steps,
            "\n  apply (blet_dec ({reflects} n ({y} X)) _ _ _ ({y}_fr n X XB{} H{})); intros v_{y} H_{y}.",
            a.vars, a.hyps
        );
    }
    let mut items = Vec::new();
    let mut proofs = Vec::new();
    for c in checks {
        let name = names.check(*c);
        let a = args(names, &direct(&names.model.checks[*c].expr, None));
        let (item, proof) = (
            format!("{name}_f n XB{}", a.vars),
            format!("{name}_fdec n X XB{} H{}", a.vars, a.hyps),
        );
        if flags {
            items.push(BOUND.not(&item));
            proofs.push(format!("negb_dec _ _ ({proof})"));
        } else {
            items.push(format!("({item})"));
            proofs.push(proof);
        }
    }
    let _ = writeln!(
        out,
        "Definition {prop}_b (n : nat) (XB : bexec) : bool :={}\n  {}{}.\n\
         Lemma {prop}_dec : forall n X XB, exec_reflects n X XB -> ({prop}_b n XB = true <-> {prop} X).\n\
         Proof.\n  intros n X XB H. unfold {prop}_b.{steps}\n  exact ({}).\nQed.\n\
         Global Hint Resolve {prop}_dec : mc_reflect.\n",
        lets,
        BOUND.and(&items),
        ")".repeat(chain.len() + 1),
        and_proof(&proofs)
    );
}

/// The proof of `a && (b && …) = true <-> A /\ (B /\ …)` (`Side::and`'s nesting) from the
/// proofs of each conjunct.
pub(crate) fn and_proof(proofs: &[String]) -> String {
    match proofs {
        [] => "true_dec".to_string(),
        [one] => one.clone(),
        [first, rest @ ..] => format!("andb_dec _ _ _ _ ({first}) ({})", and_proof(rest)),
    }
}

/// `Lemma <lemma> : [~] <prop> <m>.X.`, for `prop` the model's `consistent` or `race_free`,
/// proved through the mirror as a function of the execution: `vm_compute` of
/// `<prop>_b <m>.n <m>.XB` (module `m` from `concrete::module`).
pub fn decided_lemma(lemma: &str, prop: &str, m: &str, holds: bool) -> String {
    let dec = format!("({prop}_dec {m}.n {m}.X {m}.XB (of_bexec_reflects {m}.n {m}.XB))");
    super::concrete::decided(lemma, &format!("{prop} {m}.X"), &dec, holds)
}
