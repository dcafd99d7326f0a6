//! Finding `ptxas` and `nvdisasm` (`$MAPCHECK_CUDA_BIN`, the checkout's CUDA wheels, `PATH`)
//! and running them on a harness directory: assemble for sm_90, disassemble, check the SASS.
use std::path::{Path, PathBuf};
use std::process::Command;

use super::*;
use crate::gpu::cuda::harness::KERNEL_FILE;

/// Where `ptxas` and `nvdisasm` are.
#[derive(Clone, Debug)]
pub struct Tools {
    /// The PTX assembler.
    pub ptxas: PathBuf,
    /// The cubin disassembler.
    pub nvdisasm: PathBuf,
}

/// The tools from `$MAPCHECK_CUDA_BIN`, else `.tools/cuda` of the checkout (where
/// `scripts/install-cuda-wheels.sh` puts them), else `PATH`; the error says where it looked.
pub fn find_tools() -> std::result::Result<Tools, String> {
    let mut dirs: Vec<PathBuf> = vec![];
    if let Some(d) = std::env::var_os(BIN_ENV) {
        dirs.push(PathBuf::from(d));
    } else {
        for root in [Path::new(env!("CARGO_MANIFEST_DIR")), Path::new(".")] {
            dirs.extend(wheel_bins(&root.join(".tools/cuda")));
        }
        dirs.extend(
            std::env::var_os("PATH")
                .iter()
                .flat_map(std::env::split_paths),
        );
    }
    let find = |tool: &str| dirs.iter().map(|d| d.join(tool)).find(|p| p.is_file());
    match (find("ptxas"), find("nvdisasm")) {
        (Some(ptxas), Some(nvdisasm)) => Ok(Tools { ptxas, nvdisasm }),
        _ => Err(format!(
            "ptxas and nvdisasm not found (looked in {}): run scripts/install-cuda-wheels.sh, \
             set {BIN_ENV}, or put them on PATH",
            if std::env::var_os(BIN_ENV).is_some() {
                BIN_ENV
            } else {
                ".tools/cuda and PATH"
            }
        )),
    }
}

/// The `bin` directories of the CUDA wheels under `root` (`nvidia/cu13/bin`, …).
fn wheel_bins(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root.join("nvidia")) else {
        return vec![];
    };
    let mut bins: Vec<PathBuf> = entries.flatten().map(|e| e.path().join("bin")).collect();
    bins.sort();
    bins
}

/// What `check_for` came to.
#[derive(Clone, Debug)]
pub(crate) enum Checked {
    /// ptxas cannot build the architecture: its message.
    Unsupported(String),
    /// optcheck's report on the SASS.
    Report(Report),
}

/// Assemble and disassemble the harness in `dir` for sm_90, check the SASS, and write the SASS
/// beside it and, only when optcheck passed, the cubin (so that a cubin in a harness directory is
/// one optcheck passed; `ptx::module_for` loads it).
pub fn check_dir(dir: &Path, tools: &Tools) -> Result<Report> {
    let scratch =
        tempfile::tempdir().map_err(|e| Error::file("a temporary directory", e.to_string()))?;
    let report = match check_for(dir, tools, ARCH, scratch.path())? {
        Checked::Report(r) => r,
        Checked::Unsupported(why) => {
            return Err(Error::file(tools.ptxas.display().to_string(), why))
        }
    };
    let built = |name: &str| {
        let path = scratch.path().join(name);
        std::fs::read(&path).map_err(|e| Error::file(path.display().to_string(), e.to_string()))
    };
    crate::output::write_file(&dir.join(FILES[1]), built(FILES[1])?)?;
    if report.passed() {
        crate::output::write_file(&dir.join(FILES[0]), built(FILES[0])?)?;
    }
    Ok(report)
}

/// Assemble the harness in `dir` for `arch` into `out` (`kernel.<arch>.cubin`, and its SASS as
/// `kernel.<arch>.sass`) and check the SASS against the expectations measured for sm_90
/// (decision 004; a later architecture that emits other instructions fails, and says which).
pub(crate) fn check_for(dir: &Path, tools: &Tools, arch: &str, out: &Path) -> Result<Checked> {
    let h = Harness::load(dir)?;
    let cubin = out.join(cubin_file(arch));
    let ptx = dir.join(KERNEL_FILE);
    let arch_flag = format!("-arch={arch}");
    let assembled = Command::new(&tools.ptxas)
        .args([
            arch_flag.as_ref(),
            "-o".as_ref(),
            cubin.as_os_str(),
            ptx.as_os_str(),
        ])
        .output()
        .map_err(|e| {
            Error::file(
                tools.ptxas.display().to_string(),
                format!("cannot run: {e}"),
            )
        })?;
    if !assembled.status.success() {
        let why = String::from_utf8_lossy(&assembled.stderr)
            .trim()
            .to_string();
        if why.contains("not defined for option 'gpu-name'")
            || why.contains("Unsupported gpu architecture")
        {
            return Ok(Checked::Unsupported(why));
        }
        return Err(Error::file(
            tools.ptxas.display().to_string(),
            format!("failed ({})", assembled.status),
        )
        .with_note(why));
    }
    let sass = tool_output(&tools.nvdisasm, &["-c".as_ref(), cubin.as_os_str()])?;
    crate::output::write_file(&out.join(format!("kernel.{arch}.sass")), &sass)?;
    Ok(Checked::Report(check_sass(&h.test, &h.events, &sass)))
}

/// Run a tool; its standard output, or an error with its standard error.
fn tool_output(tool: &Path, args: &[&std::ffi::OsStr]) -> Result<String> {
    let name = tool.display().to_string();
    let out = Command::new(tool)
        .args(args)
        .output()
        .map_err(|e| Error::file(&name, format!("cannot run: {e}")))?;
    if !out.status.success() {
        return Err(Error::file(&name, format!("failed ({})", out.status))
            .with_note(String::from_utf8_lossy(&out.stderr).trim().to_string()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
