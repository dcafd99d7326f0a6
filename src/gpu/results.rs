//! The result of one harness run as data: what ran where with which parameters, the count of
//! every outcome with its statistics and the models' verdict on it, and what the run could not
//! test. `gpu run` prints it (`render`), writes it into the harness directory as
//! `result.json` and `result.csv`, and sums several up in one table (`render_summary`).
//!
//! Owns: `RunResult` (`new`, `load`, `render`, `to_csv`), `Row`, `RunContext`, `render_summary`.
//! Uses: `stats` (the numbers), `judgement` (the verdicts), `outcome::Space` (the states),
//! `litmus` and `runner` (the test and its models' verdicts), `diag`.
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::harness::{JUDGEMENT_FILE, RESULT_FILES};
use super::judgement::{Judgement, Verdict};
use super::outcome::{self, Space, Values};
use super::params::Params;
use super::stats::{self, OutcomeStats, Tally};
use crate::diag::{self, Error, Result};
use crate::litmus::Litmus;

/// What ran where, for the result (the parts the host knows).
#[derive(Clone, Debug)]
pub struct RunContext {
    /// `opencl` or `cuda`.
    pub target: &'static str,
    /// The device's name.
    pub device: String,
    /// The OpenCL platform and its version, or the CUDA driver's version.
    pub driver: String,
    /// Is the device a CPU (PoCL)?
    pub cpu: bool,
    /// What the host loaded (CUDA: the checked cubin, or the PTX JIT and why).
    pub module: Option<String>,
    /// Notes from the host (a fallback, a device limit that cut the parameters).
    pub notes: Vec<String>,
}

/// One outcome of the histogram.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The state as herd7 prints it (`0:r0=0; 1:r1=0;`), or a note for values outside every
    /// candidate execution.
    pub state: String,
    /// Instances that ended in this state.
    pub count: u64,
    /// Rate, P_rep and 95 % interval of `count` over the run's instances.
    pub stats: OutcomeStats,
    /// Does the state satisfy the counted condition?
    pub counted: bool,
    /// The test's model on this state.
    pub verdict: Verdict,
    /// For a counterexample: does the state show it (allowed by the target, forbidden by the
    /// source)?
    pub shows_counterexample: Option<bool>,
    /// Can running whole threads one after another give this state?
    pub sequential: bool,
}

/// One run of a harness.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// The test's name.
    pub test: String,
    /// The harness directory.
    pub harness: String,
    /// `opencl` or `cuda`.
    pub target: String,
    /// The device's name (CUDA: with its ordinal and architecture).
    pub device: String,
    /// The OpenCL platform and version, or the CUDA driver's version.
    pub driver: String,
    /// The device is a CPU.
    pub cpu: bool,
    /// CUDA: what the host loaded.
    pub module: Option<String>,
    /// The parameters the launches ran with (sized to the device).
    pub params: Params,
    /// The observed registers and locations, in the order the states list them.
    pub observed: Vec<String>,
    /// The counted condition.
    pub condition: String,
    /// The model that judged the outcomes, and a counterexample's source model.
    pub model: Option<String>,
    /// For a counterexample: the source model.
    pub source_model: Option<String>,
    /// Launches run.
    pub launches: u64,
    /// Test instances run over all launches.
    pub instances: u64,
    /// Wall-clock seconds of the launches.
    pub seconds: f64,
    /// Per launch: instances run, instances that showed the counted outcome.
    pub per_launch: Vec<(u32, u32)>,
    /// Every observed state, and every state the model allows or the condition counts.
    pub outcomes: Vec<Row>,
    /// The counted outcome (all its states together).
    pub counted: OutcomeStats,
    /// Instances in states the test's model forbids.
    pub forbidden_observed: u64,
    /// Did some instance end in a state that needs threads to overlap? `None` when the states
    /// cannot tell (`Judgement::can_show_overlap`).
    pub overlapped: Option<bool>,
    /// What the run could not test, the device's limits, a fallback.
    pub notes: Vec<String>,
}

