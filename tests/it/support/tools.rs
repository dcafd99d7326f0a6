//! The tools some tests need beyond the Rust toolchain: coqc, an OpenCL device (PoCL in CI),
//! ptxas with nvdisasm, and Slurm. `scripts/install-deps.sh` installs them all.
//!
//! A test that needs one starts with `if tools::absent(Tool::…) { return; }`. Without the tool,
//! a plain `cargo test` skips the test and names it and the tool on stderr (written past libtest's
//! capture, so it shows); under `CI=true` (what `scripts/test` sets) the test fails instead.
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use mapcheck::gpu::cuda::optcheck;
use mapcheck::gpu::detect::{self, OpenCl};

#[derive(Clone, Copy, Debug)]
pub enum Tool {
    /// `coqc`, for the Coq export's tests.
    Coqc,
    /// An OpenCL device (PoCL on the CPU), for the OpenCL harness.
    OpenCl,
    /// `ptxas` and `nvdisasm` (the PyPI CUDA wheels), for the CUDA harness's optcheck.
    Ptxas,
    /// Slurm's daemons and client commands with munge, and root, for a single-node cluster.
    Slurm,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Coqc => "coqc",
            Tool::OpenCl => "an OpenCL device",
            Tool::Ptxas => "ptxas and nvdisasm",
            Tool::Slurm => "Slurm",
        }
    }
}

/// Whether `tool` is missing, so that the calling test must stop: under `CI=true` a missing
/// tool fails the test; otherwise the skip is reported with its reason.
pub fn absent(tool: Tool) -> bool {
    let Some(why) = why_missing(tool) else {
        return false;
    };
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI must run {test}, which needs {}: {why}", tool.name());
    }
    // Straight to the stream: libtest captures `eprintln!`, and a skip must show.
    let line = format!(
        "SKIPPED {test}: needs {}: {why} (scripts/install-deps.sh installs it)\n",
        tool.name()
    );
    let _ = std::io::stderr().write_all(line.as_bytes());
    true
}

/// Why `tool` is missing here, if it is (looked up once per process).
fn why_missing(tool: Tool) -> Option<String> {
    static FOUND: [OnceLock<Option<String>>; 4] = [const { OnceLock::new() }; 4];
    FOUND[tool as usize]
        .get_or_init(|| match tool {
            Tool::Coqc => coqc_missing(),
            Tool::OpenCl => opencl_missing(),
            Tool::Ptxas => optcheck::find_tools().err(),
            Tool::Slurm => slurm_missing(),
        })
        .clone()
}

fn coqc_missing() -> Option<String> {
    match Command::new("coqc").arg("--version").output() {
        Ok(out) if out.status.success() => None,
        Ok(out) => Some(format!("`coqc --version` failed: {}", out.status)),
        Err(e) => Some(format!("cannot run coqc ({e})")),
    }
}

fn opencl_missing() -> Option<String> {
    match detect::opencl() {
        OpenCl::Devices(ds) if !ds.is_empty() => None,
        found => Some(
            found
                .unavailable()
                .unwrap_or_else(|| "no OpenCL device".into()),
        ),
    }
}

fn slurm_missing() -> Option<String> {
    // The daemons are in sbin, which PATH may lack (the cluster script adds it).
    let on_path = |tool: &str| {
        let path = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&path)
            .chain(["/usr/sbin".into(), "/sbin".into()])
            .any(|d| Path::new(&d).join(tool).is_file())
    };
    let needed = [
        "sbatch",
        "squeue",
        "scontrol",
        "sinfo",
        "slurmctld",
        "slurmd",
        "munged",
    ];
    let absent: Vec<&str> = needed.iter().copied().filter(|t| !on_path(t)).collect();
    if !absent.is_empty() {
        return Some(format!("not installed: {}", absent.join(", ")));
    }
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } != 0 {
        return Some("the local cluster's slurmd needs root".into());
    }
    None
}
