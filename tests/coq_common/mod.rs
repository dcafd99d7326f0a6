//! Shared by the Coq tests: compiling an export directory with coqc.
use std::path::Path;
use std::process::Command;

/// Compile every file of an export directory in order; the compiler's output on failure.
pub fn coqc_all(dir: &Path, files: &[String]) -> Result<String, String> {
    let mut log = String::new();
    for f in files {
        let out = Command::new("coqc")
            .args(["-R", ".", "Mapcheck", f])
            .current_dir(dir)
            .output()
            .map_err(|e| format!("cannot run coqc ({e}); install Coq: scripts/install-deps.sh"))?;
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            return Err(format!("coqc {f} failed in {}:\n{text}", dir.display()));
        }
        log.push_str(&text);
    }
    Ok(log)
}
