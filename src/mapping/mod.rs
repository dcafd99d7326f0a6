//! Compilation mappings: which target instructions each source operation class compiles to.
//!
//! A mapping file (`mappings/*.map`, grammar in `grammar/mapping.lalrpop`) names a source and a
//! target model, the scope correspondence, the source operation classes (kind × memory order ×
//! scope, in vocabulary tags) and one rule per class:
//!
//! ```
//! let table = mapcheck::mapping::parse_table("mini.map", r#"
//!     source "../models/rc11-scoped.cat"
//!     target ptx "../models/ptx-v6.cat"
//!     scope GPU -> gpu
//!     class R.SC.$s
//!     R.SC.$s -> fence.sc.$s; ld.acquire.$s
//! "#)?;
//! let sc_load = table.classes[0];
//! assert_eq!(sc_load.to_string(), "R.SC.GPU");
//! let ops: Vec<String> = table.rules[&sc_load].ops.iter().map(|op| op.to_string()).collect();
//! assert_eq!(ops, ["fence.sc.gpu", "ld.acquire.gpu"]);
//! # Ok::<(), mapcheck::diag::Error>(())
//! ```
//!
//! Owns: `Mapping` (the checked table plus both loaded models), `load`, `Mapping::compile` (the
//! target instructions of one class) and `Mapping::compile_program` (a whole litmus test, with the
//! map back to the source). Uses: `diag`, `vocab`, `ir` (to load the two models), `litmus::program`,
//! `shipped` (a mapping by name).
//! Knows nothing of executions, SAT or reports.
//!
//! Files:
//! - `syntax.rs`: the lalrpop parser, and its errors as `diag::Error`s.
//! - `ast.rs`: the syntax tree, every name with its span.
//! - `lower.rs`: `Table`, `Rule`, `lower`: the checks that make a table usable.
//! - `class.rs`: `Class`, `ClassKind`, `Class::of`.
//! - `ptx.rs`: PTX templates such as `ld.acquire.$s`, and `TargetOp`.
//! - `program.rs`: `Compiled`, `Origin`, `Role`, `Image`.
//! - `identity.rs`: `identity` and the per-language class tables (`LANGUAGES`).
//! - `readings.rs`: `Reading`, `find`: the target architecture's readings.
pub(crate) mod ast;
pub(crate) mod class;
mod identity;
mod lower;
pub(crate) mod program;
pub(crate) mod ptx;
mod readings;
mod syntax;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::litmus::Arch;
use crate::vocab::{Level, Name, Relation, SameScope, SAME_SCOPES};
use crate::{diag, ir};
pub use class::{Class, ClassKind, Tag};
pub(crate) use identity::identity;
pub(crate) use lower::{Rule, Table};
pub use program::{Compiled, Image, Origin, Role};
pub use ptx::{OpKind, TargetOp};
pub use readings::Reading;

/// A checked mapping with its source and target models.
#[derive(Clone, Debug)]
pub struct Mapping {
    /// The mapping file (as given).
    pub(crate) path: String,
    /// Source and target model files, resolved against the mapping file's directory.
    pub source_path: PathBuf,
    /// Target model file, resolved against the mapping file's directory.
    pub target_path: PathBuf,
    /// The source model (the language compiled from), as parsed and lowered.
    pub source: ir::Model,
    /// The target model (the language compiled to), as parsed and lowered.
    pub target: ir::Model,
    /// The language of the searched source programs (C11, or OpenCL when the source model names
    /// the global region; the models' own language for an identity mapping).
    pub(crate) source_arch: Arch,
    /// The language of compiled programs: PTX for a mapping file.
    pub(crate) target_arch: Arch,
    /// Scope correspondence, source tag → target tag, in file order.
    pub scopes: Vec<(Tag, Tag)>,
    /// Source tags the mapping discards (e.g. OpenCL fence flags).
    pub dropped: Vec<Tag>,
    /// No location takes both atomic and non-atomic accesses (see `Table::typed_locations`).
    pub typed_locations: bool,
    /// Rows of the table that no rule states (`inexpressible "…"`): every check lists them as
    /// not searched.
    pub inexpressible: Vec<String>,
    /// The tags of the barrier the search may place (`bar.sync`, `[SYNC, CTA]`), which the
    /// mapping copies to itself; `None`: the search places no barrier. Only the identity mapping
    /// of a language with barriers sets it (`identity::LANGUAGES`), and only when neither model
    /// gives a barrier two events (`Model::splits_barriers`; the search's barrier is one).
    pub(crate) searched_barrier: Option<Vec<Tag>>,
    classes: Vec<Class>,
    rules: HashMap<Class, Rule>,
    /// The readings of the source and target languages, found on first use
    /// (`source_readings`, `target_readings`).
    readings: [std::sync::OnceLock<Vec<(Reading, ir::Model)>>; 2],
}

