//! The two `mapcheck gpu` commands as library calls, so that `main` only parses and prints:
//! `emit` (select the outcome, write a harness directory) and `run` (detect devices, run or
//! tune a harness directory).
//!
//! Exit statuses (`main`): 0 ran, 1 some run observed an outcome its model forbids, 2 bad input
//! (`Failure::Diagnostic`, a rendered diagnostic; of several directories, one that could not run,
//! `Runs::failed`, after the others ran), 3 nothing to run on (`Failure::NoDevice`: no OpenCL library, platform or device for an OpenCL
//! harness; no CUDA driver or device for a CUDA one).
use std::path::{Path, PathBuf};

use super::cuda::{self, optcheck};
use super::detect::{self, OpenCl};
use super::harness::{JUDGEMENT_FILE, PARAMS_FILE, RESULT_FILES, TUNED_FILE};
use super::judgement::Judgement;
use super::layout::Layout;
use super::opencl;
use super::outcome::{self, Judges, Selection};
use super::params::{DeviceLimits, Params};
use super::results::{self, RunResult};
use super::stats::Tally;
use super::tune::{self, Trial};
use crate::diag::{Error, Result};
use crate::{ir, litmus, mapping};

/// The language a harness is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// PTX kernel and CUDA host (`gpu::cuda`).
    Cuda,
    /// OpenCL C kernels, run by `mapcheck gpu run` (`gpu::opencl`).
    OpenCl,
}

/// What `gpu emit` was asked.
#[derive(Clone, Debug)]
pub struct EmitOptions {
    /// The litmus test to build a harness for.
    pub test: PathBuf,
    /// The harness language: CUDA (PTX) or OpenCL C.
    pub target: Target,
    /// The directory to write the harness into.
    pub output: PathBuf,
    /// Parameter file (default: `gpu/params.toml`, compiled in).
    pub params: Option<PathBuf>,
    /// The test's model (judges "allowed").
    pub model: Option<PathBuf>,
    /// A mapping whose target model judges the test and whose source model judges `source`.
    pub mapping: Option<PathBuf>,
    /// The source program of a counterexample (judges "forbidden").
    pub source: Option<PathBuf>,
    /// The model that judges `source` (overrides the mapping's source model).
    pub source_model: Option<PathBuf>,
}

/// What `gpu emit` did.
#[derive(Clone, Debug)]
pub struct Emitted {
    pub(crate) selection: Selection,
    pub(crate) files: Vec<PathBuf>,
    /// For a CUDA harness: optcheck's report on the sm_90 SASS, or why it could not run.
    pub(crate) optcheck: Option<std::result::Result<optcheck::Report, String>>,
}

/// Select the test's outcome and write its harness.
pub fn emit(o: &EmitOptions) -> Result<Emitted> {
    let test = litmus::parse_file(&o.test)?;
    // What no harness can lay out (PTX 7.5 aliases) is refused first, with that reason, before
    // the models judge states the harness would never see.
    Layout::of(&test)?;
    let params = match (&o.params, o.target) {
        (Some(p), _) => Params::load(p)?,
        (None, Target::Cuda) => Params::gpu_preset(),
        (None, Target::OpenCl) => Params::defaults(),
    };
    let mapping = o.mapping.as_deref().map(mapping::load).transpose()?;
    let model = match (&o.model, &mapping) {
        (Some(path), _) => Some(ir::load(path)?),
        (None, Some(_)) => None,
        (None, None) => default_model(test.arch)?,
    };
    let source_model = load_model(o.source_model.as_deref())?;
    let source = o.source.as_deref().map(litmus::parse_file).transpose()?;
    let target_model = model.as_ref().or(mapping.as_ref().map(|m| &m.target));
    let source_judge = match (
        &source,
        source_model
            .as_ref()
            .or(mapping.as_ref().map(|m| &m.source)),
    ) {
        (Some(s), Some(m)) => Some((m, s)),
        (Some(_), None) => return Err(Error::file(
            o.test.display().to_string(),
            "--source needs --source-model or --mapping (the model that must forbid the outcome)",
        )),
        (None, _) => None,
    };
    let judges = Judges {
        target: target_model,
        source: source_judge,
    };
    let selection = outcome::select(&test, &judges)?;
    // The directory stays held (locked) until the judgement and optcheck's files are written.
    let (mut files, mut held, optcheck) = match o.target {
        Target::OpenCl => {
            let (files, held) = opencl::write(&selection.test, &params, &o.output)?;
            (files, held, None)
        }
        Target::Cuda => {
            let (files, held) = cuda::emit_held(&selection.test, &params, &o.output)?;
            (files, held, Some(check_sass(&o.output)?))
        }
    };
    files.push(held.write(JUDGEMENT_FILE, selection.judgement.to_json())?);
    drop(held);
    Ok(Emitted {
        selection,
        files,
        optcheck,
    })
}

