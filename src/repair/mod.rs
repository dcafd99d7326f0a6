//! Repair: when a mapping is unsound up to a bound, the cheapest mapping in a generated space of
//! strengthenings that is not (`repair`); when it is sound, which of its rules can be made one
//! step cheaper and stay sound (`weaken`). Decision 013 has the space, the costs and the argument.
//!
//! Counterexample-guided: every counterexample found so far is kept (`Known`); a candidate
//! mapping is first compiled and run on each of them by the runner (does the target model allow
//! the compiled test's outcome?), and only a candidate none of them breaks goes to the full
//! search at the bound, whose counterexamples join the set. What a counterexample breaks is kept
//! as a refutation, generalized upwards while the runner agrees; the next candidate is the
//! cheapest choice no refutation excludes (`choice`), over the strengthenings (`space`) of the
//! classes the counterexamples use, so the first candidate the full search finds sound is a
//! cheapest one of the space up to the bound; ties are searched and reported.
//!
//! Owns: `repair`, `weaken`, `Options`, `Repair`, `Weakening`, `Known`, `Change`, `Work`.
//! Uses: `mapping` (rules, compilation), `search` (the full search), `runner` and `decide` (the
//! checks), `litmus` (printing tests), `isa` and `vocab` (the strength lattice, the tags),
//! `output` (the file), `diag`. `write` turns an answer into a mapping file, `render` into words.
//!
//! Files:
//! - `space.rs`: `strengthenings` and `weakenings`, generated from PTX's forms.
//! - `cost.rs`: `Costs`, the default table and the TOML override.
//! - `choice.rs`: `Refutation`, `cheapest`.
//! - `write.rs`: `write_mapping`, `default_output`.
//! - `render.rs`: `render_repair`, `render_weakening`: an answer in words.
mod choice;
mod cost;
mod render;
mod space;
mod write;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::time::Instant;

use rayon::prelude::*;

use crate::diag;
use crate::litmus::{self, Litmus};
use crate::mapping::{Class, Mapping, Rule, TargetOp};
use crate::runner;
use crate::search::{self, Counterexample};

pub use cost::Costs;
pub use render::{render_repair, render_weakening};
pub use write::{default_output, write_mapping};

/// What to repair against.
#[derive(Clone, Debug)]
pub struct Options {
    /// The full search each surviving candidate goes to (its bound is the repair's bound).
    pub search: search::Options,
    /// What instructions cost.
    pub costs: Costs,
    /// Search at most this many mappings of the cheapest sound mapping's cost besides it.
    pub max_ties: usize,
    /// Told a line for each full search as it ends (the CLI prints them on stderr).
    pub progress: fn(&str),
}

/// A counterexample the repair has found, on the input or on some candidate.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Known {
    /// Its test's name (unique in a repair: a number is added to a repeated one).
    pub name: String,
    /// The source axiom it breaks.
    pub axiom: String,
    /// The bound it was found at.
    pub bound: usize,
    /// The mapping it was found on: the input, or the input with these rules changed.
    pub found_on: Vec<String>,
    /// The classes of its source operations: the rules that decide whether it breaks a mapping.
    pub classes: Vec<String>,
    /// The source test (C litmus).
    pub source: String,
    /// The runner decides it from the outcome: the source model forbids the test's final state
    /// without a race, and the target model allowed the compiled state on the mapping it was
    /// found on. Only such a counterexample is used to refuse a candidate without a full search.
    pub by_outcome: bool,
    #[serde(skip)]
    test: Litmus,
    #[serde(skip)]
    class_set: Vec<Class>,
}

/// One rule a repair changes (or a weakening tries).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Change {
    /// The class, e.g. `R.SC.CTA`.
    pub class: String,
    /// Its rule before (PTX instructions; `skip` for none).
    pub from: String,
    /// Its rule after.
    pub to: String,
    /// `to`'s cost minus `from`'s.
    pub cost: i64,
    /// Why: the known counterexamples that break the mapping again when this change alone is
    /// undone (empty: the change is needed only together with others).
    pub kills: Vec<String>,
    #[serde(skip)]
    pub(crate) key: Class,
    #[serde(skip)]
    pub(crate) ops: Vec<TargetOp>,
}

/// A cheaper rule that was refused, and the counterexample that refuses it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Refused {
    /// The class.
    pub class: String,
    /// The rule tried for it.
    pub rule: String,
    /// The name of the known counterexample that breaks the mapping with that rule.
    pub counterexample: String,
}

