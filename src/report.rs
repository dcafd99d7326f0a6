//! Reports of the mapping check, as it runs and when it ends: what is searched (the header),
//! each counterexample when it is settled — printed, and written out as files: the source and
//! target litmus tests (which `mapcheck run` accepts), the execution graph (DOT, and SVG when
//! Graphviz is installed), the Coq refutation when asked — progress on stderr, and the text or
//! JSON summary, also of a check stopped early.
//!
//! Owns: `check_live` (the `check` command up to its summary), `confirm_test` (`check --test`) with
//! its renderings, `check_with_progress`, `LiveReport`, `Progress`, `render_header`,
//! `render_counterexample`, `render_summary`, `json`, `write_counterexample`, `picture` (a
//! counterexample's two executions), `Files`. Uses: `search` (events and the report), `picture`
//! (the drawing), `litmus` (printers), `coq` (refutations), `output` (stdout, whole files, owned
//! directories). Decides nothing: every verdict here was made by `search` and confirmed by the
//! runner.
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::json;

use crate::diag::{Error, Result};
use crate::litmus::{self, Instr, Litmus};
use crate::mapping::Mapping;
use crate::output::{self, OutputDir, Reservation};
use crate::picture;
use crate::search::{
    execution_keys, Counterexample, Counting, Event, EventKey, NotOne, Options, ReadingVerdict,
    Report, Scope, Statistics, TestVerdict, Unfinished,
};
use crate::solver::Stop;
use crate::vocab;

/// The files written for one counterexample.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Files {
    pub(crate) source: Option<PathBuf>,
    pub(crate) target: Option<PathBuf>,
    pub(crate) dot: Option<PathBuf>,
    pub(crate) svg: Option<PathBuf>,
    /// `readings.tsv`: the compiled test under every reading of the target.
    pub(crate) readings: Option<PathBuf>,
    /// The Coq refutation's directory (`check --coq`).
    pub(crate) coq: Option<PathBuf>,
}

impl Files {
    /// The files that exist, and the paths of those that do not.
    pub(crate) fn split_existing(&self) -> (Files, Vec<PathBuf>) {
        let mut present = self.clone();
        let mut missing = vec![];
        for slot in [
            &mut present.source,
            &mut present.target,
            &mut present.dot,
            &mut present.svg,
            &mut present.readings,
            &mut present.coq,
        ] {
            if slot.as_ref().is_some_and(|p| !p.exists()) {
                missing.extend(slot.take());
            }
        }
        (present, missing)
    }

    /// The same files with every path passed through `f`.
    pub(crate) fn map_paths(&self, f: impl Fn(&Path) -> PathBuf) -> Files {
        let at = |p: &Option<PathBuf>| p.as_deref().map(&f);
        Files {
            source: at(&self.source),
            target: at(&self.target),
            dot: at(&self.dot),
            svg: at(&self.svg),
            readings: at(&self.readings),
            coq: at(&self.coq),
        }
    }
}

/// How the bound was counted, in words.
pub(crate) fn counting(c: Counting, bound: usize) -> String {
    match c {
        Counting::Natural => format!(
            "at most {bound} source events (an RMW counts two), any number of target events"
        ),
        Counting::Alloy => format!(
            "Alloy counting: at most {bound} source events, {bound} target events and {bound} scopes \
             (threads, CTAs, GPUs, the system); one target event per source event, so classes \
             compiled with extra fences are left out"
        ),
    }
}

/// What a check searches, printed before it starts: the mapping, the bound, the classes a
/// source event may be, what is left out, and the solver and worker threads.
pub(crate) fn render_header(mapping: &str, opts: &Options, scope: &Scope) -> String {
    let mut s = render_searched(mapping, opts, scope);
    let _ = writeln!(
        s,
        "solver {}, {} worker threads",
        crate::solver::new(opts.backend).name(),
        rayon::current_num_threads()
    );
    s
}

/// The mapping, the bound, the classes a source event may be, and what is left out (the
/// header without this process's solver and threads, as `shard::merge` prints it).
pub(crate) fn render_searched(mapping: &str, opts: &Options, scope: &Scope) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "mapping {mapping}");
    if !scope.source.is_empty() {
        let _ = writeln!(s, "source model {}", scope.source);
    }
    let _ = writeln!(s, "target model {}", scope.target);
    let _ = writeln!(
        s,
        "bound {}: {}",
        opts.bound,
        counting(opts.counting, opts.bound)
    );
    let limits = [("threads", opts.threads), ("locations", opts.locations)];
    for (what, n) in limits.iter().filter_map(|(w, n)| n.map(|n| (w, n))) {
        let _ = writeln!(s, "at most {n} {what}");
    }
    let _ = writeln!(
        s,
        "searched: {} classes: {}",
        scope.searched.len(),
        scope.searched.join(", ")
    );
    for gap in &scope.not_searched {
        let _ = writeln!(s, "not searched: {gap}");
    }
    s
}

