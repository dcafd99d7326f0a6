//! What a check answers: per source axiom a confirmed counterexample or the bound it is clean
//! to (and how far an unfinished bound got), the events it reports as it goes, and the scope of
//! what it searched in terms of the mapping's classes.
//!
//! Owns: `Counterexample`, `AxiomResult`, `Statistics`, `Unfinished`, `Event`, `Report`, `Scope`,
//! `Observer`.
//! Uses: `decode` (`SolutionTests`), `validate` (`CycleStep`), `options`, `operations`, `mapping`,
//! `exec`, `vocab`, `ir` (a model's reading, in words).
use super::decode::SolutionTests;
use super::operations::Op;
use super::options::Options;
use super::readings::ReadingVerdict;
use super::validate::CycleStep;
use crate::exec::EventKind;
use crate::mapping::{ClassKind, Mapping};
use crate::vocab::{EventSet, Name, Relation, Role, Tag};

/// A confirmed counterexample.
#[derive(Clone, Debug)]
pub struct Counterexample {
    /// Name of the source axiom it violates.
    pub axiom: String,
    /// The bound it was found at, and its thread shape.
    pub bound: usize,
    pub(crate) shape: Vec<usize>,
    /// The solution as the source test, its compiled target test and the execution in event keys.
    pub found: SolutionTests,
    /// Source axioms the runner sees failing on the lifted execution.
    pub(crate) failed: Vec<String>,
    /// A cycle of the violated axiom's relation on the lifted source execution, each edge
    /// labelled with the relation that makes it (`validate::cycle`, by the evaluator).
    pub cycle: Vec<CycleStep>,
    /// The compiled test under every reading of the target architecture (`readings`): which
    /// allow it.
    pub readings: Vec<ReadingVerdict>,
    /// The source test under every reading of the source language: which forbid it race-free
    /// (it is a counterexample under those), which allow it, under which it races.
    pub source_readings: Vec<ReadingVerdict>,
}

/// The outcome for one source axiom.
#[derive(Clone, Debug)]
pub struct AxiomResult {
    /// Name of the source axiom (a non-flag check of the source model).
    pub axiom: String,
    /// The confirmed counterexample; `None` if none was found (see `clean_to` and `unfinished`).
    pub counterexample: Option<Counterexample>,
    /// Largest bound checked completely without a counterexample.
    pub clean_to: usize,
    /// The work spent on this axiom: queries, solver calls, refinements, seconds (summed over
    /// the worker threads).
    pub(crate) statistics: Statistics,
    /// The bound the check was in when it stopped early without a counterexample.
    pub unfinished: Option<Unfinished>,
}

/// The work a check spent on one axiom (of one shape, or summed over shapes).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Statistics {
    /// SAT problems the axiom was searched in (one per thread shape).
    pub queries: usize,
    /// Solver calls.
    pub solves: usize,
    /// Solutions the runner showed racy (or without any consistent source execution).
    pub racy: usize,
    /// Of those, the ones excluded together with every program that races when its events run
    /// in the same sequentially consistent interleaving (decision 002, "Search"); the others
    /// with every program on which the same racy execution is consistent, or alone.
    pub racy_by_interleaving: usize,
    /// Solutions another coherence order explains.
    pub explained: usize,
    /// Time spent on the axiom's queries (summed over worker threads).
    pub seconds: f64,
}

/// `3 queries, 9 solver calls, 5 racy programs refined away (4 by their racy interleaving), …,
/// 1.25 s` (summaries of `check` and `compare`).
impl std::fmt::Display for Statistics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} queries, {} solver calls, {} racy programs refined away ({} by their racy interleaving), {} solutions explained by another coherence order, {:.2} s",
            self.queries, self.solves, self.racy, self.racy_by_interleaving, self.explained, self.seconds
        )
    }
}

impl Statistics {
    /// Add `other`'s work to this.
    pub fn add(&mut self, other: &Statistics) {
        self.queries += other.queries;
        self.solves += other.solves;
        self.racy += other.racy;
        self.racy_by_interleaving += other.racy_by_interleaving;
        self.explained += other.explained;
        self.seconds += other.seconds;
    }
}

/// How far a bound got before the check stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Unfinished {
    /// The bound that was being searched.
    pub bound: usize,
    /// Thread shapes of that bound finished for this axiom, of `shapes`.
    pub shapes_done: usize,
    /// Thread shapes of that bound in all.
    pub shapes: usize,
}

/// What a running check tells its caller, as it happens (from worker threads, one at a time).
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// A thread shape of `bound` is finished: `done` of `total`.
    Shape {
        /// The bound being searched.
        bound: usize,
        /// Thread shapes of the bound finished so far (by any worker thread).
        done: usize,
        /// Thread shapes of the bound in all.
        total: usize,
    },
    /// A counterexample, confirmed by the runner and settled.
    Counterexample(&'a Counterexample),
    /// Every axiom in `clean` has no counterexample up to `bound`.
    Bound {
        /// The bound just finished.
        bound: usize,
        /// The axioms still open at this bound that it left clean.
        clean: &'a [String],
    },
}

