//! `mapcheck run` over many tests: each test run on its own deadline (`--timeout`), its end told
//! apart as an outcome, a bad test or a stop (`Ran`), written as one JSON line the moment it ends
//! (`--json-lines`), and progress on stderr while the batch runs.
//!
//! Owns: `Ran`, `run_file`, `Ran::json_line`, `BatchProgress`. Uses: `decide` (each test's
//! verdict), `ir` (the model), `litmus` (parsing), `runner` (options and outcomes), `diag` (a bad
//! test's diagnostic), `output` (the progress display).
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::diag::{Error, Fault};
use crate::ir::Model;
use crate::runner::{Options, Outcome};
use crate::{decide, litmus, output};

/// How one test of a batch ended.
#[derive(Debug)]
pub enum Ran {
    /// Its verdict.
    Outcome(Outcome),
    /// Bad input, a test over the runner's limits, or a bug in mapcheck: its diagnostic (its
    /// fault says which).
    Bad(Error),
    /// Stopped at `Options::deadline` (its `--timeout`) before its verdict.
    Stopped,
}

/// Parse the test at `path` and run it under `model` (as `decide::run`), telling a stop from an
/// error: an input error once `opts.deadline` has passed is the stop's (a bug stays a bug).
pub fn run_file(model: &Model, path: &Path, opts: &Options) -> Ran {
    match litmus::parse_file(path).and_then(|test| decide::run(model, &test, opts)) {
        Ok(outcome) => Ran::Outcome(outcome),
        Err(e) if opts.out_of_time() && e.fault() == Fault::Input => Ran::Stopped,
        Err(e) => Ran::Bad(e),
    }
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
            Ran::Outcome(outcome) => ("outcome", json!(outcome)),
            Ran::Bad(e) => ("error", e.json()["error"].clone()),
            Ran::Stopped => ("timeout", json!(timeout)),
        };
        record[key] = value;
        format!("{record}\n")
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