/// A counterexample as it is settled: the violated axiom, the source program (with its guards),
/// the cycle, `rf` and `co`, and the files written for it.
pub(crate) fn render_counterexample(cx: &Counterexample, files: Option<&Files>) -> Result<String> {
    let mut s = counterexample_body(cx)?;
    s.push_str(&render_written(files));
    Ok(s)
}

/// A counterexample without the files written for it: the violated axiom, the source program,
/// the events, `rf`, `co` and the cycle (what a shard keeps, to print when it is merged).
pub(crate) fn counterexample_body(cx: &Counterexample) -> Result<String> {
    let mut s = String::new();
    let labels = event_labels(&cx.found.source);
    let label = |k: &EventKey| labels.get(k).cloned().unwrap_or_else(|| format!("{k:?}"));
    let shape: Vec<String> = cx.shape.iter().map(|k| k.to_string()).collect();
    let _ = writeln!(
        s,
        "\n{}: COUNTEREXAMPLE at bound {} (threads of {} events)",
        cx.axiom,
        cx.bound,
        shape.join("+")
    );
    let _ = writeln!(
        s,
        "  axioms failing on the lifted execution: {}",
        cx.failed.join(", ")
    );
    let _ = writeln!(s, "  source program:");
    for line in source_text(cx)?.lines() {
        let _ = writeln!(s, "    {line}");
    }
    let _ = writeln!(s, "  events:");
    for l in labels.values() {
        let _ = writeln!(s, "    {l}");
    }
    let _ = writeln!(s, "  rf: {}", edges(&cx.found.source_rf, &label));
    let _ = writeln!(s, "  co: {}", edges(&cx.found.source_mo, &label));
    let _ = writeln!(s, "  cycle that breaks {}:", cx.axiom);
    for step in &cx.cycle {
        let _ = writeln!(
            s,
            "    {} -{}-> {}",
            label(&step.from),
            step.via,
            label(&step.to)
        );
    }
    s.push_str(&render_source_readings(&cx.source_readings));
    s.push_str(&render_readings(&cx.readings));
    Ok(s)
}

/// Which readings of the source language make the source test a counterexample (forbidden and
/// race-free), which allow it race-free, and under which it races, which gives it no meaning
/// (`search::judge_source_readings`).
pub(crate) fn render_source_readings(readings: &[ReadingVerdict]) -> String {
    let lines: [ReadingLine; 4] = [
        ("forbidden and race-free under", true, |r| {
            r.allows == Some(false) && r.racy == Some(false)
        }),
        ("allowed and race-free by", false, |r| {
            r.allows == Some(true) && r.racy == Some(false)
        }),
        ("racy under", false, |r| {
            r.allows.is_some() && r.racy != Some(false)
        }),
        ("not judged", false, |r| r.allows.is_none()),
    ];
    render_reading_lines(
        "the source test under every reading of the source",
        readings,
        &lines,
    )
}

/// Which readings of the target architecture allow the compiled test (`search::judge_readings`):
/// a line for those that allow it, one for those that forbid it, and one for any not judged.
pub(crate) fn render_readings(readings: &[ReadingVerdict]) -> String {
    let lines: [ReadingLine; 3] = [
        ("allowed by", true, |r| r.allows == Some(true)),
        ("forbidden by", true, |r| r.allows == Some(false)),
        ("not judged", false, |r| r.allows.is_none()),
    ];
    render_reading_lines(
        "the compiled test under every reading of the target",
        readings,
        &lines,
    )
}