/// The work a repair did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Work {
    /// Candidates `repair` chose (each refused by the runner or searched in full); 0 for
    /// `weaken`, whose candidates are its weakenings.
    pub candidates: usize,
    /// Compile-and-run checks of a candidate on a known counterexample (cached ones not counted).
    pub runner_checks: usize,
    /// Full searches at the bound (the input's included).
    pub full_searches: usize,
    /// Seconds in the runner checks.
    pub runner_seconds: f64,
    /// Seconds in the full searches.
    pub search_seconds: f64,
    /// Seconds in all.
    pub seconds: f64,
}

/// What `repair` answers.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Repair {
    /// The input mapping file.
    pub mapping: String,
    /// The bound of every full search.
    pub bound: usize,
    /// Where the costs came from: `default` or the cost file.
    pub costs: String,
    /// The sum of the input's rule costs over its classes.
    pub input_cost: u64,
    /// How it ended.
    pub verdict: RepairVerdict,
    /// The repaired mapping's changes, rule by rule.
    pub changes: Vec<Change>,
    /// The repaired mapping's cost (the input's when nothing changed).
    pub repaired_cost: u64,
    /// Each changed rule one step weaker (still stronger than the input's), with what refuses it.
    pub weaker: Vec<Refused>,
    /// Other mappings of the same cost, sound up to the bound.
    pub ties: Vec<Vec<Change>>,
    /// Every counterexample found, the input's first.
    pub counterexamples: Vec<Known>,
    /// The work it did.
    pub work: Work,
}

/// How a repair ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RepairVerdict {
    /// The input has no counterexample up to the bound: nothing to repair.
    AlreadySound,
    /// `changes` make a mapping with no counterexample up to the bound, of least cost in the space.
    Repaired,
    /// No mapping in the space is sound up to the bound.
    NoneInSpace,
    /// Stopped (a signal, `--timeout`) before an answer.
    Stopped,
}

/// What `weaken` answers.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Weakening {
    /// The input mapping file.
    pub mapping: String,
    /// The bound of every full search.
    pub bound: usize,
    /// Where the costs came from: `default` or the cost file.
    pub costs: String,
    /// The input is sound up to the bound (otherwise nothing was tried: repair it first).
    pub input_sound: bool,
    /// One-step weakenings that stay sound up to the bound, each on its own.
    pub sound: Vec<Change>,
    /// The weakenings refused, each with its counterexample.
    pub refused: Vec<Refused>,
    /// Classes the search does not put in programs (a weakening of them would go unchecked).
    pub not_searched: Vec<String>,
    /// Every counterexample found.
    pub counterexamples: Vec<Known>,
    /// Stopped (a signal, `--timeout`) before every weakening was decided.
    pub stopped: bool,
    /// The work it did.
    pub work: Work,
}

/// A candidate: the classes whose rules differ from the input's, with their rules.
type Candidate = BTreeMap<Class, Vec<TargetOp>>;

/// What the full search says of a candidate.
enum Searched {
    Sound,
    /// Broken by these known counterexamples (indices).
    Broken(Vec<usize>),
    Stopped,
}

/// The state of a repair: the input, the known counterexamples and what the runner and the full
/// search have said of candidates.
struct Cegis<'a> {
    input: &'a Mapping,
    opts: &'a Options,
    known: Vec<Known>,
    /// The known counterexamples to try first (the last one to refuse a candidate in front).
    try_order: Vec<usize>,
    /// (counterexample, rules of its classes) → the compiled test shows the outcome.
    runner_cache: HashMap<(usize, Vec<Vec<TargetOp>>), bool>,
    /// Candidates searched in full, with the counterexample that broke each (`None`: sound).
    searched: HashMap<Candidate, Option<usize>>,
    /// What each counterexample was seen to break: the rules of its classes.
    refuted: Vec<BTreeMap<Class, Vec<TargetOp>>>,
    work: Work,
    started: Instant,
    /// The target scopes a rule may use (`space::Scopes`).
    scopes: space::Scopes,
    /// `opts.costs`, priced over `scopes`.
    costs: Costs,
}

