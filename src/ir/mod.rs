//! The typed relational IR of a cat model: every name resolved, every expression's kind known.
//!
//! Owns: `Model` (definitions, checks, witnesses, evaluation order, coherence kind) and the
//! lowering from `cat::ast` (names, kinds, includes, function inlining, `let rec` fixpoints).
//! Analyses of the IR live beside it: `polarity` (what grows with what) and `implied` (which checks
//! every execution another model allows passes). Entry points: `load` and `load_str`. Uses: `cat`
//! (syntax), `vocab` (built-in names and kinds), `diag` (errors), `shipped` (a model by name).
//! Every consumer — evaluator, SAT encoder, Coq printer — reads this IR and nothing else, so all of
//! them agree on what a model means.
//!
//! Files:
//! - `lower.rs`: the lowerer's state and what all of it uses: files and errors, names in scope,
//!   kinds, size limits.
//! - `library.rs`: the bundled `cat-lib/` files, `Dialect`, and each dialect's prelude.
//! - `names.rs`: edit distance for suggestions, and herd's derived built-ins.
//! - `polarity.rs`: `Model::failures_grow_with`, `Model::witness_read` and
//!   `Model::consistency_antitone_in`.
//! - `implied.rs`: `Model::checks_implied_by`.
mod implied;
mod library;
mod lower;
mod names;
mod polarity;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use crate::cat::ast::{BinOp, CheckKind};
pub use crate::vocab::Kind;
use crate::{diag, vocab};
pub use library::Dialect;

/// Index of a definition in `Model::defs`.
pub(crate) type DefId = usize;

/// Unary operators of the IR (cat's prefix/postfix operators, `[S]`, `domain`, `range`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op1 {
    /// `~e`: complement with respect to all events (a set) or all pairs of events (a relation).
    Complement,
    /// `e^-1`
    Inverse,
    /// `e+`
    Plus,
    /// `e*`: reflexive-transitive closure (reflexive over all events).
    Star,
    /// `e?`: reflexive closure (over all events).
    Opt,
    /// `[S]`: identity restricted to a set.
    IdOn,
    /// `domain(r)`
    Domain,
    /// `range(r)`
    Range,
}

/// A resolved, kind-checked expression. Its kind is given by `Model::kind_of`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// `0` at a known kind.
    Empty(Kind),
    /// A name of the event vocabulary; `slot` indexes `Model::bases`.
    Base {
        /// The name as cat spells it (`po`, `rf`, `ACQ`, …).
        name: &'static str,
        /// Index into `Model::bases`.
        slot: usize,
    },
    /// A definition of the model (a `let`, a `let rec` variable or a witness).
    Def(DefId),
    /// `|`, `&`, `\` (operands of equal kind), `;` (relations), `*` (sets, giving a relation).
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// A unary operator applied to an expression (`~e`, `e^-1`, `e+`, `e*`, `e?`, `[S]`, `domain`,
    /// `range`).
    Unary(Op1, Box<Expr>),
}

impl Expr {
    /// The nodes of the expression (names and operators alike).
    pub(crate) fn nodes(&self) -> usize {
        match self {
            Expr::Binary(_, a, b) => 1 + a.nodes() + b.nodes(),
            Expr::Unary(_, a) => 1 + a.nodes(),
            Expr::Empty(_) | Expr::Base { .. } | Expr::Def(_) => 1,
        }
    }
}

/// Whether `co` is a total order per location or any transitive partial order (`coherence …`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CoKind {
    #[default]
    /// `co` is a strict total order on each location's writes (the default; `coherence total`).
    Total,
    /// `co` may be any transitive partial order (`coherence partial`; Dartagnan's PTX models).
    Partial,
}

/// A named definition, in the order the model (with its includes spliced in) defines them.
#[derive(Clone, Debug)]
pub struct Def {
    /// The name bound; a later definition of the same name shadows this one (`Model::def_named`).
    pub name: String,
    /// `None` only for functions, whose kind depends on their arguments.
    pub kind: Option<Kind>,
    /// What the name is bound to.
    pub body: DefBody,
    /// The cat text of the binding, from its `let` (or `and`) to the end of its body.
    pub source_text: String,
    /// `file:line` of the binding.
    pub origin: String,
}

#[derive(Clone, Debug)]
/// What a definition binds: a value, a fixpoint variable, a witness or a function.
pub enum DefBody {
    /// `let x = e`.
    Value(Expr),
    /// A variable of `let rec … and …`: its value is the least fixpoint of the group, computed by
    /// iteration from empty (lowering checks every body is monotone in the group's variables).
    Fixpoint(Expr),
    /// `with x from linearisations(…)`: index into `Model::witnesses`.
    Witness(usize),
    /// `let f(a, b) = e`: inlined at every call, so the IR holds no calls.
    Function {
        /// The parameter names, in order.
        params: Vec<String>,
    },
}

