//! The Coq export: models, proof obligations and counterexample refutations as Coq files.
//!
//! Owns: printing `ir::Model`s as Coq (`model`: a Definition per `let`, an Inductive per
//! `let rec`, a Prop per check, each with a boolean mirror and a proved reflection lemma), the
//! execution record (`exec`, from `vocab`), a mapping's obligations (`mapping`: Section
//! hypotheses, one Admitted theorem per source axiom, a proved satisfiability witness), and
//! concrete executions with lemmas decided by computation (`concrete`: refutations, fidelity), and
//! each witness-free model's mirror as a function of the execution (`mirror`).
//! Uses: `cat` and `ir` (the models), `rel`, `vocab`, `exec` and `eval` (the execution record,
//! concrete values), `mapping`, `litmus` and `runner` (programs, skeletons, race freedom),
//! `search` (refutations), `output` (the files), `diag`. The Coq library the files build on is
//! `proofs-export/lib`, copied into every export directory.
//!
//! Files:
//! - `model.rs`: one cat model as a Coq file.
//! - `exec.rs`: `Exec.v`, the execution record and its boolean mirror.
//! - `mirror.rs`: `Mirror_<model>.v`, a model's mirror as a function of the execution.
//! - `concrete.rs`: a concrete execution as a `bexec` literal, with each model's mirror.
//! - `mapping.rs`: a mapping's obligations: `print`, `compilation`, the claims.
//! - `program.rs`: `Numbering`, `Programs`, and a counterexample's `refutation`.
//! - `text.rs`: `ident`, `header`, comments, projections: the Coq text every printer shares.
//! - `judge.rs`: an interpreter of the export's boolean statements (`Dec.v`'s operators).
//! - `class.rs`: `SearchedClass`, a given test held to `searched` (`check --test`).
pub mod class;
pub mod concrete;
pub(crate) mod exec;
pub mod judge;
pub(crate) mod mapping;
pub mod mirror;
pub mod model;
pub mod program;
mod text;

use std::path::{Path, PathBuf};

use crate::diag;
use crate::mapping::Mapping;
use crate::output::OutputDir;
use model::Names;
pub use text::{header, ident};

/// The project's Coq library, copied into every export (compile order).
pub(crate) const LIBRARY: &[(&str, &str)] = &[
    ("Rel.v", include_str!("../../proofs-export/lib/Rel.v")),
    ("Dec.v", include_str!("../../proofs-export/lib/Dec.v")),
    ("Checks.v", include_str!("../../proofs-export/lib/Checks.v")),
];

/// Library files that need the generated `Exec.v` and `Model_wf.v` (compiled after them).
pub(crate) const LIBRARY_AFTER_WF: &[(&str, &str)] = &[(
    "Program.v",
    include_str!("../../proofs-export/lib/Program.v"),
)];

/// The well-formedness model (`models/wf.cat`), the hypotheses every export states.
pub(crate) const WF_MODEL: &str = include_str!("../../models/wf.cat");

/// The Coq module name of a model (`models/rc11-scoped.cat` → `Model_rc11_scoped`) and the
/// prefix of its definitions (`rc11_scoped`).
pub fn model_prefix(path: &str) -> String {
    let stem = Path::new(path)
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| path.to_string());
    ident(&stem)
}

/// Files written by one export into the directory it owns, in compile order.
pub struct Written {
    /// The directory the export owns and writes into.
    pub dir: PathBuf,
    /// The `.v` files written so far, as names inside `dir`, in compile order.
    pub files: Vec<String>,
    out: OutputDir,
}

impl Written {
    /// Take `dir` for the export (see `output::OutputDir`: created, or cleared of what an
    /// earlier export wrote; a foreign non-empty directory is refused).
    pub fn new(dir: &Path) -> diag::Result<Written> {
        Ok(Written {
            dir: dir.to_path_buf(),
            files: Vec::new(),
            out: OutputDir::claim(dir)?,
        })
    }