/// A line of a readings report: its words, whether it is shown when no reading is on it
/// (`none`), and which readings are.
type ReadingLine = (&'static str, bool, fn(&ReadingVerdict) -> bool);

/// `title`, then each line with the readings it holds for, each named as a report shows it
/// (`ptx-v6.cat --variant dep-without-rmw (searched)`, with the runner's error where it was not
/// judged).
fn render_reading_lines(title: &str, readings: &[ReadingVerdict], lines: &[ReadingLine]) -> String {
    let mut s = format!("  {title} (the runner):\n");
    for &(what, shown_when_empty, holds) in lines {
        let names: Vec<String> = readings
            .iter()
            .filter(|r| holds(r))
            .map(|r| {
                let searched = if r.reading.searched {
                    " (searched)"
                } else {
                    ""
                };
                let note = match r.note.is_empty() {
                    true => String::new(),
                    false => format!(": {}", r.note),
                };
                format!("{}{searched}{note}", r.reading)
            })
            .collect();
        let shown = match names.is_empty() {
            true if !shown_when_empty => continue,
            true => "none".to_string(),
            false => names.join(", "),
        };
        let _ = writeln!(s, "    {what}: {shown}");
    }
    s
}

/// The readings as a table: language (`source`: the runner on source.litmus; `target`: on
/// target.litmus), model file, variant (`-`: its default), searched, verdict.
fn readings_tsv(cx: &Counterexample) -> String {
    let mut s = String::from("# language\tmodel\tvariant\tsearched\tverdict (the runner on source.litmus or target.litmus)\n");
    let sides = [("source", &cx.source_readings), ("target", &cx.readings)];
    for (side, readings) in sides {
        for r in readings {
            let races = match r.racy {
                Some(true) => ", racy",
                Some(false) => ", race-free",
                None => "",
            };
            let verdict = match r.allows {
                Some(true) => format!("allows{races}"),
                Some(false) => format!("forbids{races}"),
                None => format!("not judged: {}", r.note),
            };
            let _ = writeln!(
                s,
                "{side}\t{}\t{}\t{}\t{verdict}",
                r.reading.file_name(),
                r.reading.variant.as_deref().unwrap_or("-"),
                if r.reading.searched { "yes" } else { "no" },
            );
        }
    }
    s
}

/// The end of a counterexample's text: the files written for it and what the runner validated.
pub(crate) fn render_written(files: Option<&Files>) -> String {
    let mut s = String::new();
    if let Some(f) = files {
        for (what, p) in [
            ("source test", &f.source),
            ("target test", &f.target),
            ("graph", &f.dot),
            ("graph (SVG)", &f.svg),
            ("readings", &f.readings),
            ("Coq refutation", &f.coq),
        ] {
            if let Some(p) = p {
                let _ = writeln!(s, "  {what}: {}", p.display());
            }
        }
    }
    let _ = writeln!(
        s,
        "  validated by the runner: the target model allows the compiled execution; every source \
         execution with the lifted rf and a coherence order extending the lifted co is inconsistent; \
         no consistent source execution raises a flag (race-free)"
    );
    s
}

fn edges(r: &crate::search::KeyRel, label: &dyn Fn(&EventKey) -> String) -> String {
    let v: Vec<String> = r
        .iter()
        .map(|(a, b)| format!("{} -> {}", label(a), label(b)))
        .collect();
    v.join(", ")
}

/// The source program as a litmus test (C syntax: guards are `if` blocks). A counterexample's
/// programs are of the searched class (the search made them, or `check --test` held the given
/// test to it), which the printers write: a failure to print one is a bug in mapcheck.
fn source_text(cx: &Counterexample) -> Result<String> {
    litmus::print_c(&cx.found.source)
        .map_err(|e| e.into_internal("a counterexample's source program cannot be printed"))
}

/// The compiled program as a PTX litmus test (a failure is a bug, as for `source_text`).
fn target_text(cx: &Counterexample) -> Result<String> {
    litmus::print_ptx(&cx.found.target)
        .map_err(|e| e.into_internal("a counterexample's compiled program cannot be printed"))
}

/// One axiom's line of a summary: its verdict and the work spent on it. A check's `Report` gives
/// these (`render_summary`), and so does a merge of shard results (`shard::merge`).
pub(crate) struct SummaryLine<'a> {
    pub(crate) axiom: &'a str,
    pub(crate) verdict: LineVerdict<'a>,
    pub(crate) statistics: Statistics,
}

/// What a summary line says of its axiom.
pub(crate) enum LineVerdict<'a> {
    /// A counterexample at `bound`, its files in `written_to` (when they were written).
    Counterexample {
        bound: usize,
        written_to: Option<&'a Path>,
    },
    /// No counterexample up to `clean_to`; when `unfinished`, the next bound was not finished
    /// (`why`: how it ended, e.g. "stopped during").
    Clean {
        clean_to: usize,
        unfinished: Option<(Unfinished, &'a str)>,
    },
}

/// The summary's lines: one per axiom, under `heading`.
pub(crate) fn render_lines(heading: &str, lines: &[SummaryLine]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "\n{heading}:");
    for l in lines {
        let stats = l.statistics.to_string();
        let verdict = match &l.verdict {
            LineVerdict::Counterexample { bound, written_to } => {
                let at = written_to
                    .map(|d| format!(", written to {}", d.display()))
                    .unwrap_or_default();
                format!("COUNTEREXAMPLE at bound {bound}{at}")
            }
            LineVerdict::Clean {
                clean_to,
                unfinished: Some((u, why)),
            } => format!(
                "none up to bound {clean_to}; {why} bound {} ({} of {} thread shapes finished)",
                u.bound, u.shapes_done, u.shapes
            ),
            LineVerdict::Clean {
                clean_to,
                unfinished: None,
            } => format!("none up to bound {clean_to}"),
        };
        let _ = writeln!(s, "  {}: {verdict} ({stats})", l.axiom);
    }
    s
}