/// Herd variants to read a mapping's models with besides those its file names (`check
/// --source-variant`, `--target-variant`).
#[derive(Clone, Debug, Default)]
pub struct Variants {
    /// Read the source model with these too (`--variant cxx20`).
    pub source: Vec<String>,
    /// Read the target model with these too (`--variant dep-without-rmw`).
    pub target: Vec<String>,
}

/// Load a mapping file and both of its models (paths relative to the mapping file).
pub fn load(path: &Path) -> diag::Result<Mapping> {
    load_with(path, &Variants::default())
}

/// Load a mapping file and both of its models, each also read with the variants of `also`. A
/// name with no directory part that is no file here names a shipped mapping
/// (`shipped::mapping`).
pub fn load_with(path: &Path, also: &Variants) -> diag::Result<Mapping> {
    let path = &crate::shipped::mapping(path)?;
    let text = diag::read_source(path)?;
    load_text(
        &path.display().to_string(),
        text,
        Some(&base_dir(path)),
        also,
    )
}

/// Load a mapping from text; model paths are resolved in `dir` (an error when it is `None`).
pub fn load_str(path_name: &str, text: &str, dir: Option<&Path>) -> diag::Result<Mapping> {
    load_text(path_name, Arc::from(text), dir, &Variants::default())
}

/// Parse and check a mapping table without loading its models.
pub fn parse_table(path_name: &str, text: &str) -> diag::Result<Table> {
    let src: Arc<str> = Arc::from(text);
    lower::lower(path_name, &src, syntax::parse(path_name, &src)?)
}

fn base_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn load_text(
    path: &str,
    src: Arc<str>,
    dir: Option<&Path>,
    also: &Variants,
) -> diag::Result<Mapping> {
    diag::check_input_limits(path, &src, &src)?;
    let table = lower::lower(path, &src, syntax::parse(path, &src)?)?;
    let source_path = model_path(path, &src, dir, &table.source)?;
    let target_path = model_path(path, &src, dir, &table.target)?;
    let roots: Vec<PathBuf> = [&source_path, &target_path]
        .into_iter()
        .map(|m| base_dir(m))
        .collect();
    let file = (path, &src, &roots[..]);
    let source = Side::Source.load(file, &source_path, &table.source_variants, also)?;
    let target = Side::Target.load(file, &target_path, &table.target_variants, also)?;
    let Table {
        scopes,
        dropped,
        typed_locations,
        inexpressible,
        classes,
        rules,
        ..
    } = table;
    let source_arch = if source.uses(Name::Tag(Tag::Global)) {
        Arch::OpenCl
    } else {
        Arch::C11
    };
    Ok(Mapping {
        path: path.to_string(),
        source_path,
        target_path,
        source,
        target,
        source_arch,
        target_arch: Arch::Ptx,
        scopes,
        dropped,
        typed_locations,
        inexpressible,
        searched_barrier: None,
        classes,
        rules,
        readings: Default::default(),
    })
}

/// A model path of the file, resolved in `dir`; it must name an existing file.
fn model_path(
    path: &str,
    src: &Arc<str>,
    dir: Option<&Path>,
    word: &ast::Word,
) -> diag::Result<PathBuf> {
    let at = |msg: String| diag::Error::at(path, src, word.span.range(), msg);
    let dir = dir.ok_or_else(|| {
        at("this mapping was given as text, with no directory to resolve model paths in".into())
    })?;
    let full = dir.join(&word.text);
    if !full.is_file() {
        return Err(at(format!("no model file `{}`", full.display()))
            .with_note("model paths are relative to the mapping file"));
    }
    let roots = model_roots(dir);
    let inside = std::fs::canonicalize(&full).is_ok_and(|f| roots.iter().any(|r| f.starts_with(r)));
    if !inside || full.extension().is_none_or(|e| e != "cat") {
        let shown: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
        return Err(at(format!(
            "`{}` is not a `.cat` file in the places a mapping may name models in",
            full.display()
        ))
        .with_note(format!(
            "those are the mapping's directory and the one above it (`mappings/` beside `models/`), the current directory and mapcheck's models (here: {}); a mapping is data, and mapcheck reads no other file it names (decision 015)",
            shown.join(", ")
        )));
    }
    Ok(full)
}

/// Where a mapping in `dir` may name model files: under its own directory or the one above it
/// (unless that is the file system's root), the current directory or mapcheck's `models/`,
/// symbolic links followed.
fn model_roots(dir: &Path) -> Vec<PathBuf> {
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let current = std::env::current_dir().unwrap_or_default();
    let dir = std::fs::canonicalize(dir).ok();
    let above = dir
        .as_deref()
        .and_then(Path::parent)
        .filter(|p| p.parent().is_some());
    let above = above.map(Path::to_path_buf);
    let others = [current, models]
        .into_iter()
        .filter_map(|d| std::fs::canonicalize(d).ok());
    dir.into_iter().chain(above).chain(others).collect()
}