impl<'a> Cegis<'a> {
    fn new(input: &'a Mapping, opts: &'a Options) -> Cegis<'a> {
        let scopes = space::Scopes::of(input);
        Cegis {
            costs: opts.costs.priced_for(scopes.as_slice()),
            scopes,
            input,
            opts,
            known: vec![],
            try_order: vec![],
            runner_cache: HashMap::new(),
            searched: HashMap::new(),
            refuted: vec![],
            work: Work::default(),
            started: Instant::now(),
        }
    }

    /// The input's rule of `class` (every class a counterexample uses is declared).
    fn input_rule(&self, class: &Class) -> &[TargetOp] {
        self.input.compile(class)
    }

    fn rule_of<'c>(&'c self, cand: &'c Candidate, class: &Class) -> &'c [TargetOp] {
        cand.get(class)
            .map_or_else(|| self.input_rule(class), |r| r.as_slice())
    }

    fn mapping(&self, cand: &Candidate) -> Mapping {
        self.input.with_rules(
            cand.iter()
                .map(|(c, ops)| (*c, Rule::made(*c, ops.clone(), "mapcheck repair".into()))),
        )
    }

    /// The cost of a mapping: its rules' costs summed over the input's classes.
    fn cost(&self, cand: &Candidate) -> u64 {
        let costs = &self.costs;
        self.input
            .classes()
            .iter()
            .map(|c| costs.class_rule(c, self.rule_of(cand, c)))
            .sum()
    }

    /// A known counterexample (by outcome) that still breaks `cand`, tried most recent first.
    fn broken_by_known(&mut self, cand: &Candidate) -> diag::Result<Option<usize>> {
        for k in 0..self.try_order.len() {
            let x = self.try_order[k];
            if self.breaks(x, cand)? {
                self.try_order.remove(k);
                self.try_order.insert(0, x);
                return Ok(Some(x));
            }
        }
        Ok(None)
    }

    /// Does known counterexample `x` break `cand`: does the target model allow the outcome of its
    /// test compiled with `cand`? (Only asked of counterexamples decided by outcome.)
    fn breaks(&mut self, x: usize, cand: &Candidate) -> diag::Result<bool> {
        Ok(self.breaks_all(x, std::slice::from_ref(cand))?[0])
    }

    /// `breaks` for several candidates, the uncached ones run in parallel.
    fn breaks_all(&mut self, x: usize, cands: &[Candidate]) -> diag::Result<Vec<bool>> {
        let keys: Vec<(usize, Vec<Vec<TargetOp>>)> = cands
            .iter()
            .map(|cand| {
                let rules = self.known[x]
                    .class_set
                    .iter()
                    .map(|c| self.rule_of(cand, c).to_vec());
                (x, rules.collect())
            })
            .collect();
        let todo: Vec<usize> = (0..cands.len())
            .filter(|&i| !self.runner_cache.contains_key(&keys[i]))
            .collect();
        let start = Instant::now();
        let this = &*self;
        let runs: Vec<diag::Result<bool>> = todo
            .par_iter()
            .map(|&i| {
                let mapping = this.mapping(&cands[i]);
                let compiled = mapping.compile_program(&this.known[x].test)?;
                let run = crate::decide::run(&mapping.target, &compiled.target, &runner_options())?;
                Ok(run.validated)
            })
            .collect();
        self.work.runner_checks += todo.len();
        self.work.runner_seconds += start.elapsed().as_secs_f64();
        for (i, run) in todo.into_iter().zip(runs) {
            self.runner_cache.insert(keys[i].clone(), run?);
        }
        Ok(keys.iter().map(|k| self.runner_cache[k]).collect())
    }

    /// The full search of `cand` at the bound (once per candidate).
    fn search(&mut self, cand: &Candidate) -> diag::Result<Searched> {
        if let Some(&before) = self.searched.get(cand) {
            return Ok(before.map_or(Searched::Sound, |x| Searched::Broken(vec![x])));
        }
        let start = Instant::now();
        let mapping = self.mapping(cand);
        let report = search::check(&mapping, &self.opts.search, &|_| {})?;
        self.work.full_searches += 1;
        self.work.search_seconds += start.elapsed().as_secs_f64();
        let on = match describe(cand).join("; ") {
            d if d.is_empty() => "the input".to_string(),
            d => d,
        };
        let verdict = match report.axioms.iter().find_map(|a| a.counterexample.as_ref()) {
            Some(cx) => format!("counterexample for {} at bound {}", cx.axiom, cx.bound),
            None if report.stopped => "stopped".to_string(),
            None => format!("none up to bound {}", self.opts.search.bound),
        };
        (self.opts.progress)(&format!(
            "full search {} ({:.1} s): {verdict}; on {on}",
            self.work.full_searches,
            start.elapsed().as_secs_f64()
        ));
        let found: Vec<&Counterexample> = report
            .axioms
            .iter()
            .filter_map(|a| a.counterexample.as_ref())
            .collect();
        if found.is_empty() {
            if report.stopped {
                return Ok(Searched::Stopped);
            }
            self.searched.insert(cand.clone(), None);
            return Ok(Searched::Sound);
        }
        let mut broken = vec![];
        for cx in found {
            broken.push(self.learn(cand, &mapping, cx)?);
        }
        self.searched.insert(cand.clone(), Some(broken[0]));
        Ok(Searched::Broken(broken))
    }

    /// Keep a counterexample the full search found on `cand`; its index.
    fn learn(
        &mut self,
        cand: &Candidate,
        on: &Mapping,
        cx: &Counterexample,
    ) -> diag::Result<usize> {
        let test = cx.found.source.clone();
        let compiled = on.compile_program(&test)?;
        let mut class_set: Vec<Class> = compiled
            .images
            .iter()
            .flatten()
            .filter_map(|image| image.class)
            .collect();
        class_set.sort();
        class_set.dedup();
        let run = |model, test: &Litmus| crate::decide::run(model, test, &runner_options());
        let source_run = run(&on.source, &test)?;
        let target_run = run(&on.target, &compiled.target)?;
        let by_outcome =
            !source_run.validated && source_run.flags.is_empty() && target_run.validated;
        let repeats = self
            .known
            .iter()
            .filter(|k| k.test.name == test.name)
            .count();
        let name = match repeats {
            0 => test.name.clone(),
            n => format!("{}#{}", test.name, n + 1),
        };
        self.known.push(Known {
            name,
            axiom: cx.axiom.clone(),
            bound: cx.bound,
            found_on: describe(cand),
            classes: class_set.iter().map(|c| c.to_string()).collect(),
            // A counterexample the search found: a failure to print it is a bug in mapcheck.
            source: litmus::print_c(&test).map_err(|e| {
                e.into_internal("a counterexample found while repairing cannot be printed")
            })?,
            by_outcome,
            test,
            class_set,
        });
        let x = self.known.len() - 1;
        if by_outcome {
            self.try_order.insert(0, x);
        }
        Ok(x)
    }

    /// Record that counterexample `x` breaks `cand`, generalized (`generalize`) when the runner
    /// can decide it.
    fn refute(&mut self, x: usize, cand: &Candidate) -> diag::Result<()> {
        let mut rules: BTreeMap<Class, Vec<TargetOp>> = self.known[x]
            .class_set
            .iter()
            .map(|c| (*c, self.rule_of(cand, c).to_vec()))
            .collect();
        if self.known[x].by_outcome {
            self.generalize(x, &mut rules)?;
        }
        self.refuted.push(rules);
        Ok(())
    }

    /// Strengthen the rules `x` breaks, class by class, as long as the runner still sees `x`
    /// break the mapping: first to the strongest rule above without a new SC fence
    /// (`space::strongest`), otherwise one edit at a time (the dearest first; none that adds an
    /// SC fence). One refutation then excludes every choice below.
    fn generalize(
        &mut self,
        x: usize,
        rules: &mut BTreeMap<Class, Vec<TargetOp>>,
    ) -> diag::Result<()> {
        let classes: Vec<Class> = rules.keys().copied().collect();
        for class in classes {
            let top = space::strongest(class, &rules[&class], &self.scopes);
            if self.breaks_with(x, rules, class, &top)? {
                rules.insert(class, top);
                continue;
            }
            while !self.opts.search.stop.requested() {
                let sc_fences = space::sc_fences(&rules[&class]);
                let mut up = space::strengthenings(class, &rules[&class], &self.scopes);
                up.remove(0);
                up.retain(|r| space::sc_fences(r) == sc_fences);
                up.sort_by_key(|r| std::cmp::Reverse(self.costs.rule(r)));
                let cands: Vec<Candidate> = up
                    .iter()
                    .map(|rule| {
                        let mut cand = rules.clone();
                        cand.insert(class, rule.clone());
                        cand
                    })
                    .collect();
                let broken = self.breaks_all(x, &cands)?;
                match up.into_iter().zip(broken).find(|(_, b)| *b) {
                    Some((rule, _)) => rules.insert(class, rule),
                    None => break,
                };
            }
        }
        Ok(())
    }

    /// Does `x` break the mapping with `rules` for its classes, `class`'s replaced by `rule`?
    fn breaks_with(
        &mut self,
        x: usize,
        rules: &BTreeMap<Class, Vec<TargetOp>>,
        class: Class,
        rule: &[TargetOp],
    ) -> diag::Result<bool> {
        let mut cand: Candidate = rules.clone();
        cand.insert(class, rule.to_vec());
        self.breaks(x, &cand)
    }

    /// The refutations recorded so far, over `classes` (which hold every known counterexample's).
    fn refutations(&self, classes: &[Class]) -> Vec<choice::Refutation> {
        let index = |c: &Class| classes.iter().position(|k| k == c).expect("a known class");
        self.refuted
            .iter()
            .map(|rules| choice::Refutation {
                rules: rules.iter().map(|(c, r)| (index(c), r.clone())).collect(),
                exact: false,
            })
            .collect()
    }

    /// The classes some known counterexample uses, in order.
    fn involved(&self) -> Vec<Class> {
        let all: BTreeSet<Class> = self
            .known
            .iter()
            .flat_map(|k| k.class_set.clone())
            .collect();
        all.into_iter().collect()
    }

    /// Why `cand` is not sound: a known counterexample that breaks it by outcome, or the one its
    /// full search found (searching it now if it never was).
    fn refutation(&mut self, cand: &Candidate) -> diag::Result<Option<usize>> {
        if let Some(x) = self.broken_by_known(cand)? {
            return Ok(Some(x));
        }
        Ok(match self.search(cand)? {
            Searched::Broken(xs) => Some(xs[0]),
            Searched::Sound | Searched::Stopped => None,
        })
    }

    fn change(&self, class: Class, to: &[TargetOp]) -> Change {
        let from = self.input_rule(&class);
        let costs = &self.costs;
        Change {
            class: class.to_string(),
            from: crate::mapping::ptx::sequence_text(from),
            to: crate::mapping::ptx::sequence_text(to),
            cost: costs.class_rule(&class, to) as i64 - costs.class_rule(&class, from) as i64,
            kills: vec![],
            key: class,
            ops: to.to_vec(),
        }
    }

    fn finish(&mut self) -> Work {
        let mut work = self.work.clone();
        work.seconds = self.started.elapsed().as_secs_f64();
        work
    }
}

