//! The SAT problem of one thread shape: the candidate's variables, the target model asserted
//! consistent, the source program asserted race-free on its sequential executions, and per
//! source axiom a search that sends every solution to the runner (`validate`) and refines on
//! its verdict — a racy program is excluded together with every program that races when its
//! events run in the same sequentially consistent interleaving (or, when the runner found no
//! such racy execution, on which the same racy execution is consistent), a solution another
//! coherence order explains is blocked, and a program without any consistent source execution
//! makes the shape require one of every program. The race checks of sequential executions drop
//! their "or the execution is inconsistent" when the models' text shows (`ir::implied`), or a
//! solver call proves for the shape, that the source model finds no sequentially consistent
//! execution inconsistent.
//!
//! Owns: `ShapeProblem`, `ShapeAxiom`. Uses: `candidate_variables`, `execution_view`, `decode`,
//! `validate`, `layout`, `operations`, `options`, `event_key`, `encode`, `solver`, `ir` (loads
//! `models/sc.cat`, compiled in).
use std::collections::{BTreeSet, HashSet};
use std::time::Instant;

use super::candidate_variables::{CandidateSettings, CandidateVariables};
use super::decode::{solution_tests, test_name, DecodedSolution, SolutionTests};
use super::event_key::{EventKey, KeyRel, LOCATIONS};
use super::execution_view::ExecutionView;
use super::layout::Layout;
use super::operations::{Counting, Op};
use super::options::Options;
use super::outcome::{Counterexample, Statistics};
use super::readings::{judge_readings, judge_source_readings, ReadingVerdict};
use super::validate::{self, CycleStep, Verdict};
use crate::diag::Internal;
use crate::encode::{Circuit, Encoded, Matrix, Node, Sat};
use crate::ir::CoKind;
use crate::mapping::Mapping;
use crate::rel::Rel;
use crate::solver::{Lit, Stop, Verdict as SatVerdict};

/// One axiom's result on one shape: the counterexample (with the axioms the runner saw fail and
/// the violating edges), the work spent (one query), and how the search ended.
pub(super) struct ShapeAxiom {
    found: Option<Found>,
    pub(super) statistics: Statistics,
    pub(super) ended: Ended,
}

/// A solution the runner confirmed, with what `Counterexample` reports of it.
struct Found {
    tests: SolutionTests,
    failed: Vec<String>,
    cycle: Vec<CycleStep>,
    readings: Vec<ReadingVerdict>,
    source_readings: Vec<ReadingVerdict>,
}

/// How an axiom's search of one shape ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ended {
    /// At the end of the shape: with its counterexample, or none in the shape.
    Finished,
    /// Before, because the check was asked to stop.
    Stopped,
    /// Before, because a counterexample at an earlier shape settled the axiom meanwhile.
    Superseded,
}

impl ShapeAxiom {
    /// The counterexample found for `axiom` on `shape` of `bound`, taken out of the result.
    pub(super) fn take_counterexample(
        &mut self,
        axiom: &str,
        bound: usize,
        shape: &[usize],
    ) -> Option<Counterexample> {
        let Found {
            tests: found,
            failed,
            cycle,
            readings,
            source_readings,
        } = self.found.take()?;
        Some(Counterexample {
            axiom: axiom.to_string(),
            bound,
            shape: shape.to_vec(),
            found,
            failed,
            cycle,
            readings,
            source_readings,
        })
    }
}

/// Refinements a shape's problem may carry and still serve the shape's next axiom. Below this,
/// what one axiom's search refined into the problem (racy programs excluded, solutions blocked)
/// and its solver's learnt clauses spare the next axiom work; beyond, the larger problem slows
/// every later solver call more than that saves, and the next axiom gets a new problem (decision
/// 002, "A shape's axioms"; measured on `rc11-ptx-artifact.map` at natural bounds 6 and 7).
const REFINEMENTS_CARRIED_OVER: usize = 30;