    /// Write one file into the directory (`.v` files are compiled in the order written).
    pub fn write(&mut self, name: &str, text: &str) -> diag::Result<()> {
        self.out.write(name, text)?;
        if name.ends_with(".v") {
            self.files.push(name.to_string());
        }
        Ok(())
    }

    /// `_CoqProject`, for `coq_makefile -f _CoqProject -o Makefile && make`.
    pub fn finish(mut self) -> diag::Result<Written> {
        let project = format!("-R . Mapcheck\n{}\n", self.files.join("\n"));
        self.out.write("_CoqProject", project)?;
        Ok(self)
    }
}

/// Write the library, `Exec.v`, and `Model_<prefix>.v` for each model, each followed by
/// `Mirror_<prefix>.v` when the model has no witness (with `Program.v` after
/// `Model_wf.v`).
pub fn write_common(out: &mut Written, models: &[&Names]) -> diag::Result<()> {
    for (name, text) in LIBRARY {
        out.write(name, text)?;
    }
    out.write("Exec.v", &exec::print())?;
    for names in models {
        let text = model::print(names, "Rel Dec Checks Exec")?;
        out.write(&format!("Model_{}.v", names.prefix), &text)?;
        // Models with a `with … from` witness (PTX) get no mirror as a function of the
        // execution: see `mirror`.
        if mirror::has_mirror(names) {
            let imports = format!("Rel Dec Checks Exec Model_{}", names.prefix);
            out.write(
                &format!("Mirror_{}.v", names.prefix),
                &mirror::print(names, &imports),
            )?;
        }
        if names.prefix == "wf" {
            for (name, text) in LIBRARY_AFTER_WF {
                out.write(name, text)?;
            }
        }
    }
    Ok(())
}

/// The well-formedness model, loaded from the text compiled into mapcheck.
pub fn wf_model() -> diag::Result<crate::ir::Model> {
    crate::ir::load_str("models/wf.cat", WF_MODEL, None)
}

/// The names of `wf.cat` and of `m`'s source and target models, as their Coq files give them.
fn model_names<'a>(m: &'a Mapping, wf: &'a crate::ir::Model) -> (Names<'a>, Names<'a>, Names<'a>) {
    let prefix = |path: &Path| model_prefix(&path.to_string_lossy());
    (
        Names::new(wf, "wf"),
        Names::new(&m.source, &prefix(&m.source_path)),
        Names::new(&m.target, &prefix(&m.target_path)),
    )
}

/// `Ok` when the statements describe `m`'s search: their programs have no barriers
/// (`mapping::searched`), and a mapping whose search places them is refused.
fn statements_cover(m: &Mapping) -> diag::Result<()> {
    match m.searched_barrier {
        Some(_) => Err(diag::Error::file(
            &m.path,
            "the Coq statements cover programs without barriers, and this mapping's search places them",
        )),
        None => Ok(()),
    }
}

/// `f` given the three models of mapping `m`'s statements.
fn with_names<T>(m: &Mapping, wf: &crate::ir::Model, f: impl FnOnce(&model::Models) -> T) -> T {
    let (wf, source, target) = model_names(m, wf);
    f(&model::Models {
        wf: &wf,
        source: &source,
        target: &target,
    })
}

/// An export directory for mapping `m` with the library and its three models written, handed
/// to `f` with the models' names and the imports of a file that uses them all.
fn with_models(
    m: &Mapping,
    dir: &Path,
    f: impl FnOnce(&mut Written, &model::Models, &str) -> diag::Result<()>,
) -> diag::Result<Written> {
    let wf = wf_model()?;
    let (wf_names, source, target) = model_names(m, &wf);
    let mut out = Written::new(dir)?;
    write_common(&mut out, &[&wf_names, &source, &target])?;
    let mirrored = |names: &Names| {
        let mirror = if mirror::has_mirror(names) {
            format!(" Mirror_{}", names.prefix)
        } else {
            String::new()
        };
        format!("Model_{}{mirror}", names.prefix)
    };
    let imports = format!(
        "Rel Dec Checks Exec {} Program {} {}",
        mirrored(&wf_names),
        mirrored(&source),
        mirrored(&target)
    );
    let models = model::Models {
        wf: &wf_names,
        source: &source,
        target: &target,
    };
    f(&mut out, &models, &imports)?;
    out.finish()
}