/// The runner's options for a check: a test with more candidate executions than a moment's
/// enumeration (SC fences multiply them) is decided by the solver instead (`decide::run`).
fn runner_options() -> runner::Options {
    runner::Options {
        max_candidates: 20_000,
        ..runner::Options::default()
    }
}

/// How a candidate reads in a report: its changed rules, or "the input".
fn describe(cand: &Candidate) -> Vec<String> {
    cand.iter()
        .map(|(class, ops)| format!("{class} -> {}", crate::mapping::ptx::sequence_text(ops)))
        .collect()
}

/// Repair `input` up to the bound of `opts.search`: see the module's text.
pub fn repair(input: &Mapping, opts: &Options) -> diag::Result<Repair> {
    let mut cg = Cegis::new(input, opts);
    let input_cost = cg.cost(&Candidate::new());
    let mut answer = Repair {
        mapping: input.path.clone(),
        bound: opts.search.bound,
        costs: opts.costs.source.clone(),
        input_cost,
        verdict: RepairVerdict::AlreadySound,
        changes: vec![],
        repaired_cost: input_cost,
        weaker: vec![],
        ties: vec![],
        counterexamples: vec![],
        work: Work::default(),
    };
    match cg.search(&Candidate::new())? {
        Searched::Sound => {}
        Searched::Stopped => answer.verdict = RepairVerdict::Stopped,
        Searched::Broken(xs) => {
            xs.iter()
                .try_for_each(|&x| cg.refute(x, &Candidate::new()))?;
            let (verdict, found) = cheapest(&mut cg)?;
            answer.verdict = verdict;
            if let Some((best, ties)) = found {
                answer.repaired_cost = cg.cost(&best);
                answer.changes = explained_changes(&mut cg, &best)?;
                answer.weaker = weaker_refused(&mut cg, &best)?;
                answer.ties = ties
                    .iter()
                    .map(|t| t.iter().map(|(c, ops)| cg.change(*c, ops)).collect())
                    .collect();
            }
        }
    }
    answer.work = cg.finish();
    answer.counterexamples = cg.known;
    Ok(answer)
}