/// Which of a mapping's two models.
#[derive(Clone, Copy)]
enum Side {
    Source,
    Target,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Source => "source",
            Side::Target => "target",
        }
    }

    /// Load the model at `model` with the variants the mapping file names (`written`) and those
    /// of `also`, each of which the model must test. `file` is the mapping's path, its text and
    /// the directories its models may include from.
    fn load(
        self,
        file: (&str, &Arc<str>, &[PathBuf]),
        model: &Path,
        written: &[ast::Word],
        also: &Variants,
    ) -> diag::Result<ir::Model> {
        let (mapping, src, roots) = file;
        let also = match self {
            Side::Source => &also.source,
            Side::Target => &also.target,
        };
        let mut variants: Vec<String> = written.iter().map(|w| w.text.clone()).collect();
        variants.extend(also.iter().cloned());
        let opts = ir::LoadOptions {
            variants: variants.clone(),
            include_roots: roots.to_vec(),
            ..ir::LoadOptions::default()
        };
        let loaded = ir::load_with_any_variant(model, &opts).map_err(|e| {
            e.with_note(format!(
                "while loading the {} model of mapping {mapping}",
                self.name()
            ))
        })?;
        let Some((variant, offered)) = ir::untested_variant(&loaded, &variants) else {
            return Ok(loaded);
        };
        let message = format!("the {} model tests no variant `{variant}`", self.name());
        let error = match written.iter().find(|w| w.text == variant) {
            Some(w) => diag::Error::at(mapping, src, w.span.range(), message),
            None => diag::Error::file(mapping, message),
        };
        Err(error.with_note(offered))
    }
}

impl Mapping {
    /// The memory region every source event of a searched program is in: `GLOBAL` when the
    /// source model names it (OpenCL), none otherwise.
    pub fn region(&self) -> Option<Tag> {
        let global = Tag::Global;
        self.source.uses(Name::Tag(global)).then_some(global)
    }

    /// Every reading of the source language, each with its model: the model files beside the
    /// source model whose title names its language, each as it is and under each variant it
    /// tests (`readings::find`; the C++ versions of scoped RC11). Loaded once per mapping.
    pub fn source_readings(&self) -> &[(Reading, ir::Model)] {
        self.readings[0].get_or_init(|| readings::find(&self.source_path, &self.source))
    }

    /// Every reading of the target architecture, each with its model, found as
    /// `source_readings` are (the PTX models and their variants). Loaded once per mapping.
    pub fn target_readings(&self) -> &[(Reading, ir::Model)] {
        self.readings[1].get_or_init(|| readings::find(&self.target_path, &self.target))
    }

    /// The declared source classes, in declaration order.
    pub fn classes(&self) -> &[Class] {
        &self.classes
    }

    /// The rule of a class (`None` if the class is not declared).
    pub fn rule(&self, class: &Class) -> Option<&Rule> {
        self.rules.get(class)
    }

    /// The target instructions of a declared class (every declared class has a rule: loading
    /// checks coverage). An undeclared class compiles to nothing; use `rule` to tell the two apart.
    pub fn compile(&self, class: &Class) -> &[TargetOp] {
        self.rules.get(class).map_or(&[], |r| r.ops.as_slice())
    }

    /// This mapping with the rules of some classes replaced (models and all else kept).
    pub(crate) fn with_rules(&self, changed: impl IntoIterator<Item = (Class, Rule)>) -> Mapping {
        let mut m = self.clone();
        m.rules.extend(changed);
        m
    }

    /// The scope levels the search places threads at, innermost first: each level the source
    /// language can place (`Arch::placement`) at which a `scope` row names a scope, on either
    /// side, or whose same-instance relation (`scta`) either model names. A level not searched
    /// has one instance per instance of the next searched level outside it (one sub-group per
    /// CTA; one cluster per GPU unless a row names `.cluster`).
    pub fn searched_levels(&self) -> Vec<Level> {
        let named_scopes = self.scopes.iter().flat_map(|&(s, t)| [s, t]);
        let mut named: Vec<Level> = named_scopes.filter_map(Tag::level).collect();
        let relations = SAME_SCOPES.into_iter().filter(|&s| {
            let name = Name::Rel(Relation::Same(s));
            self.source.uses(name) || self.target.uses(name)
        });
        named.extend(relations.map(SameScope::level));
        let placed = self.source_arch.placement().iter().map(|&(_, level)| level);
        placed.filter(|l| named.contains(l)).collect()
    }

    /// The target scope of a source scope.
    pub fn scope_image(&self, scope: Tag) -> Option<Tag> {
        self.scopes
            .iter()
            .find(|(s, _)| *s == scope)
            .map(|(_, t)| *t)
    }
}
