//! The proof obligations of a mapping, stated over programs: `searched` (the programs the search
//! considers: a skeleton of every event and its guards), `compiles` (the mapping's lowering of
//! the skeleton and the guards), `compilation` (a race-free program with a meaning, its
//! compilation, a target execution the target model allows and a source execution with its `rf`
//! and a coherence order containing its `co`), `unexplained`, and for each source axiom a Section
//! theorem (`Admitted`, with what the search found) and `claim_<axiom>`, the closed statement the
//! search refutes exactly when it finds a counterexample (docs/decisions/005-coq-export.md).
//!
//! This file keeps `print`, `compilation` and the claims; by job: `lowering` (the event sets and
//! the lowering part of `compiles`) and `searched` (`searched`, the statements over skeletons and
//! the guards of `compiles`).
//!
//! Files:
//! - `mapping/lowering.rs`: the lowering part of `compiles`.
//! - `mapping/searched.rs`: `searched`, and the guards of `compiles`.
mod lowering;
mod searched;

use std::fmt::Write;

use super::model::{Models, Names};
use crate::diag;
use crate::mapping::Mapping;
use lowering::{print_lowering, Condition};
use searched::{compiled_guard_conditions, print_statement, searched_conditions, Statement};

/// What the search found for one source axiom, for the theorem's comment.
#[derive(Clone, Debug)]
pub enum Evidence {
    /// No counterexample up to this bound.
    CleanTo(usize, String),
    /// A counterexample at this bound: the theorem is false.
    Counterexample(usize, String),
}

/// The mapping file: lowering, race freedom, the Section and the satisfiability proof.
pub(crate) fn print(
    mapping: &Mapping,
    models: &Models,
    evidence: &[(String, Evidence)],
    imports: &str,
) -> diag::Result<String> {
    let mut out = super::text::header(
        &format!("the proof obligations of {}", mapping.path),
        imports,
    );
    print_co_total(&mut out);
    print_lowering(mapping, &mut out);
    print_programs(mapping, models, evidence, &mut out);
    out.push_str(&super::program::satisfiable(mapping, models)?);
    Ok(out)
}

/// The conditions of `searched`, each with its reason and its boolean text over `n XB grb gwb`,
/// and the definitions those texts call (the class sets and `ipo`), as the obligations print
/// them.
pub(crate) fn searched_class(mapping: &Mapping, models: &Models) -> (String, Vec<Condition>) {
    let mut definitions = String::new();
    print_lowering(mapping, &mut definitions);
    (definitions, searched_conditions(mapping, models))
}

pub(crate) fn co_total_needed(model: &crate::ir::Model) -> bool {
    model.coherence == crate::ir::CoKind::Total
}

fn print_co_total(out: &mut String) {
    let _ = writeln!(
        out,
        "(* `coherence total` models (RC11, C11, OpenCL): co orders all writes of a location\n\
         \x20  (`co_total`, Program.v). *)\n\
         Definition co_total_b (n : nat) (XB : bexec) : bool :=\n\
         \x20 bempty n (bminus (bminus (binter (bcross (b_W XB) (b_W XB)) (b_loc XB)) (b_id XB)) (bunion (b_co XB) (binv (b_co XB)))).\n\
         Lemma co_total_dec : forall n X XB, exec_reflects n X XB -> (co_total_b n XB = true <-> co_total X).\n\
         Proof. intros n X XB H. unfold co_total, co_total_b. check_tac. Qed.\n\
         Global Hint Resolve co_total_dec : mc_reflect.\n"
    );
}