/// The cheapest sound candidate and its ties: the cheapest choice no refutation excludes
/// (`choice::cheapest`) is checked on the known counterexamples and then searched in full; each
/// counterexample that breaks it becomes a refutation, until one passes both.
fn cheapest(cg: &mut Cegis) -> diag::Result<(RepairVerdict, Option<(Candidate, Vec<Candidate>)>)> {
    let mut best: Option<(u64, Candidate)> = None;
    let mut ties = vec![];
    loop {
        let classes = cg.involved();
        let options: Vec<Vec<(u64, Vec<TargetOp>)>> = classes
            .iter()
            .map(|c| {
                let mut rules: Vec<(u64, Vec<TargetOp>)> =
                    space::strengthenings(*c, cg.input_rule(c), &cg.scopes)
                        .into_iter()
                        .map(|r| (cg.costs.class_rule(c, &r), r))
                        .collect();
                rules.sort_by_key(|(cost, _)| *cost);
                rules
            })
            .collect();
        let mut refutations = cg.refutations(&classes);
        if let Some((_, b)) = &best {
            refutations.extend(
                std::iter::once(b)
                    .chain(&ties)
                    .map(|c| exactly(cg, c, &classes)),
            );
        }
        if cg.opts.search.stop.requested() {
            return Ok((RepairVerdict::Stopped, None));
        }
        let Some((total, at)) = choice::cheapest(&options, &refutations) else {
            break;
        };
        if best.as_ref().is_some_and(|(b, _)| total > *b) || ties.len() >= cg.opts.max_ties {
            break;
        }
        cg.work.candidates += 1;
        let cand: Candidate = classes
            .iter()
            .zip(&at)
            .zip(&options)
            .map(|((c, &p), o)| (*c, o[p].1.clone()))
            .filter(|(c, ops)| ops.as_slice() != cg.input_rule(c))
            .collect();
        if let Some(x) = cg.broken_by_known(&cand)? {
            cg.refute(x, &cand)?;
            continue;
        }
        match cg.search(&cand)? {
            Searched::Stopped => return Ok((RepairVerdict::Stopped, None)),
            Searched::Sound if best.is_none() => best = Some((total, cand)),
            Searched::Sound => ties.push(cand),
            Searched::Broken(xs) => xs.iter().try_for_each(|&x| cg.refute(x, &cand))?,
        }
    }
    Ok(match best {
        Some((_, b)) => (RepairVerdict::Repaired, Some((b, ties))),
        None => (RepairVerdict::NoneInSpace, None),
    })
}

