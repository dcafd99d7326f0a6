//! The `mapcheck` command line: parses arguments, calls one library entry point, prints, exits.
//!
//! Exit status: 0 success, 2 bad input (rendered diagnostic on stderr).
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use mapcheck::diag::Error;
use mapcheck::{ir, litmus, mapping, oracle, runner};

#[derive(Parser)]
#[command(
    name = "mapcheck",
    version,
    about = "Checks compilation mappings between memory consistency models"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// What a model allows for litmus tests (herd7's output shape).
    Run {
        /// The model, a cat file.
        model: PathBuf,
        /// One or more litmus tests.
        #[arg(required = true)]
        tests: Vec<PathBuf>,
        /// Print JSON instead of herd7's text.
        #[arg(long)]
        json: bool,
        /// Times one instruction may run on a path (loop unrolling bound).
        #[arg(long, default_value_t = 2)]
        unroll: usize,
    },
    /// Agreement with external verdicts, per suite.
    Oracle {
        /// Oracle directory (with `expected/` and `litmus/`).
        #[arg(default_value = "../shared/oracle/dat3m")]
        dir: PathBuf,
        /// Suite → model table.
        #[arg(long, default_value = "models/suites.tsv")]
        suites: PathBuf,
        /// Run only these suites.
        #[arg(long)]
        suite: Vec<String>,
        #[arg(long)]
        json: bool,
    },
    /// Compile a litmus test with a mapping; print the target test as a PTX litmus file.
    Compile {
        /// The mapping, a `.map` file.
        mapping: PathBuf,
        /// The source litmus test.
        source: PathBuf,
        /// Write the compiled test here instead of to stdout.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run {
            model,
            tests,
            json,
            unroll,
        } => run(&model, &tests, json, unroll),
        Command::Oracle {
            dir,
            suites,
            suite,
            json,
        } => run_oracle(&dir, &suites, &suite, json),
        Command::Compile {
            mapping,
            source,
            output,
        } => compile(&mapping, &source, output.as_ref()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprint!("{}", e.render());
            ExitCode::from(2)
        }
    }
}

fn run(model: &PathBuf, tests: &[PathBuf], json: bool, unroll: usize) -> Result<(), Error> {
    let model = ir::load(model)?;
    let opts = runner::Options { unroll };
    for path in tests {
        let test = litmus::parse_file(path)?;
        let outcome = runner::run(&model, &test, &opts)?;
        if json {
            println!(
                "{}",
                serde_json::to_string_pretty(&outcome).expect("outcomes serialise")
            );
        } else {
            print!("{}", runner::render_herd(&outcome));
        }
    }
    Ok(())
}

fn run_oracle(dir: &PathBuf, table: &PathBuf, only: &[String], json: bool) -> Result<(), Error> {
    let suites = oracle::read_suites(table)?;
    if let Some(unknown) = only.iter().find(|n| !suites.iter().any(|s| &s.name == *n)) {
        let known: Vec<&str> = suites.iter().map(|s| s.name.as_str()).collect();
        return Err(Error::file(
            table.display().to_string(),
            format!("no suite `{unknown}`; known: {}", known.join(", ")),
        ));
    }
    let chosen: Vec<_> = suites
        .iter()
        .filter(|s| only.is_empty() || only.contains(&s.name))
        .collect();
    let opts = runner::Options::default();
    let reports = chosen
        .iter()
        .map(|s| oracle::run_suite(dir, s, &opts))
        .collect::<Result<Vec<_>, _>>()?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&reports).expect("reports serialise")
        );
    } else {
        print!("{}", oracle::render(&reports));
    }
    Ok(())
}

fn compile(map: &Path, source: &Path, output: Option<&PathBuf>) -> Result<(), Error> {
    let mapping = mapping::load(map)?;
    let test = litmus::parse_file(source)?;
    let text = litmus::print_ptx(&mapping.compile_program(&test)?.target)?;
    match output {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| Error::file(path.display().to_string(), format!("cannot write: {e}"))),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}
