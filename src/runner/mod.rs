//! The litmus runner: every candidate execution of a test, judged by a model. The ground truth.
//!
//! Owns: enumeration of candidate executions (thread traces × barrier generations × `rf` × `co`),
//! the estimate of their number that refuses oversized tests before judging, final states, and
//! the verdict of the test's final clause. Entry point: `run`.
//! Uses: `litmus` (the test), `exec` and `rel` (executions), `ir`/`eval` (the model), `vocab`,
//! `diag`. Knows nothing of SAT:
//! it is exhaustive and simple on purpose, and it re-validates everything the encoder reports.
//!
//! Files:
//! - `options.rs`: `Options` and the defaults of its limits.
//! - `bound.rs`: the bound on the candidate count, read off the code, and the estimate of the time
//!   judging one candidate takes.
//! - `enumerate.rs`: the entry points `estimate`, `for_each_candidate`, `for_each_family`.
//! - `traces.rs`: per-thread traces under guessed read values, one at a time.
//! - `orders.rs`: coherence orders and barrier generations, one at a time.
mod bound;
mod enumerate;
mod options;
mod orders;
mod traces;

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::Result;
use crate::ir::Model;
use crate::litmus::{Arch, Litmus, Prop, Quantifier, Target};

pub(crate) use enumerate::stopped;
use enumerate::Finals;
pub use enumerate::{
    estimate, for_each_candidate, for_each_family, Candidate, Estimate, Family, Member, Refusal,
};
pub use options::{Options, ENUMERATION_SECONDS, MAX_CANDIDATES};

/// A final state: the value of each observed register or location (`None`: the thread blocked at
/// a barrier before setting it).
pub(crate) type State = Vec<(String, Option<i64>)>;

/// What a model allows for a test.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Outcome {
    pub(crate) test: String,
    pub(crate) model: String,
    pub(crate) quantifier: Quantifier,
    /// The final clause, in herd7's syntax (`exists (0:r0=1 /\ x=2)`).
    pub(crate) condition: String,
    /// Allowed final states, with whether each satisfies the condition's proposition.
    pub states: BTreeMap<String, bool>,
    /// The same states as values, in `observed` order (what `render_herd_exact` spells).
    #[serde(skip)]
    pub(crate) values: BTreeMap<Vec<Option<i64>>, bool>,
    /// Consistent executions whose final state satisfies / falsifies the proposition (for
    /// `~exists c`: `c` itself, as herd counts them; herd's `Witnesses` line swaps the two for
    /// `~exists`, see `witnesses`).
    pub positive: usize,
    /// Consistent executions whose final state falsifies the proposition (same counting as
    /// `positive`).
    pub negative: usize,
    /// Candidate executions enumerated (before the model judged them).
    pub candidates: usize,
    /// Flags (`flag ~empty … as name`) raised by some consistent execution.
    pub flags: BTreeSet<String>,
    /// Is the final clause validated (herd's `Ok`)?
    pub validated: bool,
    /// Decided by the solver (the `decide` stage) rather than by enumerating: the states are those
    /// of the executions the solver found, `positive` / `negative` count the trace-family
    /// combinations with such an execution, and `candidates` is 0.
    pub decided: bool,
}

/// Run `test` under `model`.
pub fn run(model: &Model, test: &Litmus, opts: &Options) -> Result<Outcome> {
    run_within(model, test, opts)?.map_err(|refusal| refusal.error)
}

/// Run `test` under `model` unless its candidates are more than `opts.max_candidates`, or
/// judging them would take more than `opts.enumeration_seconds` by the runner's estimate:
/// `Ok(Err(refusal))` then, with the refusal `run` gives, and no candidate judged.
pub fn run_within(
    model: &Model,
    test: &Litmus,
    opts: &Options,
) -> Result<std::result::Result<Outcome, Refusal>> {
    let mut out = empty_outcome(model, test);
    let observed = observed(test);
    let refusal = enumerate::enumerate(model, test, opts, &mut |cand: &Candidate| {
        out.candidates += 1;
        let states = final_states(test, &observed, cand);
        if !states.is_empty() {
            out.flags.extend(cand.judgement.flags.iter().cloned());
        }
        for (values, sat) in states {
            if sat {
                out.positive += 1;
            } else {
                out.negative += 1;
            }
            out.add_state(test, &observed, values, sat);
        }
    })?;
    if let Some(refusal) = refusal {
        return Ok(Err(refusal));
    }
    out.validated = out.clause_validated();
    Ok(Ok(out))
}