/// A refutation that excludes exactly `cand` (a candidate already found sound, so that the next
/// choice is another one).
fn exactly(cg: &Cegis, cand: &Candidate, classes: &[Class]) -> choice::Refutation {
    choice::Refutation {
        rules: classes
            .iter()
            .enumerate()
            .map(|(k, c)| (k, cg.rule_of(cand, c).to_vec()))
            .collect(),
        exact: true,
    }
}

/// The changes of `best`, each with the counterexamples that come back when it alone is undone.
fn explained_changes(cg: &mut Cegis, best: &Candidate) -> diag::Result<Vec<Change>> {
    let mut changes = vec![];
    for (class, ops) in best {
        let mut undone = best.clone();
        undone.remove(class);
        let mut change = cg.change(*class, ops);
        for x in 0..cg.known.len() {
            if cg.known[x].by_outcome
                && cg.known[x].class_set.contains(class)
                && cg.breaks(x, &undone)?
            {
                change.kills.push(cg.known[x].name.clone());
            }
        }
        changes.push(change);
    }
    Ok(changes)
}

/// Each changed rule of `best` one step weaker, where that is still a strengthening of the
/// input's rule, with the counterexample that refuses it.
fn weaker_refused(cg: &mut Cegis, best: &Candidate) -> diag::Result<Vec<Refused>> {
    let mut refused = vec![];
    for (class, ops) in best {
        let allowed: HashSet<Vec<TargetOp>> =
            space::strengthenings(*class, cg.input_rule(class), &cg.scopes)
                .into_iter()
                .collect();
        for weaker in space::weakenings(ops, &cg.scopes) {
            if !allowed.contains(&weaker) {
                continue;
            }
            let mut cand = best.clone();
            if weaker.as_slice() == cg.input_rule(class) {
                cand.remove(class);
            } else {
                cand.insert(*class, weaker.clone());
            }
            let why = cg.refutation(&cand)?;
            refused.push(Refused {
                class: class.to_string(),
                rule: crate::mapping::ptx::sequence_text(&weaker),
                counterexample: why.map_or_else(
                    || "none: of equal cost and sound (a tie)".to_string(),
                    |x| cg.known[x].name.clone(),
                ),
            });
        }
    }
    Ok(refused)
}