/// One thread shape of one bound, as a check searches it for its axioms one after another: on
/// one problem while it carries fewer than `REFINEMENTS_CARRIED_OVER` refinements, else on a new
/// one; the sequential-consistency lemma (`sequential_executions_consistent`) is settled once
/// for all of them.
pub(super) struct ShapeProblems<'a> {
    mapping: &'a Mapping,
    menu: &'a [Op],
    shape: &'a [usize],
    bound: usize,
    sequential_consistent: Option<bool>,
    /// `REFINEMENTS_CARRIED_OVER` (a field so that tests can change it).
    carried_over_below: usize,
    /// The problem the last axiom was searched on, and the refinements made to it.
    current: Option<(ShapeProblem<'a>, usize)>,
    build_seconds: f64,
}

impl<'a> ShapeProblems<'a> {
    pub(super) fn new(
        mapping: &'a Mapping,
        menu: &'a [Op],
        shape: &'a [usize],
        bound: usize,
    ) -> ShapeProblems<'a> {
        ShapeProblems {
            mapping,
            menu,
            shape,
            bound,
            sequential_consistent: None,
            carried_over_below: REFINEMENTS_CARRIED_OVER,
            current: None,
            build_seconds: 0.0,
        }
    }

    /// Search the shape for a counterexample to source check `i`, until `opts.stop` is requested
    /// or, between two solver calls, `superseded` says the axiom is settled by a counterexample
    /// at an earlier shape.
    pub(super) fn run_axiom(
        &mut self,
        i: usize,
        name: &str,
        opts: &Options,
        superseded: &dyn Fn() -> bool,
    ) -> Result<ShapeAxiom, Internal> {
        let (mut problem, carried) = match self.current.take() {
            Some((problem, carried)) if carried < self.carried_over_below => (problem, carried),
            _ => (self.build(opts), 0),
        };
        let result = problem.run_axiom(i, name, &opts.stop, superseded);
        if let Ok(r) = &result {
            let refinements = r.statistics.racy + r.statistics.explained;
            self.current = Some((problem, carried + refinements));
        }
        result
    }

    /// Seconds spent building the shape's problems so far.
    pub(super) fn build_seconds(&self) -> f64 {
        self.build_seconds
    }

    fn build(&mut self, opts: &Options) -> ShapeProblem<'a> {
        let start = Instant::now();
        let (mapping, menu, shape, bound) = (self.mapping, self.menu, self.shape, self.bound);
        let sequential_consistent = *self.sequential_consistent.get_or_insert_with(|| {
            mapping.source.witnesses.is_empty()
                && sequential_executions_consistent(mapping, menu, shape, bound, opts)
        });
        let problem = ShapeProblem::new(mapping, menu, shape, bound, opts, sequential_consistent);
        self.build_seconds += start.elapsed().as_secs_f64();
        problem
    }
}

/// The SAT problem of one thread shape, with the target model asserted consistent.
struct ShapeProblem<'a> {
    mapping: &'a Mapping,
    sat: Sat,
    vars: CandidateVariables<'a>,
    source: Encoded,
    /// The witness choices (total orders on the slots) every solution's source execution has
    /// been required to be inconsistent under (`refute_witnesses`).
    refuted: HashSet<Vec<Rel>>,
    /// The event orders (layout events) whose sequentially consistent execution every program
    /// must run race-free (`exclude_racy_interleaving`).
    interleavings: HashSet<Vec<usize>>,
    /// The source model finds every sequentially consistent execution of every program of the
    /// shape consistent (`sequential_executions_consistent`): the race checks of interleavings
    /// need not allow for an inconsistent one.
    sequential_consistent: bool,
    /// Every program is required to have a consistent source execution (`require_meaning`).
    meaning_required: bool,
}