impl Outcome {
    /// Record an allowed final state: the values of the `observed` targets, and whether it
    /// satisfies the condition's proposition.
    pub(crate) fn add_state(
        &mut self,
        test: &Litmus,
        observed: &[Target],
        values: Vec<Option<i64>>,
        sat: bool,
    ) {
        self.states
            .insert(render_values(test, observed, &values), sat);
        self.values.insert(values, sat);
    }

    /// Is the final clause validated by the executions counted in `positive` / `negative`?
    pub(crate) fn clause_validated(&self) -> bool {
        match self.quantifier {
            Quantifier::Exists => self.positive > 0,
            Quantifier::NotExists => self.positive == 0,
            Quantifier::Forall => self.negative == 0,
        }
    }
}

/// The outcome of `test` before any execution is seen.
pub(crate) fn empty_outcome(model: &Model, test: &Litmus) -> Outcome {
    Outcome {
        test: test.name.clone(),
        model: model.title.clone().unwrap_or_else(|| model.path.clone()),
        quantifier: test.condition.quantifier,
        condition: render_condition(test),
        states: BTreeMap::new(),
        values: BTreeMap::new(),
        positive: 0,
        negative: 0,
        candidates: 0,
        flags: BTreeSet::new(),
        validated: false,
        decided: false,
    }
}

/// A final state as `run` prints it (`0:r0=1; x=2;`): the values of the targets a state shows
/// (`observed`), in that order.
pub(crate) fn render_values(test: &Litmus, observed: &[Target], values: &[Option<i64>]) -> String {
    let state: State = (observed.iter().zip(values))
        .map(|(t, v)| (target_name(test, t), *v))
        .collect();
    render_state(&state)
}

/// Does a final state pass the test's `filter` clause (every state passes without one)?
/// The final states of a consistent candidate that the test's filter keeps, each as the values
/// of the `observed` registers and locations, with whether it satisfies the condition's
/// proposition; none for an inconsistent candidate.
pub(crate) fn final_states(
    test: &Litmus,
    observed: &[Target],
    cand: &Candidate,
) -> Vec<(Vec<Option<i64>>, bool)> {
    if !cand.is_consistent() {
        return vec![];
    }
    (cand.finals.iter())
        .filter(|finals| passes_filter(test, finals))
        .map(|finals| {
            let lookup = |t: &Target| finals.value_of(t);
            let values = observed.iter().map(lookup).collect();
            (values, satisfies(&test.condition.prop, &lookup))
        })
        .collect()
}

fn passes_filter(test: &Litmus, finals: &Finals) -> bool {
    (test.filter.as_ref()).is_none_or(|p| satisfies(p, &|t: &Target| finals.value_of(t)))
}

/// What a final state shows: the registers and locations the condition names, in order of first
/// mention, then those of the `locations` clause it does not name (herd shows both).
pub(crate) fn observed(test: &Litmus) -> Vec<Target> {
    let mut out: Vec<Target> = test.condition.prop.targets().into_iter().cloned().collect();
    for t in &test.locations {
        if !out.contains(t) {
            out.push(t.clone());
        }
    }
    out
}

/// A final-state target as herd7 names it (`0:r0`, `x`).
pub(crate) fn target_name(test: &Litmus, t: &Target) -> String {
    match t {
        Target::Reg { thread, reg } => format!("{}:{reg}", thread_number(test, *thread)),
        Target::Mem(l) => l.clone(),
    }
}

/// herd prints threads by number (`0:r0`), whatever their name.
fn thread_number(test: &Litmus, t: usize) -> String {
    let name = &test.threads[t].name;
    name.strip_prefix('P').unwrap_or(name).to_string()
}