/// One `acyclic` / `irreflexive` / `empty` statement.
#[derive(Clone, Debug)]
pub struct Check {
    /// Whether the statement is `acyclic`, `irreflexive` or `empty`.
    pub kind: CheckKind,
    pub(crate) expr: Expr,
    /// The `as` name, or `<kind>#<k>` for the k-th check of the model (1-based), e.g. `acyclic#2`.
    pub name: String,
    /// `flag …`: reported, never makes an execution inconsistent.
    pub flag: bool,
    /// `~acyclic …`, `~empty …`: the test is negated.
    pub negated: bool,
    /// The cat text of the whole statement.
    pub source_text: String,
}

/// A relation the model shows (`show e as label`): pictures of an execution draw its pairs.
#[derive(Clone, Debug)]
pub(crate) struct Shown {
    pub(crate) label: String,
    pub(crate) expr: Expr,
}

/// `with name from linearisations(set, order)`: `name` ranges over every strict total order on
/// `set` that contains `order` restricted to `set`.
#[derive(Clone, Debug)]
pub struct Witness {
    /// The witness variable (`x`); it is also a definition of the model (`DefBody::Witness`).
    pub name: String,
    pub(crate) def: DefId,
    pub(crate) set: Expr,
    pub(crate) order: Expr,
    /// `Model::failures_grow_with` for this witness (set when lowering ends): the evaluator may
    /// judge prefixes of its orders and skip their completions.
    pub failures_grow: bool,
    /// `Model::witness_read` for this witness (set when lowering ends): when false (a `with`
    /// shadowed before anything reads it), every choice is judged alike and the evaluator tries
    /// only the first.
    pub read: bool,
    /// The cat text of the `with` statement.
    pub source_text: String,
}

/// The model's statements in evaluation order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Evaluate the `let` definition `defs[id]` (one outside a `let rec` group).
    Define(DefId),
    /// A `let rec` group, solved together.
    Fixpoint(Vec<DefId>),
    /// Evaluate `checks[i]` on the values computed so far.
    Check(usize),
    /// Choose a value for `witnesses[i]`; the steps after it are evaluated under each choice.
    Choose(usize),
}

/// A lowered cat model.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// The file the model was loaded from (as given).
    pub path: String,
    /// The model's name from its title line (the string of `PTX "ptx-v6"`); `None` without a title.
    pub title: Option<String>,
    /// The architecture word of its title line (`PTX` of `PTX "ptx-v6"`); `None` without a title.
    pub arch: Option<String>,
    /// How the litmus runner enumerates `co`: `coherence …` if the model says, else the dialect's
    /// default.
    pub coherence: CoKind,
    /// Every definition in definition order; a `DefId` indexes it.
    pub defs: Vec<Def>,
    /// The `acyclic` / `irreflexive` / `empty` statements in model order; `Step::Check` indexes it.
    pub checks: Vec<Check>,
    /// The `with … from linearisations(…)` witnesses; `DefBody::Witness` and `Step::Choose`
    /// index it.
    pub witnesses: Vec<Witness>,
    /// The statements in evaluation order.
    pub steps: Vec<Step>,
    /// The relations pictures of an execution draw (`show`), in order; no check reads them.
    pub(crate) shown: Vec<Shown>,
    /// The vocabulary names the model uses, indexed by `Expr::Base::slot`.
    pub bases: Vec<vocab::Name>,
    /// Warnings from loading (`file:line:col: warning: …`), for the command line to print.
    pub warnings: Vec<String>,
    /// The variant names its `if "name"` tests decided while loading (herd's `-variant`): the
    /// readings the file offers besides its default.
    pub variants_tested: BTreeSet<String>,
    /// The variants it was loaded with that it tests (`LoadOptions::variants` cut to those).
    pub variants_enabled: BTreeSet<String>,
}