/// optcheck on a CUDA harness where ptxas and nvdisasm are found; a failed check is an error
/// (the kernel would not test what the litmus test says).
fn check_sass(dir: &Path) -> Result<std::result::Result<optcheck::Report, String>> {
    let tools = match optcheck::find_tools() {
        Ok(t) => t,
        Err(why) => return Ok(Err(why)),
    };
    let report = optcheck::check_dir(dir, &tools)?;
    if !report.passed() {
        return Err(Error::file(
            dir.display().to_string(),
            format!("optcheck failed: ptxas did not keep the test's accesses\n{report}"),
        ));
    }
    Ok(Ok(report))
}

fn load_model(path: Option<&Path>) -> Result<Option<ir::Model>> {
    path.map(ir::load).transpose()
}

/// The model of a test's language, from the checkout's `models/` (found beside the binary's
/// sources or in the working directory, as optcheck finds the CUDA tools): PTX `ptx-v6.cat`,
/// OpenCL `opencl.cat`, C `rc11-scoped.cat`; `None` where it is not found (the outcomes then go
/// unjudged, and `select` says so).
fn default_model(arch: litmus::Arch) -> Result<Option<ir::Model>> {
    let file = match arch {
        litmus::Arch::Ptx => "ptx-v6.cat",
        litmus::Arch::OpenCl => "opencl.cat",
        litmus::Arch::C11 => "rc11-scoped.cat",
        litmus::Arch::Vulkan => return Ok(None),
    };
    let found = [Path::new(env!("CARGO_MANIFEST_DIR")), Path::new(".")]
        .iter()
        .map(|root| root.join("models").join(file))
        .find(|p| p.is_file());
    found.as_deref().map(ir::load).transpose()
}

/// The lines `gpu emit` prints: the witness states, the notes, the files.
pub fn render_emitted(e: &Emitted) -> String {
    let s = &e.selection;
    let mut out = format!(
        "test {}: observes {}\n",
        s.test.name,
        s.space.names.join(", ")
    );
    for w in &s.witnesses {
        out.push_str(&format!("  witness state: {}\n", s.space.render(w)));
    }
    for n in &s.notes {
        out.push_str(&format!("  note: {n}\n"));
    }
    for f in &e.files {
        out.push_str(&format!("wrote {}\n", f.display()));
    }
    match &e.optcheck {
        Some(Ok(report)) => out.push_str(&format!("{}\n", report.to_string().trim_end())),
        Some(Err(why)) => out.push_str(&format!(
            "optcheck not run: {why} (scripts/install-cuda-wheels.sh installs ptxas and nvdisasm)\n"
        )),
        None => {}
    }
    out
}