/// `mapcheck export-coq MAPPING -o DIR`: the models and the obligations of a mapping, and a
/// refutation (`Refutation_<axiom>.v`) of the claim of every axiom with a counterexample in
/// `counterexamples`; `evidence` is what the search found, for the obligations' comments.
pub fn export_mapping(
    m: &Mapping,
    evidence: &[(String, mapping::Evidence)],
    counterexamples: &[&crate::search::Counterexample],
    dir: &Path,
) -> diag::Result<Written> {
    statements_cover(m)?;
    with_models(m, dir, |out, models, imports| {
        let text = mapping::print(m, models, evidence, imports)?;
        let obligations = obligations_name(m);
        out.write(&format!("{obligations}.v"), &text)?;
        for cx in counterexamples {
            let text = program::refutation(m, models, cx, &format!("{imports} {obligations}"))?;
            out.write(&mapping::refutation_file(&cx.axiom), &text)?;
        }
        Ok(())
    })
}

/// `export_mapping` after a check: its evidence in the obligations' comments and a refutation
/// for each of its counterexamples (`None`: no search, nothing found).
pub fn export_checked_mapping(
    m: &Mapping,
    report: Option<&crate::search::Report>,
    dir: &Path,
) -> diag::Result<Written> {
    let evidence = report.map(evidence).unwrap_or_default();
    let counterexamples: Vec<_> = report
        .iter()
        .flat_map(|r| &r.axioms)
        .filter_map(|a| a.counterexample.as_ref())
        .collect();
    export_mapping(m, &evidence, &counterexamples, dir)
}

/// `Obligations_<mapping stem>`.
pub(crate) fn obligations_name(m: &Mapping) -> String {
    format!("Obligations_{}", model_prefix(&m.path))
}

/// `mapcheck check … --coq DIR`: one counterexample as a Coq export of its own (under
/// `refutation_dir`): the obligations, and the refutation of the claim it breaks.
pub fn export_refutation(
    m: &Mapping,
    cx: &crate::search::Counterexample,
    dir: &Path,
) -> diag::Result<Written> {
    let how = "natural counting".to_string();
    let evidence = [(
        cx.axiom.clone(),
        mapping::Evidence::Counterexample(cx.bound, how),
    )];
    export_mapping(m, &evidence, &[cx], dir)
}

/// The directory under `dir` of the refutation for a counterexample to `axiom`.
pub(crate) fn refutation_dir(dir: &Path, m: &Mapping, axiom: &str) -> PathBuf {
    dir.join(format!("{}-{}", model_prefix(&m.path), ident(axiom)))
}

/// Certificates for every counterexample of a check, one directory per axiom.
pub fn export_refutations(
    m: &Mapping,
    r: &crate::search::Report,
    dir: &Path,
) -> diag::Result<Vec<Written>> {
    r.axioms
        .iter()
        .filter_map(|a| a.counterexample.as_ref())
        .map(|cx| export_refutation(m, cx, &refutation_dir(dir, m, &cx.axiom)))
        .collect()
}

/// What a check says of each source axiom, for the obligations' comments.
pub fn evidence(r: &crate::search::Report) -> Vec<(String, mapping::Evidence)> {
    let how = format!("natural counting, {}", r.solver);
    r.axioms
        .iter()
        .map(|a| {
            let e = match &a.counterexample {
                Some(cx) => mapping::Evidence::Counterexample(cx.bound, how.clone()),
                None => mapping::Evidence::CleanTo(a.clean_to, how.clone()),
            };
            (a.axiom.clone(), e)
        })
        .collect()
}