impl<'a> ShapeProblem<'a> {
    fn new(
        mapping: &'a Mapping,
        menu: &'a [Op],
        shape: &[usize],
        bound: usize,
        opts: &Options,
        sequential_consistent: bool,
    ) -> ShapeProblem<'a> {
        let (mut sat, vars) = candidate(mapping, menu, shape, bound, opts);
        let c = &mut sat.circuit;
        let x_target = ExecutionView::new(c, &vars, false, &vars.rf, &vars.co);
        let target = Encoded::asserted_consistency(
            c,
            &mapping.target,
            x_target.present.clone(),
            &mut |c, name| x_target.base(c, name),
        );
        let x_source = ExecutionView::new(c, &vars, true, &vars.rf, &vars.mo);
        let source = Encoded::new(
            c,
            &mapping.source,
            x_source.present.clone(),
            &mut |c, name| x_source.base(c, name),
        );
        let mut hard = vars.structure.clone();
        hard.push(target);
        if mapping.source.witnesses.is_empty() {
            for order in thread_orders(shape.len()) {
                let events = vars.program.layout.events_of_threads(&order);
                let race_free = race_free_when_run_in(
                    c,
                    &vars,
                    &mapping.source,
                    &events,
                    sequential_consistent,
                );
                hard.push(race_free);
            }
        }
        let all = c.and(hard);
        sat.assert(all);
        ShapeProblem {
            mapping,
            sat,
            vars,
            source,
            refuted: HashSet::new(),
            interleavings: HashSet::new(),
            sequential_consistent,
            meaning_required: false,
        }
    }

    /// Search this shape for a counterexample to source check `i`, until `stop` is requested or
    /// `superseded` says another shape settled the axiom (`ShapeProblems::run_axiom`).
    fn run_axiom(
        &mut self,
        i: usize,
        name: &str,
        stop: &Stop,
        superseded: &dyn Fn() -> bool,
    ) -> Result<ShapeAxiom, Internal> {
        let start = Instant::now();
        let mut out = ShapeAxiom {
            found: None,
            statistics: Statistics {
                queries: 1,
                ..Statistics::default()
            },
            ended: Ended::Finished,
        };
        let fails = self.source.fails_node(&mut self.sat.circuit, i);
        let lit = self.sat.lit(fails);
        let searched = self.solve_and_refine(lit, name, stop, superseded, &mut out);
        out.statistics.seconds = start.elapsed().as_secs_f64();
        searched.map(|()| out)
    }

    /// `run_axiom`'s loop: solve under `lit` (the axiom fails), send each solution to the
    /// runner and refine on its verdict, until the solver finds none, a counterexample is
    /// confirmed, or the search ends early (`out.ended`).
    fn solve_and_refine(
        &mut self,
        lit: Lit,
        name: &str,
        stop: &Stop,
        superseded: &dyn Fn() -> bool,
        out: &mut ShapeAxiom,
    ) -> Result<(), Internal> {
        loop {
            out.ended = if stop.requested() {
                Ended::Stopped
            } else if superseded() {
                Ended::Superseded
            } else {
                Ended::Finished
            };
            if out.ended != Ended::Finished {
                return Ok(());
            }
            out.statistics.solves += 1;
            match self.sat.solve(&[lit]) {
                SatVerdict::Sat => {}
                SatVerdict::Unsat => return Ok(()),
                SatVerdict::Stopped => continue,
            }
            let choice = DecodedSolution::read(&self.vars, &self.sat);
            let f = solution_tests(
                self.mapping,
                &self.vars.program.layout,
                self.vars.program.menu,
                &choice,
                self.mapping.region(),
                &test_name(self.mapping, name),
            )?;
            match validate::validate(self.mapping, &f, name) {
                Verdict::Confirmed { failed } => {
                    let cycle = validate::cycle(self.mapping, &f, name)
                        .map_err(|e| Internal(format!("no cycle for {name}: {}", e.message)))?;
                    let readings = judge_readings(self.mapping, &f.target);
                    let source_readings = judge_source_readings(self.mapping, &f.source);
                    out.found = Some(Found {
                        tests: f,
                        failed,
                        cycle,
                        readings,
                        source_readings,
                    });
                    return Ok(());
                }
                Verdict::Racy {
                    events,
                    rf,
                    co,
                    interleaving,
                } => {
                    out.statistics.racy += 1;
                    let excluded = match interleaving {
                        Some(order) if self.mapping.source.witnesses.is_empty() => {
                            self.exclude_racy_interleaving(&order)
                        }
                        _ => false,
                    };
                    if excluded {
                        out.statistics.racy_by_interleaving += 1;
                    } else {
                        self.exclude_racy(&events, &rf, &co);
                    }
                }
                Verdict::Explained { witnesses } => {
                    out.statistics.explained += 1;
                    if !witnesses.is_empty() {
                        self.refute_witnesses(&witnesses);
                    }
                    self.block_solution();
                }
                Verdict::Meaningless => {
                    out.statistics.racy += 1;
                    self.block_program();
                    self.require_meaning();
                }
                Verdict::Disagree(msg) => {
                    return Err(Internal(format!(
                    "encoder and runner disagree on a solution for {name} (shape {:?}): {msg}\n{}",
                    self.vars.program.layout.sizes,
                    crate::litmus::print_ptx(&f.target).unwrap_or_default()
                )))
                }
            }
        }
    }

    /// Exclude every program on which the racy execution `rf`, `co` (source keys) is a
    /// consistent execution that raises a flag. With witnesses in the source model this
    /// generalisation is not exact; then only this program is excluded.
    fn exclude_racy(&mut self, events: &BTreeSet<EventKey>, rf: &KeyRel, co: &KeyRel) {
        let model = &self.mapping.source;
        if !model.witnesses.is_empty() {
            return self.block_program();
        }
        let layout = &self.vars.program.layout;
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
        let p = &self.vars;
        let view = ExecutionView::new(c, p, true, &rfm, &com);
        let mut y = Encoded::new(c, model, view.present.clone(), &mut |c, name| {
            view.base(c, name)
        });
        let executes: Vec<bool> = layout
            .events
            .iter()
            .map(|&(t, k)| events.contains(&EventKey::Event(t, k)))
            .collect();
        let wf = well_formed_for(p, &view, &executes, model.coherence, c, &rf_y, &co_y);
        let escape = race_free_or_inconsistent(c, model, &mut y, false);
        let clause = c.or2(!wf, escape);
        self.sat.assert(clause);
    }

    /// Exclude every program that has a consistent execution raising a flag when its events run
    /// in the order `interleaving` (the racy sequentially consistent execution the runner found,
    /// its thread events in source keys): a race-free program has none, whatever its operations,
    /// locations, guards and scopes. The events the racy program did not execute (guarded off)
    /// run last, in program order. False when this order was asserted before (the solution
    /// should then have been excluded already; the caller excludes it another way).
    fn exclude_racy_interleaving(&mut self, interleaving: &[EventKey]) -> bool {
        let layout = &self.vars.program.layout;
        let mut events: Vec<usize> = interleaving
            .iter()
            .map(|key| layout.event_of(key))
            .collect();
        let rest: Vec<usize> = (0..layout.events.len())
            .filter(|e| !events.contains(e))
            .collect();
        events.extend(rest);
        if !self.interleavings.insert(events.clone()) {
            return false;
        }
        let c = &mut self.sat.circuit;
        let race_free = race_free_when_run_in(
            c,
            &self.vars,
            &self.mapping.source,
            &events,
            self.sequential_consistent,
        );
        self.sat.assert(race_free);
        true
    }

    /// Require the source execution of every solution to be inconsistent under `witnesses` (a
    /// choice of the source model's witnesses, in source keys, under which the runner found an
    /// execution of the last solution consistent), each extended to a total order on all slots
    /// and so restricted to whatever set the witness ranges over. A counterexample's source
    /// execution is inconsistent under every legal choice, so none is lost; every program on
    /// which this choice makes the execution consistent is excluded at once (counterexample-
    /// guided refinement of the universal witness quantifier, instead of one solution at a time).
    fn refute_witnesses(&mut self, witnesses: &[KeyRel]) {
        let layout = &self.vars.program.layout;
        let n = layout.n();
        let totals: Vec<Rel> = witnesses
            .iter()
            .map(|w| {
                let pairs = w
                    .iter()
                    .map(|(a, b)| (layout.slot_of(a), layout.slot_of(b)));
                total_order_extending(&Rel::from_pairs(n, pairs))
            })
            .collect();
        if !self.refuted.insert(totals.clone()) {
            return;
        }
        let c = &mut self.sat.circuit;
        let x = ExecutionView::new(c, &self.vars, true, &self.vars.rf, &self.vars.mo);
        let fixed: Vec<Option<Rel>> = totals.into_iter().map(Some).collect();
        let mut y = Encoded::with_witnesses(
            c,
            &self.mapping.source,
            x.present.clone(),
            &mut |c, name| x.base(c, name),
            &fixed,
        );
        let inconsistent = y.inconsistent_node(c);
        self.sat.assert(inconsistent);
    }

    /// Exclude every program the source model gives no consistent execution (a program
    /// without meaning is never a counterexample, `validate`): assert that some execution of
    /// the program, over fresh `rf` and `co` variables, is consistent under the source model.
    /// Exact, so it loses nothing; asserted once, at the first such program a shape meets, as
    /// it costs a second copy of the source model (before it, 10 542 of the 10 591 solver calls
    /// of `compare`'s Alloy-form direction at bound 6 found one, decision 009).
    fn require_meaning(&mut self) {
        if std::mem::replace(&mut self.meaning_required, true) {
            return;
        }
        let c = &mut self.sat.circuit;
        let model = &self.mapping.source;
        let (rf, co, mut hard) = self.vars.another_source_execution(c, model.coherence);
        let view = ExecutionView::new(c, &self.vars, true, &rf, &co);
        let mut y = Encoded::new(c, model, view.present.clone(), &mut |c, name| {
            view.base(c, name)
        });
        hard.push(y.consistent_node(c));
        let meaningful = c.and(hard);
        self.sat.assert(meaningful);
    }

    /// Exclude the last solution's program (every execution of it).
    fn block_program(&mut self) {
        let nodes = self.vars.program.program_nodes();
        self.block(&nodes);
    }

    /// Exclude the last solution's program and target execution exactly.
    fn block_solution(&mut self) {
        let nodes = self.vars.decision_nodes();
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

/// "The execution with `rf_y`, `co_y` (over slots), in which the events `executes` says
/// execute, is a candidate execution of the program": exactly those events execute; its `rf`
/// edges join same-location writes to reads and every read has one; its coherence edges join
/// same-location writes, put each initial write first and, for a total coherence, order every
/// two writes of a location.
fn well_formed_for(
    p: &CandidateVariables,
    y: &ExecutionView,
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
    for &m in &p.program.layout.main {
        if rf_inv.row(m).is_empty() {
            parts.push(!r.0[m]);
        }
        for i in 0..p.program.layout.locations {
            if !co_y.contains(i, m) {
                parts.push(!writes(c, i, m));
            }
        }
        for &b in &p.program.layout.main {
            let unordered = m < b && !co_y.contains(m, b) && !co_y.contains(b, m);
            if coherence == CoKind::Total && unordered {
                parts.push(!writes(c, m, b));
            }
        }
    }
    c.and(parts)
}

/// A strict total order on all slots containing the strict total order `w` on some of them: `w`'s
/// elements in its order, then every other slot in index order.
fn total_order_extending(w: &Rel) -> Rel {
    let n = w.size();
    let rank = |i: usize| {
        let before = (0..n).filter(|&j| w.contains(j, i)).count();
        let in_w = (0..n).any(|j| w.contains(i, j) || w.contains(j, i));
        (!in_w, before, i)
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| rank(i));
    crate::eval::total_order(n, &order)
}

/// "The sequentially consistent execution that runs the program's events in the order `events`
/// raises no flag, or the source model finds it inconsistent": true of every race-free program.
/// With `consistent` (the model finds every such execution consistent), only the first part.
fn race_free_when_run_in(
    c: &mut Circuit,
    vars: &CandidateVariables,
    model: &crate::ir::Model,
    events: &[usize],
    consistent: bool,
) -> Node {
    let (rf, co) = vars.sequential(c, events);
    let view = ExecutionView::new(c, vars, true, &rf, &co);
    let mut y = Encoded::new(c, model, view.present.clone(), &mut |c, name| {
        view.base(c, name)
    });
    race_free_or_inconsistent(c, model, &mut y, consistent)
}

/// "This execution raises no flag, or it is inconsistent": true of every execution of a
/// race-free program; with `consistent` (known of the execution), "it raises no flag".
/// (Failing checks are guessed cycles, so this is meant to be asserted.)
fn race_free_or_inconsistent(
    c: &mut Circuit,
    model: &crate::ir::Model,
    y: &mut Encoded,
    consistent: bool,
) -> Node {
    let quiet: Vec<Node> = (0..model.checks.len())
        .filter(|&i| model.checks[i].flag)
        .map(|i| y.fails_node(c, i))
        .collect();
    let quiet = c.and(quiet);
    if consistent {
        return quiet;
    }
    let inconsistent = y.inconsistent_node(c);
    c.or2(inconsistent, quiet)
}

/// The solver (stopping when `opts.stop` asks) and the candidate's variables for `shape`.
fn candidate<'a>(
    mapping: &Mapping,
    menu: &'a [Op],
    shape: &[usize],
    bound: usize,
    opts: &Options,
) -> (Sat, CandidateVariables<'a>) {
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
    let setup = CandidateSettings {
        target_co: mapping.target.coherence,
        source_co: mapping.source.coherence,
        region: mapping.region(),
        levels: mapping.searched_levels(),
        scope_budget: (opts.counting == Counting::Alloy).then_some(bound),
        typed_locations: mapping.typed_locations,
    };
    let mut sat = Sat::new(opts.backend);
    sat.stop_when(opts.stop.clone());
    let vars = CandidateVariables::new(&mut sat.circuit, layout, menu, &setup);
    (sat, vars)
}

