//! Concrete executions in Coq: an `Execution` (through `Execution::base`, the very values the
//! evaluator reads) printed as a `bexec` literal inside a Module, with a mirror of each model
//! over it: every definition as a closed boolean constant (`<name>_c`, tabulated once by
//! `bmat`/`bvec`, so `vm_compute` evaluates it once), a lemma that it reflects the Prop
//! definition for any execution `X` the literal mirrors, and each check decided (`<check>_cd`).
use std::fmt::Write;

use super::exec::fields;
use super::model::{check_text, expr, race_free_body, Names, Refs, Side};
use crate::eval::Base;
use crate::ir::{DefBody, DefId, Kind, Step};

/// The mirror over one concrete execution: every definition a closed constant `<name>_c`.
const CLOSED: Side = Side::Bool(Refs::Closed);

/// `{| b_po := brel_of_list [...]; … |}` for the execution whose vocabulary values are `base`.
pub(crate) fn bexec_literal(base: &Base) -> String {
    let mut items = Vec::new();
    for (field, kind) in fields() {
        let value = match kind {
            Kind::Set => base.sets.get(field).map(|s| {
                let elems: Vec<String> = s.iter().map(|e| e.to_string()).collect();
                format!("bset_of_list [{}]", elems.join("; "))
            }),
            Kind::Rel => base.rels.get(field).map(|r| {
                let pairs: Vec<String> = r.pairs().map(|(a, b)| format!("({a}, {b})")).collect();
                format!("brel_of_list [{}]", pairs.join("; "))
            }),
        };
        let value = value.unwrap_or_else(|| match kind {
            Kind::Set => "bset0".into(),
            Kind::Rel => "brel0".into(),
        });
        items.push(format!("  b_{field} := {value}"));
    }
    format!("{{|\n{}\n|}}", items.join(";\n"))
}

/// `Module <name>`: the execution of `base` and the mirrors of `models` over it. Each lemma
/// holds for any execution `Y` the literal mirrors (`exec_reflects n Y XB`) and any witness
/// values it mirrors; `<name>.X` is the execution itself. Witnesses are given the values the
/// evaluator chooses (`eval::evaluate_named`).
pub fn module(name: &str, base: &Base, models: &[&Names]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Module {name}.\nDefinition n : nat := {}.\nDefinition XB : bexec := {}.\n\
         Notation X := (of_bexec n XB).\n",
        base.n,
        bexec_literal(base)
    );
    for names in models {
        mirror(names, base, &mut out);
    }
    let _ = writeln!(out, "End {name}.\n");
    out
}

/// `forall Y, exec_reflects n Y XB -> forall w, reflects n w w_c -> …` for something in
/// `scope`, the matching `intros`, and the witness arguments.
fn binder(names: &Names, scope: &[DefId]) -> (String, String) {
    let mut binder = "forall Y, exec_reflects n Y XB -> ".to_string();
    let mut intros = "intros Y HY".to_string();
    for (k, w) in scope.iter().enumerate() {
        let w = names.def(*w);
        let _ = write!(binder, "forall {w}, reflects n {w} {w}_c -> ");
        let _ = write!(intros, " {w} Hw{k}");
    }
    (binder, intros)
}

/// ` (rel_of m.n m.w_c) …`: the evaluator's witness values in module `m`, as relations.
fn witness_values(names: &Names, m: &str, scope: &[DefId]) -> Vec<String> {
    scope
        .iter()
        .map(|w| format!("(rel_of {m}.n {m}.{}_c)", names.def(*w)))
        .collect()
}

fn mirror(names: &Names, base: &Base, out: &mut String) {
    let m = names.model;
    for step in &m.steps {
        match step {
            Step::Define(id) => mirror_value(names, *id, out),
            Step::Fixpoint(ids) => mirror_fixpoint(names, ids[0], out),
            Step::Check(c) => {
                let name = names.check(*c);
                let (binder, intros) = binder(names, names.check_scope(*c));
                let _ = writeln!(
                    out,
                    "Definition {name}_c : bool := {}.\n\
                     Lemma {name}_cd : {binder}({name}_c = true <-> {}).\n\
                     Proof. {intros}. unfold {name}, {name}_c. check_tac. Qed.\n\
                     #[local] Hint Resolve {name}_cd : mc_reflect.",
                    check_text(names, CLOSED, &m.checks[*c]),
                    names.check_call(*c, "Y")
                );
            }
            Step::Choose(w) => mirror_witness(names, base, *w, out),
        }
    }
    mirror_summary(names, out);
}

fn mirror_value(names: &Names, id: DefId, out: &mut String) {
    let m = names.model;
    let DefBody::Value(e) = &m.defs[id].body else {
        return;
    };
    let name = names.def(id);
    let (tab, reflects) = match m.kind_of(e) {
        Kind::Set => ("bvec", "reflects_set"),
        Kind::Rel => ("bmat", "reflects"),
    };
    let scope = names.def_scope(id);
    let (binder, intros) = binder(names, scope);
    let _ = writeln!(
        out,
        "Definition {name}_c := {tab} n {}.\n\
         Lemma {name}_cr : {binder}{reflects} n ({name} Y{}) {name}_c.\n\
         Proof. {intros}. unfold {name}, {name}_c. reflect_tac. Qed.\n\
         #[local] Hint Resolve {name}_cr : mc_reflect.",
        expr(names, CLOSED, e, None),
        names.args(scope)
    );
}

