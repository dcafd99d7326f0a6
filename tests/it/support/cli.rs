//! The built `mapcheck` binary as the CLI tests run it: one process, its status and outputs.
use std::process::Command;

/// Run `mapcheck ARGS`: (exit status, stdout, stderr); -1 when a signal ended it.
pub fn mapcheck(args: &[&str]) -> (i32, String, String) {
    mapcheck_with(args, |_| {})
}

/// As `mapcheck`, with the command set up by `setup` first (its directory, its environment).
pub fn mapcheck_with(args: &[&str], setup: impl FnOnce(&mut Command)) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mapcheck"));
    setup(command.args(args));
    let out = command.output().expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}