/// The final clause in herd7's syntax, as `run` spells it.
pub(crate) fn render_condition(test: &Litmus) -> String {
    render_condition_spelled(test, Spelling::default())
}

/// How a state or a condition spells locations, values and negation: `run`'s way (`x`, `1`,
/// `~(…)`), or herd7's exactly (`--herd`: a C test's memory as `[x]`, `not (…)`, and values in
/// hexadecimal with `hexa`).
#[derive(Clone, Copy, Default)]
struct Spelling {
    herd: bool,
    hexa: bool,
}

impl Spelling {
    fn target(self, test: &Litmus, t: &Target) -> String {
        let c_syntax = matches!(test.arch, Arch::C11 | Arch::OpenCl);
        match t {
            Target::Mem(l) if self.herd && c_syntax => format!("[{l}]"),
            _ => target_name(test, t),
        }
    }

    fn value(self, v: i64) -> String {
        match (self.hexa, v < 0) {
            (false, _) => v.to_string(),
            (true, false) => format!("0x{v:x}"),
            (true, true) => format!("-0x{:x}", v.unsigned_abs()),
        }
    }

    /// `0:r0=1;` (a thread that blocked before setting the register: `0:r0=?;`).
    fn assignment(self, test: &Litmus, t: &Target, v: Option<i64>) -> String {
        let v = v.map_or("?".to_string(), |v| self.value(v));
        format!("{}={v};", self.target(test, t))
    }
}

fn render_condition_spelled(test: &Litmus, spelling: Spelling) -> String {
    let q = match test.condition.quantifier {
        Quantifier::Exists => "exists",
        Quantifier::NotExists => "~exists",
        Quantifier::Forall => "forall",
    };
    let prop = render_prop(test, spelling, &test.condition.prop);
    format!("{q} ({prop})")
}

/// A proposition without outer parentheses; a binary operand is bracketed unless it is the same
/// (associative) connective, so `a /\ b /\ c` prints flat as herd7 prints it.
fn render_prop(test: &Litmus, spelling: Spelling, p: &Prop) -> String {
    let render = |q: &Prop| render_prop(test, spelling, q);
    let binary = |a: &Prop, op: &str, b: &Prop| {
        let side = |q: &Prop| match (q, p) {
            (Prop::And(..), Prop::And(..)) | (Prop::Or(..), Prop::Or(..)) => render(q),
            (Prop::And(..) | Prop::Or(..) | Prop::Implies(..), _) => format!("({})", render(q)),
            _ => render(q),
        };
        format!("{} {op} {}", side(a), side(b))
    };
    let target = |t: &Target| spelling.target(test, t);
    match p {
        Prop::True => "true".into(),
        Prop::False => "false".into(),
        Prop::Eq(t, v) => format!("{}={}", target(t), spelling.value(*v)),
        Prop::EqTargets(a, b) => format!("{}={}", target(a), target(b)),
        Prop::Not(a) if spelling.herd => format!("not ({})", render(a)),
        Prop::Not(a) => format!("~({})", render(a)),
        Prop::And(a, b) => binary(a, "/\\", b),
        Prop::Or(a, b) => binary(a, "\\/", b),
        Prop::Implies(a, b) => binary(a, "=>", b),
    }
}

