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
//! Owns: `Options`, `check`, `Report`, `AxiomResult`, `Counterexample`. Uses: `mapping`, `encode`,
//! `runner` (through `validate`), `rayon`.
mod layout;
mod symbolic;
pub mod validate;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use rayon::prelude::*;

pub use self::layout::{thread_shapes, Counting};
pub use self::validate::{execution_keys, Found, Key, KeyRel, LOCATIONS};

use self::layout::{menu, Layout, Op};
use self::symbolic::{Program, Setup, View};
use self::validate::Verdict;
use crate::diag;
use crate::encode::{Backend, Circuit, Encoded, Matrix, Node, Sat};
use crate::ir::{CheckKind, CoKind};
use crate::mapping::Mapping;
use crate::rel::Rel;

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
    /// The edges of the violated axiom's relation that lie on a cycle (on the diagonal for
    /// irreflexivity; all of it for emptiness), in source keys.
    pub cycle: Vec<(Key, Key)>,
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
}

/// The whole check.
#[derive(Clone, Debug)]
pub struct Report {
    pub mapping: String,
    pub options: Options,
    pub axioms: Vec<AxiomResult>,
    pub seconds: f64,
    pub solver: &'static str,
}

/// Progress of a long check: (bound, shapes done, shapes of this bound).
pub type Progress<'a> = &'a (dyn Fn(usize, usize, usize) + Sync);

/// Run the check.
pub fn check(mapping: &Mapping, opts: &Options, progress: Progress) -> diag::Result<Report> {
    let start = Instant::now();
    let err = |msg: String| diag::Error::file(&mapping.path, msg);
    let menu = menu(mapping, opts.counting)
        .map_err(|m| err(format!("the search cannot use this mapping: {m}")))?;
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
        })
        .collect();
    // Natural counting grows the bound one event at a time; Alloy counting checks bound N at once
    // (a larger bound also allows smaller programs more scopes).
    let first_bound = match opts.counting {
        Counting::Natural => 1,
        Counting::Alloy => opts.bound,
    };
    for bound in first_bound..=opts.bound {
        let open: Vec<usize> = (0..axioms.len())
            .filter(|&a| results[a].counterexample.is_none())
            .collect();
        if open.is_empty() {
            break;
        }
        let shapes = shapes_at(bound, opts);
        let done = AtomicUsize::new(0);
        let outcomes: Vec<diag::Result<Vec<ShapeAxiom>>> = shapes
            .par_iter()
            .map(|shape| {
                let mut q = Query::new(mapping, &menu, shape, bound, opts);
                let out = open
                    .iter()
                    .map(|&a| q.run_axiom(axioms[a].0, &axioms[a].1).map_err(err))
                    .collect();
                progress(
                    bound,
                    done.fetch_add(1, Ordering::Relaxed) + 1,
                    shapes.len(),
                );
                out
            })
            .collect();
        for (shape, outcome) in shapes.iter().zip(outcomes) {
            for (k, r) in outcome?.into_iter().enumerate() {
                let res = &mut results[open[k]];
                res.queries += 1;
                res.solves += r.solves;
                res.racy += r.racy;
                res.explained += r.explained;
                res.seconds += r.seconds;
                if res.counterexample.is_none() {
                    res.counterexample = r.found.map(|(found, failed, cycle)| Counterexample {
                        axiom: res.axiom.clone(),
                        bound,
                        shape: shape.clone(),
                        found,
                        failed,
                        cycle,
                    });
                }
            }
        }
        for &a in &open {
            if results[a].counterexample.is_none() {
                results[a].clean_to = bound;
            }
        }
        if opts.first && results.iter().any(|r| r.counterexample.is_some()) {
            break;
        }
    }
    Ok(Report {
        mapping: mapping.path.clone(),
        options: opts.clone(),
        axioms: results,
        seconds: start.elapsed().as_secs_f64(),
        solver: crate::solver::new(opts.backend).name(),
    })
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

/// One axiom's result on one shape: the counterexample (with the axioms the runner saw fail
/// and the violating edges), solver calls, refinements.
struct ShapeAxiom {
    found: Option<(Found, Vec<String>, Vec<(Key, Key)>)>,
    solves: usize,
    racy: usize,
    explained: usize,
    seconds: f64,
}

/// The SAT problem of one thread shape, with the target model asserted consistent.
struct Query<'a> {
    mapping: &'a Mapping,
    sat: Sat,
    program: Program<'a>,
    source: Encoded,
    region: Option<&'static str>,
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
        let region = mapping.source.bases.contains(&"GLOBAL").then_some("GLOBAL");
        let setup = Setup {
            target_co: mapping.target.coherence,
            source_co: mapping.source.coherence,
            region,
            scope_budget: (opts.counting == Counting::Alloy).then_some(bound),
            typed_locations: mapping.typed_locations,
        };
        let mut sat = Sat::new(opts.backend);
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
            region,
        }
    }

    /// Search this shape for a counterexample to source check `i`.
    fn run_axiom(&mut self, i: usize, name: &str) -> Result<ShapeAxiom, String> {
        let start = Instant::now();
        let mut out = ShapeAxiom {
            found: None,
            solves: 0,
            racy: 0,
            explained: 0,
            seconds: 0.0,
        };
        let fails = self.source.fails_node(&mut self.sat.circuit, i);
        let lit = self.sat.lit(fails);
        loop {
            out.solves += 1;
            if !self.sat.solve(&[lit]).is_sat() {
                out.seconds = start.elapsed().as_secs_f64();
                return Ok(out);
            }
            let choice = self.program.read(&self.sat);
            let f = validate::found(
                self.mapping,
                &self.program.layout,
                self.program.menu,
                &choice,
                self.region,
                &test_name(self.mapping, name),
            )?;
            match validate::validate(self.mapping, &f, name) {
                Verdict::Confirmed { failed } => {
                    let cycle = self.violation(i, &f);
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

    /// The violating edges of check `i` in the last solution.
    fn violation(&self, i: usize, f: &Found) -> Vec<(Key, Key)> {
        let crate::encode::Value::Rel(m) = self.source.check_value(i) else {
            return vec![];
        };
        let r = self.sat.read_rel(m);
        let keep: Rel = match self.mapping.source.checks[i].kind {
            CheckKind::Acyclic => {
                let back = r.plus();
                Rel::from_pairs(r.size(), r.pairs().filter(|&(a, b)| back.contains(b, a)))
            }
            CheckKind::Irreflexive => Rel::from_pairs(r.size(), r.pairs().filter(|(a, b)| a == b)),
            CheckKind::Empty => r,
        };
        keep.pairs()
            .filter_map(|(a, b)| Some((f.source_keys[a].clone()?, f.source_keys[b].clone()?)))
            .collect()
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

/// The name of a counterexample test.
fn test_name(mapping: &Mapping, axiom: &str) -> String {
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
