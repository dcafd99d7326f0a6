//! A harness directory: what `mapcheck gpu emit --target opencl` writes and `gpu run` reads, and
//! the runs and the tuning over it.
//!
//! Files: `test.litmus` (the test with its selected condition; PTX or C/OpenCL syntax as the test
//! was written), `params.toml` (the parameters it was emitted with), `kernel.cl` (the OpenCL C
//! harness). `gpu run` regenerates the kernel from `test.litmus` and refuses a `kernel.cl` that
//! differs (stale, or edited): the test is the one source of truth. Tuning writes
//! `params-tuned.toml`.
//!
//! Owns: `Harness` (`new`, `load`), `write_opencl`, `run`, `tune`, `context`.
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rand::rngs::StdRng;
use rand::SeedableRng;

use super::detect::Device;
use super::judgement::JUDGEMENT_FILE;
use super::layout::Layout;
use super::outcome::Space;
use super::params::Params;
use super::results::{RunContext, RESULT_FILES};
use super::stats::Tally;
use super::{host, opencl};
use crate::diag::{Error, Result};
use crate::litmus::{self, Arch, Litmus};
use crate::output::OutputDir;

pub(crate) const TEST_FILE: &str = "test.litmus";
pub(crate) const PARAMS_FILE: &str = "params.toml";
pub(crate) const KERNEL_FILE: &str = "kernel.cl";
pub(crate) const TUNED_FILE: &str = "params-tuned.toml";

/// A test ready to run: its layout, its outcome space and its OpenCL C kernels.
#[derive(Clone, Debug)]
pub struct Harness {
    /// The harness directory (or test name), for messages.
    pub(crate) name: String,
    /// The test, its condition selected.
    pub test: Litmus,
    /// Where each thread and location of the test sits in a launch.
    pub layout: Layout,
    /// The observable states the kernels classify instances into.
    pub space: Space,
    pub(crate) kernel: String,
}

impl Harness {
    /// Build the harness of `test`: its layout, outcome space and OpenCL C kernel source; `name` is
    /// used in messages.
    pub fn new(name: &str, test: Litmus) -> Result<Harness> {
        let layout = Layout::of(&test)?;
        let space = Space::of(&test)?;
        let kernel = opencl::kernel_source(&test, &layout, &space)?;
        Ok(Harness {
            name: name.to_string(),
            test,
            layout,
            space,
            kernel,
        })
    }

    /// The harness in `dir`, its `kernel.cl` checked against the one `test.litmus` gives.
    pub(crate) fn load(dir: &Path) -> Result<Harness> {
        load_checked(dir, KERNEL_FILE, "opencl", Harness::new, |h| &h.kernel)
    }
}

/// A harness directory read back: its test rebuilt with `build`, and the kernel file on disk
/// required to be the one the test gives (`kernel_of`), so a stale or edited kernel never runs.
pub(crate) fn load_checked<H>(
    dir: &Path,
    kernel_file: &str,
    target: &str,
    build: impl FnOnce(&str, Litmus) -> Result<H>,
    kernel_of: impl Fn(&H) -> &str,
) -> Result<H> {
    let kernel_path = dir.join(kernel_file);
    if !kernel_path.exists() {
        return Err(Error::file(
            dir.display().to_string(),
            format!("no {kernel_file}: not a harness directory for --target {target} (write one with `mapcheck gpu emit TEST --target {target} -o DIR`)"),
        ));
    }
    let test = litmus::parse_file(&dir.join(TEST_FILE))?;
    let harness = build(&dir.display().to_string(), test)?;
    let on_disk = crate::diag::read_source(&kernel_path)?;
    if *on_disk != *kernel_of(&harness) {
        return Err(Error::file(
            kernel_path.display().to_string(),
            format!("differs from the kernel {TEST_FILE} gives (stale or edited); run `mapcheck gpu emit` again"),
        ));
    }
    Ok(harness)
}

/// Write the OpenCL harness of `test` (its condition already selected) into `dir`.
pub(crate) fn write_opencl(test: &Litmus, params: &Params, dir: &Path) -> Result<Vec<PathBuf>> {
    let harness = Harness::new(&dir.display().to_string(), test.clone())?;
    write_dir(dir, test, params, KERNEL_FILE, &harness.kernel, &[])
}