/// A state as herd7 prints it (`0:r0=1; x=2;`).
pub(crate) fn render_state(s: &State) -> String {
    s.iter()
        .map(|(n, v)| match v {
            Some(v) => format!("{n}={v};"),
            None => format!("{n}=?;"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Evaluate a proposition; an atom about an unset register (blocked thread) is false.
pub(crate) fn satisfies(p: &Prop, value: &dyn Fn(&Target) -> Option<i64>) -> bool {
    match p {
        Prop::True => true,
        Prop::False => false,
        Prop::Eq(t, v) => value(t) == Some(*v),
        Prop::EqTargets(a, b) => value(a).is_some() && value(a) == value(b),
        Prop::Not(a) => !satisfies(a, value),
        Prop::And(a, b) => satisfies(a, value) && satisfies(b, value),
        Prop::Or(a, b) => satisfies(a, value) || satisfies(b, value),
        Prop::Implies(a, b) => !satisfies(a, value) || satisfies(b, value),
    }
}

/// herd7's `Witnesses` counts: executions for and against the final clause. For `exists` and
/// `forall` these are the executions satisfying and falsifying the proposition; for `~exists c`
/// herd swaps them (`check_wit` in herd's `top_herd.ml`), so Positive counts the executions that
/// do not satisfy `c`. The `Observation` line keeps the proposition's own counts.
pub fn witnesses(o: &Outcome) -> (usize, usize) {
    match o.quantifier {
        Quantifier::Exists | Quantifier::Forall => (o.positive, o.negative),
        Quantifier::NotExists => (o.negative, o.positive),
    }
}

/// herd7's output shape for an outcome, with mapcheck's spelling of states and condition and its
/// own last lines (`Candidates`, and whether the solver decided it).
pub fn render_herd(o: &Outcome) -> String {
    let states: Vec<&str> = o.states.keys().map(String::as_str).collect();
    let mut s = herd_text(o, &states, &o.condition);
    s.push_str(&format!("Candidates {} {}\n", o.test, o.candidates));
    if o.decided {
        s.push_str("Decided by the solver: states are those of the executions found\n");
    }
    s
}

/// herd7's output for an outcome of `test`, byte for byte but for herd's `Hash=` line, which
/// mapcheck does not compute (`run --herd`): a state's locations in herd's order (registers by
/// thread, then name; then memory by name; a C test's memory as `[x]`), the states sorted by
/// those values, `not (…)` for negation, values in hexadecimal when `hexa` (herd's `-hexa`,
/// with which herd's own C tests are run), and the blank line that ends herd's output.
pub fn render_herd_exact(o: &Outcome, test: &Litmus, hexa: bool) -> String {
    let spelling = Spelling { herd: true, hexa };
    let observed = observed(test);
    let mut order: Vec<usize> = (0..observed.len()).collect();
    order.sort_by_key(|&i| match &observed[i] {
        Target::Reg { thread, reg } => (0, *thread, reg.clone()),
        Target::Mem(l) => (1, 0, l.clone()),
    });
    let mut lines: Vec<(Vec<Option<i64>>, String)> = (o.values.keys())
        .map(|values| {
            let text: Vec<String> = (order.iter())
                .map(|&i| spelling.assignment(test, &observed[i], values[i]))
                .collect();
            (order.iter().map(|&i| values[i]).collect(), text.join(" "))
        })
        .collect();
    lines.sort();
    let states: Vec<&str> = lines.iter().map(|(_, text)| text.as_str()).collect();
    let condition = render_condition_spelled(test, spelling);
    herd_text(o, &states, &condition) + "\n"
}

/// The lines herd7 and mapcheck print alike, from `Test` to `Observation`, with the states and
/// the condition as spelled.
fn herd_text(o: &Outcome, states: &[&str], condition: &str) -> String {
    let kind = match o.quantifier {
        Quantifier::Exists => "Allowed",
        Quantifier::NotExists => "Forbidden",
        Quantifier::Forall => "Required",
    };
    let mut s = format!("Test {} {kind}\nStates {}\n", o.test, states.len());
    for st in states {
        s.push_str(st);
        s.push('\n');
    }
    s.push_str(if o.validated { "Ok\n" } else { "No\n" });
    let (positive, negative) = witnesses(o);
    s.push_str(&format!(
        "Witnesses\nPositive: {positive} Negative: {negative}\n"
    ));
    for f in &o.flags {
        s.push_str(&format!("Flag {f}\n"));
    }
    s.push_str(&format!("Condition {condition}\n"));
    let obs = match (o.positive, o.negative) {
        (0, _) => "Never",
        (_, 0) => "Always",
        _ => "Sometimes",
    };
    s.push_str(&format!(
        "Observation {} {obs} {} {}\n",
        o.test, o.positive, o.negative
    ));
    s
}