impl RunResult {
    /// The result of a run of `test` (its outcome space `space`, judged by `judgement`).
    pub fn new(
        harness: &str,
        test: &Litmus,
        space: &Space,
        judgement: &Judgement,
        context: RunContext,
        params: &Params,
        tally: &Tally,
        shared_workgroups: Vec<Vec<String>>,
    ) -> RunResult {
        let counted_prop = outcome::counted(&test.condition);
        let row = |state: Option<&Values>, count: u64| Row {
            state: state.map_or("(a value outside every candidate execution)".into(), |v| {
                space.render(v)
            }),
            count,
            stats: OutcomeStats::of(count, tally.instances),
            counted: state.is_some_and(|v| space.satisfies(&counted_prop, v)),
            verdict: judgement.verdict(state),
            shows_counterexample: state.and_then(|v| judgement.shows_counterexample(v)),
            sequential: state.is_some_and(|v| judgement.is_sequential(v)),
        };
        let mut outcomes = vec![];
        for (bin, &count) in tally.bins.iter().enumerate() {
            let state = space.values_of(bin);
            let listed = count > 0
                || state.as_ref().is_some_and(|v| {
                    judgement.allowed.contains(v) || space.satisfies(&counted_prop, v)
                });
            if listed {
                outcomes.push(row(state.as_ref(), count));
            }
        }
        let forbidden_observed = outcomes
            .iter()
            .filter(|r| r.verdict == Verdict::Forbidden)
            .map(|r| r.count)
            .sum();
        let overlapped = overlapped(judgement, &outcomes);
        let notes = notes(&context, overlapped, &shared_workgroups);
        RunResult {
            test: test.name.clone(),
            harness: harness.to_string(),
            target: context.target.to_string(),
            device: context.device,
            driver: context.driver,
            cpu: context.cpu,
            module: context.module,
            params: params.clone(),
            observed: space.names.clone(),
            condition: crate::runner::render_condition(test),
            model: judgement.model.clone(),
            source_model: judgement.source.as_ref().map(|s| s.model.clone()),
            launches: tally.launches,
            instances: tally.instances,
            seconds: tally.seconds,
            per_launch: tally.per_launch.clone(),
            counted: OutcomeStats::of(tally.counted, tally.instances),
            outcomes,
            forbidden_observed,
            overlapped,
            notes,
        }
    }

    /// The result `gpu run` wrote into the harness directory `dir`, re-judged with the
    /// directory's `judgement.json`: whether an instance overlapped is decided again
    /// (`Judgement::can_show_overlap`), so a result written under an older rule gets the current
    /// one. A judgement of other observed targets than the result's is refused (stale).
    pub fn load(dir: &Path) -> Result<RunResult> {
        let path = dir.join(RESULT_FILES[0]);
        let text = diag::read_source(&path)?;
        let mut r: RunResult = serde_json::from_str(&text).map_err(|e| {
            Error::file(
                path.display().to_string(),
                format!("not a result file: {e}"),
            )
        })?;
        let path = dir.join(JUDGEMENT_FILE);
        let judgement = Judgement::read(&path)?;
        if judgement.names != r.observed {
            return Err(Error::file(
                path.display().to_string(),
                "judges other states than result.json records (stale or edited)",
            ));
        }
        r.overlapped = overlapped(&judgement, &r.outcomes);
        r.notes.retain(|n| n != NO_OVERLAP);
        r.notes.extend(no_overlap_note(r.overlapped));
        Ok(r)
    }

    /// The printed report: what ran where, the histogram with each outcome's verdict and
    /// statistics, the counted outcome, the notes.
    pub fn render(&self) -> String {
        let mut s = format!(
            "test {} on {} ({}, {})\n",
            self.test, self.device, self.target, self.driver
        );
        if let Some(m) = &self.module {
            let _ = writeln!(s, "module: {m}");
        }
        let _ = writeln!(
            s,
            "parameters: seed {}; {} launches, {} instances, {:.2} s",
            self.params.seed, self.launches, self.instances, self.seconds
        );
        let judged_by = match (&self.model, &self.source_model) {
            (Some(m), Some(src)) => format!("verdicts of {m}; source program under {src}"),
            (Some(m), None) => format!("verdicts of {m}"),
            (None, _) => "no model judged the outcomes (gpu emit --model)".into(),
        };
        let _ = writeln!(
            s,
            "outcomes ({judged_by}; * counted, s reachable running whole threads in turn):"
        );
        s.push_str(&self.histogram());
        let _ = writeln!(s, "counted outcome: {}", self.condition);
        s.push_str(&stats::render_counted(
            &self.counted,
            self.instances,
            self.launches_with_counted(),
            self.launches,
        ));
        if self.forbidden_observed > 0 {
            let _ = writeln!(
                s,
                "FORBIDDEN OUTCOME OBSERVED: {} instances ended in states {} forbids: a bug in the \
                 model, the compiler or the hardware (exit status 1)",
                self.forbidden_observed,
                self.model.as_deref().unwrap_or("the model")
            );
        }
        for n in &self.notes {
            let _ = writeln!(s, "note: {n}");
        }
        s
    }

