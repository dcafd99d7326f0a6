//! Model comparison (`mapcheck compare A.cat B.cat`), memalloy's question: the smallest litmus test
//! one model allows and the other forbids. It is asked as two mapping checks with the identity
//! mapping (`mapping::identity`): A onto B finds a program, race-free under A, with an execution
//! B allows and A forbids; B onto A the other way round. Every test found is run again under
//! both models (`decide::run`) and reported only when A forbids its outcome and B allows it.
//!
//! Owns: `Comparison`, `Direction`, `Difference`, `compare`, `render`, `json`. Uses: `ir`,
//! `mapping`, `search` (the check and its progress through `report`), `decide`, `litmus`
//! (printing).
use std::fmt::Write;
use std::path::Path;

use crate::diag::{self, Error};
use crate::ir::Model;
use crate::litmus::{self, Litmus};
use crate::runner::{self, Outcome};
use crate::search::{self, Options, Statistics, Unfinished};
use crate::{decide, ir, mapping};

/// Both directions of a comparison.
#[derive(Debug)]
pub struct Comparison {
    /// The two models as loaded (A, then B).
    pub models: [Model; 2],
    /// A onto B (what B allows and A forbids), then B onto A.
    pub directions: [Direction; 2],
    /// The options both checks ran with.
    pub options: Options,
}

/// One direction: tests that `allowing` allows and `forbidding` forbids.
#[derive(Debug)]
pub struct Direction {
    /// The model that forbids the tests searched for (the source of the identity mapping).
    pub forbidding: String,
    /// The model that allows them (the target).
    pub allowing: String,
    /// Flags of the forbidding model: only programs none of whose consistent executions raise one
    /// are searched (empty: all programs).
    pub race_free_under: Vec<String>,
    /// The smallest test found, confirmed by both models.
    pub difference: Option<Difference>,
    /// Largest bound searched completely without a difference.
    pub clean_to: usize,
    /// How far the next bound got, when the check stopped early.
    pub unfinished: Option<Unfinished>,
    /// The work of the check, over all of the forbidding model's axioms.
    pub statistics: Statistics,
}

/// A distinguishing test with both models' verdicts on it.
#[derive(Debug)]
pub struct Difference {
    /// The bound it was found at (events, an RMW counting two).
    pub bound: usize,
    /// The forbidding model's axiom that the allowed execution breaks.
    pub axiom: String,
    /// The test.
    pub test: Litmus,
    /// The test in its language's litmus syntax.
    pub text: String,
    /// The forbidding model's outcome on the test.
    pub forbidden: Outcome,
    /// The allowing model's outcome on the test.
    pub allowed: Outcome,
}

/// Compare the models at `a` and `b` (loaded with `load[0]` and `load[1]`: one file under two
/// of its variants is two models) up to `opts.bound` events.
pub fn compare(
    a: &Path,
    b: &Path,
    load: &[ir::LoadOptions; 2],
    opts: &Options,
) -> diag::Result<Comparison> {
    let (model_a, model_b) = (ir::load_with(a, &load[0])?, ir::load_with(b, &load[1])?);
    let first = direction(a, &model_a, b, &model_b, opts)?;
    let second = if opts.stop.requested() {
        unsearched(&model_b, &model_a)
    } else {
        direction(b, &model_b, a, &model_a, opts)?
    };
    Ok(Comparison {
        models: [model_a, model_b],
        directions: [first, second],
        options: opts.clone(),
    })
}

