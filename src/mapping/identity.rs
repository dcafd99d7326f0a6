//! The identity mapping between two models of one language, for `compare`: every operation class
//! of the language compiles to itself (same event kind, same tags), so the mapping check becomes
//! a search for a program and an execution that one model allows and the other forbids.
//!
//! Owns: `identity` and the table of each language's operation classes (`LANGUAGES`). Uses:
//! `class`, `ptx` (`TargetOp`), `lower::Rule`, `ir` (the models and their title lines), `litmus::Arch`.
use std::collections::HashMap;
use std::path::Path;

use crate::ir::Model;
use crate::litmus::Arch;
use crate::mapping::class::{Class, ClassKind, Tag};
use crate::mapping::lower::Rule;
use crate::mapping::ptx::{OpKind, TargetOp};
use crate::mapping::Mapping;
use crate::vocab::{Name, Relation};

/// The operation classes of one language: per kind, the memory orders without a scope and the
/// orders that take one of `scopes`.
struct Language {
    /// The architecture word of a model's title line (`C`, `PTX`).
    arch: &'static str,
    litmus: Arch,
    unscoped: &'static [(ClassKind, &'static [Tag])],
    scoped: &'static [(ClassKind, &'static [Tag])],
    /// The scopes a scoped order may take: for a language whose instructions always take one,
    /// its first scopes (PTX 6.0's, `isa::ptx::scopes_of_ptx_6`) and its later ones (`.cluster`)
    /// that either model names. `None`: the scope tags either model names (a C model without
    /// scopes has no scoped classes then, and its orders are unscoped), and `inclusive_scopes`
    /// when either model reads scopes through `incl` alone.
    scopes: Option<LanguageScopes>,
    /// The scopes of a model that names no scope tag and reads scopes through `incl` (scoped
    /// RC11): the narrowest scope at which threads of a test can be apart and the one outside
    /// it, so that `incl` both holds and fails.
    inclusive_scopes: &'static [Tag],
    /// The tags of the language's execution barrier as its front end reads it, if the search
    /// places barriers in programs of this language (each compiled to itself).
    barrier: Option<&'static [Tag]>,
}

/// A language's scopes: those it always has, and all it has.
struct LanguageScopes {
    always: fn() -> Vec<Tag>,
    all: fn() -> Vec<Tag>,
}

use ClassKind::{Rmw, F, R, W};
use Tag::{Acq, AcqRel, Na, Rel, Rlx, Sc, Weak};

/// C11 memory orders (C11 §7.17.3; consume is left out, as in the mappings) and the PTX
/// instructions of PTX 6.0 (`ld`/`st` `.weak`, `.relaxed`, `.acquire`/`.release`; `atom` with
/// each semantics; `fence.sc`, `fence.acq_rel`; PTX 6.0's scopes `.cta`, `.gpu`, `.sys`, and a
/// later one either model names; and
/// `bar.sync b`, the CTA barrier, which the PTX front end tags `SYNC, CTA`).
const LANGUAGES: &[Language] = &[
    Language {
        arch: "C",
        litmus: Arch::C11,
        unscoped: &[(R, &[Na]), (W, &[Na])],
        scoped: &[
            (R, &[Rlx, Acq, Sc]),
            (W, &[Rlx, Rel, Sc]),
            (Rmw, &[Rlx, Acq, Rel, AcqRel, Sc]),
            (F, &[Acq, Rel, AcqRel, Sc]),
        ],
        scopes: None,
        inclusive_scopes: &[Tag::Cta, Tag::Gpu],
        barrier: None,
    },
    Language {
        arch: "PTX",
        litmus: Arch::Ptx,
        unscoped: &[(R, &[Weak]), (W, &[Weak])],
        scoped: &[
            (R, &[Rlx, Acq]),
            (W, &[Rlx, Rel]),
            (Rmw, &[Rlx, Acq, Rel, AcqRel]),
            (F, &[Sc, AcqRel]),
        ],
        scopes: Some(LanguageScopes {
            always: || crate::isa::ptx::scopes_of_ptx_6().collect(),
            all: || crate::isa::ptx::scope_order().collect(),
        }),
        inclusive_scopes: &[],
        barrier: Some(&[Tag::Sync, Tag::Cta]),
    },
];

