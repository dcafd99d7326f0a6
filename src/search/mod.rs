//! The mapping check: a bounded search for a race-free source program whose compiled code has an
//! execution the target model allows and the source model forbids.
//!
//! Per bound N and thread shape (events per thread, fixed outside the solver, threads sorted by
//! size), one SAT problem over one universe of slots (`layout`): which operation each event is,
//! its location, the threads' places in the scope tree and the target execution's `rf` / `co` are
//! variables (`symbolic`); the target model is encoded positively ("consistent") and each source
//! axiom negatively ("fails", a guessed cycle), over the same slots: the source execution is
//! derived from the target one, never guessed beside it. Every solution goes to the runner
//! (`validate`): a racy program is excluded together with every program on which the same racy
//! execution is consistent (counterexample-guided refinement); a solution the runner does not
//! confirm as a counterexample never reaches the user.
//!
//! A check reports as it goes (`Event`): a counterexample as soon as it is settled (no thread
//! shape before it in the bound's order can still give another), every finished bound, every
//! finished shape. A requested `Stop` (a signal, a deadline) ends it early with what is settled:
//! per axiom a counterexample, or the largest bound finished clean and how far the next one got.
//!
//! Owns: `Options`, `check`, `Event`, `Report`, `AxiomResult`, `Counterexample`, `Unfinished`.
//! Uses: `mapping`, `encode`, `runner` (through `validate`), `rayon`.
mod layout;
mod symbolic;
pub mod validate;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;

pub use self::layout::{thread_shapes, Counting};
pub use self::validate::{execution_keys, CycleStep, Found, Key, KeyRel, LOCATIONS};

use self::layout::{menu, Layout, Op};
use self::symbolic::{Program, Setup, View};
use self::validate::Verdict;
use crate::diag;
use crate::encode::{Backend, Circuit, Encoded, Matrix, Node, Sat};
use crate::ir::CoKind;
use crate::mapping::{ClassKind, Mapping};
use crate::rel::Rel;
use crate::solver::{Stop, Verdict as SatVerdict};
use crate::vocab::{self, Tag};

/// What to search.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Options {
    pub bound: usize,
    pub counting: Counting,
    /// Source axioms to check (all non-flag checks when empty).
    pub axioms: Vec<String>,
    /// At most this many threads (default: the bound).
    pub threads: Option<usize>,
    /// At most this many locations (default: the bound).
    pub locations: Option<usize>,
    pub backend: Backend,
    /// Stop after the first bound at which some axiom has a counterexample.
    pub first: bool,
    /// Asked for by a signal handler or a deadline: end early, with what is settled.
    #[serde(skip)]
    pub stop: Stop,
}

impl Options {
    /// The options of a check of every axiom up to `bound` in natural counting.
    pub fn natural(bound: usize, backend: Backend) -> Options {
        Options {
            bound,
            counting: Counting::Natural,
            axioms: Vec::new(),
            threads: None,
            locations: None,
            backend,
            first: false,
            stop: Stop::new(),
        }
    }
}

/// A confirmed counterexample.
#[derive(Clone, Debug)]
pub struct Counterexample {
    pub axiom: String,
    /// The bound it was found at, and its thread shape.
    pub bound: usize,
    pub shape: Vec<usize>,
    pub found: Found,
    /// Source axioms the runner sees failing on the lifted execution.
    pub failed: Vec<String>,
    /// A cycle of the violated axiom's relation on the lifted source execution, each edge
    /// labelled with the relation that makes it (`validate::cycle`, by the evaluator).
    pub cycle: Vec<CycleStep>,
}

/// The outcome for one source axiom.
#[derive(Clone, Debug)]
pub struct AxiomResult {
    pub axiom: String,
    pub counterexample: Option<Counterexample>,
    /// Largest bound checked completely without a counterexample.
    pub clean_to: usize,
    /// SAT problems built (thread shapes) and solver calls.
    pub queries: usize,
    pub solves: usize,
    /// Solutions the runner showed racy (or without any consistent source execution), and
    /// solutions another coherence order explains.
    pub racy: usize,
    pub explained: usize,
    /// Time spent on this axiom's queries, summed over the worker threads.
    pub seconds: f64,
    /// The bound the check was in when it stopped early without a counterexample.
    pub unfinished: Option<Unfinished>,
}

