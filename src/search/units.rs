//! A check cut into work units, as the shards of a split check run it (the `shard` stage): the
//! (bound, thread shape) pairs a check searches, in its order (`work`), and a run of some of them,
//! each with some of the axioms (`check_units`), that answers per (bound, shape, axiom) unit
//! clean, a confirmed counterexample, stopped, or skipped. A counterexample to an axiom ends that
//! axiom's search in the run at every later (bound, shape), as `check` does: the counterexample
//! of the smallest (bound, shape) is the one a check reports.
//!
//! Both `check_units` and the driver's `check` run a bound through `search_bound`: its shapes in
//! parallel, each shape's axioms one after another (`ShapeProblems`: one problem serves them
//! until it carries many refinements), with what the caller keeps of the bound behind `Progress`.
//!
//! Owns: `Work`, `ShapeUnit`, `ShapeWork`, `ShapeOutcome`, `UnitOutcome`, `UnitVerdict`, `work`,
//! `check_units`, `search_bound`. Uses: `shape_problem` (a shape's problems),
//! `outcome` (counterexamples, statistics, events), `options`, the driver's `shapes_at`,
//! `searchable_menu` and `select_axioms`.
use std::collections::BTreeMap;
use std::sync::Mutex;

use rayon::prelude::*;

use super::operations::Op;
use super::outcome::{Counterexample, Event, Observer, Scope, Statistics};
use super::shape_problem::{Ended, ShapeAxiom, ShapeProblems};
use super::{lock, searchable_menu, select_axioms, shapes_at, Options};
use crate::diag::{self, Internal};
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

/// One thread shape of one bound, searched for some axioms.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
    /// Seconds spent building its SAT problems (0 when every axiom was skipped).
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
    /// Not searched, or not to the end: this run found a counterexample to the axiom at a
    /// smaller (bound, shape), which is the one that counts, before or while the unit ran.
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
    let axiom_index = |name: &String| {
        axioms
            .iter()
            .position(|(_, n)| n == name)
            .expect("axioms checked above")
    };
    // Per axiom, the (bound, shape index) of the first counterexample found so far.
    let mut first: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    let mut out: Vec<ShapeOutcome> = vec![];
    for here in todo.chunk_by(|a, b| a.unit.bound == b.unit.bound) {
        let bound = here[0].unit.bound;
        let shapes: Vec<BoundShape> = here
            .iter()
            .map(|w| BoundShape {
                index: w.unit.index,
                shape: &w.unit.shape,
                axioms: w.axioms.iter().map(axiom_index).collect(),
            })
            .collect();
        let level = Level {
            state: Mutex::new(LevelState {
                first: first.clone(),
                done: 0,
                error: None,
                outcomes: BTreeMap::new(),
            }),
            bound,
            axioms: &axioms,
            total: here.len(),
            path: &mapping.path,
            observe,
        };
        observe(Event::Shape {
            bound,
            done: 0,
            total: here.len(),
        });
        let build_seconds = search_bound(mapping, &menu, &axioms, opts, bound, &shapes, &level);
        let mut state = level.state.into_inner().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = state.error {
            return Err(e);
        }
        first = state.first;
        for (w, build_seconds) in here.iter().zip(build_seconds) {
            out.push(ShapeOutcome {
                unit: w.unit.clone(),
                build_seconds,
                axioms: state.outcomes.remove(&w.unit.index).unwrap_or_default(),
            });
        }
    }
    Ok(out)
}

/// One shape of a bound for `search_bound`: its place in the bound's order, its threads, and
/// the axioms to search it for (indices into the check's axioms), in order.
pub(super) struct BoundShape<'s> {
    pub(super) index: usize,
    pub(super) shape: &'s [usize],
    pub(super) axioms: Vec<usize>,
}

/// What became of one axiom of one shape in `search_bound`.
pub(super) enum AxiomRun {
    /// Not searched: a counterexample at an earlier shape of the run settles the axiom. (A search
    /// that learns so while it runs ends `Searched`, `Ended::Superseded`.)
    Skipped,
    /// Not started: the run was asked to stop.
    NotStarted,
    /// Searched, to the end, until the run was asked to stop or until a counterexample at an
    /// earlier shape settled the axiom (`ShapeAxiom::ended`); or the
    /// search failed (an internal error). Boxed: it is by far the largest variant.
    Searched(Box<Result<ShapeAxiom, Internal>>),
}