    fn launches_with_counted(&self) -> u64 {
        self.per_launch.iter().filter(|(_, c)| *c > 0).count() as u64
    }

    fn histogram(&self) -> String {
        let width = self
            .outcomes
            .iter()
            .map(|r| r.state.len())
            .max()
            .unwrap_or(0);
        let mut s = format!(
            "     {:width$}  {:>10}  {:>9}  {:>6}  {:>21}  verdict\n",
            "state", "count", "rate", "P_rep", "95 % interval"
        );
        for r in &self.outcomes {
            let marks = format!(
                "{}{}",
                if r.counted { '*' } else { ' ' },
                if r.sequential { 's' } else { ' ' }
            );
            let source = match r.shows_counterexample {
                Some(true) => "; the source forbids it: shows the counterexample",
                Some(false) => "; the source allows it",
                None => "",
            };
            let _ = writeln!(
                s,
                "  {marks} {:width$}  {:>10}  {:>9.3e}  {:>6.4}  [{:>9.3e}, {:>9.3e}]  {}{source}",
                r.state,
                r.count,
                r.stats.rate,
                r.stats.p_rep,
                r.stats.interval_95.0,
                r.stats.interval_95.1,
                r.verdict.word()
            );
        }
        s
    }

    /// One CSV line per outcome, with a header.
    pub fn to_csv(&self) -> String {
        let mut s = String::from(
            "test,state,count,instances,rate,p_rep,low_95,high_95,counted,verdict,shows_counterexample,sequential\n",
        );
        for r in &self.outcomes {
            let _ = writeln!(
                s,
                "{},{},{},{},{:e},{},{:e},{:e},{},{},{},{}",
                csv_field(&self.test),
                csv_field(&r.state),
                r.count,
                self.instances,
                r.stats.rate,
                r.stats.p_rep,
                r.stats.interval_95.0,
                r.stats.interval_95.1,
                r.counted,
                r.verdict.word().to_lowercase(),
                r.shows_counterexample
                    .map_or(String::new(), |b| b.to_string()),
                r.sequential
            );
        }
        s
    }

    /// The summary line's verdict on the counted outcome.
    fn summary_verdict(&self) -> String {
        let counted: Vec<&Row> = self.outcomes.iter().filter(|r| r.counted).collect();
        let seen = self.counted.n > 0;
        let allowed = counted.iter().any(|r| r.verdict == Verdict::Allowed);
        // No counted row under a model: no candidate execution has the outcome, so every model
        // forbids it (Dat3M's WRW+2W1, say).
        let judged = self.model.is_some() && counted.iter().all(|r| r.verdict != Verdict::Unjudged);
        let mut v = match (judged, allowed, seen) {
            (false, _, true) => "seen (unjudged)".to_string(),
            (false, _, false) => "not seen (unjudged)".to_string(),
            (true, true, true) => "seen, allowed".to_string(),
            (true, true, false) => "not seen, allowed".to_string(),
            (true, false, false) => "not seen, forbidden: ok".to_string(),
            (true, false, true) => "FORBIDDEN, SEEN".to_string(),
        };
        // A seen state the source forbids shows the mapping unsound, counted or not (found on an
        // H100: M2's Atomicity program showed a Coherence-breaking state, not the counted one).
        let confirming = |r: &&Row| r.count > 0 && r.shows_counterexample == Some(true);
        if counted.iter().any(confirming) {
            v.push_str("; shows the counterexample (the source forbids it)");
        } else if self.outcomes.iter().any(|r| confirming(&r)) {
            v.push_str("; shows another state the source forbids");
        }
        if self.forbidden_observed > 0 && !v.starts_with("FORBIDDEN") {
            v.push_str("; FORBIDDEN outcome seen");
        }
        if self.overlapped == Some(false) {
            v.push_str("; tested nothing (no overlap)");
        }
        v
    }
}