/// How far a bound got before the check stopped.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Unfinished {
    pub bound: usize,
    /// Thread shapes of that bound finished for this axiom, of `shapes`.
    pub shapes_done: usize,
    pub shapes: usize,
}

/// What a running check tells its caller, as it happens (from worker threads, one at a time).
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// A thread shape of `bound` is finished: `done` of `total`.
    Shape {
        bound: usize,
        done: usize,
        total: usize,
    },
    /// A counterexample, confirmed by the runner and settled.
    Counterexample(&'a Counterexample),
    /// Every axiom in `clean` has no counterexample up to `bound`.
    Bound { bound: usize, clean: &'a [String] },
}

/// The whole check.
#[derive(Clone, Debug)]
pub struct Report {
    pub mapping: String,
    pub options: Options,
    pub axioms: Vec<AxiomResult>,
    pub seconds: f64,
    pub solver: &'static str,
    /// The check stopped (`Options::stop`) before it finished its bound.
    pub stopped: bool,
    /// The mapping's classes the search put in programs, and what it could not (see `Scope`).
    pub scope: Scope,
}

/// What programs the search considers, in terms of the mapping's classes.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Scope {
    /// The classes a source event may be, in the mapping's order.
    pub searched: Vec<String>,
    /// What the search leaves out, in words: declared classes the counting excludes, and kinds
    /// of operation and memory orders the source model has but no searched class has.
    pub not_searched: Vec<String>,
}

/// Called with every `Event` of a check.
pub type Observer<'a> = &'a (dyn Fn(Event) + Sync);

/// What a check with `opts` would search (see `Scope`), or why it would search nothing.
pub fn scope(mapping: &Mapping, opts: &Options) -> diag::Result<Scope> {
    searchable_menu(mapping, opts).map(|(_, scope)| scope)
}

/// The names of the source axioms a check with `opts` checks.
pub fn selected_axioms(mapping: &Mapping, opts: &Options) -> diag::Result<Vec<String>> {
    select_axioms(mapping, &opts.axioms)
        .map(|all| all.into_iter().map(|(_, name)| name).collect())
        .map_err(|m| diag::Error::file(&mapping.path, m))
}

/// The operations a source event may be, and the scope they make; an error for options or a
/// mapping that would search no program (and so report every axiom clean).
fn searchable_menu(mapping: &Mapping, opts: &Options) -> diag::Result<(Vec<Op>, Scope)> {
    let err = |msg: String| diag::Error::file(&mapping.path, msg);
    refuse_empty_bounds(opts).map_err(err)?;
    let menu = menu(mapping, opts.counting)
        .map_err(|m| err(format!("the search cannot use this mapping: {m}")))?;
    let scope = Scope::of(mapping, &menu);
    if menu.is_empty() {
        let why = if mapping.classes().is_empty() {
            "it declares none".to_string()
        } else {
            scope.not_searched.join("; ")
        };
        return Err(err(format!(
            "no class of the mapping can be searched ({why}): a check would search no program"
        )));
    }
    Ok((menu, scope))
}