/// Try every one-step weakening of every searched class of `input`, each on its own.
pub fn weaken(input: &Mapping, opts: &Options) -> diag::Result<Weakening> {
    let mut cg = Cegis::new(input, opts);
    let scope = search::scope(input, &opts.search)?;
    let mut answer = Weakening {
        mapping: input.path.clone(),
        bound: opts.search.bound,
        costs: opts.costs.source.clone(),
        input_sound: false,
        sound: vec![],
        refused: vec![],
        not_searched: scope.not_searched.clone(),
        counterexamples: vec![],
        stopped: false,
        work: Work::default(),
    };
    match cg.search(&Candidate::new())? {
        Searched::Sound => answer.input_sound = true,
        Searched::Stopped => answer.stopped = true,
        Searched::Broken(_) => {}
    }
    if answer.input_sound {
        'classes: for class in input.classes() {
            if !scope.searched.contains(&class.to_string()) {
                continue;
            }
            for weaker in space::weakenings(cg.input_rule(class), &cg.scopes) {
                if opts.search.stop.requested() {
                    answer.stopped = true;
                    break 'classes;
                }
                let cand = Candidate::from([(*class, weaker.clone())]);
                let known = cg.broken_by_known(&cand)?;
                let verdict = match known {
                    Some(x) => Searched::Broken(vec![x]),
                    None => cg.search(&cand)?,
                };
                match verdict {
                    Searched::Stopped => {
                        answer.stopped = true;
                        break 'classes;
                    }
                    Searched::Sound => answer.sound.push(cg.change(*class, &weaker)),
                    Searched::Broken(xs) => answer.refused.push(Refused {
                        class: class.to_string(),
                        rule: crate::mapping::ptx::sequence_text(&weaker),
                        counterexample: cg.known[xs[0]].name.clone(),
                    }),
                }
            }
        }
    }
    answer.work = cg.finish();
    answer.counterexamples = cg.known;
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::Backend;

    /// The assumption refutations rest on (decision 013): a counterexample that breaks a mapping
    /// also breaks it with any class's rule replaced by one at most as strong. Checked on the
    /// runner for every class of every counterexample of M4's repair, over every pair of that
    /// class's rules in the space.
    #[test]
    fn ptx_is_monotone_on_the_counterexamples_of_a_repair() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/mappings/known-bugs/m4-release-acquire-gpu-narrowed.map"
        );
        let input = crate::mapping::load(std::path::Path::new(path)).unwrap();
        let opts = Options {
            search: search::Options {
                first: true,
                ..search::Options::natural(3, Backend::Cadical)
            },
            costs: Costs::default(),
            max_ties: 0,
            progress: |_| {},
        };
        let mut cg = Cegis::new(&input, &opts);
        cg.search(&Candidate::new()).unwrap();
        assert!(!cg.known.is_empty());
        let mut pairs = 0;
        for x in 0..cg.known.len() {
            for class in cg.known[x].class_set.clone() {
                let rules = space::strengthenings(class, cg.input_rule(&class), &cg.scopes);
                let cands: Vec<Candidate> = rules
                    .iter()
                    .map(|r| Candidate::from([(class, r.clone())]))
                    .collect();
                let broken = cg.breaks_all(x, &cands).unwrap();
                assert!(broken[0], "{} does not break the input", cg.known[x].name);
                for (a, ra) in rules.iter().enumerate() {
                    for (b, rb) in rules.iter().enumerate() {
                        if space::weaker_or_equal(ra, rb) {
                            pairs += 1;
                            assert!(
                                !broken[b] || broken[a],
                                "{}: {class} broken at {rb:?}, not at weaker {ra:?}",
                                cg.known[x].name
                            );
                        }
                    }
                }
            }
        }
        assert!(pairs > 100, "{pairs}");
    }
}