impl Model {
    /// The vocabulary names this model's expressions use.
    pub fn used_builtins(&self) -> BTreeSet<&'static str> {
        self.bases.iter().map(|b| b.name()).collect()
    }

    /// Does the model use vocabulary name `name`?
    pub(crate) fn uses(&self, name: vocab::Name) -> bool {
        self.bases.contains(&name)
    }

    /// Does the model give a barrier two events, an entry and an exit fence? Yes when it names
    /// either (`EF`, `XF`: Dartagnan's OpenCL barrier); otherwise a barrier is one event.
    pub(crate) fn splits_barriers(&self) -> bool {
        [vocab::EventSet::EntryFence, vocab::EventSet::ExitFence]
            .into_iter()
            .any(|s| self.uses(vocab::Name::Set(s)))
    }

    /// The kind of an expression of this model.
    pub(crate) fn kind_of(&self, e: &Expr) -> Kind {
        match e {
            Expr::Empty(k) => *k,
            Expr::Base { name, .. } => vocab::kind_of(name).unwrap_or(Kind::Rel),
            Expr::Def(id) => self.defs[*id].kind.unwrap_or(Kind::Rel),
            Expr::Binary(BinOp::Seq | BinOp::Product, ..) => Kind::Rel,
            Expr::Binary(_, a, _) => self.kind_of(a),
            Expr::Unary(Op1::Domain | Op1::Range, _) => Kind::Set,
            Expr::Unary(Op1::Complement, a) => self.kind_of(a),
            Expr::Unary(..) => Kind::Rel,
        }
    }

    /// The definition a name denotes at the end of the model (the last one bound to it).
    pub fn def_named(&self, name: &str) -> Option<DefId> {
        self.defs.iter().rposition(|d| d.name == name)
    }
}

/// How a model file is read: where `include`s are looked for after the including file's
/// directory (herd's `-I DIR`; the bundled library `cat-lib/` comes last) and where an included
/// file may lie (under the model's directory or one of those; decision 015), the variants herd's
/// `if "name"` sees as enabled, and the dialect.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Directories searched, in order, for an `include`d file not found beside the including file.
    pub include_dirs: Vec<PathBuf>,
    /// Directories, besides the model's own and each of `include_dirs`, that an included file
    /// may lie in (a mapping's: the directories of both of its models).
    pub include_roots: Vec<PathBuf>,
    /// Read an included file wherever it lies (`--allow-include-anywhere`); its diagnostics
    /// then echo only the text they point at.
    pub include_anywhere: bool,
    /// Variant names herd's `if "name"` sees as enabled; empty: none is.
    pub variants: Vec<String>,
    /// Whose meaning the names a model uses without defining have (`--dialect`); `None`: the
    /// model's own `dialect` declaration, or mapcheck's with warnings when it has none.
    pub dialect: Option<Dialect>,
}

/// Load a model file, resolving `include`s relative to its directory, then in the bundled library.
pub fn load(path: &Path) -> diag::Result<Model> {
    load_with(path, &LoadOptions::default())
}

/// Load a model file as `opts` says; each variant it enables must be one the model tests. A
/// name with no directory part that is no file here names a shipped model (`shipped::model`).
pub fn load_with(path: &Path, opts: &LoadOptions) -> diag::Result<Model> {
    let path = &crate::shipped::model(path)?;
    let model = load_with_any_variant(path, opts)?;
    match untested_variant(&model, &opts.variants) {
        None => Ok(model),
        Some((variant, offered)) => Err(diag::Error::file(
            path.display().to_string(),
            format!("the model tests no variant `{variant}`"),
        )
        .with_note(offered)),
    }
}

/// The first of `variants` that `model` does not test (no `if "name"` names it), with what it
/// does test, in words.
pub(crate) fn untested_variant(model: &Model, variants: &[String]) -> Option<(String, String)> {
    let variant = variants
        .iter()
        .find(|v| !model.variants_tested.contains(*v))?;
    let offered: Vec<&str> = model.variants_tested.iter().map(|s| s.as_str()).collect();
    let note = if offered.is_empty() {
        "it tests no variant at all (`if \"name\"` in the model)".to_string()
    } else {
        format!("it tests: {}", offered.join(", "))
    };
    Some((variant.clone(), note))
}

/// Load a model file as `opts` says, enabling variants it may not test (a mapping checks its
/// own, to point at the line that names one).
pub(crate) fn load_with_any_variant(path: &Path, opts: &LoadOptions) -> diag::Result<Model> {
    let text = diag::read_source(path)?;
    let dir = path.parent().map(|d| {
        if d.as_os_str().is_empty() {
            Path::new(".")
        } else {
            d
        }
    });
    lower::lower_top(&path.display().to_string(), text, dir, Some(path), opts)
}

/// Load a model from text; `include`s are resolved in `include_dir` (an error when it is `None`).
pub fn load_str(path_name: &str, text: &str, include_dir: Option<&Path>) -> diag::Result<Model> {
    lower::lower_top(
        path_name,
        Arc::from(text),
        include_dir,
        None,
        &LoadOptions::default(),
    )
}