/// Run the check.
pub fn check(mapping: &Mapping, opts: &Options, observe: Observer) -> diag::Result<Report> {
    let start = Instant::now();
    let err = |msg: String| diag::Error::file(&mapping.path, msg);
    let (menu, scope) = searchable_menu(mapping, opts)?;
    let axioms = select_axioms(mapping, &opts.axioms).map_err(err)?;
    let mut results: Vec<AxiomResult> = axioms
        .iter()
        .map(|(_, name)| AxiomResult {
            axiom: name.clone(),
            counterexample: None,
            clean_to: 0,
            queries: 0,
            solves: 0,
            racy: 0,
            explained: 0,
            seconds: 0.0,
            unfinished: None,
        })
        .collect();
    // Natural counting grows the bound one event at a time; Alloy counting checks bound N at once
    // (a larger bound also allows smaller programs more scopes).
    let first_bound = match opts.counting {
        Counting::Natural => 1,
        Counting::Alloy => opts.bound,
    };
    let mut stopped = false;
    for bound in first_bound..=opts.bound {
        let open: Vec<usize> = (0..axioms.len())
            .filter(|&a| results[a].counterexample.is_none())
            .collect();
        if open.is_empty() {
            break;
        }
        if opts.stop.requested() {
            stopped = true;
            break;
        }
        let shapes = shapes_at(bound, opts);
        let level = Mutex::new(Level::new(bound, &shapes, open.len()));
        shapes.par_iter().enumerate().for_each(|(i, shape)| {
            if opts.stop.requested() {
                return;
            }
            let mut q = Query::new(mapping, &menu, shape, bound, opts);
            for (k, &a) in open.iter().enumerate() {
                if lock(&level).settled_before(k, i) {
                    continue;
                }
                let outcome = q.run_axiom(axioms[a].0, &axioms[a].1, &opts.stop);
                lock(&level).record(i, k, &results[a].axiom, outcome.map_err(err), observe);
            }
            lock(&level).shape_done(observe);
        });
        let level = level.into_inner().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = level.error {
            return Err(e);
        }
        stopped = level.merge(&open, &mut results, observe);
        if stopped || (opts.first && results.iter().any(|r| r.counterexample.is_some())) {
            break;
        }
    }
    Ok(Report {
        mapping: mapping.path.clone(),
        options: opts.clone(),
        axioms: results,
        seconds: start.elapsed().as_secs_f64(),
        solver: crate::solver::new(opts.backend).name(),
        stopped,
        scope,
    })
}