/// The summary at the end of a check, finished or stopped: one line per axiom.
pub fn render_summary(
    r: &Report,
    files: &BTreeMap<String, Files>,
    stopped_by: Option<&str>,
) -> String {
    let lines: Vec<SummaryLine> = r
        .axioms
        .iter()
        .map(|a| SummaryLine {
            axiom: &a.axiom,
            verdict: match (&a.counterexample, &a.unfinished) {
                (Some(cx), _) => LineVerdict::Counterexample {
                    bound: cx.bound,
                    written_to: files
                        .get(&a.axiom)
                        .and_then(|f| f.source.as_deref())
                        .and_then(|p| p.parent()),
                },
                (None, u) => LineVerdict::Clean {
                    clean_to: a.clean_to,
                    unfinished: u.map(|u| (u, "stopped during")),
                },
            },
            statistics: a.statistics,
        })
        .collect();
    let mut s = render_lines(&format!("summary ({:.2} s)", r.seconds), &lines);
    if r.stopped {
        let _ = writeln!(
            s,
            "stopped ({}) before bound {} was finished: the verdicts above are what was settled",
            stopped_by.unwrap_or("asked to stop"),
            r.options.bound
        );
    }
    s
}

/// A short label for every event of a straight-line test: `P1.0 W.REL.GPU y=1`.
pub(crate) fn event_labels(test: &Litmus) -> BTreeMap<EventKey, String> {
    let mut out = BTreeMap::new();
    for (loc, v) in &test.init_mem {
        out.insert(EventKey::Init(loc.clone()), format!("init {loc}={v}"));
    }
    for (t, th) in test.threads.iter().enumerate() {
        let mut k = 0;
        let mut push = |text: String| {
            out.insert(EventKey::Event(t, k), format!("P{t}.{k} {text}"));
            k += 1;
        };
        for instr in &th.code {
            match instr {
                Instr::Load { loc, tags, .. } => {
                    push(format!("R.{} {loc}", vocab::join(tags, ".")))
                }
                Instr::Store { loc, value, tags } => push(format!(
                    "W.{} {loc}={}",
                    vocab::join(tags, "."),
                    expr(value)
                )),
                Instr::Rmw { loc, tags, op, .. } => {
                    push(format!("RMW-R.{} {loc}", vocab::join(tags, ".")));
                    let v = match op {
                        litmus::RmwOp::Exch(e) => expr(e),
                        _ => "?".into(),
                    };
                    push(format!("RMW-W.{} {loc}={v}", vocab::join(tags, ".")));
                }
                Instr::Fence { tags } => push(format!("F.{}", vocab::join(tags, "."))),
                _ => {}
            }
        }
    }
    out
}

fn expr(e: &litmus::Expr) -> String {
    match e {
        litmus::Expr::Const(v) => v.to_string(),
        other => format!("{other:?}"),
    }
}

/// The JSON report: what was searched, and per axiom its verdict, statistics and, for a
/// counterexample, the program, its executions (`rf`, `co`), the cycle and the files.
pub fn json(
    r: &Report,
    files: &BTreeMap<String, Files>,
    stopped_by: Option<&str>,
) -> Result<serde_json::Value> {
    let axioms: Vec<serde_json::Value> = r
        .axioms
        .iter()
        .map(|a| {
            let cx = a
                .counterexample
                .as_ref()
                .map(|cx| counterexample_json(cx, files.get(&a.axiom)))
                .transpose()?;
            let st = &a.statistics;
            Ok(json!({
                "axiom": a.axiom,
                "clean_to": a.clean_to,
                "unfinished": a.unfinished,
                "queries": st.queries,
                "solves": st.solves,
                "racy_refinements": st.racy,
                "racy_refinements_by_interleaving": st.racy_by_interleaving,
                "explained": st.explained,
                "seconds": st.seconds,
                "counterexample": cx,
            }))
        })
        .collect::<Result<_>>()?;
    let v = json!({
        "mapping": r.mapping,
        "options": r.options,
        "counting": counting(r.options.counting, r.options.bound),
        "source_model": r.scope.source,
        "target_model": r.scope.target,
        "searched": r.scope.searched,
        "not_searched": r.scope.not_searched,
        "solver": r.solver,
        "seconds": r.seconds,
        "stopped": r.stopped.then(|| stopped_by.unwrap_or("asked to stop")),
        "axioms": axioms,
    });
    Ok(v)
}

