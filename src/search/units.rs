//! A check cut into work units, as the shards of a split check run it (the `shard` stage): the
//! (bound, thread shape) pairs a check searches, in its order (`work`), and a run of some of them,
//! each with some of the axioms (`check_units`), that answers per (bound, shape, axiom) unit
//! clean, a confirmed counterexample, stopped, or skipped. A counterexample to an axiom ends that
//! axiom's search in the run at every later (bound, shape), as `check` does: the counterexample
//! of the smallest (bound, shape) is the one a check reports.
//!
//! Owns: `Work`, `ShapeUnit`, `ShapeWork`, `ShapeOutcome`, `UnitOutcome`, `UnitVerdict`, `work`,
//! `check_units`. Uses: `shape_problem` (one problem per shape, reused across its axioms),
//! `outcome` (counterexamples, statistics, events), `options`, the driver's `shapes_at`,
//! `searchable_menu` and `select_axioms`.
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;

use super::outcome::{Counterexample, Event, Observer, Scope, Statistics};
use super::shape_problem::ShapeProblem;
use super::{lock, searchable_menu, select_axioms, shapes_at, Options};
use crate::diag;
use crate::mapping::Mapping;

/// Everything a check with some options searches: its axioms and its (bound, shape) pairs.
#[derive(Clone, Debug)]
pub struct Work {
    /// The source axioms checked, in the source model's order.
    pub axioms: Vec<String>,
    /// Every (bound, thread shape) searched, in the check's order: by bound, then in each
    /// bound's shape order (the order that decides which counterexample a check reports).
    pub shapes: Vec<ShapeUnit>,
    /// The bounds a check finishes one after another (natural counting: 1 to N; Alloy: N).
    pub bounds: Vec<usize>,
    /// What is searched, in terms of the mapping's classes.
    pub scope: Scope,
}

/// One thread shape of one bound: one SAT problem, built once and searched for each axiom.
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct ShapeUnit {
    /// The bound.
    pub bound: usize,
    /// The shape's place in the bound's order.
    pub index: usize,
    /// Events per thread.
    pub shape: Vec<usize>,
}

/// A shape to search, for these axioms.
#[derive(Clone, Debug)]
pub struct ShapeWork {
    /// The (bound, shape).
    pub unit: ShapeUnit,
    /// The axioms to search it for (names of `Work::axioms`).
    pub axioms: Vec<String>,
}

/// What one shape gave.
#[derive(Clone, Debug)]
pub struct ShapeOutcome {
    /// The (bound, shape).
    pub unit: ShapeUnit,
    /// Seconds spent building its SAT problem (0 when every axiom was skipped).
    pub build_seconds: f64,
    /// One outcome per axiom asked for, in the order asked.
    pub axioms: Vec<UnitOutcome>,
}

/// What one (bound, shape, axiom) unit gave.
#[derive(Clone, Debug)]
pub struct UnitOutcome {
    /// The axiom.
    pub axiom: String,
    /// Its verdict on the shape.
    pub verdict: UnitVerdict,
    /// The work spent.
    pub statistics: Statistics,
}

/// The verdict of one unit.
#[derive(Clone, Debug)]
pub enum UnitVerdict {
    /// Searched to the end: no counterexample of this shape.
    Clean,
    /// A counterexample, confirmed by the runner.
    Counterexample(Box<Counterexample>),
    /// The run stopped (`Options::stop`) before the unit was finished, or before it started.
    Stopped,
    /// Not searched: this run had already found a counterexample to the axiom at a smaller
    /// (bound, shape), which is the one that counts.
    Skipped,
}

/// What a check with `opts` searches (see `Work`), or why it would search nothing.
pub fn work(mapping: &Mapping, opts: &Options) -> diag::Result<Work> {
    let (_, scope) = searchable_menu(mapping, opts)?;
    let axioms = select_axioms(mapping, &opts.axioms)
        .map_err(|m| diag::Error::file(&mapping.path, m))?
        .into_iter()
        .map(|(_, name)| name)
        .collect();
    let bounds: Vec<usize> = (1..=opts.bound)
        .filter(|&b| !shapes_at(b, opts).is_empty())
        .collect();
    let shapes = bounds
        .iter()
        .flat_map(|&bound| {
            shapes_at(bound, opts)
                .into_iter()
                .enumerate()
                .map(move |(index, shape)| ShapeUnit {
                    bound,
                    index,
                    shape,
                })
        })
        .collect();
    Ok(Work {
        axioms,
        shapes,
        bounds,
        scope,
    })
}