/// The identity mapping from `source` onto `target`, two models of one language (their title
/// lines name it); an error naming what is missing otherwise.
pub(crate) fn identity(
    source_path: &Path,
    source: Model,
    target_path: &Path,
    target: Model,
) -> Result<Mapping, String> {
    let arch_of = |m: &Model| {
        m.arch.clone().ok_or_else(|| {
            format!(
                "{} has no title line (`C \"name\"`, `PTX \"name\"`): compare needs to know its language",
                m.path
            )
        })
    };
    let (a, b) = (arch_of(&source)?, arch_of(&target)?);
    if !a.eq_ignore_ascii_case(&b) {
        return Err(format!(
            "{} is a {a} model and {} a {b} model: compare needs two models of one language",
            source.path, target.path
        ));
    }
    let language = LANGUAGES
        .iter()
        .find(|l| l.arch.eq_ignore_ascii_case(&a))
        .ok_or_else(|| {
            let known: Vec<&str> = LANGUAGES.iter().map(|l| l.arch).collect();
            format!(
                "compare knows the operations of {} models, not of {a}",
                known.join(" and ")
            )
        })?;
    let named = |t: Tag| source.uses(Name::Tag(t)) || target.uses(Name::Tag(t));
    let scopes: Vec<Tag> = match &language.scopes {
        Some(scopes) => {
            let always = (scopes.always)();
            let all = (scopes.all)().into_iter();
            all.filter(|&t| always.contains(&t) || named(t)).collect()
        }
        None => {
            let named: Vec<Tag> = crate::vocab::TAGS
                .into_iter()
                .filter(|t| t.level().is_some())
                .filter(|&t| named(t))
                .collect();
            let incl = Name::Rel(Relation::Incl);
            match named.is_empty() && (source.uses(incl) || target.uses(incl)) {
                true => language.inclusive_scopes.to_vec(),
                false => named,
            }
        }
    };
    let classes = language.classes(&scopes);
    let rules: HashMap<Class, Rule> = classes.iter().map(|c| (*c, same_rule(c))).collect();
    let searched_barrier = (language.barrier)
        .filter(|_| !source.splits_barriers() && !target.splits_barriers())
        .map(<[Tag]>::to_vec);
    Ok(Mapping {
        path: format!("{} vs {}", source.path, target.path),
        source_path: source_path.to_path_buf(),
        target_path: target_path.to_path_buf(),
        source,
        target,
        source_arch: language.litmus,
        target_arch: language.litmus,
        scopes: scopes.iter().map(|&s| (s, s)).collect(),
        dropped: vec![],
        typed_locations: false,
        inexpressible: vec![],
        searched_barrier,
        classes,
        rules,
        readings: Default::default(),
    })
}

impl Language {
    /// Every class: the unscoped ones, then each scoped order with each scope (or unscoped when
    /// there are no scopes).
    fn classes(&self, scopes: &[Tag]) -> Vec<Class> {
        let mut out = vec![];
        for &(kind, orders) in self.unscoped {
            out.extend(orders.iter().map(|&order| Class {
                kind,
                order,
                scope: None,
            }));
        }
        for &(kind, orders) in self.scoped {
            for &order in orders {
                if scopes.is_empty() {
                    out.push(Class {
                        kind,
                        order,
                        scope: None,
                    });
                }
                out.extend(scopes.iter().map(|&s| Class {
                    kind,
                    order,
                    scope: Some(s),
                }));
            }
        }
        out
    }
}

/// A class compiled to itself: one instruction of the same kind with the class's own tags.
fn same_rule(class: &Class) -> Rule {
    Rule {
        ops: vec![TargetOp {
            kind: OpKind::of_class(class.kind),
            tags: class.tags(),
        }],
        main: Some(0),
        origin: "identity".to_string(),
        text: format!("{class} -> {class}"),
    }
}