/// A counterexample as JSON: the program, its executions (`rf`, `co`), the cycle and the files.
fn counterexample_json(cx: &Counterexample, files: Option<&Files>) -> Result<serde_json::Value> {
    let labels = event_labels(&cx.found.source);
    let label = |k: &EventKey| labels.get(k).cloned().unwrap_or_default();
    let pairs = |r: &crate::search::KeyRel| -> Vec<[String; 2]> {
        r.iter().map(|(x, y)| [label(x), label(y)]).collect()
    };
    Ok(json!({
        "bound": cx.bound,
        "shape": cx.shape,
        "failed": cx.failed,
        "source_program": source_text(cx)?,
        "target_program": target_text(cx)?,
        "events": labels.values().collect::<Vec<_>>(),
        "rf": pairs(&cx.found.source_rf),
        "co": pairs(&cx.found.source_mo),
        "source_readings": cx.source_readings,
        "readings": cx.readings,
        "cycle": cx.cycle.iter().map(|e| json!({
            "from": label(&e.from), "via": e.via, "to": label(&e.to),
        })).collect::<Vec<_>>(),
        "files": files,
    }))
}

/// `mapcheck check MAP --test FILE`: the given source test, refused unless it is in the
/// searched class (`coq::class::hold_to_class`), judged for each selected axiom
/// (`search::confirm`), each counterexample written out as a search's is (its files, and its
/// Coq refutation when asked), and its compiled test under every reading of the target. Output
/// directories are refused before any work, as `check_live` does.
pub fn confirm_test(
    mapping: &Mapping,
    test: &Litmus,
    positions: &litmus::Positions,
    opts: &Options,
    out: &Path,
    coq: Option<&Path>,
) -> Result<Confirmations> {
    let axioms = crate::search::selected_axioms(mapping, opts)?;
    let _reserved = reserve_output_directories(mapping, &axioms, out, coq)?;
    crate::coq::class::hold_to_class(mapping, test, positions)?;
    let compiled = mapping.compile_program(test)?;
    Ok(Confirmations {
        axioms: confirm_axioms(mapping, test, &axioms, out, coq)?,
        readings: crate::search::judge_readings(mapping, &compiled.target),
        source_readings: crate::search::judge_source_readings(mapping, test),
    })
}

fn confirm_axioms(
    mapping: &Mapping,
    test: &Litmus,
    axioms: &[String],
    out: &Path,
    coq: Option<&Path>,
) -> Result<Vec<Confirmation>> {
    crate::search::confirm(mapping, test, axioms)?
        .into_iter()
        .map(|(axiom, verdict)| {
            let files = match &verdict {
                TestVerdict::Counterexample(cx) => {
                    Some(write_with_refutation(mapping, cx, out, coq)?)
                }
                _ => None,
            };
            Ok(Confirmation {
                axiom,
                verdict,
                files,
            })
        })
        .collect()
}

/// What `check --test` says of a test: per axiom, and of its compiled test under every reading.
pub struct Confirmations {
    /// Per selected axiom, in the source model's order.
    pub axioms: Vec<Confirmation>,
    /// The compiled test (the test's own final condition) under every reading of the target.
    pub readings: Vec<ReadingVerdict>,
    /// The test itself under every reading of the source.
    pub source_readings: Vec<ReadingVerdict>,
}

/// What `check --test` says of one axiom, and the files written for a counterexample.
pub struct Confirmation {
    /// The source axiom.
    pub axiom: String,
    /// Whether the test is a counterexample to it, and if not why not.
    pub verdict: TestVerdict,
    /// The files written for a counterexample.
    pub files: Option<Files>,
}

/// `check --test`'s text report: each counterexample in full, as a search prints it, and for
/// every other axiom why the test is not one.
pub fn render_confirmations(
    mapping: &Mapping,
    test: &Path,
    found: &Confirmations,
) -> Result<String> {
    let mut s = format!(
        "mapping {}\nsource model {}\ntarget model {}\ntest {} (given, not searched)\n",
        mapping.path,
        crate::search::source_reading(mapping),
        crate::search::target_reading(mapping),
        test.display()
    );
    s.push_str(&render_source_readings(&found.source_readings));
    s.push_str(&render_readings(&found.readings));
    for c in &found.axioms {
        match &c.verdict {
            TestVerdict::Counterexample(cx) => {
                s.push_str(&render_counterexample(cx, c.files.as_ref())?)
            }
            TestVerdict::NotOne(why) => {
                let _ = writeln!(s, "\n{}: not a counterexample: {}", c.axiom, why_not(*why));
            }
        }
    }
    Ok(s)
}