/// The check of `forbidding` onto `allowing` with the identity mapping, its smallest
/// counterexample confirmed as a test.
fn direction(
    forbidding_path: &Path,
    forbidding: &Model,
    allowing_path: &Path,
    allowing: &Model,
    opts: &Options,
) -> diag::Result<Direction> {
    let identity = mapping::identity(
        forbidding_path,
        forbidding.clone(),
        allowing_path,
        allowing.clone(),
    )
    .map_err(|m| Error::file(&forbidding.path, m))?;
    let opts = Options {
        first: true,
        ..opts.clone()
    };
    let report = crate::report::check_with_progress(&identity, &opts)?;
    let mut out = unsearched(forbidding, allowing);
    out.clean_to = report.axioms.iter().map(|a| a.clean_to).min().unwrap_or(0);
    out.unfinished = report.axioms.iter().find_map(|a| a.unfinished);
    for a in &report.axioms {
        out.statistics.add(&a.statistics);
    }
    let smallest = report
        .axioms
        .iter()
        .filter_map(|a| a.counterexample.as_ref())
        .min_by_key(|c| (c.bound, c.shape.len()));
    if let Some(cx) = smallest {
        out.difference = Some(confirm(forbidding, allowing, cx)?);
    }
    Ok(out)
}

/// A direction before its check: nothing found, nothing searched.
fn unsearched(forbidding: &Model, allowing: &Model) -> Direction {
    Direction {
        forbidding: named(forbidding),
        allowing: named(allowing),
        race_free_under: forbidding
            .checks
            .iter()
            .filter(|c| c.flag)
            .map(|c| c.name.clone())
            .collect(),
        difference: None,
        clean_to: 0,
        unfinished: None,
        statistics: Statistics::default(),
    }
}

/// Run the counterexample's test under both models: the forbidding one must not reach its
/// outcome, the allowing one must. Anything else is an error (a mapcheck bug or an outcome that
/// the test's final state cannot tell apart), never a reported difference.
fn confirm(
    forbidding: &Model,
    allowing: &Model,
    cx: &search::Counterexample,
) -> diag::Result<Difference> {
    let mut test = cx.found.source.clone();
    test.name = format!("{}-vs-{}-{}", stem(allowing), stem(forbidding), cx.axiom);
    let (forbidding_name, allowing_name) = (named(forbidding), named(allowing));
    let run = |m: &Model| decide::run(m, &test, &runner::Options::default());
    let (forbidden, allowed) = (run(forbidding)?, run(allowing)?);
    // The search made the test: a failure to print it is a bug in mapcheck.
    let text = litmus::print_test(&test)
        .map_err(|e| e.into_internal("a difference's test cannot be printed"))?;
    if forbidden.validated || !allowed.validated {
        return Err(Error::file(
            &forbidding.path,
            format!(
                "the search found an execution that {} allows and {} forbids ({} fails), but the runner \
                 does not confirm the test:\n{text}{}: {}\n{}: {}",
                allowing_name,
                forbidding_name,
                cx.axiom,
                forbidding_name,
                verdict(&forbidden),
                allowing_name,
                verdict(&allowed)
            ),
        ));
    }
    Ok(Difference {
        bound: cx.bound,
        axiom: cx.axiom.clone(),
        test,
        text,
        forbidden,
        allowed,
    })
}

/// The model's file stem, with its enabled variants (`rc11-scoped-cxx20`): a name for tests.
fn stem(m: &Model) -> String {
    let file = Path::new(&m.path)
        .file_stem()
        .map_or_else(|| m.path.clone(), |s| s.to_string_lossy().into_owned());
    std::iter::once(file)
        .chain(m.variants_enabled.iter().cloned())
        .collect::<Vec<_>>()
        .join("-")
}