fn mirror_fixpoint(names: &Names, id: DefId, out: &mut String) {
    let DefBody::Fixpoint(body) = &names.model.defs[id].body else {
        return;
    };
    let name = names.def(id);
    let _ = writeln!(
        out,
        "Definition {name}_cF (r : brel) : brel := {}.\n\
         Definition {name}_c := blfp n {name}_cF.\n\
         Lemma {name}_cr : forall Y, exec_reflects n Y XB -> reflects n ({name} Y) {name}_c.\n\
         Proof.\n  intros Y HY. unfold {name}_c.\n  apply (lfp_reflects n ({name} Y) ({name}_F Y) {name}_cF); \
         unfold {name}_F, {name}_cF;\n    [mono_tac | lfp_ctor_tac | lfp_ind_tac | lfp_bF_tac].\nQed.\n\
         #[local] Hint Resolve {name}_cr : mc_reflect.",
        expr(names, CLOSED, body, Some((id, "r")))
    );
}

/// The evaluator's value of witness `w` on this execution, its Prop `<w>_lin` decided.
fn mirror_witness(names: &Names, base: &Base, w: usize, out: &mut String) {
    let witness = &names.model.witnesses[w];
    let name = names.def(witness.def);
    let pairs: Vec<String> = match crate::eval::evaluate_named(names.model, base, &witness.name) {
        Some(crate::eval::Value::Rel(r)) => r.pairs().map(|(a, b)| format!("({a}, {b})")).collect(),
        _ => Vec::new(),
    };
    let mut scope = names.def_scope(witness.def).to_vec();
    scope.push(witness.def);
    let (binder, intros) = binder(names, &scope);
    let _ = writeln!(
        out,
        "(* The evaluator's choice of {name}. *)\n\
         Definition {name}_c : brel := brel_of_list [{}].\n\
         Definition {name}_lin_c : bool := blinearisation n (b_E XB) {} {} {name}_c.\n\
         Lemma {name}_lin_cd : {binder}({name}_lin_c = true <-> {}).\n\
         Proof. {intros}. unfold {name}_lin, {name}_lin_c. apply linearisation_dec; reflect_tac. Qed.\n\
         #[local] Hint Resolve {name}_lin_cd : mc_reflect.",
        pairs.join("; "),
        expr(names, CLOSED, &witness.set, None),
        expr(names, CLOSED, &witness.order, None),
        names.lin_call(witness.def, "Y")
    );
}

/// `<prefix>_consistent_c`, decided for the mirrored witnesses (`_cd`) and implying
/// consistency (`_ok`); `<prefix>_race_free_c` decided (`_cd`).
fn mirror_summary(names: &Names, out: &mut String) {
    let witnesses = names.witnesses();
    let mut items: Vec<String> = witnesses
        .iter()
        .map(|w| format!("{}_lin_c", names.def(*w)))
        .collect();
    items.extend(names.axioms().map(|(c, _)| format!("{}_c", names.check(c))));
    let name = names.consistent();
    let (binder, intros) = binder(names, &witnesses);
    let choose: String = witnesses
        .iter()
        .map(|w| format!(" exists (rel_of n {}_c).", names.def(*w)))
        .collect();
    let args: String = witnesses
        .iter()
        .map(|w| format!(" (rel_of n {}_c) rel_of_reflects", names.def(*w)))
        .collect();
    let race = names.race_free();
    let _ = writeln!(
        out,
        "Definition {name}_c : bool := {}.\n\
         Lemma {name}_cd : {binder}({name}_c = true <-> {}).\n\
         Proof. {intros}. unfold {name}_c. conj_tac. Qed.\n\
         Lemma {name}_ok : {name}_c = true -> forall Y, exec_reflects n Y XB -> {name} Y.\n\
         Proof. intros E Y HY. unfold {name}.{choose} apply (proj1 ({name}_cd Y HY{args})). exact E. Qed.\n\n\
         Definition {race}_c : bool := {}.\n\
         Lemma {race}_cd : forall Y, exec_reflects n Y XB -> ({race}_c = true <-> {race} Y).\n\
         Proof. intros Y HY. unfold {race}, {race}_c. conj_tac. Qed.\n",
        CLOSED.and(&items),
        names.consistent_body("Y"),
        race_free_body(names, CLOSED)
    );
}

/// A lemma that check `c` of `names` holds or fails on module `m`'s execution (with the
/// evaluator's witnesses), proved by computation.
pub fn check_lemma(names: &Names, lemma: &str, m: &str, c: usize, holds: bool) -> String {
    let values = witness_values(names, m, names.check_scope(c));
    let stmt: String = values.iter().map(|v| format!(" {v}")).collect();
    let proofs: String = values
        .iter()
        .map(|v| format!(" {v} rel_of_reflects"))
        .collect();
    let check = names.check(c);
    let dec = format!("({m}.{check}_cd {m}.X (of_bexec_reflects {m}.n {m}.XB){proofs})");
    decided(lemma, &format!("{check} {m}.X{stmt}"), &dec, holds)
}

/// `Lemma <lemma> : [~] <stmt>.` proved from the decision `dec` by computation.
pub(crate) fn decided(lemma: &str, stmt: &str, dec: &str, holds: bool) -> String {
    let (neg, how) = if holds {
        ("", "dec_true")
    } else {
        ("~ ", "dec_false")
    };
    format!(
        "Lemma {lemma} : {neg}{stmt}.\n\
         Proof. apply ({how} _ _ {dec}). vm_compute. reflexivity. Qed.\n"
    )
}