/// A CSV field, quoted (RFC 4180: a quote inside is doubled).
fn csv_field(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// The notes of a run: what a CPU device can show, which threads never overlap, a run that
/// tested nothing.
fn notes(
    context: &RunContext,
    overlapped: Option<bool>,
    shared_workgroups: &[Vec<String>],
) -> Vec<String> {
    let mut notes = context.notes.clone();
    if context.cpu {
        notes.push(format!(
            "the device is a CPU: it shows the CPU's own weak behaviours ({}) and what its \
             compiler reorders, none of a GPU's",
            if std::env::consts::ARCH == "x86_64" {
                "x86-64 is TSO: only a store delayed past a later load of another location, as in store buffering"
            } else {
                "its architecture's memory model"
            }
        ));
        for threads in shared_workgroups {
            notes.push(format!(
                "{} share a work-group: PoCL runs a work-group's work-items one after another, so \
                 they never overlap on this device",
                threads.join(" and ")
            ));
        }
    }
    notes.extend(no_overlap_note(overlapped));
    notes
}

/// Did some instance end in a state that needs its threads to overlap? `None` when the states
/// cannot tell (`Judgement::can_show_overlap`).
fn overlapped(judgement: &Judgement, outcomes: &[Row]) -> Option<bool> {
    judgement
        .can_show_overlap()
        .then(|| outcomes.iter().any(|r| r.count > 0 && !r.sequential))
}

/// The note of a run in which no instance overlapped, if it is one.
fn no_overlap_note(overlapped: Option<bool>) -> Option<String> {
    (overlapped == Some(false)).then(|| NO_OVERLAP.to_string())
}

/// The note of a run in which no instance overlapped.
const NO_OVERLAP: &str = "no instance ended in a state that needs its threads to overlap: this \
     run tested nothing about the memory model (threads ran one after another; on a CPU, a busy \
     machine does this)";

/// Widest counted outcome a summary row shows (a `forall` test's condition, rewritten to the
/// states it excludes, runs to thousands of characters; the report and result.json have it all).
const SUMMARY_CONDITION_WIDTH: usize = 60;

/// `text` cut to `width` characters, the cut marked with `…`.
fn shortened(text: &str, width: usize) -> String {
    match text.char_indices().nth(width.saturating_sub(1)) {
        Some((end, _)) if text.chars().count() > width => format!("{}…", &text[..end]),
        _ => text.to_string(),
    }
}

/// One table over several runs: test, counted outcome, observed / instances, rate, verdict.
pub fn render_summary(results: &[RunResult]) -> String {
    let rows: Vec<[String; 5]> = results
        .iter()
        .map(|r| {
            [
                r.test.clone(),
                shortened(&r.condition, SUMMARY_CONDITION_WIDTH),
                format!("{} / {}", r.counted.n, r.instances),
                format!("{:.3e}", r.counted.rate),
                r.summary_verdict(),
            ]
        })
        .collect();
    let header = [
        "test",
        "counted outcome",
        "observed / instances",
        "rate",
        "verdict",
    ];
    let widths: Vec<usize> = (0..5)
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([header[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: [&str; 5]| {
        let mut l = String::new();
        for (i, c) in cells.iter().enumerate() {
            let _ = write!(l, "{c:<w$}  ", w = widths[i]);
        }
        format!("{}\n", l.trim_end())
    };
    let mut s = line(header);
    for r in &rows {
        s.push_str(&line([&r[0], &r[1], &r[2], &r[3], &r[4]]));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::judgement::SourceJudgement;

    use crate::gpu::outcome::tests::SB;

    /// A result for SB from per-state counts (`(r0, r1)` with x = y = 1), judged by `judgement`.
    fn result(judgement: &Judgement, counts: &[([i64; 2], u32)]) -> RunResult {
        let test = crate::litmus::parse_str("sb.litmus", SB).unwrap();
        let space = Space::of(&test).unwrap();
        let mut tally = Tally::new(&space);
        let mut histogram = vec![0u32; space.bins() + 2];
        for ([r0, r1], n) in counts {
            histogram[space.bin_of(&[*r0, *r1, 1, 1])] += n;
        }
        histogram[space.bins() + 1] = counts
            .iter()
            .filter(|(v, _)| *v == [0, 0])
            .map(|(_, n)| n)
            .sum();
        let instances = counts.iter().map(|(_, n)| n).sum();
        tally.add_launch(&histogram, instances, 1.0);
        let context = RunContext {
            target: "opencl",
            device: "d".into(),
            driver: "p".into(),
            cpu: false,
            module: None,
            notes: vec![],
        };
        let params = Params::defaults();
        RunResult::new(
            "dir",
            &test,
            &space,
            judgement,
            context,
            &params,
            &tally,
            vec![],
        )
    }

    fn states(pairs: &[[i64; 2]]) -> std::collections::BTreeSet<Values> {
        pairs.iter().map(|[a, b]| vec![*a, *b, 1, 1]).collect()
    }

    fn sb_judgement(allowed: &[[i64; 2]]) -> Judgement {
        Judgement {
            names: vec!["0:r0".into(), "1:r1".into(), "x".into(), "y".into()],
            model: Some("m".into()),
            allowed: states(allowed),
            source: None,
            interleaved: states(&[[0, 1], [1, 0], [1, 1]]),
            sequential: states(&[[0, 1], [1, 0]]),
        }
    }

    #[test]
    fn a_forbidden_observation_is_counted_and_reported() {
        let sc = sb_judgement(&[[0, 1], [1, 0], [1, 1]]);
        let r = result(&sc, &[([0, 1], 40), ([1, 0], 50), ([0, 0], 3), ([1, 1], 7)]);
        assert_eq!(
            (r.forbidden_observed, r.counted.n, r.instances),
            (3, 3, 100)
        );
        assert_eq!(r.overlapped, Some(true));
        assert!(r
            .render()
            .contains("FORBIDDEN OUTCOME OBSERVED: 3 instances"));
        assert!(render_summary(&[r]).contains("FORBIDDEN, SEEN"));
    }

    #[test]
    fn a_run_of_sequential_outcomes_only_tested_nothing() {
        let r = result(
            &sb_judgement(&[[0, 0], [0, 1], [1, 0], [1, 1]]),
            &[([0, 1], 60), ([1, 0], 40)],
        );
        assert_eq!(r.overlapped, Some(false));
        assert!(r.render().contains("this run tested nothing"));
        assert!(render_summary(&[r]).contains("tested nothing"));
    }

    /// An outcome that no candidate execution has is listed in no row; under a model it is
    /// forbidden, not unjudged (found on an H100 with Dat3M's WRW+2W1).
    #[test]
    fn an_outcome_of_no_candidate_execution_is_forbidden() {
        let mut r = result(
            &sb_judgement(&[[0, 1], [1, 0]]),
            &[([0, 1], 60), ([1, 0], 40)],
        );
        r.outcomes.retain(|o| !o.counted);
        assert!(render_summary(&[r.clone()]).contains("not seen, forbidden: ok"));
        r.model = None;
        assert!(render_summary(&[r]).contains("not seen (unjudged)"));
    }

    /// Found on an H100: RMW atomicity tests and B1 ended in whole-thread states only, 10^8
    /// instances each, and were said to have tested nothing. Their models allow no state that
    /// only interleaving reaches (none other, or only a weak one), so the states cannot tell
    /// whether the threads overlapped.
    #[test]
    fn without_an_allowed_interleaved_state_overlap_is_undecided() {
        for allowed in [&[[0, 1], [1, 0]][..], &[[0, 0], [0, 1], [1, 0]][..]] {
            let r = result(&sb_judgement(allowed), &[([0, 1], 60), ([1, 0], 40)]);
            assert_eq!(r.overlapped, None, "{allowed:?}");
            assert!(!r.render().contains("tested nothing"));
            assert!(!render_summary(&[r]).contains("tested nothing"));
        }
    }

    #[test]
    fn a_counterexample_outcome_seen_is_said_to_show_it() {
        let mut j = sb_judgement(&[[0, 0], [0, 1], [1, 0], [1, 1]]);
        j.source = Some(SourceJudgement {
            model: "src".into(),
            allowed: states(&[[0, 1], [1, 0], [1, 1]]),
        });
        let r = result(&j, &[([0, 0], 2), ([0, 1], 98)]);
        let weak = r.outcomes.iter().find(|o| o.counted).unwrap();
        assert_eq!(
            (weak.verdict, weak.shows_counterexample),
            (Verdict::Allowed, Some(true))
        );
        assert_eq!(r.forbidden_observed, 0);
        assert!(render_summary(&[r]).contains("shows the counterexample"));
        // Seen in another bin than the counted one: the summary says so too.
        let r = result(&j, &[([0, 1], 98), ([1, 0], 2)]);
        j.source.as_mut().unwrap().allowed = states(&[[0, 1], [1, 1]]);
        let other = result(&j, &[([0, 1], 98), ([1, 0], 2)]);
        assert!(!render_summary(&[r]).contains("source forbids"));
        let summary = render_summary(&[other]);
        assert!(
            summary.contains("not seen, allowed; shows another state the source forbids"),
            "{summary}"
        );
    }
}