/// `check --test`'s JSON report.
pub fn confirmations_json(
    mapping: &Mapping,
    test: &Path,
    found: &Confirmations,
) -> Result<serde_json::Value> {
    let axioms: Vec<serde_json::Value> = found
        .axioms
        .iter()
        .map(|c| {
            Ok(match &c.verdict {
                TestVerdict::Counterexample(cx) => json!({
                    "axiom": c.axiom,
                    "verdict": "counterexample",
                    "counterexample": counterexample_json(cx, c.files.as_ref())?,
                }),
                TestVerdict::NotOne(why) => json!({
                    "axiom": c.axiom,
                    "verdict": "not a counterexample",
                    "why": why_not(*why),
                }),
            })
        })
        .collect::<Result<_>>()?;
    let v = json!({
        "mapping": mapping.path,
        "source_model": crate::search::source_reading(mapping),
        "target_model": crate::search::target_reading(mapping),
        "test": test,
        "source_readings": found.source_readings,
        "readings": found.readings,
        "axioms": axioms,
    });
    Ok(v)
}

fn why_not(why: NotOne) -> &'static str {
    match why {
        NotOne::Racy => "the source program races (a consistent source execution raises a flag)",
        NotOne::Meaningless => "the source model gives the program no consistent execution",
        NotOne::NoLiftBreaksIt => {
            "no consistent execution of the compiled test lifts to a source execution that breaks \
             it under every coherence order extending the lifted one"
        }
    }
}

/// Refuses, before any work, an output directory a check could not write: `out` and the Coq
/// directory must be directories (or absent), and each axiom's counterexample directory in them
/// new, empty or written by an earlier run (`output::OutputDir`); then reserves each (created
/// and locked until claimed, or removed again when the run ends without writing there).
fn reserve_output_directories(
    mapping: &Mapping,
    axioms: &[String],
    out: &Path,
    coq: Option<&Path>,
) -> Result<Reservation> {
    output::check_directory(out)?;
    if let Some(dir) = coq {
        output::check_directory(dir)?;
    }
    let mut directories = vec![];
    for axiom in axioms {
        let files = counterexample_dir(out, mapping, axiom);
        OutputDir::check(&files)?;
        if let Some(dir) = coq {
            let refutation = crate::coq::refutation_dir(dir, mapping, axiom);
            if output::same_place(&files, &refutation) {
                return Err(Error::file(
                    refutation.display().to_string(),
                    "is both the counterexample's directory (-o) and its refutation's (--coq): the Coq export would replace the counterexample's files",
                )
                .with_note("give --coq another directory than -o"));
            }
            OutputDir::check(&refutation)?;
            directories.push(refutation);
        }
        directories.push(files);
    }
    let mut reserved = Reservation::default();
    for dir in &directories {
        reserved.add(dir)?;
    }
    Ok(reserved)
}

/// Write a counterexample's files into its directory under `out`, and its Coq refutation under
/// `coq` when asked.
fn write_with_refutation(
    mapping: &Mapping,
    cx: &Counterexample,
    out: &Path,
    coq: Option<&Path>,
) -> Result<Files> {
    let mut files =
        write_counterexample(mapping, cx, &counterexample_dir(out, mapping, &cx.axiom))?;
    if let Some(coq) = coq {
        let dir = crate::coq::refutation_dir(coq, mapping, &cx.axiom);
        files.coq = Some(crate::coq::export_refutation(mapping, cx, &dir)?.dir);
    }
    Ok(files)
}

/// The directory a counterexample to `axiom` of the check of `mapping` is written into.
pub(crate) fn counterexample_dir(out: &Path, mapping: &Mapping, axiom: &str) -> PathBuf {
    out.join(crate::search::test_name(mapping, axiom))
}

/// Write a counterexample into `dir` (which the run owns, see `output::OutputDir`):
/// `source.litmus`, `target.litmus`, `graph.dot`, `readings.tsv`, and `graph.svg` when Graphviz's
/// `dot` runs.
pub(crate) fn write_counterexample(
    mapping: &Mapping,
    cx: &Counterexample,
    dir: &Path,
) -> Result<Files> {
    let graph = picture(mapping, cx)?;
    let mut out = OutputDir::claim(dir)?;
    let mut files = Files {
        source: Some(out.write("source.litmus", source_text(cx)?)?),
        target: Some(out.write("target.litmus", target_text(cx)?)?),
        dot: Some(out.write("graph.dot", &graph)?),
        readings: Some(out.write("readings.tsv", readings_tsv(cx))?),
        ..Files::default()
    };
    if let Some(svg) = output::graphviz_svg(&graph) {
        files.svg = Some(out.write("graph.svg", svg)?);
    }
    Ok(files)
}