/// Zero threads, locations or a zero bound would search nothing and report it clean.
fn refuse_empty_bounds(opts: &Options) -> Result<(), String> {
    for (what, value) in [
        ("bound", Some(opts.bound)),
        ("number of threads", opts.threads),
        ("number of locations", opts.locations),
    ] {
        if value == Some(0) {
            return Err(format!(
                "the {what} must be at least 1 (0 would search no program)"
            ));
        }
    }
    Ok(())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// One bound's shapes as they finish, per open axiom (indexed `k`, in `open`'s order): which
/// shapes have finished it and the counterexamples found so far. A counterexample is settled
/// once every shape before it has finished the axiom, so the one reported is that of the first
/// shape in order, whichever worker finds it first; later shapes skip a settled axiom.
struct Level {
    bound: usize,
    shapes: Vec<Vec<usize>>,
    done: usize,
    finished: Vec<Vec<bool>>,
    found: Vec<BTreeMap<usize, Counterexample>>,
    settled: Vec<bool>,
    totals: Vec<ShapeAxiom>,
    error: Option<diag::Error>,
}

impl Level {
    fn new(bound: usize, shapes: &[Vec<usize>], open: usize) -> Level {
        Level {
            bound,
            shapes: shapes.to_vec(),
            done: 0,
            finished: vec![vec![false; shapes.len()]; open],
            found: vec![BTreeMap::new(); open],
            settled: vec![false; open],
            totals: (0..open).map(|_| ShapeAxiom::default()).collect(),
            error: None,
        }
    }

    /// Has a shape before `shape` a counterexample to axiom `k`? (Then `shape` need not look.)
    fn settled_before(&self, k: usize, shape: usize) -> bool {
        self.found[k]
            .keys()
            .next()
            .is_some_and(|&first| first < shape)
    }

    fn record(
        &mut self,
        shape: usize,
        k: usize,
        axiom: &str,
        outcome: diag::Result<ShapeAxiom>,
        observe: Observer,
    ) {
        let r = match outcome {
            Ok(r) => r,
            Err(e) => {
                self.error.get_or_insert(e);
                return;
            }
        };
        let t = &mut self.totals[k];
        t.solves += r.solves;
        t.racy += r.racy;
        t.explained += r.explained;
        t.seconds += r.seconds;
        t.queries += 1;
        self.finished[k][shape] = !r.stopped;
        if let Some((found, failed, cycle)) = r.found {
            let cx = Counterexample {
                axiom: axiom.to_string(),
                bound: self.bound,
                shape: self.shapes[shape].clone(),
                found,
                failed,
                cycle,
            };
            self.found[k].insert(shape, cx);
        }
        self.settle(k, observe);
    }

    /// Report axiom `k`'s counterexample if every shape before it has finished.
    fn settle(&mut self, k: usize, observe: Observer) {
        let Some((&first, cx)) = self.found[k].iter().next() else {
            return;
        };
        if !self.settled[k] && self.finished[k][..first].iter().all(|&f| f) {
            self.settled[k] = true;
            observe(Event::Counterexample(cx));
        }
    }

    fn shape_done(&mut self, observe: Observer) {
        self.done += 1;
        observe(Event::Shape {
            bound: self.bound,
            done: self.done,
            total: self.shapes.len(),
        });
    }

    /// Fold the bound into `results`; true if it was not finished (the check stopped). A
    /// counterexample found before a stop is reported even if shapes before it did not finish:
    /// the runner confirmed it, though a smaller shape of the bound might have given another.
    fn merge(mut self, open: &[usize], results: &mut [AxiomResult], observe: Observer) -> bool {
        let mut stopped = false;
        let mut clean = vec![];
        for (k, &a) in open.iter().enumerate() {
            let res = &mut results[a];
            let t = &self.totals[k];
            res.queries += t.queries;
            res.solves += t.solves;
            res.racy += t.racy;
            res.explained += t.explained;
            res.seconds += t.seconds;
            if let Some((_, cx)) = std::mem::take(&mut self.found[k]).into_iter().next() {
                if !self.settled[k] {
                    observe(Event::Counterexample(&cx));
                }
                res.counterexample = Some(cx);
            } else if self.finished[k].iter().all(|&f| f) {
                res.clean_to = self.bound;
                clean.push(res.axiom.clone());
            } else {
                stopped = true;
                res.unfinished = Some(Unfinished {
                    bound: self.bound,
                    shapes_done: self.finished[k].iter().filter(|&&f| f).count(),
                    shapes: self.shapes.len(),
                });
            }
        }
        if !clean.is_empty() {
            observe(Event::Bound {
                bound: self.bound,
                clean: &clean,
            });
        }
        stopped
    }
}

impl Scope {
    fn of(mapping: &Mapping, menu: &[Op]) -> Scope {
        let mut searched: Vec<String> = vec![];
        for op in menu {
            let name = op.class.to_string();
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
        let source = &mapping.source;
        let has = |kind: ClassKind| menu.iter().any(|op| op.class.kind == kind);
        let model_has = |name: &str| source.bases.contains(&name);
        for (kind, in_model) in [
            (ClassKind::R, true),
            (ClassKind::W, true),
            (ClassKind::Rmw, model_has("rmw")),
            (ClassKind::F, model_has("F")),
        ] {
            if in_model && !has(kind) {
                not_searched.push(format!(
                    "{}: the source model has them, no searched class is one",
                    kind.plural()
                ));
            }
        }
        for order in Tag::with_role(vocab::Role::Order) {
            if model_has(order.name()) && !menu.iter().any(|op| op.class.order == order) {
                not_searched.push(format!(
                    "memory order {order}: the source model names it, no searched class has it"
                ));
            }
        }
        Scope {
            searched,
            not_searched,
        }
    }
}

/// The thread shapes checked at `bound`: natural counting adds the shapes of exactly `bound`
/// events to those of earlier bounds; Alloy counting checks every shape up to `bound` again,
/// since a larger bound also allows more scopes to smaller programs.
fn shapes_at(bound: usize, opts: &Options) -> Vec<Vec<usize>> {
    let threads = opts.threads.unwrap_or(bound);
    match opts.counting {
        Counting::Natural => thread_shapes(bound, threads),
        Counting::Alloy if bound == opts.bound => {
            // The threads and at least the system node of the scope tree.
            let threads = threads.min(bound.saturating_sub(1));
            (1..=bound)
                .flat_map(|k| thread_shapes(k, threads))
                .collect()
        }
        Counting::Alloy => vec![],
    }
}

/// The source axioms to check, as (check index, name).
fn select_axioms(mapping: &Mapping, wanted: &[String]) -> Result<Vec<(usize, String)>, String> {
    let all: Vec<(usize, String)> = mapping
        .source
        .checks
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.flag)
        .map(|(i, c)| (i, c.name.clone()))
        .collect();
    for w in wanted {
        if !all.iter().any(|(_, n)| n == w) {
            let names: Vec<&str> = all.iter().map(|(_, n)| n.as_str()).collect();
            return Err(format!(
                "the source model has no axiom `{w}` (its axioms: {})",
                names.join(", ")
            ));
        }
    }
    Ok(all
        .into_iter()
        .filter(|(_, n)| wanted.is_empty() || wanted.contains(n))
        .collect())
}

/// One axiom's result on one shape (or, summed, on a bound's shapes): the counterexample (with
/// the axioms the runner saw fail and the violating edges), queries, solver calls, refinements,
/// and whether the check stopped before the shape was finished.
#[derive(Default)]
struct ShapeAxiom {
    found: Option<(Found, Vec<String>, Vec<CycleStep>)>,
    queries: usize,
    solves: usize,
    racy: usize,
    explained: usize,
    seconds: f64,
    stopped: bool,
}

/// The SAT problem of one thread shape, with the target model asserted consistent.
struct Query<'a> {
    mapping: &'a Mapping,
    sat: Sat,
    program: Program<'a>,
    source: Encoded,
}