/// The program-level statement: the searched programs, their compilation, and for each source
/// axiom the claim that the search refutes exactly when it finds a counterexample.
fn print_programs(
    mapping: &Mapping,
    models: &Models,
    evidence: &[(String, Evidence)],
    out: &mut String,
) {
    let (wf, s) = (models.wf.consistent(), models.source);
    print_statement(
        &Statement {
            name: "searched_on",
            what: "The programs the search considers, on a program's skeleton X (every event, as if every\n   guard held) and its guards: gr r e, event e runs only if read r reads from the write w of gw w e.",
            params: "(X : exec) (gr gw : rel)",
            bool_params: "(XB : bexec) (grb gwb : brel)",
            reflects: "exec_reflects n X XB -> reflects n gr grb -> reflects n gw gwb",
            conds: searched_conditions(mapping, models),
        },
        out,
    );
    print_statement(
        &Statement {
            name: "guards_compiled",
            what: "The compiled program's skeleton Xt and its guards, against the source's Xs.",
            params: "(Xs Xt : exec) (grs gws grt gwt : rel)",
            bool_params: "(XBs XBt : bexec) (grsb gwsb grtb gwtb : brel)",
            reflects: "exec_reflects n Xs XBs -> exec_reflects n Xt XBt -> reflects n grs grsb -> reflects n gws gwsb -> reflects n grt grtb -> reflects n gwt gwtb",
            conds: compiled_guard_conditions(mapping, models),
        },
        out,
    );
    let total = co_total_needed(&mapping.source);
    let co_s = if total { "co_total X -> " } else { "" };
    let co_y = if total { "co_total Y -> " } else { "" };
    let (s_cons, s_race) = (s.consistent(), s.race_free());
    let fields: Vec<String> = compilation_fields(mapping, models)
        .iter()
        .map(|(name, stmt)| format!("  {name} : {stmt}"))
        .collect();
    let _ = writeln!(
        out,
        "Definition searched (P : program) : Prop := searched_on (pr P) (gread P) (gwrite P).\n\
         Definition compiles (Ps Pt : program) : Prop :=\n\
         \x20 lowering (pr Ps) (pr Pt) /\\ guards_compiled (pr Ps) (pr Pt) (gread Ps) (gwrite Ps) (gread Pt) (gwrite Pt).\n\n\
         (* Race freedom, the search's: no consistent execution of the program raises a flag. *)\n\
         Definition drf (P : program) : Prop :=\n\
         \x20 forall X, runs P X -> {wf} X -> {co_s}{s_cons} X -> {s_race} X.\n\n\
         (* A race-free program of the searched class with a meaning (some consistent execution), its\n\
         \x20  compilation Pt, an execution Xt of Pt the target model allows, and an execution Xs of the\n\
         \x20  source program with Xt's rf and a coherence order containing Xt's. *)\n\
         Record compilation (Ps Pt : program) (Xs Xt : exec) : Prop := {{\n{}\n}}.\n\n\
         (* No execution of the source program explains Xt: every one with Xt's rf and a coherence\n\
         \x20  order containing Xt's is inconsistent. *)\n\
         Definition unexplained (Ps : program) (Xt : exec) : Prop :=\n\
         \x20 forall Y, runs Ps Y -> {wf} Y -> {co_y}same_rel (rf Y) (rf Xt) -> inclusion (co Xt) (co Y) -> ~ {s_cons} Y.\n",
        fields.join(";\n")
    );
    print_claims(models, evidence, out);
}
/// The fields of the Record `compilation`, in order: name and statement over `Ps Pt Xs Xt`.
pub(crate) fn compilation_fields(
    mapping: &Mapping,
    models: &Models,
) -> Vec<(&'static str, String)> {
    let (wf, s, t) = (models.wf.consistent(), models.source, models.target);
    let co_and = if co_total_needed(&mapping.source) {
        "co_total X /\\ "
    } else {
        ""
    };
    let mut fields = vec![
        ("c_searched", "searched Ps".to_string()),
        ("c_compiles", "compiles Ps Pt".into()),
        (
            "c_meaning",
            format!(
                "exists X, runs Ps X /\\ {wf} X /\\ {co_and}{} X",
                s.consistent()
            ),
        ),
        ("c_drf", "drf Ps".into()),
        ("c_runs_t", "runs Pt Xt".into()),
        ("c_wf_t", format!("{wf} Xt")),
    ];
    if co_total_needed(&mapping.target) {
        fields.push(("c_co_t", "co_total Xt".into()));
    }
    fields.push(("c_consistent_t", format!("{} Xt", t.consistent())));
    fields.push(("c_runs_s", "runs Ps Xs".into()));
    fields.push(("c_wf_s", format!("{wf} Xs")));
    if co_total_needed(&mapping.source) {
        fields.push(("c_co_s", "co_total Xs".into()));
    }
    fields.push(("c_lift_rf", "same_rel (rf Xs) (rf Xt)".into()));
    fields.push(("c_lift_co", "inclusion (co Xt) (co Xs)".into()));
    fields
}

/// One Section theorem per source axiom (Admitted, with what the search found), and after the
/// Section `claim_<axiom>`, the closed statement a refutation negates.
fn print_claims(models: &Models, evidence: &[(String, Evidence)], out: &mut String) {
    let s = models.source;
    let _ = writeln!(
        out,
        "Section Obligations.\n\
         Variables (Ps Pt : program) (Xs Xt : exec).\n\
         Hypothesis H : compilation Ps Pt Xs Xt.\n\
         Hypothesis U : unexplained Ps Xt.\n"
    );
    for (c, check) in s.axioms() {
        let note = match evidence.iter().find(|(a, _)| *a == check.name) {
            Some((_, Evidence::CleanTo(b, how))) => format!(
                "open: mapcheck found no counterexample to {} up to bound {b} ({how})",
                check.name
            ),
            Some((_, Evidence::Counterexample(b, how))) => format!(
                "FALSE: mapcheck found a counterexample at bound {b} ({how}); {} proves ~ {}",
                refutation_file(&check.name),
                claim_name(s, c)
            ),
            None => "open: not searched by mapcheck in this export".into(),
        };
        let _ = writeln!(
            out,
            "{}\n(* {} *)\nTheorem obligation_{} : {} Xs.\nProof using H U. Admitted.\n",
            super::text::coq_comment(&check.source_text),
            super::text::comment_text(&note),
            s.check(c),
            s.check(c)
        );
    }
    let _ = writeln!(out, "End Obligations.\n");
    for (c, _) in s.axioms() {
        let _ = writeln!(
            out,
            "Definition {} : Prop :=\n  forall Ps Pt Xs Xt, compilation Ps Pt Xs Xt -> unexplained Ps Xt -> {} Xs.\n\
             Check (obligation_{} : {}).\n",
            claim_name(s, c),
            s.check(c),
            s.check(c),
            claim_name(s, c)
        );
    }
}

/// `claim_<source axiom>`.
pub(crate) fn claim_name(source: &Names, c: usize) -> String {
    format!("claim_{}", source.check(c))
}

/// The file that refutes the claim for `axiom` (written beside the obligations).
pub(crate) fn refutation_file(axiom: &str) -> String {
    format!("Refutation_{}.v", super::text::ident(axiom))
}
