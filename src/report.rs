//! Reports of the mapping check: the text and JSON summaries, a progress bar for long runs, and
//! each counterexample written out as files — the source and target litmus tests (which
//! `mapcheck run` accepts) and the execution graph (DOT, and SVG when Graphviz is installed).
//!
//! Owns: `render`, `json`, `write_counterexamples`, `Files`, `Progress`. Uses: `search` (the
//! report), `litmus` (printers). Decides nothing: every verdict here was made by `search` and
//! confirmed by the runner.
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use crate::diag::{Error, Result};
use crate::litmus::{self, Instr, Litmus};
use crate::search::{Counterexample, Counting, Key, Report};

/// The files written for one counterexample.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Files {
    pub source: Option<PathBuf>,
    pub target: Option<PathBuf>,
    pub dot: Option<PathBuf>,
    pub svg: Option<PathBuf>,
}

/// How the bound was counted, in words.
pub fn counting(c: Counting, bound: usize) -> String {
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

/// The text summary.
pub fn render(r: &Report, files: &BTreeMap<String, Files>) -> String {
    let mut s = String::new();
    let o = &r.options;
    let _ = writeln!(s, "mapping {}", r.mapping);
    let _ = writeln!(s, "bound {}: {}", o.bound, counting(o.counting, o.bound));
    let _ = writeln!(
        s,
        "solver {}, {} worker threads, {:.2} s",
        r.solver,
        rayon::current_num_threads(),
        r.seconds
    );
    for a in &r.axioms {
        let stats = format!(
            "{} queries, {} solver calls, {} racy programs refined away, {} solutions explained by another coherence order, {:.2} s",
            a.queries, a.solves, a.racy, a.explained, a.seconds
        );
        match &a.counterexample {
            None => {
                let _ = writeln!(
                    s,
                    "\n{}: none up to bound {} ({stats})",
                    a.axiom, a.clean_to
                );
            }
            Some(cx) => {
                let _ = writeln!(
                    s,
                    "\n{}: COUNTEREXAMPLE at bound {} ({stats})",
                    a.axiom, cx.bound
                );
                render_counterexample(&mut s, cx, files.get(&a.axiom));
            }
        }
    }
    s
}

fn render_counterexample(s: &mut String, cx: &Counterexample, files: Option<&Files>) {
    let labels = event_labels(&cx.found.source);
    let label = |k: &Key| labels.get(k).cloned().unwrap_or_else(|| format!("{k:?}"));
    let shape: Vec<String> = cx.shape.iter().map(|k| k.to_string()).collect();
    let _ = writeln!(
        s,
        "  threads of {} events; axioms failing on the lifted execution: {}",
        shape.join("+"),
        cx.failed.join(", ")
    );
    let _ = writeln!(s, "  violating edges of {}:", cx.axiom);
    for (a, b) in &cx.cycle {
        let _ = writeln!(s, "    {} -> {}", label(a), label(b));
    }
    let _ = writeln!(s, "  source program:");
    for (t, th) in cx.found.source.threads.iter().enumerate() {
        let events: Vec<String> = labels
            .iter()
            .filter(|(k, _)| matches!(k, Key::Event(u, _) if *u == t))
            .map(|(_, l)| l.clone())
            .collect();
        let _ = writeln!(
            s,
            "    {} (cta {}, gpu {}): {}",
            th.name,
            th.placement.cta,
            th.placement.gpu,
            events.join("; ")
        );
    }
    let _ = writeln!(s, "  rf: {}", edges(&cx.found.source_rf, &label));
    let _ = writeln!(s, "  co: {}", edges(&cx.found.source_mo, &label));
    if let Some(f) = files {
        for (what, p) in [
            ("source test", &f.source),
            ("target test", &f.target),
            ("graph", &f.dot),
            ("graph (SVG)", &f.svg),
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
}

fn edges(r: &crate::search::KeyRel, label: &dyn Fn(&Key) -> String) -> String {
    let v: Vec<String> = r
        .iter()
        .map(|(a, b)| format!("{} -> {}", label(a), label(b)))
        .collect();
    v.join(", ")
}

/// A short label for every event of a straight-line test: `P1.0 W.REL.GPU y=1`.
pub fn event_labels(test: &Litmus) -> BTreeMap<Key, String> {
    let mut out = BTreeMap::new();
    for (loc, v) in &test.init_mem {
        out.insert(Key::Init(loc.clone()), format!("init {loc}={v}"));
    }
    for (t, th) in test.threads.iter().enumerate() {
        let mut k = 0;
        let mut push = |text: String| {
            out.insert(Key::Event(t, k), format!("P{t}.{k} {text}"));
            k += 1;
        };
        for instr in &th.code {
            match instr {
                Instr::Load { loc, tags, .. } => push(format!("R.{} {loc}", tags.join("."))),
                Instr::Store { loc, value, tags } => {
                    push(format!("W.{} {loc}={}", tags.join("."), expr(value)))
                }
                Instr::Rmw { loc, tags, op, .. } => {
                    push(format!("RMW-R.{} {loc}", tags.join(".")));
                    let v = match op {
                        litmus::RmwOp::Exch(e) => expr(e),
                        _ => "?".into(),
                    };
                    push(format!("RMW-W.{} {loc}={v}", tags.join(".")));
                }
                Instr::Fence { tags } => push(format!("F.{}", tags.join("."))),
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

/// The JSON summary.
pub fn json(r: &Report, files: &BTreeMap<String, Files>) -> String {
    let axioms: Vec<serde_json::Value> = r
        .axioms
        .iter()
        .map(|a| {
            let cx = a.counterexample.as_ref().map(|cx| {
                let labels = event_labels(&cx.found.source);
                let label = |k: &Key| labels.get(k).cloned().unwrap_or_default();
                json!({
                    "bound": cx.bound,
                    "shape": cx.shape,
                    "failed": cx.failed,
                    "cycle": cx.cycle.iter().map(|(x, y)| [label(x), label(y)]).collect::<Vec<_>>(),
                    "files": files.get(&a.axiom),
                })
            });
            json!({
                "axiom": a.axiom,
                "clean_to": a.clean_to,
                "queries": a.queries,
                "solves": a.solves,
                "racy_refinements": a.racy,
                "explained": a.explained,
                "seconds": a.seconds,
                "counterexample": cx,
            })
        })
        .collect();
    let v = json!({
        "mapping": r.mapping,
        "options": r.options,
        "counting": counting(r.options.counting, r.options.bound),
        "solver": r.solver,
        "seconds": r.seconds,
        "axioms": axioms,
    });
    serde_json::to_string_pretty(&v).expect("reports serialise")
}

/// Write each counterexample into `dir/<test name>/`: `source.litmus`, `target.litmus`,
/// `graph.dot` (and `graph.svg` when Graphviz's `dot` runs). Returns the files by axiom.
pub fn write_counterexamples(r: &Report, dir: &Path) -> Result<BTreeMap<String, Files>> {
    let mut out = BTreeMap::new();
    for a in &r.axioms {
        let Some(cx) = &a.counterexample else {
            continue;
        };
        let sub = dir.join(&cx.found.source.name);
        std::fs::create_dir_all(&sub).map_err(|e| io(&sub, e))?;
        let write = |name: &str, text: &str| -> Result<PathBuf> {
            let p = sub.join(name);
            std::fs::write(&p, text).map_err(|e| io(&p, e))?;
            Ok(p)
        };
        let mut files = Files {
            source: Some(write("source.litmus", &litmus::print_c(&cx.found.source)?)?),
            target: Some(write(
                "target.litmus",
                &litmus::print_ptx(&cx.found.target)?,
            )?),
            dot: Some(write("graph.dot", &dot(cx))?),
            svg: None,
        };
        let svg = sub.join("graph.svg");
        let ran = std::process::Command::new("dot")
            .arg("-Tsvg")
            .arg(sub.join("graph.dot"))
            .arg("-o")
            .arg(&svg)
            .status();
        if ran.is_ok_and(|s| s.success()) {
            files.svg = Some(svg);
        }
        out.insert(a.axiom.clone(), files);
    }
    Ok(out)
}

fn io(p: &Path, e: std::io::Error) -> Error {
    Error::file(p.display().to_string(), format!("cannot write: {e}"))
}

/// The source execution as a DOT graph: threads as clusters, `po`, `rf`, `co` (immediate
/// edges), and the violating edges of the axiom in red.
pub fn dot(cx: &Counterexample) -> String {
    let labels = event_labels(&cx.found.source);
    let id = |k: &Key| match k {
        Key::Init(l) => format!("init_{l}"),
        Key::Event(t, e) => format!("e{t}_{e}"),
    };
    let mut s = String::from(
        "digraph counterexample {\n  rankdir=TB; node [shape=box, fontname=monospace];\n",
    );
    for (t, _) in cx.found.source.threads.iter().enumerate() {
        let _ = writeln!(s, "  subgraph cluster_P{t} {{ label=\"P{t}\";");
        for (k, l) in labels
            .iter()
            .filter(|(k, _)| matches!(k, Key::Event(u, _) if *u == t))
        {
            let _ = writeln!(s, "    {} [label=\"{l}\"];", id(k));
        }
        s.push_str("  }\n");
    }
    for (k, l) in labels.iter().filter(|(k, _)| matches!(k, Key::Init(_))) {
        let _ = writeln!(s, "  {} [label=\"{l}\"];", id(k));
    }
    let keys: Vec<&Key> = labels.keys().collect();
    for w in keys.windows(2) {
        if let (Key::Event(t, a), Key::Event(u, b)) = (w[0], w[1]) {
            if t == u && a + 1 == *b {
                let _ = writeln!(s, "  {} -> {} [label=po];", id(w[0]), id(w[1]));
            }
        }
    }
    for (a, b) in &cx.found.source_rf {
        let _ = writeln!(s, "  {} -> {} [label=rf, color=darkgreen];", id(a), id(b));
    }
    let mo = &cx.found.source_mo;
    for (a, b) in mo {
        let implied = mo
            .iter()
            .any(|(x, y)| x == a && mo.contains(&(y.clone(), b.clone())));
        if !implied {
            let _ = writeln!(s, "  {} -> {} [label=co, color=blue];", id(a), id(b));
        }
    }
    for (a, b) in &cx.cycle {
        let _ = writeln!(
            s,
            "  {} -> {} [label=\"{}\", color=red, penwidth=2];",
            id(a),
            id(b),
            cx.axiom
        );
    }
    s.push_str("}\n");
    s
}

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub struct Progress {
    bar: ProgressBar,
    bound: usize,
}

impl Progress {
    pub fn new(bound: usize) -> Progress {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template(
                "bound {msg} [{bar:30}] {pos}/{len} thread shapes, {elapsed}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        Progress { bar, bound }
    }

    /// `done` of `total` thread shapes of bound `bound` are checked.
    pub fn update(&self, bound: usize, done: usize, total: usize) {
        self.bar.set_length(total as u64);
        self.bar.set_position(done as u64);
        self.bar.set_message(format!("{bound}/{}", self.bound));
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