impl<'a> Query<'a> {
    fn new(
        mapping: &'a Mapping,
        menu: &'a [Op],
        shape: &[usize],
        bound: usize,
        opts: &Options,
    ) -> Query<'a> {
        let pre = menu.iter().map(|o| o.pre.len()).max().unwrap_or(0);
        let post = menu.iter().map(|o| o.post.len()).max().unwrap_or(0);
        let events: usize = shape.iter().sum();
        let locations = opts
            .locations
            .unwrap_or(bound)
            .min(events)
            .min(LOCATIONS.len())
            .max(1);
        let layout = Layout::new(shape, locations, pre, post);
        let setup = Setup {
            target_co: mapping.target.coherence,
            source_co: mapping.source.coherence,
            region: mapping.region(),
            scope_budget: (opts.counting == Counting::Alloy).then_some(bound),
            typed_locations: mapping.typed_locations,
        };
        let mut sat = Sat::new(opts.backend);
        sat.stop_when(opts.stop.clone());
        let c = &mut sat.circuit;
        let program = Program::new(c, layout, menu, &setup);
        let x_target = program.view(c, false, &program.rf, &program.co);
        let mut target = Encoded::new(
            c,
            &mapping.target,
            x_target.present.clone(),
            &mut |c, name| x_target.base(c, name),
        );
        let x_source = program.view(c, true, &program.rf, &program.mo);
        let source = Encoded::new(
            c,
            &mapping.source,
            x_source.present.clone(),
            &mut |c, name| x_source.base(c, name),
        );
        let mut hard = program.structure.clone();
        hard.push(target.consistent_node(c));
        if mapping.source.witnesses.is_empty() {
            for order in thread_orders(shape.len()) {
                let (rf, co) = program.sequential(c, &order);
                let view = program.view(c, true, &rf, &co);
                let mut y =
                    Encoded::new(c, &mapping.source, view.present.clone(), &mut |c, name| {
                        view.base(c, name)
                    });
                hard.push(race_free_or_inconsistent(c, &mapping.source, &mut y));
            }
        }
        let all = c.and(hard);
        sat.assert(all);
        Query {
            mapping,
            sat,
            program,
            source,
        }
    }

    /// Search this shape for a counterexample to source check `i`, until `stop` is requested.
    fn run_axiom(&mut self, i: usize, name: &str, stop: &Stop) -> Result<ShapeAxiom, String> {
        let start = Instant::now();
        let mut out = ShapeAxiom::default();
        let fails = self.source.fails_node(&mut self.sat.circuit, i);
        let lit = self.sat.lit(fails);
        loop {
            if stop.requested() {
                out.stopped = true;
                out.seconds = start.elapsed().as_secs_f64();
                return Ok(out);
            }
            out.solves += 1;
            match self.sat.solve(&[lit]) {
                SatVerdict::Sat => {}
                SatVerdict::Unsat => {
                    out.seconds = start.elapsed().as_secs_f64();
                    return Ok(out);
                }
                SatVerdict::Stopped => continue,
            }
            let choice = self.program.read(&self.sat);
            let f = validate::found(
                self.mapping,
                &self.program.layout,
                self.program.menu,
                &choice,
                self.mapping.region(),
                &test_name(self.mapping, name),
            )?;
            match validate::validate(self.mapping, &f, name) {
                Verdict::Confirmed { failed } => {
                    let cycle = validate::cycle(self.mapping, &f, name).map_err(|e| e.message)?;
                    out.found = Some((f, failed, cycle));
                    out.seconds = start.elapsed().as_secs_f64();
                    return Ok(out);
                }
                Verdict::Racy { events, rf, co } => {
                    out.racy += 1;
                    self.exclude_racy(&events, &rf, &co);
                }
                Verdict::Explained => {
                    out.explained += 1;
                    self.block_solution();
                }
                Verdict::Meaningless => {
                    out.racy += 1;
                    self.block_program();
                }
                Verdict::Disagree(msg) => {
                    return Err(format!(
                        "internal error: encoder and runner disagree on a solution for {name} (shape {:?}): {msg}\n{}",
                        self.program.layout.sizes,
                        crate::litmus::print_ptx(&f.target).unwrap_or_default()
                    ))
                }
            }
        }
    }

    /// Exclude every program on which the racy execution `rf`, `co` (source keys) is a
    /// consistent execution that raises a flag. With witnesses in the source model this
    /// generalisation is not exact; then only this program is excluded.
    fn exclude_racy(&mut self, events: &BTreeSet<Key>, rf: &KeyRel, co: &KeyRel) {
        let model = &self.mapping.source;
        if !model.witnesses.is_empty() {
            return self.block_program();
        }
        let layout = &self.program.layout;
        let n = layout.n();
        let to_rel = |r: &KeyRel| {
            Rel::from_pairs(
                n,
                r.iter()
                    .map(|(a, b)| (layout.slot_of(a), layout.slot_of(b))),
            )
        };
        let (rf_y, co_y) = (to_rel(rf), to_rel(co));
        let c = &mut self.sat.circuit;
        let (rfm, com) = (Matrix::constant(&rf_y), Matrix::constant(&co_y));
        let p = &self.program;
        let view = p.view(c, true, &rfm, &com);
        let mut y = Encoded::new(c, model, view.present.clone(), &mut |c, name| {
            view.base(c, name)
        });
        let executes: Vec<bool> = layout
            .events
            .iter()
            .map(|&(t, k)| events.contains(&Key::Event(t, k)))
            .collect();
        let wf = well_formed_for(p, &view, &executes, model.coherence, c, &rf_y, &co_y);
        let escape = race_free_or_inconsistent(c, model, &mut y);
        let clause = c.or2(!wf, escape);
        self.sat.assert(clause);
    }

    /// Exclude the last solution's program (every execution of it).
    fn block_program(&mut self) {
        let nodes = self.program.program_nodes();
        self.block(&nodes);
    }

    /// Exclude the last solution's program and target execution exactly.
    fn block_solution(&mut self) {
        let nodes = self.program.decision_nodes();
        self.block(&nodes);
    }

    /// Exclude the last solution's values of `nodes`.
    fn block(&mut self, nodes: &[Node]) {
        let values = self.sat.read(nodes);
        let differ: Vec<Node> = nodes
            .iter()
            .zip(values)
            .map(|(&x, v)| if v { !x } else { x })
            .collect();
        let clause = self.sat.circuit.or(differ);
        self.sat.assert(clause);
    }
}