/// The counterexample's two executions as one DOT graph (`picture`): the source execution the
/// runner lifts, with the violated axiom's cycle in red, beside the target execution with the
/// target model's shown relations, where the events compiled from the cycle's events, and the
/// edges between events of consecutive steps, are red.
pub(crate) fn picture(mapping: &Mapping, cx: &Counterexample) -> Result<String> {
    let (target, source) =
        crate::search::validate::executions(mapping, &cx.found)?.ok_or_else(|| {
            Error::file(
                &mapping.path,
                "the runner has no execution of the counterexample to draw",
            )
        })?;
    let (source_keys, target_keys) = (execution_keys(&source), execution_keys(&target));
    let at = |keys: &[EventKey], k: &EventKey| keys.iter().position(|x| x == k);
    let steps: Vec<(usize, String, usize)> = cx
        .cycle
        .iter()
        .filter_map(|s| {
            Some((
                at(&source_keys, &s.from)?,
                s.via.clone(),
                at(&source_keys, &s.to)?,
            ))
        })
        .collect();
    let on_cycle: BTreeSet<usize> = steps.iter().flat_map(|&(a, _, b)| [a, b]).collect();
    let from = crate::search::compiled_from(mapping, &cx.found.source)?;
    let origins: Vec<BTreeSet<usize>> = target_keys
        .iter()
        .map(|k| match k {
            EventKey::Init(_) => at(&source_keys, k).into_iter().collect(),
            EventKey::Event(..) => (from.get(k).into_iter().flatten())
                .filter_map(|s| at(&source_keys, s))
                .collect(),
        })
        .collect();
    let target_highlight = compiled_highlight(&origins, &steps);
    let name = |title: &Option<String>, path: &str| title.clone().unwrap_or(path.to_string());
    let scenes = [
        picture::Scene {
            title: format!(
                "source: {} ({} fails)",
                name(&mapping.source.title, &mapping.source.path),
                cx.axiom
            ),
            model: &mapping.source,
            execution: &source,
            arch: mapping.source_arch,
            highlight: picture::Highlight {
                events: on_cycle,
                edges: steps,
                ..Default::default()
            },
        },
        picture::Scene {
            title: format!(
                "target: {} (consistent)",
                name(&mapping.target.title, &mapping.target.path)
            ),
            model: &mapping.target,
            execution: &target,
            arch: mapping.target_arch,
            highlight: target_highlight,
        },
    ];
    Ok(picture::digraph(&scenes))
}

/// What the target picture highlights, given each target event's source events (`origins`: those
/// of the instruction it was compiled from; an initial write, its own) and the source cycle's
/// steps: the events compiled from a cycle event, and the pairs of them compiled from the two
/// ends of one step.
fn compiled_highlight(
    origins: &[BTreeSet<usize>],
    steps: &[(usize, String, usize)],
) -> picture::Highlight {
    let mut highlight = picture::Highlight::default();
    let on_cycle =
        |o: &BTreeSet<usize>| steps.iter().any(|(a, _, b)| o.contains(a) || o.contains(b));
    for (e, o) in origins.iter().enumerate() {
        if on_cycle(o) {
            highlight.events.insert(e);
        }
    }
    for (a, oa) in origins.iter().enumerate() {
        for (b, ob) in origins.iter().enumerate() {
            let step = |(sa, _, sb): &(usize, String, usize)| oa.contains(sa) && ob.contains(sb);
            if a != b && steps.iter().any(step) {
                highlight.pairs.insert((a, b));
            }
        }
    }
    highlight
}

/// Progress of a long check on stderr (`output::ProgressDisplay`): the bound, the thread shapes
/// done and what is settled.
pub(crate) struct Progress {
    display: output::ProgressDisplay,
    state: Arc<Mutex<LineState>>,
}

struct LineState {
    start: Instant,
    last_bound: usize,
    /// The bound in progress, its shapes done and its shapes.
    bound: usize,
    done: usize,
    total: usize,
    /// Per axiom, what is settled so far (a counterexample, or the bound it is clean to).
    settled: BTreeMap<String, String>,
}

impl Progress {
    pub(crate) fn new(bound: usize) -> Progress {
        let state = Arc::new(Mutex::new(LineState {
            start: Instant::now(),
            last_bound: bound,
            bound: 0,
            done: 0,
            total: 0,
            settled: BTreeMap::new(),
        }));
        let shared = state.clone();
        let display = output::ProgressDisplay::new(
            "bound {msg} [{bar:30}] {pos}/{len} thread shapes, {elapsed}",
            0,
            move || lock(&shared).line(),
        );
        Progress { display, state }
    }

    /// Follow one event of the check.
    pub(crate) fn observe(&self, e: &Event) {
        let mut st = lock(&self.state);
        match *e {
            Event::Shape { bound, done, total } => {
                (st.bound, st.done, st.total) = (bound, done, total);
                if let Some(bar) = self.display.bar() {
                    bar.set_length(total as u64);
                    bar.set_position(done as u64);
                    bar.set_message(format!("{bound}/{}", st.last_bound));
                }
            }
            Event::Counterexample(cx) => {
                let what = format!("counterexample at bound {}", cx.bound);
                st.settled.insert(cx.axiom.clone(), what);
            }
            Event::Bound { bound, clean } => {
                for a in clean {
                    st.settled.insert(a.clone(), format!("clean to {bound}"));
                }
            }
        }
    }