/// A harness directory: `test.litmus`, `params.toml` and the kernel file. `later` names the
/// files other steps write into it (`gpu emit`'s judgement, `gpu run --tune`, optcheck), listed as this run's so that the
/// next `gpu emit` into the directory removes them with the rest.
pub(crate) fn write_dir(
    dir: &Path,
    test: &Litmus,
    params: &Params,
    kernel_file: &str,
    kernel: &str,
    later: &[&str],
) -> Result<Vec<PathBuf>> {
    let mut out = OutputDir::claim(dir)?;
    for name in [TUNED_FILE, JUDGEMENT_FILE]
        .iter()
        .chain(&RESULT_FILES)
        .chain(later)
    {
        out.record(name)?;
    }
    let files = [
        (TEST_FILE, print_test(test)?),
        (PARAMS_FILE, params.to_toml()),
        (kernel_file, kernel.to_string()),
    ];
    files
        .into_iter()
        .map(|(name, text)| out.write(name, text))
        .collect()
}

/// A test in the syntax it was written in.
pub(crate) fn print_test(test: &Litmus) -> Result<String> {
    match test.arch {
        Arch::Vulkan => Err(Error::file(
            test.name.clone(),
            "a Vulkan test has no GPU harness: the backend writes PTX and OpenCL".to_string(),
        )),
        _ => litmus::print_test(test),
    }
}

/// Run the harness on `device`.
pub fn run(h: &Harness, device: &Device, params: &Params) -> Result<Tally> {
    host::run(h, device, params)
}

/// What ran where, for a run's result: the OpenCL device and its platform.
pub fn context(device: &Device) -> RunContext {
    RunContext {
        target: "opencl",
        device: device.name.clone(),
        driver: format!(
            "{} {}, -cl-std={}",
            device.platform,
            device.platform_version,
            device.cl_std.unwrap_or("?")
        ),
        cpu: device.kind == "CPU",
        module: None,
        notes: vec![],
    }
}

/// One parameter set tried by `tune`.
#[derive(Clone, Debug)]
pub(crate) struct Trial {
    pub(crate) params: Params,
    pub(crate) tally: Tally,
}

/// `k` parameter sets drawn at random around `base` (`Params::random`, generator seeded with
/// `base.seed`), each run by `run` for `base.iterations` launches; the trials, and the index of
/// the one with the most counted outcomes per second (`None` if none saw the outcome).
pub(crate) fn tune(
    base: &Params,
    k: usize,
    run: &mut dyn FnMut(&Params) -> Result<Tally>,
) -> Result<(Vec<Trial>, Option<usize>)> {
    let mut rng = StdRng::seed_from_u64(base.seed);
    let mut trials = Vec::with_capacity(k);
    for _ in 0..k {
        let params = Params::random(&mut rng, base);
        let tally = run(&params)?;
        trials.push(Trial { params, tally });
    }
    let best = trials
        .iter()
        .enumerate()
        .filter(|(_, t)| t.tally.counted > 0)
        .max_by(|(i, a), (j, b)| {
            a.tally
                .per_second()
                .total_cmp(&b.tally.per_second())
                .then(j.cmp(i))
        })
        .map(|(i, _)| i);
    Ok((trials, best))
}

/// One line per trial: its Table 3 parameters and its counted outcomes per second.
pub(crate) fn render_trials(trials: &[Trial], best: Option<usize>) -> String {
    let mut s = format!(
        "  {:<5} {:<7} {:<7} {:>7} {:>6} {:<12} {:<12} {:>5} {:>7} {:<11} {:>6} {:>8} {:>9} {:>10}\n",
        "trial",
        "shuffle",
        "barrier",
        "timeout",
        "jitter",
        "stress",
        "pre-stress",
        "line",
        "targets",
        "assignment",
        "stride",
        "counted",
        "instances",
        "per second"
    );
    for (i, t) in trials.iter().enumerate() {
        let p = &t.params;
        let stress = |on: bool, pattern| {
            if on {
                kebab(pattern)
            } else {
                "off".to_string()
            }
        };
        let _ = writeln!(
            s,
            "{} {i:<5} {:<7} {:<7} {:>7} {:>6} {:<12} {:<12} {:>5} {:>7} {:<11} {:>6} {:>8} {:>9} {:>10.1}",
            if Some(i) == best { '*' } else { ' ' },
            on_off(p.thread_shuffle),
            on_off(p.barrier),
            p.barrier_timeout,
            p.barrier_jitter,
            stress(p.mem_stress, p.mem_stress_pattern),
            stress(p.pre_stress, p.pre_stress_pattern),
            p.stress_line_size,
            p.stress_target_lines,
            kebab(p.stress_assignment),
            p.mem_stride,
            t.tally.counted,
            t.tally.instances,
            t.tally.per_second()
        );
    }
    s
}

fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

/// A parameter value as the parameter file spells it (`st-ld`, `round-robin`).
fn kebab<T: serde::Serialize>(v: T) -> String {
    let text = toml::Value::try_from(v)
        .map(|v| v.to_string())
        .unwrap_or_default();
    text.trim_matches('"').to_string()
}