/// The name of a counterexample test (and of the directory it is written into).
pub fn test_name(mapping: &Mapping, axiom: &str) -> String {
    let stem = std::path::Path::new(&mapping.path)
        .file_stem()
        .map_or("mapping".into(), |s| s.to_string_lossy().into_owned());
    format!("{stem}-{axiom}")
}

/// "The execution with `rf_y`, `co_y` (over slots), in which the events `executes` says
/// execute, is a candidate execution of the program": exactly those events execute; its `rf`
/// edges join same-location writes to reads and every read has one; its coherence edges join
/// same-location writes, put each initial write first and, for a total coherence, order every
/// two writes of a location.
fn well_formed_for(
    p: &Program,
    y: &View,
    executes: &[bool],
    coherence: CoKind,
    c: &mut Circuit,
    rf_y: &Rel,
    co_y: &Rel,
) -> Node {
    let (r, w, loc) = (&y.reads, &y.writes, &p.loc_rel);
    let mut parts: Vec<Node> = executes
        .iter()
        .zip(&y.alive)
        .map(|(&x, &a)| if x { a } else { !a })
        .collect();
    for (a, b) in rf_y.pairs() {
        parts.push(c.and([w.0[a], r.0[b], loc.get(a, b)]));
    }
    for (a, b) in co_y.pairs() {
        parts.push(c.and([w.0[a], w.0[b], loc.get(a, b)]));
    }
    let rf_inv = rf_y.inverse();
    let writes = |c: &mut Circuit, a: usize, b: usize| c.and([w.0[a], w.0[b], loc.get(a, b)]);
    for &m in &p.layout.main {
        if rf_inv.row(m).is_empty() {
            parts.push(!r.0[m]);
        }
        for i in 0..p.layout.locations {
            if !co_y.contains(i, m) {
                parts.push(!writes(c, i, m));
            }
        }
        for &b in &p.layout.main {
            let unordered = m < b && !co_y.contains(m, b) && !co_y.contains(b, m);
            if coherence == CoKind::Total && unordered {
                parts.push(!writes(c, m, b));
            }
        }
    }
    c.and(parts)
}