/// What `gpu suite` was asked: every litmus test of a directory emitted and run.
#[derive(Clone, Debug)]
pub struct SuiteOptions {
    /// The directory of `.litmus` files (not descended into).
    pub tests: PathBuf,
    /// The harness language.
    pub target: Target,
    /// Where the harnesses go: one directory per test, named by its file's stem.
    pub output: PathBuf,
    /// The model that judges every test (default: each test's language's, as `gpu emit`).
    pub model: Option<PathBuf>,
    /// Parameter file for every harness (default: the target's preset).
    pub params: Option<PathBuf>,
    /// The runs: launches, device, JSON (`dirs` is filled in).
    pub run: RunOptions,
}

/// `gpu suite`: emit a harness for each `.litmus` file of `o.tests` (in name order) into
/// `o.output/<stem>`, then run them all as `gpu run DIR…` does. A test that cannot be emitted (a
/// Vulkan test, a construct the harness cannot write) is skipped with its reason printed; it is
/// never silently left out. An output directory that cannot be written is refused first, and a
/// suite of which no test could be emitted is an error.
pub fn suite(o: &SuiteOptions, print: &mut dyn FnMut(&str)) -> std::result::Result<Runs, Failure> {
    crate::output::check_directory(&o.output)?;
    let shown = o.tests.display().to_string();
    let entries = std::fs::read_dir(&o.tests).map_err(|e| Error::file(&shown, e.to_string()))?;
    let mut tests: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    tests.sort();
    if tests.is_empty() {
        return Err(Error::file(shown, "no .litmus file in this directory").into());
    }
    let mut dirs = vec![];
    for test in tests {
        let stem = test.file_stem().unwrap_or_default();
        let output = o.output.join(stem);
        let emitted = emit(&EmitOptions {
            test: test.clone(),
            target: o.target,
            output: output.clone(),
            params: o.params.clone(),
            model: o.model.clone(),
            mapping: None,
            source: None,
            source_model: None,
        });
        match emitted {
            Ok(_) => dirs.push(output),
            Err(e) => {
                let line = format!("skipped {}: {}\n", test.display(), e.message);
                // With --json, standard output is the JSON alone.
                if o.run.json {
                    crate::output::eprint(&line)
                } else {
                    print(&line)
                }
            }
        }
    }
    if dirs.is_empty() {
        return Err(Error::file(shown, "no test of this directory could be emitted").into());
    }
    let run = RunOptions {
        dirs,
        ..o.run.clone()
    };
    self::run(&run, print)
}

/// What `gpu run` was asked.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// The harness directories (as `gpu emit` wrote them), run one after another.
    pub dirs: Vec<PathBuf>,
    /// Parameter file (default: each `DIR/params.toml`).
    pub params: Option<PathBuf>,
    /// Launches, instead of the file's `iterations`.
    pub iterations: Option<u32>,
    /// Try this many random parameter sets instead of one run.
    pub tune: Option<usize>,
    /// Index of the device (OpenCL: as listed; CUDA: the driver's ordinal); default: OpenCL's
    /// first GPU, else its first device; CUDA's device 0.
    pub device: Option<usize>,
    /// Print the results as JSON (an array, one object per run) instead of the reports.
    pub json: bool,
}

/// Why `gpu run` did not run.
#[derive(Debug)]
pub enum Failure {
    /// A diagnostic to render: bad input (exit status 2) or an internal error (70), as
    /// `Error::fault` says.
    Diagnostic(Error),
    /// Nothing to run on, and why: no OpenCL library, platform or device, or no CUDA driver or
    /// device (exit status 3).
    NoDevice(String),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Diagnostic(e)
    }
}

/// What `gpu run` / `gpu suite` came to, for the exit status: the runs made (one that observed
/// an outcome its model forbids ends `mapcheck` with status 1), and the directories of several
/// that could not run, each with its diagnostic (already printed on stderr; status 2).
#[derive(Debug, Default)]
pub struct Runs {
    /// The runs made, in the order of the directories.
    pub results: Vec<RunResult>,
    /// The directories that could not run, and why.
    pub failed: Vec<(PathBuf, Error)>,
}

