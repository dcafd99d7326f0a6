//! A harness directory, for either target: what `mapcheck gpu emit` writes and `gpu run` reads.
//!
//! Files: `test.litmus` (the test with its selected condition; PTX or C/OpenCL syntax as the test
//! was written), `params.toml` (the parameters it was emitted with), the kernel file of its
//! target (`opencl::KERNEL_FILE`, `cuda::KERNEL_FILE`), and what later steps add:
//! `judgement.json` (`gpu emit`), `params-tuned.toml` (`gpu run --tune`), `result.json` and
//! `result.csv` (`gpu run`), optcheck's files (CUDA). `gpu run` regenerates the kernel from
//! `test.litmus` and refuses a kernel file that differs (stale, or edited): the test is the one
//! source of truth.
//!
//! Owns: the file names, `write_dir`, `load_checked`, `print_test`.
use std::path::{Path, PathBuf};

use super::params::Params;
use crate::diag::{Error, Result};
use crate::litmus::{self, Arch, Litmus};
use crate::output::OutputDir;

pub(crate) const TEST_FILE: &str = "test.litmus";
pub(crate) const PARAMS_FILE: &str = "params.toml";
pub(crate) const TUNED_FILE: &str = "params-tuned.toml";
/// The models' verdicts on every observable state (`gpu emit`, `judgement`).
pub(crate) const JUDGEMENT_FILE: &str = "judgement.json";
/// What `gpu run` writes (`results`).
pub(crate) const RESULT_FILES: [&str; 2] = ["result.json", "result.csv"];

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

/// A harness directory: `test.litmus`, `params.toml` and the kernel file. `later` names the
/// files other steps write into it (`gpu emit`'s judgement, `gpu run --tune`, optcheck), listed as this run's so that the
/// next `gpu emit` into the directory removes them with the rest. The directory is returned
/// still held, so that `gpu emit` writes its judgement and optcheck's files under the same
/// lock (issue 60: a second run claimed it in between and swept a file being written).
pub(crate) fn write_dir(
    dir: &Path,
    test: &Litmus,
    params: &Params,
    kernel_file: &str,
    kernel: &str,
    later: &[&str],
) -> Result<(Vec<PathBuf>, OutputDir)> {
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
    let written = files
        .into_iter()
        .map(|(name, text)| out.write(name, text))
        .collect::<Result<_>>()?;
    Ok((written, out))
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