/// "This execution raises no flag, or it is inconsistent": true of every execution of a
/// race-free program. (Failing checks are guessed cycles, so this is meant to be asserted.)
fn race_free_or_inconsistent(c: &mut Circuit, model: &crate::ir::Model, y: &mut Encoded) -> Node {
    let mut escapes = vec![];
    let mut quiet = vec![];
    for (i, check) in model.checks.iter().enumerate() {
        let fails = y.fails_node(c, i);
        if check.flag {
            quiet.push(fails)
        } else {
            escapes.push(fails)
        }
    }
    escapes.push(c.and(quiet));
    c.or(escapes)
}

/// Orders in which to run whole threads one after another, for the sequential race check:
/// every order up to three threads, the rotations and their reverses beyond.
fn thread_orders(threads: usize) -> Vec<Vec<usize>> {
    fn perms(k: usize) -> Vec<Vec<usize>> {
        if k == 0 {
            return vec![vec![]];
        }
        perms(k - 1)
            .into_iter()
            .flat_map(|p| {
                (0..k).map(move |i| {
                    let mut q = p.clone();
                    q.insert(i, k - 1);
                    q
                })
            })
            .collect()
    }
    if threads <= 3 {
        return perms(threads);
    }
    let mut out = vec![];
    for r in 0..threads {
        let rot: Vec<usize> = (0..threads).map(|i| (i + r) % threads).collect();
        out.push(rot.iter().rev().copied().collect());
        out.push(rot);
    }
    out
}
