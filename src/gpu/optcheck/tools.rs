//! Finding `ptxas` and `nvdisasm` (`$MAPCHECK_CUDA_BIN`, the checkout's CUDA wheels, `PATH`)
//! and running them on a harness directory: assemble for sm_90, disassemble, check the SASS.
use std::path::{Path, PathBuf};
use std::process::Command;

use super::*;

/// Where `ptxas` and `nvdisasm` are.
#[derive(Clone, Debug)]
pub struct Tools {
    pub(crate) ptxas: PathBuf,
    pub(crate) nvdisasm: PathBuf,
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

/// The files `check_dir` writes into a harness directory: the cubin and its SASS.
pub const FILES: [&str; 2] = [
    concat!("kernel.", arch!(), ".cubin"),
    concat!("kernel.", arch!(), ".sass"),
];

/// Assemble and disassemble the harness in `dir` (writing `FILES` beside it) and check the SASS.
pub fn check_dir(dir: &Path, tools: &Tools) -> Result<Report> {
    let h = PtxHarness::load(dir)?;
    let cubin = dir.join(FILES[0]);
    let ptx = dir.join(crate::gpu::ptx::KERNEL_FILE);
    let arch = format!("-arch={ARCH}");
    tool_output(
        &tools.ptxas,
        &[
            arch.as_ref(),
            "-o".as_ref(),
            cubin.as_os_str(),
            ptx.as_os_str(),
        ],
    )?;
    let sass = tool_output(&tools.nvdisasm, &["-c".as_ref(), cubin.as_os_str()])?;
    let sass_path = dir.join(FILES[1]);
    crate::output::write_file(&sass_path, &sass)?;
    Ok(check_sass(&h.test, &h.events, &sass))
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