    /// Print `text` on stdout without tearing the bar.
    pub(crate) fn print(&self, text: &str) {
        self.display.print(text, "");
    }
}

impl LineState {
    fn line(&self) -> String {
        let settled: String = self
            .settled
            .iter()
            .map(|(a, v)| format!("; {a} {v}"))
            .collect();
        format!(
            "[{:.0} s] bound {}/{}: {} of {} thread shapes{settled}\n",
            self.start.elapsed().as_secs_f64(),
            self.bound,
            self.last_bound,
            self.done,
            self.total,
        )
    }
}

/// `mapcheck check` up to its summary: refuses what it could not write before any work
/// (`LiveReport::new`), warns on stderr of what is not searched, prints the header (text mode),
/// then runs the search with a `LiveReport`. Returns the check's report and the files written.
pub fn check_live(
    mapping: &Mapping,
    opts: &Options,
    out: &Path,
    coq: Option<&Path>,
    json: bool,
) -> Result<(Report, BTreeMap<String, Files>)> {
    let scope = crate::search::scope(mapping, opts)?;
    let live = LiveReport::new(mapping, opts, out, coq, json)?;
    for gap in &scope.not_searched {
        output::eprint(&format!("warning: not searched: {gap}\n"));
    }
    if !json {
        output::print(&render_header(&mapping.path, opts, &scope));
    }
    let result = crate::search::check(mapping, opts, &|e| live.observe(e));
    live.finish(result)
}

/// A check with only its `Progress` on stderr (what `mapcheck export-coq` searches first).
pub fn check_with_progress(mapping: &Mapping, opts: &Options) -> Result<Report> {
    let progress = Progress::new(opts.bound);
    let result = crate::search::check(mapping, opts, &|e| progress.observe(&e));
    drop(progress); // clears the bar or ends the ticker before the summary
    result
}

/// A check reported as it runs: each settled counterexample written out (its files, and its Coq
/// refutation when asked) and, in text mode, printed at once; progress on stderr. The first
/// failure to write stops the check and is its result.
pub(crate) struct LiveReport<'a> {
    /// The output directories, locked from the start; those never written are given back when
    /// the report is dropped.
    _reserved: Reservation,
    mapping: &'a Mapping,
    out: &'a Path,
    coq: Option<&'a Path>,
    json: bool,
    stop: Stop,
    progress: Progress,
    files: Mutex<BTreeMap<String, Files>>,
    failure: Mutex<Option<Error>>,
}

impl<'a> LiveReport<'a> {
    /// Refuses, before any work, an output directory the check could not write: `out` and the
    /// Coq directory must be directories (or absent), and each counterexample's directory in
    /// them new, empty or written by an earlier run (`output::OutputDir`).
    pub(crate) fn new(
        mapping: &'a Mapping,
        opts: &Options,
        out: &'a Path,
        coq: Option<&'a Path>,
        json: bool,
    ) -> Result<LiveReport<'a>> {
        let axioms = crate::search::selected_axioms(mapping, opts)?;
        let reserved = reserve_output_directories(mapping, &axioms, out, coq)?;
        Ok(LiveReport {
            _reserved: reserved,
            mapping,
            out,
            coq,
            json,
            stop: opts.stop.clone(),
            progress: Progress::new(opts.bound),
            files: Mutex::new(BTreeMap::new()),
            failure: Mutex::new(None),
        })
    }

    /// Follow one event of the check (`search::check` calls it one event at a time).
    pub(crate) fn observe(&self, e: Event) {
        self.progress.observe(&e);
        let Event::Counterexample(cx) = e else {
            return;
        };
        let shown = |files: Files| -> Result<Files> {
            if !self.json {
                self.progress
                    .print(&render_counterexample(cx, Some(&files))?);
            }
            Ok(files)
        };
        match self.write(cx).and_then(shown) {
            Ok(files) => {
                lock(&self.files).insert(cx.axiom.clone(), files);
            }
            Err(e) => {
                lock(&self.failure).get_or_insert(e);
                self.stop.request();
            }
        }
    }

    fn write(&self, cx: &Counterexample) -> Result<Files> {
        write_with_refutation(self.mapping, cx, self.out, self.coq)
    }

    /// The check's report and the files written for it; a failure to write comes first.
    pub(crate) fn finish(
        self,
        result: Result<Report>,
    ) -> Result<(Report, BTreeMap<String, Files>)> {
        drop(self.progress); // clears the bar or ends the ticker before the summary
        if let Some(e) = into_inner(self.failure) {
            return Err(e);
        }
        result.map(|r| (r, into_inner(self.files)))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn into_inner<T>(m: Mutex<T>) -> T {
    m.into_inner().unwrap_or_else(|p| p.into_inner())
}
