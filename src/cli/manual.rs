//! Shell completions and man pages, generated from the `clap` definition in `cli::args`, so they
//! say what the binary accepts (`mapcheck completions SHELL`, `mapcheck man DIR`).
use std::path::Path;

use clap::CommandFactory as _;
use mapcheck::diag::Error;
use mapcheck::output;

use super::args::Cli;

/// The completion script for `shell`.
pub fn completions(shell: clap_complete::Shell) -> String {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "mapcheck", &mut script);
    String::from_utf8(script).expect("clap_complete writes UTF-8")
}

/// Write `mapcheck.1` and a page per command (`mapcheck-run.1`, `mapcheck-gpu-emit.1`, …) into
/// `dir`; the names written, in order.
pub fn man_pages(dir: &Path) -> Result<Vec<String>, Error> {
    let mut cmd = Cli::command();
    cmd.build();
    let mut written = vec![];
    write_pages(&cmd, "mapcheck", dir, &mut written)?;
    Ok(written)
}

fn write_pages(
    cmd: &clap::Command,
    name: &str,
    dir: &Path,
    written: &mut Vec<String>,
) -> Result<(), Error> {
    let mut page = Vec::new();
    let named = cmd
        .clone()
        .name(name.to_string())
        .bin_name(name.replace('-', " "));
    clap_mangen::Man::new(named)
        .render(&mut page)
        .expect("writing to memory cannot fail");
    let file = format!("{name}.1");
    output::write_file(&dir.join(&file), page)?;
    written.push(file);
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        write_pages(sub, &format!("{name}-{}", sub.get_name()), dir, written)?;
    }
    Ok(())
}