/// The model as a reading: its path, with the variants it is read with
/// (`models/rc11-scoped.cat --variant cxx20`), so that one file's two readings differ.
fn named(m: &Model) -> String {
    std::iter::once(m.path.clone())
        .chain(m.variants_enabled.iter().map(|v| format!("--variant {v}")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `allowed (2 of 4 final states satisfy the condition)` / `forbidden (no final state …)`.
fn verdict(o: &Outcome) -> String {
    let satisfying = o.states.values().filter(|&&s| s).count();
    let word = if o.validated { "allowed" } else { "forbidden" };
    let mut s = format!(
        "{word} ({satisfying} of {} final states satisfy the condition",
        o.states.len()
    );
    if !o.flags.is_empty() {
        let flags: Vec<&str> = o.flags.iter().map(String::as_str).collect();
        write!(s, "; flags raised: {}", flags.join(", ")).unwrap();
    }
    s.push(')');
    s
}

/// The comparison as JSON: the models, the options, and per direction what `render` prints, a
/// test found carrying its text and both models' outcomes.
pub fn json(c: &Comparison) -> serde_json::Value {
    let directions: Vec<serde_json::Value> = c
        .directions
        .iter()
        .map(|d| {
            serde_json::json!({
                "allowing": d.allowing,
                "forbidding": d.forbidding,
                "race_free_under": d.race_free_under,
                "clean_to": d.clean_to,
                "unfinished": d.unfinished,
                "statistics": d.statistics,
                "difference": d.difference.as_ref().map(|x| serde_json::json!({
                    "bound": x.bound,
                    "axiom": x.axiom,
                    "test": x.text,
                    "allowed": x.allowed,
                    "forbidden": x.forbidden,
                })),
            })
        })
        .collect();
    serde_json::json!({
        "models": [named(&c.models[0]), named(&c.models[1])],
        "options": c.options,
        "solver": crate::solver::new(c.options.backend).name(),
        "differs": c.differs(),
        "stopped": c.stopped(),
        "directions": directions,
    })
}

/// The comparison as text: per direction the test found (with both verdicts) or how far it is
/// clean, and which programs were searched.
pub fn render(c: &Comparison) -> String {
    let mut s = format!(
        "compare {} and {}: litmus tests of at most {} events (an RMW counts two), solver {}\n",
        named(&c.models[0]),
        named(&c.models[1]),
        c.options.bound,
        crate::solver::new(c.options.backend).name()
    );
    for d in &c.directions {
        s.push('\n');
        s.push_str(&render_direction(d));
    }
    s
}

fn render_direction(d: &Direction) -> String {
    let programs = if d.race_free_under.is_empty() {
        "all programs".to_string()
    } else {
        format!(
            "programs that raise no flag ({}) under {}",
            d.race_free_under.join(", "),
            d.forbidding
        )
    };
    let mut s = format!(
        "{} allows, {} forbids — searched {programs}:\n",
        d.allowing, d.forbidding
    );
    match (&d.difference, &d.unfinished) {
        (Some(x), _) => {
            writeln!(
                s,
                "  found at bound {} ({} fails under {}):\n",
                x.bound, x.axiom, d.forbidding
            )
            .unwrap();
            s.push_str(&x.text);
            writeln!(s, "\n  {}: {}", d.allowing, verdict(&x.allowed)).unwrap();
            writeln!(s, "  {}: {}", d.forbidding, verdict(&x.forbidden)).unwrap();
        }
        (None, Some(u)) => writeln!(
            s,
            "  none up to bound {}; stopped during bound {} ({} of {} thread shapes done)",
            d.clean_to, u.bound, u.shapes_done, u.shapes
        )
        .unwrap(),
        (None, None) if d.clean_to == 0 => {
            s.push_str("  not searched (the comparison stopped before this direction)\n")
        }
        (None, None) => writeln!(s, "  none up to bound {}", d.clean_to).unwrap(),
    }
    if d.statistics.queries > 0 {
        writeln!(s, "  work: {}", d.statistics).unwrap();
    }
    s
}

impl Comparison {
    /// Does either direction have a distinguishing test?
    pub fn differs(&self) -> bool {
        self.directions.iter().any(|d| d.difference.is_some())
    }
    /// Did either check stop before its bound without a test?
    pub fn stopped(&self) -> bool {
        self.directions
            .iter()
            .any(|d| d.difference.is_none() && d.clean_to < self.options.bound)
    }
}