/// Does the source model find every sequentially consistent execution of every program of
/// `shape` consistent? That is: no program the search considers has an execution that
/// `models/sc.cat` allows — `po | rf | co | fr` acyclic, no write between an RMW's halves in
/// coherence, which every interleaving's execution satisfies — and the source model finds
/// inconsistent. The checks the models' text shows to hold there (`Model::checks_implied_by`:
/// scoped RC11's all three) need no proof; the others are proved by one solver call (false
/// when it finds a counterexample or is stopped) over the programs of the shape (their
/// well-formedness and symmetry breaking; left out, the target execution's well-formedness
/// could only add programs). True of the shipped source models, as their theory says; not
/// assumed of any `.cat` file.
fn sequential_executions_consistent(
    mapping: &Mapping,
    menu: &[Op],
    shape: &[usize],
    bound: usize,
    opts: &Options,
) -> bool {
    let sc = sc_model();
    let model = &mapping.source;
    let implied = model.checks_implied_by(sc);
    let open: Vec<usize> = (0..model.checks.len())
        .filter(|&i| !model.checks[i].flag && !implied[i])
        .collect();
    (open.is_empty() && model.witnesses.is_empty())
        || sequential_checks_hold(mapping, menu, shape, bound, opts, &open)
}

/// Does every program of `shape` pass the source model's `checks` (and have legal witnesses) on
/// every execution `models/sc.cat` allows? One solver call.
fn sequential_checks_hold(
    mapping: &Mapping,
    menu: &[Op],
    shape: &[usize],
    bound: usize,
    opts: &Options,
    checks: &[usize],
) -> bool {
    let sc = sc_model();
    let model = &mapping.source;
    let (mut sat, vars) = candidate(mapping, menu, shape, bound, opts);
    let c = &mut sat.circuit;
    let (rf, co, mut hard) = vars.another_source_execution(c, model.coherence);
    let view = ExecutionView::new(c, &vars, true, &rf, &co);
    let mut base = |c: &mut Circuit, name| view.base(c, name);
    hard.push(Encoded::asserted_consistency(
        c,
        sc,
        view.present.clone(),
        &mut base,
    ));
    let mut y = Encoded::new(c, model, view.present.clone(), &mut base);
    hard.push(y.fails_some_node(c, checks));
    hard.extend(vars.program_structure().iter().copied());
    let all = c.and(hard);
    sat.assert(all);
    sat.solve(&[]) == SatVerdict::Unsat
}