/// The whole check.
#[derive(Clone, Debug)]
pub struct Report {
    pub(crate) mapping: String,
    pub(crate) options: Options,
    /// One result per source axiom checked, in the source model's order.
    pub axioms: Vec<AxiomResult>,
    pub(crate) seconds: f64,
    pub(crate) solver: &'static str,
    /// The check stopped (`Options::stop`) before it finished its bound.
    pub stopped: bool,
    /// The mapping's classes the search put in programs, and what it could not (see `Scope`).
    pub(crate) scope: Scope,
}

/// What programs the search considers, in terms of the mapping's classes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    /// The classes a source event may be, in the mapping's order.
    pub(crate) searched: Vec<String>,
    /// What the search leaves out, in words: declared classes the counting excludes, and kinds
    /// of operation and memory orders the source model has but no searched class has.
    pub(crate) not_searched: Vec<String>,
    /// The source model the search reads, with its variants: `rc11-scoped.cat (default
    /// reading; it also offers --variant cxx20)`.
    pub(crate) source: String,
    /// The target model the search reads, with its variants: `ptx-v6.cat (default reading; it
    /// also offers --variant dep-without-rmw)`.
    pub(crate) target: String,
}

/// The source model file and the reading the search uses (as `target_reading`).
pub fn source_reading(mapping: &Mapping) -> String {
    model_reading(&mapping.source_path, &mapping.source)
}

/// The target model file and the reading the search uses: its enabled variants, or its default
/// and the variants it offers.
pub fn target_reading(mapping: &Mapping) -> String {
    model_reading(&mapping.target_path, &mapping.target)
}

fn model_reading(path: &std::path::Path, model: &crate::ir::Model) -> String {
    let as_flags = |vs: Vec<&String>| -> Vec<String> {
        vs.into_iter().map(|v| format!("--variant {v}")).collect()
    };
    let enabled = as_flags(model.variants_enabled.iter().collect());
    let offered = as_flags(
        model
            .variants_tested
            .iter()
            .filter(|v| !model.variants_enabled.contains(*v))
            .collect(),
    );
    let read = if enabled.is_empty() {
        "default reading".to_string()
    } else {
        format!("read with {}", enabled.join(" "))
    };
    if offered.is_empty() {
        format!("{} ({read})", path.display())
    } else {
        format!(
            "{} ({read}; it also offers {})",
            path.display(),
            offered.join(", ")
        )
    }
}

/// Called with every `Event` of a check.
pub type Observer<'a> = &'a (dyn Fn(Event) + Sync);

impl Scope {
    pub(super) fn of(mapping: &Mapping, menu: &[Op]) -> Scope {
        let mut searched: Vec<String> = vec![];
        for op in menu {
            let name = op
                .class
                .map_or("barrier (bar.sync)".to_string(), |c| c.to_string());
            if !searched.contains(&name) {
                searched.push(name);
            }
        }
        let mut not_searched: Vec<String> = mapping
            .classes()
            .iter()
            .map(|c| c.to_string())
            .filter(|c| !searched.contains(c))
            .map(|c| format!("class {c} (the counting leaves it out)"))
            .collect();
        not_searched
            .extend((mapping.inexpressible.iter()).map(|row| format!("inexpressible row: {row}")));
        let source = &mapping.source;
        let has = |kind: ClassKind| {
            menu.iter()
                .any(|op| op.class.is_some_and(|c| c.kind == kind))
        };
        for (kind, in_model) in [
            (ClassKind::R, true),
            (ClassKind::W, true),
            (ClassKind::Rmw, source.uses(Name::Rel(Relation::Rmw))),
            (ClassKind::F, source.uses(Name::Set(EventSet::F))),
        ] {
            if in_model && !has(kind) {
                not_searched.push(format!(
                    "{}: the source model has them, no searched class is one",
                    kind.plural()
                ));
            }
        }
        let barriers = menu.iter().any(|op| op.kind == EventKind::Barrier);
        let barrier_sets = [EventSet::Bar, EventSet::EntryFence, EventSet::ExitFence];
        if barrier_sets.iter().any(|&b| source.uses(Name::Set(b))) && !barriers {
            not_searched
                .push("barriers: the source model has them, the search places none".to_string());
        }
        for order in Tag::with_role(Role::Order) {
            if source.uses(Name::Tag(order))
                && !menu
                    .iter()
                    .any(|op| op.class.is_some_and(|c| c.order == order))
            {
                not_searched.push(format!(
                    "memory order {order}: the source model names it, no searched class has it"
                ));
            }
        }
        Scope {
            searched,
            not_searched,
            source: source_reading(mapping),
            target: target_reading(mapping),
        }
    }
}