/// What a caller of `search_bound` keeps of the bound while its shapes run in parallel.
pub(super) trait Progress: Sync {
    /// Has the run a counterexample to `axiom` at a shape before shape `index`?
    fn settled_before(&self, axiom: usize, index: usize) -> bool;
    /// What became of `axiom` on `shape` (each shape's axioms come in order).
    fn record(&self, shape: &BoundShape, axiom: usize, run: AxiomRun);
    /// Shape `index` has run (not called for a shape the stop kept from starting any axiom).
    fn shape_done(&self, index: usize);
}

/// Search one bound's `shapes` in parallel (rayon): a shape's axioms in order, on the shape's
/// problems (`ShapeProblems`); `progress` says which are settled and hears every outcome. The
/// `check` of a whole mapping and `check_units` of a shard both run their bounds through here.
/// Returns the seconds spent building each shape's problems.
pub(super) fn search_bound(
    mapping: &Mapping,
    menu: &[Op],
    axioms: &[(usize, String)],
    opts: &Options,
    bound: usize,
    shapes: &[BoundShape],
    progress: &dyn Progress,
) -> Vec<f64> {
    shapes
        .par_iter()
        .map(|s| {
            let mut problems = ShapeProblems::new(mapping, menu, s.shape, bound);
            let mut started = false;
            for &a in &s.axioms {
                let settled = || progress.settled_before(a, s.index);
                let run = if settled() {
                    AxiomRun::Skipped
                } else if opts.stop.requested() {
                    AxiomRun::NotStarted
                } else {
                    let (i, name) = (axioms[a].0, &axioms[a].1);
                    AxiomRun::Searched(Box::new(problems.run_axiom(i, name, opts, &settled)))
                };
                started |= !matches!(run, AxiomRun::NotStarted);
                progress.record(s, a, run);
            }
            if started {
                progress.shape_done(s.index);
            }
            problems.build_seconds()
        })
        .collect()
}

/// One bound of `check_units` as its shapes run.
struct Level<'a> {
    state: Mutex<LevelState>,
    bound: usize,
    axioms: &'a [(usize, String)],
    total: usize,
    path: &'a str,
    observe: Observer<'a>,
}

struct LevelState {
    /// Per axiom, the (bound, shape index) of the first counterexample of the run so far.
    first: BTreeMap<usize, (usize, usize)>,
    done: usize,
    error: Option<diag::Error>,
    /// Per shape index, the outcomes of its axioms so far.
    outcomes: BTreeMap<usize, Vec<UnitOutcome>>,
}

impl Progress for Level<'_> {
    fn settled_before(&self, axiom: usize, index: usize) -> bool {
        let first = lock(&self.state).first.get(&axiom).copied();
        first.is_some_and(|f| f < (self.bound, index))
    }

    fn record(&self, shape: &BoundShape, axiom: usize, run: AxiomRun) {
        let (name, index) = (&self.axioms[axiom].1, shape.index);
        let mut state = lock(&self.state);
        let (verdict, statistics) = match run {
            AxiomRun::Skipped => (UnitVerdict::Skipped, Statistics::default()),
            AxiomRun::NotStarted => (UnitVerdict::Stopped, Statistics::default()),
            AxiomRun::Searched(searched) => match *searched {
                Err(m) => {
                    state
                        .error
                        .get_or_insert(diag::Error::internal(self.path, m));
                    (UnitVerdict::Stopped, Statistics::default())
                }
                Ok(mut r) => {
                    let verdict = match r.take_counterexample(name, self.bound, shape.shape) {
                        Some(cx) => {
                            let f = state.first.entry(axiom).or_insert((self.bound, index));
                            *f = (*f).min((self.bound, index));
                            UnitVerdict::Counterexample(Box::new(cx))
                        }
                        None => match r.ended {
                            Ended::Finished => UnitVerdict::Clean,
                            Ended::Stopped => UnitVerdict::Stopped,
                            Ended::Superseded => UnitVerdict::Skipped,
                        },
                    };
                    (verdict, r.statistics)
                }
            },
        };
        state.outcomes.entry(index).or_default().push(UnitOutcome {
            axiom: name.clone(),
            verdict,
            statistics,
        });
    }

    fn shape_done(&self, _index: usize) {
        let mut state = lock(&self.state);
        state.done += 1;
        (self.observe)(Event::Shape {
            bound: self.bound,
            done: state.done,
            total: self.total,
        });
    }
}
