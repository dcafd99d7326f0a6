//! The two `mapcheck gpu` commands as library calls, so that `main` only parses and prints:
//! `emit` (select the outcome, write a harness directory) and `run` (detect devices, run or
//! tune a harness directory).
//!
//! Exit statuses (`main`): 0 ran, 2 bad input (`Failure::Input`, a rendered diagnostic),
//! 3 nothing to run on (`Failure::NoDevice`: no OpenCL library, platform or device for an OpenCL
//! harness; no CUDA driver or device for a CUDA one).
use std::path::{Path, PathBuf};

use super::detect::{self, OpenCl};
use super::harness::{self, Harness, PARAMS_FILE, TUNED_FILE};
use super::outcome::{self, Judges, Selection};
use super::params::Params;
use super::{optcheck, ptx};
use crate::diag::{Error, Result};
use crate::{ir, litmus, mapping};

/// The language a harness is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// PTX kernel and CUDA host (`gpu::ptx`).
    Cuda,
    /// OpenCL C kernels, run by `mapcheck gpu run` (`gpu::opencl`, `gpu::host`).
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
    let params = match &o.params {
        Some(p) => Params::load(p)?,
        None => Params::defaults(),
    };
    let mapping = o.mapping.as_deref().map(mapping::load).transpose()?;
    let model = load_model(o.model.as_deref())?;
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
    let (files, optcheck) = match o.target {
        Target::OpenCl => (
            harness::write_opencl(&selection.test, &params, &o.output)?,
            None,
        ),
        Target::Cuda => {
            let files = ptx::emit(&selection.test, &params, &o.output)?;
            (files, Some(check_sass(&o.output)?))
        }
    };
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

/// What `gpu run` was asked.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// The harness directory (as `gpu emit` wrote it).
    pub dir: PathBuf,
    /// Parameter file (default: `DIR/params.toml`).
    pub params: Option<PathBuf>,
    /// Launches, instead of the file's `iterations`.
    pub iterations: Option<u32>,
    /// Try this many random parameter sets instead of one run.
    pub tune: Option<usize>,
    /// Index of the OpenCL device (as listed); default: the first GPU, else the first device.
    pub device: Option<usize>,
}

/// Why `gpu run` did not run.
#[derive(Debug)]
pub enum Failure {
    /// Bad input: a diagnostic to render (exit status 2).
    Input(Error),
    /// Nothing to run on, and why: no OpenCL library, platform or device, or no CUDA driver or
    /// device (exit status 3).
    NoDevice(String),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Input(e)
    }
}

/// Detect, then run (or tune) the harness in `o.dir` — a CUDA one if it holds `kernel.ptx`, else
/// an OpenCL one; `print` receives the report as it comes.
pub fn run(o: &RunOptions, print: &mut dyn FnMut(&str)) -> std::result::Result<(), Failure> {
    let opencl = detect::opencl();
    print(&detect::render(detect::cuda_driver(), &opencl));
    if o.dir.join(ptx::KERNEL_FILE).exists() {
        return run_cuda(o, print);
    }
    let h = Harness::load(&o.dir)?;
    let devices = match &opencl {
        OpenCl::Devices(ds) if !ds.is_empty() => ds,
        _ => return Err(Failure::NoDevice(opencl.unavailable().unwrap_or_default())),
    };
    let device = detect::choose(devices, o.device).ok_or_else(|| {
        Error::file(
            o.dir.display().to_string(),
            format!(
                "no OpenCL device {} (there are {})",
                o.device.unwrap_or(0),
                devices.len()
            ),
        )
    })?;
    let (params_path, params) = run_params(o)?;
    match o.tune {
        None => {
            let tally = harness::run(&h, device, &params)?;
            let from = params_path.display().to_string();
            print(&harness::report(&h, device, &from, &params, &tally));
        }
        Some(k) => tune(&h, device, &params, k, &o.dir, print)?,
    }
    Ok(())
}

/// The parameters of a run: `--params` or `DIR/params.toml`, with `--iterations` applied.
fn run_params(o: &RunOptions) -> Result<(PathBuf, Params)> {
    let path = o.params.clone().unwrap_or_else(|| o.dir.join(PARAMS_FILE));
    let mut params = Params::load(&path)?;
    if let Some(n) = o.iterations {
        params.iterations = n;
    }
    Ok((path, params))
}

/// A CUDA harness, run by `gpu::ptx` through the driver API.
fn run_cuda(o: &RunOptions, print: &mut dyn FnMut(&str)) -> std::result::Result<(), Failure> {
    if o.tune.is_some() {
        return Err(Failure::Input(Error::file(
            o.dir.display().to_string(),
            "--tune runs OpenCL harnesses only",
        )));
    }
    let (_, params) = run_params(o)?;
    match ptx::run(&o.dir, &params)? {
        ptx::Run::Unavailable(why) => Err(Failure::NoDevice(why)),
        ptx::Run::Ran { report, .. } => {
            print(&report);
            Ok(())
        }
    }
}

fn tune(
    h: &Harness,
    device: &detect::Device,
    base: &Params,
    k: usize,
    dir: &Path,
    print: &mut dyn FnMut(&str),
) -> Result<()> {
    let (trials, best) = harness::tune(h, device, base, k)?;
    print(&harness::render_trials(&trials, best));
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