/// Sequential consistency as a model, compiled into mapcheck.
const SC_MODEL: &str = include_str!("../../models/sc.cat");

/// `SC_MODEL` loaded, once per process (every shape's proof reads it).
fn sc_model() -> &'static crate::ir::Model {
    static SC: std::sync::OnceLock<crate::ir::Model> = std::sync::OnceLock::new();
    SC.get_or_init(|| {
        crate::ir::load_str("models/sc.cat", SC_MODEL, None)
            .expect("the bundled models/sc.cat loads (tested)")
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{searchable_menu, select_axioms, shapes_at};
    use std::path::Path;

    /// `correct-fig11-subset.map` (test data) with its source model replaced by `source`.
    fn fig11_subset_with_source(source: &str) -> Mapping {
        let dir = Path::new("tests/data/search");
        let text = std::fs::read_to_string(dir.join("correct-fig11-subset.map")).expect("reads");
        let text = text.replace("../../../models/rc11-scoped.cat", source);
        crate::mapping::load_str("fig11-subset.map", &text, Some(dir))
            .unwrap_or_else(|e| panic!("{}", e.render()))
    }

    fn lemma_holds(mapping: &Mapping, shape: &[usize]) -> bool {
        let opts = Options::natural(shape.iter().sum(), crate::solver::Backend::Cadical);
        let (menu, _) = searchable_menu(mapping, &opts).expect("searchable");
        sequential_executions_consistent(mapping, &menu, shape, opts.bound, &opts)
    }

    /// Scoped RC11 allows every sequentially consistent execution (the search then drops the
    /// race checks' "or inconsistent"); a model with an axiom that forbids one does not.
    #[test]
    fn the_sequential_lemma_holds_of_scoped_rc11_and_fails_of_a_model_forbidding_sc() {
        let rc11 = fig11_subset_with_source("../../../models/rc11-scoped.cat");
        let isolated = fig11_subset_with_source("rc11-isolated.cat");
        for shape in [vec![2, 1], vec![2, 2], vec![1, 1, 1]] {
            assert!(lemma_holds(&rc11, &shape), "{shape:?}");
            assert!(!lemma_holds(&isolated, &shape), "{shape:?}");
        }
        // One thread: `ext` is empty, so the extra axiom forbids nothing.
        assert!(lemma_holds(&isolated, &[3]));
    }

    /// Every check of a shipped source model that the models' text shows to hold on
    /// sequentially consistent executions (`Model::checks_implied_by`, which spares the search
    /// its proof) the solver proves too, check by check, on shapes of up to four events.
    #[test]
    fn the_solver_proves_each_check_the_text_shows_holds_sequentially() {
        let mut proved = 0;
        for file in ["rc11-ptx.map", "cuda-ptx.map", "opencl-ptx.map"] {
            let mapping = crate::mapping::load(&Path::new("mappings").join(file))
                .unwrap_or_else(|e| panic!("{}", e.render()));
            let implied = mapping.source.checks_implied_by(sc_model());
            for shape in [vec![2, 1], vec![2, 2], vec![1, 1, 1]] {
                let opts = Options::natural(shape.iter().sum(), crate::solver::Backend::Cadical);
                let (menu, _) = searchable_menu(&mapping, &opts).expect("searchable");
                for i in (0..implied.len()).filter(|&i| implied[i]) {
                    let check = &mapping.source.checks[i].name;
                    let holds =
                        sequential_checks_hold(&mapping, &menu, &shape, opts.bound, &opts, &[i]);
                    assert!(holds, "{file}: {check} on {shape:?}");
                    proved += 1;
                }
            }
        }
        assert!(
            proved >= 3 * 3,
            "scoped RC11's three checks at least: {proved}"
        );
    }

    #[test]
    fn the_bundled_sc_model_loads() {
        let sc = sc_model();
        let names: Vec<&str> = sc.checks.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["SC", "Atomicity"]);
    }

    /// A shape's next axiom is searched on the problem its last one refined while that carries
    /// few refinements, and on a new problem otherwise. With none carried over, every axiom's
    /// search (solver calls, refinements) is the one it has alone; carried over, what the others
    /// refined changes some later axiom's search (Atomicity after Coherence at natural bound 5
    /// needs no refinement, alone two).
    #[test]
    fn a_shape_axiom_is_searched_on_a_new_problem_when_none_is_carried_over() {
        let mapping =
            crate::mapping::load(Path::new("mappings/rc11-ptx-artifact.map")).expect("loads");
        let opts = Options::natural(5, crate::solver::Backend::Cadical);
        let (menu, _) = searchable_menu(&mapping, &opts).expect("searchable");
        let axioms = select_axioms(&mapping, &[]).expect("axioms");
        let search = |problems: &mut ShapeProblems, (i, name): &(usize, String)| {
            work_of(
                &problems
                    .run_axiom(*i, name, &opts, &|| false)
                    .expect("runs"),
            )
        };
        let mut changed = 0;
        for bound in 1..=opts.bound {
            for shape in shapes_at(bound, &opts) {
                let problems = || ShapeProblems::new(&mapping, &menu, &shape, bound);
                let mut new_each_time = ShapeProblems {
                    carried_over_below: 0,
                    ..problems()
                };
                let mut carried_over = problems();
                for axiom in &axioms {
                    let alone = search(&mut problems(), axiom);
                    assert_eq!(
                        search(&mut new_each_time, axiom),
                        alone,
                        "{shape:?} {axiom:?}"
                    );
                    changed += usize::from(search(&mut carried_over, axiom) != alone);
                }
            }
        }
        assert!(changed > 0, "no search was changed by what another refined");
    }

    /// The racy programs a check refines away are counted by how each was excluded: with every
    /// program that races in the same interleaving, or (when the runner found no sequentially
    /// consistent racy execution) with the programs on which its one racy execution is
    /// consistent. Atomicity at Alloy bound 6 needs both.
    #[test]
    fn racy_refinements_are_counted_by_how_they_were_excluded() {
        let mapping =
            crate::mapping::load(Path::new("mappings/rc11-ptx-artifact.map")).expect("loads");
        let opts = Options {
            counting: Counting::Alloy,
            axioms: vec!["Atomicity".into()],
            ..Options::natural(6, crate::solver::Backend::Cadical)
        };
        let report = crate::search::check(&mapping, &opts, &|_| {}).expect("runs");
        let st = report.axioms[0].statistics;
        assert!(report.axioms[0].counterexample.is_none());
        assert!(
            0 < st.racy_by_interleaving && st.racy_by_interleaving < st.racy,
            "{st:?}"
        );
    }

    /// A search told, between two solver calls, that a counterexample at an earlier shape
    /// settled its axiom ends there without an answer (`Ended::Superseded`); one never told so runs to
    /// the end. Coherence at natural bound 5 has shapes that need more than one solver call.
    #[test]
    fn a_search_ends_when_an_earlier_shape_settles_its_axiom() {
        let mapping =
            crate::mapping::load(Path::new("mappings/rc11-ptx-artifact.map")).expect("loads");
        let opts = Options::natural(5, crate::solver::Backend::Cadical);
        let (menu, _) = searchable_menu(&mapping, &opts).expect("searchable");
        let (i, name) = &select_axioms(&mapping, &["Coherence".into()]).expect("axiom")[0];
        let mut refined = 0;
        for shape in shapes_at(5, &opts) {
            let problems = || ShapeProblems::new(&mapping, &menu, &shape, 5);
            let whole = problems()
                .run_axiom(*i, name, &opts, &|| false)
                .expect("runs");
            let asked = std::cell::Cell::new(0);
            let settled_after_the_first_call = || {
                asked.set(asked.get() + 1);
                asked.get() > 1
            };
            let cut = problems()
                .run_axiom(*i, name, &opts, &settled_after_the_first_call)
                .expect("runs");
            assert_eq!(whole.ended, Ended::Finished);
            if whole.statistics.solves > 1 {
                refined += 1;
                assert_eq!(cut.ended, Ended::Superseded, "{shape:?}");
                assert!(cut.found.is_none(), "{shape:?}");
                assert_eq!(cut.statistics.solves, 1, "{shape:?}");
            } else {
                assert_eq!(cut.ended, Ended::Finished, "{shape:?}");
                assert_eq!(work_of(&cut), work_of(&whole), "{shape:?}");
            }
        }
        assert!(refined > 0, "no shape needed a second solver call");
    }

    /// A search's work and answer: solver calls, racy and explained solutions, a counterexample.
    fn work_of(r: &ShapeAxiom) -> (usize, usize, usize, bool) {
        let s = &r.statistics;
        (s.solves, s.racy, s.explained, r.found.is_some())
    }
}