/// Detect, then run (or tune) each harness directory of `o.dirs` — a CUDA one if it holds
/// `kernel.ptx`, else an OpenCL one — writing each run's `result.json` and `result.csv` into its
/// directory; `print` receives the reports as they come, then (several directories) the summary
/// table, or with `o.json` only the JSON. Of several directories, one that cannot run (bad
/// input, a failed launch) is reported on stderr and named under the summary, and the others
/// run; a single directory's failure, or no device, is the command's.
pub fn run(o: &RunOptions, print: &mut dyn FnMut(&str)) -> std::result::Result<Runs, Failure> {
    let opencl = detect::opencl();
    let mut say = |text: &str| {
        if !o.json {
            print(text)
        }
    };
    say(&detect::render(detect::cuda_driver(), &opencl));
    let mut runs = Runs::default();
    for dir in &o.dirs {
        match run_dir(dir, o, &opencl, &mut say) {
            Ok(results) => runs.results.extend(results),
            Err(Failure::Diagnostic(e)) if o.dirs.len() > 1 => {
                crate::output::eprint(&e.render());
                runs.failed.push((dir.clone(), e));
            }
            Err(failure) => return Err(failure),
        }
    }
    if o.dirs.len() > 1 {
        let mut summary = results::render_summary(&runs.results);
        for (dir, e) in &runs.failed {
            let why = e.message.lines().next().unwrap_or_default();
            summary.push_str(&format!("not run: {}: {why}\n", dir.display()));
        }
        say(&format!("\nsummary:\n{summary}"));
    }
    if o.json {
        let results = serde_json::json!({ "results": runs.results });
        let document = crate::output::json_document("mapcheck-gpu-runs", results);
        print(&format!(
            "{}\n",
            serde_json::to_string_pretty(&document).expect("results serialise")
        ));
    }
    Ok(runs)
}

/// `gpu summary`: the results `gpu run` wrote into `dirs`, each re-judged with its directory's
/// judgement (`RunResult::load`), so that a rule changed since the run applies to it.
pub fn summary(dirs: &[PathBuf]) -> Result<Vec<RunResult>> {
    dirs.iter().map(|dir| RunResult::load(dir)).collect()
}

/// One harness directory, locked and checked writable first: its run (with its result files
/// written), or its tuning trials.
fn run_dir(
    dir: &Path,
    o: &RunOptions,
    opencl: &OpenCl,
    print: &mut dyn FnMut(&str),
) -> std::result::Result<Vec<RunResult>, Failure> {
    let _locked = crate::output::Locked::take(dir)?;
    let (params_path, params) = run_params(o, dir)?;
    if dir.join(cuda::KERNEL_FILE).exists() {
        return run_cuda(dir, o, &params, print);
    }
    let h = opencl::Harness::load(dir)?;
    let judgement = Judgement::load(dir, &h.space)?.unwrap_or_default();
    let devices = match opencl {
        OpenCl::Devices(ds) if !ds.is_empty() => ds,
        _ => return Err(Failure::NoDevice(opencl.unavailable().unwrap_or_default())),
    };
    let device = detect::choose(devices, o.device).ok_or_else(|| {
        Error::file(
            dir.display().to_string(),
            format!(
                "no OpenCL device {} (there are {})",
                o.device.unwrap_or(0),
                devices.len()
            ),
        )
    })?;
    let (params, cut) = params.scaled_to(DeviceLimits {
        compute_units: device.compute_units,
        resident_workgroups: None,
    });
    let result = |params: &Params, tally: &Tally| {
        let mut context = opencl::context(device);
        context.notes.extend(cut.clone());
        RunResult::new(
            &dir.display().to_string(),
            &h.test,
            &h.space,
            &judgement,
            context,
            params,
            tally,
            h.layout.shared_workgroups(&h.test),
        )
    };
    match o.tune {
        None => {
            let tally = opencl::run(&h, device, &params)?;
            print(&format!("parameters from {}\n", params_path.display()));
            let r = result(&params, &tally);
            report(dir, &r, print)?;
            Ok(vec![r])
        }
        Some(k) => {
            let (trials, best) = tune::tune(&params, k, &mut |p| opencl::run(&h, device, p))?;
            let results = trials.iter().map(|t| result(&t.params, &t.tally)).collect();
            tuned(dir, &trials, best, print)?;
            Ok(results)
        }
    }
}