/// Search the given shapes for their axioms, bound after bound, each bound's shapes in parallel;
/// a shape not of `work(mapping, opts)` or an unknown axiom is an error. Every unit asked for
/// gets an outcome. Reports each bound as it starts and each finished shape to `observe`
/// (`Event::Shape`, counted among the shapes asked for at that bound).
pub fn check_units(
    mapping: &Mapping,
    opts: &Options,
    todo: &[ShapeWork],
    observe: Observer,
) -> diag::Result<Vec<ShapeOutcome>> {
    let err = |msg: String| diag::Error::file(&mapping.path, msg);
    let (menu, _) = searchable_menu(mapping, opts)?;
    let axioms = select_axioms(mapping, &opts.axioms).map_err(err)?;
    let known = work(mapping, opts)?;
    let mut todo: Vec<&ShapeWork> = todo.iter().collect();
    todo.sort_by(|a, b| a.unit.cmp(&b.unit));
    for w in &todo {
        if !known.shapes.contains(&w.unit) {
            return Err(err(format!(
                "bound {} has no thread shape {} of {:?} in this check",
                w.unit.bound, w.unit.index, w.unit.shape
            )));
        }
        if let Some(a) = w.axioms.iter().find(|a| !known.axioms.contains(a)) {
            return Err(err(format!("this check does not search axiom `{a}`")));
        }
    }
    let check_index = |name: &str| axioms.iter().find(|(_, n)| n == name).map(|(i, _)| *i);
    // Per axiom, the (bound, shape index) of the first counterexample found so far.
    let mut first: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut out: Vec<ShapeOutcome> = vec![];
    let mut at = 0;
    while at < todo.len() {
        let bound = todo[at].unit.bound;
        let end = at
            + todo[at..]
                .iter()
                .take_while(|w| w.unit.bound == bound)
                .count();
        let here = &todo[at..end];
        at = end;
        let state = Mutex::new(Level {
            first: first.clone(),
            done: 0,
            error: None,
        });
        let total = here.len();
        observe(Event::Shape {
            bound,
            done: 0,
            total,
        });
        let mut level_out: Vec<ShapeOutcome> = here
            .par_iter()
            .map(|w| {
                let mut shape = ShapeOutcome {
                    unit: w.unit.clone(),
                    build_seconds: 0.0,
                    axioms: vec![],
                };
                let mut problem: Option<ShapeProblem> = None;
                for name in &w.axioms {
                    let outcome = |verdict| UnitOutcome {
                        axiom: name.clone(),
                        verdict,
                        statistics: Statistics::default(),
                    };
                    if lock(&state).settled_before(name, bound, w.unit.index) {
                        shape.axioms.push(outcome(UnitVerdict::Skipped));
                        continue;
                    }
                    if opts.stop.requested() {
                        shape.axioms.push(outcome(UnitVerdict::Stopped));
                        continue;
                    }
                    let q = problem.get_or_insert_with(|| {
                        let start = Instant::now();
                        let q = ShapeProblem::new(mapping, &menu, &w.unit.shape, bound, opts);
                        shape.build_seconds = start.elapsed().as_secs_f64();
                        q
                    });
                    let i = check_index(name).expect("axioms checked above");
                    let mut r = match q.run_axiom(i, name, &opts.stop) {
                        Ok(r) => r,
                        Err(m) => {
                            lock(&state).error.get_or_insert(err(m));
                            shape.axioms.push(outcome(UnitVerdict::Stopped));
                            continue;
                        }
                    };
                    let verdict = match r.take_counterexample(name, bound, &w.unit.shape) {
                        Some(cx) => {
                            lock(&state).found(name, bound, w.unit.index);
                            UnitVerdict::Counterexample(Box::new(cx))
                        }
                        None if r.stopped => UnitVerdict::Stopped,
                        None => UnitVerdict::Clean,
                    };
                    shape.axioms.push(UnitOutcome {
                        axiom: name.clone(),
                        verdict,
                        statistics: r.statistics,
                    });
                }
                let mut st = lock(&state);
                st.done += 1;
                observe(Event::Shape {
                    bound,
                    done: st.done,
                    total,
                });
                shape
            })
            .collect();
        let level = state.into_inner().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = level.error {
            return Err(e);
        }
        first = level.first;
        out.append(&mut level_out);
    }
    Ok(out)
}

/// One bound of `check_units` as its shapes finish.
struct Level {
    first: BTreeMap<String, (usize, usize)>,
    done: usize,
    error: Option<diag::Error>,
}

impl Level {
    /// Has this run a counterexample to `axiom` before shape `index` of `bound`?
    fn settled_before(&self, axiom: &str, bound: usize, index: usize) -> bool {
        self.first.get(axiom).is_some_and(|&f| f < (bound, index))
    }

    fn found(&mut self, axiom: &str, bound: usize, index: usize) {
        let f = self
            .first
            .entry(axiom.to_string())
            .or_insert((bound, index));
        *f = (*f).min((bound, index));
    }
}
