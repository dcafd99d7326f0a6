//! The built `mapcheck` binary as the CLI tests run it: one process, its status and outputs.
use std::process::Command;

/// Run `mapcheck ARGS`: (exit status, stdout, stderr); -1 when a signal ended it.
pub fn mapcheck(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mapcheck"))
        .args(args)
        .output()
        .expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}
