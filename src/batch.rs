//! `mapcheck run` over many tests: each test run on its own deadline (`--timeout`), its end told
//! apart as an outcome, a bad test or a stop (`Ran`), written as one JSON line the moment it ends
//! (`--json-lines`), its executions drawn (`-o DIR`, `--show`), and progress on stderr while the
//! batch runs.
//!
//! Owns: `Ran`, `read_test`, `run_file`, `Ran::json_line`, `Show`, `draw_executions`,
//! `BatchProgress`. Uses: `decide` (each test's verdict), `ir` (the model), `litmus` (parsing),
//! `runner` (options, outcomes, the candidates drawn), `picture`, `diag` (a bad test's
//! diagnostic), `output` (the progress display, files).
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::diag::{Error, Fault};
use crate::exec::Execution;
use crate::ir::Model;
use crate::runner::{self, Options, Outcome};
use crate::{decide, litmus, output, picture};

/// How one test of a batch ended.
#[derive(Debug)]
pub enum Ran {
    /// Its verdict, and the test as read (what `--herd` and `-o` print and draw from).
    Outcome(Outcome, litmus::Litmus),
    /// Bad input, a test over the runner's limits, or a bug in mapcheck: its diagnostic (its
    /// fault says which).
    Bad(Error),
    /// Stopped at `Options::deadline` (its `--timeout`) before its verdict.
    Stopped,
}

/// The test at `path`, given `default_scope` where a C test names none
/// (`litmus::with_default_scope`, `run --default-scope`).
pub fn read_test(path: &Path, default_scope: Option<&str>) -> crate::diag::Result<litmus::Litmus> {
    litmus::with_default_scope(litmus::parse_file(path)?, default_scope)
}

/// Parse the test at `path` (`read_test`) and run it under `model` (as `decide::run`), telling
/// a stop from an error: an input error once `opts.deadline` has passed is the stop's (a bug
/// stays a bug).
pub fn run_file(model: &Model, path: &Path, opts: &Options, default_scope: Option<&str>) -> Ran {
    let ran = read_test(path, default_scope)
        .and_then(|test| Ok((decide::run(model, &test, opts)?, test)));
    match ran {
        Ok((outcome, test)) => Ran::Outcome(outcome, test),
        Err(e) if opts.out_of_time() && e.fault() == Fault::Input => Ran::Stopped,
        Err(e) => Ran::Bad(e),
    }
}

/// Which consistent executions of a test `run -o DIR` draws (herd7's `-show`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    /// Those whose final state satisfies the condition's proposition (herd's `prop`).
    Prop,
    /// Those whose final state falsifies it (herd's `neg`).
    Neg,
    /// Every consistent execution (herd's `all`).
    All,
}

/// Draw the consistent executions of `test` (read from `path`) under `model` that `show`
/// selects into `dir/NAME.dot` (NAME: the test file's stem), one scene per execution with its
/// final state for caption, and `dir/NAME.svg` when Graphviz's `dot` runs; the DOT file's path,
/// or `None` when no execution is selected (nothing written). A test the runner cannot
/// enumerate within `opts` is an error, as for `run` itself.
pub fn draw_executions(
    model: &Model,
    test: &litmus::Litmus,
    path: &Path,
    opts: &Options,
    show: Show,
    dir: &Path,
) -> crate::diag::Result<Option<std::path::PathBuf>> {
    let observed = runner::observed(test);
    let mut drawn: Vec<(String, Execution)> = vec![];
    runner::for_each_candidate(model, test, opts, &mut |cand| {
        let selected = runner::final_states(test, &observed, cand)
            .into_iter()
            .find(|&(_, sat)| show == Show::All || sat == (show == Show::Prop));
        if let Some((values, _)) = selected {
            let state = runner::render_values(test, &observed, &values);
            drawn.push((state, cand.execution.clone()));
        }
    })?;
    if drawn.is_empty() {
        return Ok(None);
    }
    let scenes: Vec<picture::Scene> = drawn
        .iter()
        .enumerate()
        .map(|(k, (state, execution))| picture::Scene {
            title: format!("{} execution {}: {state}", test.name, k + 1),
            model,
            execution,
            arch: test.arch,
            highlight: picture::Highlight::default(),
        })
        .collect();
    let graph = picture::digraph(&scenes);
    let stem = path
        .file_stem()
        .map_or("test".into(), |s| s.to_string_lossy().into_owned());
    std::fs::create_dir_all(dir).map_err(|e| {
        Error::file(
            dir.display().to_string(),
            format!("cannot create the directory: {e}"),
        )
    })?;
    let dot = dir.join(format!("{stem}.dot"));
    output::write_file(&dot, &graph)?;
    if let Some(svg) = output::graphviz_svg(&graph) {
        output::write_file(&dir.join(format!("{stem}.svg")), svg)?;
    }
    Ok(Some(dot))
}

impl Ran {
    /// The `--json-lines` record of the test at `path`, which took `took`: `test`, `seconds`,
    /// and one of `outcome`, `error` (as `--json` gives a diagnostic) or `timeout` (the seconds
    /// it was given).
    pub fn json_line(&self, path: &Path, took: Duration, timeout: Option<u64>) -> String {
        let mut record = json!({
            "test": path.display().to_string(),
            "seconds": took.as_secs_f64(),
        });
        let (key, value) = match self {
            Ran::Outcome(outcome, _) => ("outcome", json!(outcome)),
            Ran::Bad(e) => ("error", e.json()["error"].clone()),
            Ran::Stopped => ("timeout", json!(timeout)),
        };
        record[key] = value;
        format!("{}\n", output::json_document("mapcheck-run-line", record))
    }
}

/// Progress of a batch on stderr (`output::ProgressDisplay`): how many tests have ended and
/// which one is running.
pub struct BatchProgress {
    display: output::ProgressDisplay,
    state: Arc<Mutex<BatchState>>,
}

struct BatchState {
    start: Instant,
    total: usize,
    ended: usize,
    running: String,
}

impl BatchProgress {
    /// Progress over `total` tests.
    pub fn new(total: usize) -> BatchProgress {
        let state = Arc::new(Mutex::new(BatchState {
            start: Instant::now(),
            total,
            ended: 0,
            running: String::new(),
        }));
        let shared = state.clone();
        let display = output::ProgressDisplay::new(
            "[{bar:30}] {pos}/{len} tests, {elapsed}: {msg}",
            total as u64,
            move || {
                let st = lock(&shared);
                format!(
                    "[{:.0} s] {} of {} tests ended; running {}\n",
                    st.start.elapsed().as_secs_f64(),
                    st.ended,
                    st.total,
                    st.running
                )
            },
        );
        BatchProgress { display, state }
    }

    /// The test at `path` starts.
    pub fn start(&self, path: &Path) {
        let name = path.display().to_string();
        if let Some(bar) = self.display.bar() {
            bar.set_message(name.clone());
        }
        lock(&self.state).running = name;
    }

    /// The running test ended; `text` goes to stdout, `note` to stderr, without tearing the bar.
    pub fn ended(&self, text: &str, note: &str) {
        lock(&self.state).ended += 1;
        self.display.print(text, note);
        if let Some(bar) = self.display.bar() {
            bar.inc(1);
        }
    }
}

fn lock(state: &Mutex<BatchState>) -> MutexGuard<'_, BatchState> {
    state.lock().unwrap_or_else(|p| p.into_inner())
}