/// Print a run's report and write its result files into `dir`.
fn report(dir: &Path, r: &RunResult, print: &mut dyn FnMut(&str)) -> Result<()> {
    print(&r.render());
    let json = serde_json::to_string_pretty(r).expect("a result serialises");
    crate::output::write_file(&dir.join(RESULT_FILES[0]), json + "\n")?;
    crate::output::write_file(&dir.join(RESULT_FILES[1]), r.to_csv())?;
    print(&format!(
        "wrote {} and {}\n",
        dir.join(RESULT_FILES[0]).display(),
        dir.join(RESULT_FILES[1]).display()
    ));
    Ok(())
}

/// The parameters of a run: `--params` or `DIR/params.toml`, with `--iterations` applied.
fn run_params(o: &RunOptions, dir: &Path) -> Result<(PathBuf, Params)> {
    let path = o.params.clone().unwrap_or_else(|| dir.join(PARAMS_FILE));
    let mut params = Params::load(&path)?;
    if let Some(n) = o.iterations {
        params.iterations = n;
    }
    Ok((path, params))
}

/// A CUDA harness, run (or tuned) by `gpu::cuda` through the driver API.
fn run_cuda(
    dir: &Path,
    o: &RunOptions,
    params: &Params,
    print: &mut dyn FnMut(&str),
) -> std::result::Result<Vec<RunResult>, Failure> {
    let h = cuda::Harness::load(dir)?;
    let judgement = Judgement::load(dir, &h.space)?.unwrap_or_default();
    let result = |context, params: &Params, tally: &Tally| {
        RunResult::new(
            &dir.display().to_string(),
            &h.test,
            &h.space,
            &judgement,
            context,
            params,
            tally,
            vec![],
        )
    };
    let Some(k) = o.tune else {
        return match cuda::run(&h, dir, params, o.device)? {
            cuda::Run::Unavailable(why) => Err(Failure::NoDevice(why)),
            cuda::Run::Ran {
                context,
                params,
                tally,
            } => {
                let r = result(context, &params, &tally);
                report(dir, &r, print)?;
                Ok(vec![r])
            }
        };
    };
    let mut contexts = vec![];
    let mut unavailable = None;
    let (trials, best) = tune::tune(params, k, &mut |p| match cuda::run(&h, dir, p, o.device)? {
        cuda::Run::Ran {
            context,
            params,
            tally,
        } => {
            contexts.push((context, params));
            Ok(tally)
        }
        cuda::Run::Unavailable(why) => {
            unavailable = Some(why.clone());
            Err(Error::file(dir.display().to_string(), why))
        }
    })
    .map_err(|e| match unavailable.take() {
        Some(why) => Failure::NoDevice(why),
        None => Failure::Diagnostic(e),
    })?;
    let results = trials
        .iter()
        .zip(contexts)
        .map(|(t, (c, scaled))| result(c, &scaled, &t.tally))
        .collect();
    tuned(dir, &trials, best, print)?;
    Ok(results)
}

fn tuned(
    dir: &Path,
    trials: &[Trial],
    best: Option<usize>,
    print: &mut dyn FnMut(&str),
) -> Result<()> {
    print(&tune::render_trials(trials, best));
    match best {
        Some(i) => {
            let path = dir.join(TUNED_FILE);
            crate::output::write_file(&path, trials[i].params.to_toml())?;
            print(&format!(
                "best: trial {i}, {:.1} counted outcomes per second; wrote {}\n",
                trials[i].tally.per_second(),
                path.display()
            ));
        }
        None => print("no trial observed the counted outcome; no parameters written\n"),
    }
    Ok(())
}
