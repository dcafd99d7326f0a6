//! The `mapcheck` command line: parses arguments, calls one library entry point, prints, exits.
//!
//! Exit status: 0 success (for `check`: no counterexample up to the bound), 1 a counterexample
//! found (also by a check stopped early), 2 bad input or a failed write (a diagnostic on stderr;
//! with `--json` also as JSON on stdout), 3 (`gpu run`) no device to run on, 4 a check stopped
//! (SIGINT, SIGTERM, `--timeout`) before its bound with no counterexample found so far, 141
//! standard output closed (`| head`), 130 another SIGINT or SIGTERM 2 s or more after the first.
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use mapcheck::diag::Error;
use mapcheck::encode::Backend;
use mapcheck::output::{eprint, print};
use mapcheck::solver::Stop;
use mapcheck::{bench, coq, ir, litmus, mapping, oracle, report, runner, search};

/// A check stopped before its bound with nothing found.
const STOPPED: u8 = 4;

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
        /// Refuse a test with more candidate executions than this by the runner's estimate.
        #[arg(long, default_value_t = runner::MAX_CANDIDATES)]
        max_candidates: u64,
    },
    /// Agreement with external verdicts, per suite.
    Oracle {
        /// Oracle directory (with `expected/` and `litmus/`).
        #[arg(default_value = "tests/data/oracle/dat3m")]
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
    /// Search for a counterexample to a mapping (also: `mapcheck FILE.map …`).
    Check {
        /// The mapping, a `.map` file.
        mapping: PathBuf,
        /// Largest program size, in source events (an RMW counts two).
        #[arg(long, default_value_t = 4, value_parser = at_least_one)]
        bound: usize,
        /// Count the bound as the Alloy artifact of ASPLOS'19 did (N source and N target events,
        /// N scopes, no SC accesses) instead of N source events.
        #[arg(long)]
        alloy_bounds: bool,
        /// Check only this source axiom (repeatable).
        #[arg(long)]
        axiom: Vec<String>,
        /// At most this many threads.
        #[arg(long, value_parser = at_least_one)]
        threads: Option<usize>,
        /// At most this many locations.
        #[arg(long, value_parser = at_least_one)]
        locations: Option<usize>,
        /// SAT solver.
        #[arg(long, value_enum, default_value_t = SolverArg::Batsat)]
        solver: SolverArg,
        /// Stop at the first bound where some axiom has a counterexample.
        #[arg(long)]
        first: bool,
        /// Write counterexamples (litmus tests, DOT graphs) into this directory.
        #[arg(short, long, default_value = "counterexamples")]
        output: PathBuf,
        /// Also write each counterexample as a Coq refutation into DIR/<name>/.
        #[arg(long, value_name = "DIR")]
        coq: Option<PathBuf>,
        /// Stop after this many seconds with what is settled (as on SIGINT or SIGTERM).
        #[arg(long, value_name = "SECONDS", value_parser = at_least_one_u64)]
        timeout: Option<u64>,
        /// Print the report (and any error) as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write a mapping's models and proof obligations as Coq files (compile with coqc).
    ExportCoq {
        /// The mapping, a `.map` file.
        mapping: PathBuf,
        /// The directory to write (created if missing).
        #[arg(short, long)]
        output: PathBuf,
        /// Search up to this bound first (natural counting), name the result in each obligation
        /// and refute the claim of each axiom with a counterexample (0: no search).
        #[arg(long, default_value_t = 5)]
        bound: usize,
        #[arg(long, value_enum, default_value_t = SolverArg::Batsat)]
        solver: SolverArg,
    },
    /// Time the mapping check against the published Alloy times (ASPLOS'19 Fig. 17) and B1.
    Bench {
        /// Bounds of the Fig. 17 table (Alloy counting).
        #[arg(long, value_delimiter = ',', default_value = "4,5,6")]
        bounds: Vec<usize>,
        /// Search B1 up to this bound (natural counting).
        #[arg(long, default_value_t = 7)]
        b1_bound: usize,
        #[arg(long, value_enum, default_value_t = SolverArg::Cadical)]
        solver: SolverArg,
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
    /// Litmus tests as GPU harnesses: `gpu emit` writes one, `gpu run` runs it.
    Gpu {
        #[command(subcommand)]
        command: GpuCommand,
    },
}

#[derive(Subcommand)]
enum GpuCommand {
    /// Write a harness for a litmus test, its condition selected to identify the execution.
    Emit {
        /// The test (a counterexample's target.litmus, or any PTX, C or OpenCL test).
        test: PathBuf,
        #[arg(long, value_enum)]
        target: TargetArg,
        /// The harness directory to write.
        #[arg(short, long)]
        output: PathBuf,
        /// Parameter file (default: gpu/params.toml, compiled in).
        #[arg(long)]
        params: Option<PathBuf>,
        /// The test's model: the selected outcome must be one it allows.
        #[arg(long)]
        model: Option<PathBuf>,
        /// A mapping: its target model judges the test, its source model judges --source.
        #[arg(long)]
        mapping: Option<PathBuf>,
        /// The counterexample's source program: the selected outcome must be one its model forbids.
        #[arg(long)]
        source: Option<PathBuf>,
        /// The source program's model (instead of the mapping's).
        #[arg(long)]
        source_model: Option<PathBuf>,
        /// Run the harness once written (as `gpu run`).
        #[arg(long)]
        run: bool,
        /// With --run: launches, instead of the parameter file's `iterations`.
        #[arg(long)]
        iterations: Option<u32>,
        /// With --run: the OpenCL device, by its index in the detection list.
        #[arg(long)]
        device: Option<usize>,
    },
    /// Detect devices, run a harness directory, print the outcome histogram and statistics.
    Run {
        /// A directory written by `gpu emit`.
        dir: PathBuf,
        /// Parameter file (default: DIR/params.toml).
        #[arg(long)]
        params: Option<PathBuf>,
        /// Launches, instead of the parameter file's `iterations`.
        #[arg(long)]
        iterations: Option<u32>,
        /// Try K random parameter sets; keep the best in DIR/params-tuned.toml.
        #[arg(long, value_name = "K")]
        tune: Option<usize>,
        /// The OpenCL device, by its index in the detection list (default: first GPU, else first).
        #[arg(long)]
        device: Option<usize>,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum TargetArg {
    /// PTX kernel and CUDA host.
    Cuda,
    /// OpenCL C kernels (run by `mapcheck gpu run`).
    Opencl,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum SolverArg {
    /// BatSat (pure Rust).
    Batsat,
    /// CaDiCaL.
    Cadical,
}

impl From<SolverArg> for Backend {
    fn from(s: SolverArg) -> Backend {
        match s {
            SolverArg::Batsat => Backend::BatSat,
            SolverArg::Cadical => Backend::Cadical,
        }
    }
}

/// A count that must be at least 1 (0 would search nothing and report it clean).
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1 (0 would search no program)".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

fn at_least_one_u64(text: &str) -> Result<u64, String> {
    at_least_one(text).map(|n| n as u64)
}

/// The arguments, with `mapcheck FILE.map …` read as `mapcheck check FILE.map …`.
fn arguments() -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args
        .get(1)
        .is_some_and(|a| Path::new(a).extension().is_some_and(|e| e == "map"))
    {
        args.insert(1, "check".into());
    }
    args
}

fn main() -> ExitCode {
    let cli = Cli::parse_from(arguments());
    let result = match cli.command {
        Command::Run {
            model,
            tests,
            json,
            unroll,
            max_candidates,
        } => run(&model, &tests, json, unroll, max_candidates),
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
        } => compile(&mapping, &source, output.as_deref()),
        Command::Gpu { command } => return gpu(command),
        Command::Bench {
            bounds,
            b1_bound,
            solver,
            json,
        } => bench(&bounds, b1_bound, solver.into(), json),
        Command::Check {
            mapping,
            bound,
            alloy_bounds,
            axiom,
            threads,
            locations,
            solver,
            first,
            output,
            coq,
            timeout,
            json,
        } => {
            let stop = stop_on_signals();
            let opts = search::Options {
                bound,
                counting: if alloy_bounds {
                    search::Counting::Alloy
                } else {
                    search::Counting::Natural
                },
                axioms: axiom,
                threads,
                locations,
                backend: solver.into(),
                first,
                stop: match timeout {
                    Some(t) => stop.with_deadline(Instant::now() + Duration::from_secs(t)),
                    None => stop,
                },
            };
            return check(&mapping, &opts, &output, coq.as_deref(), timeout, json);
        }
        Command::ExportCoq {
            mapping,
            output,
            bound,
            solver,
        } => export_coq(&mapping, &output, bound, solver.into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e, false),
    }
}

/// Report `e` (on stderr; with `json` also as JSON on stdout) and exit with status 2.
fn fail(e: &Error, json: bool) -> ExitCode {
    eprint(&e.render());
    if json {
        print(&format!("{}\n", e.json()));
    }
    ExitCode::from(2)
}

/// A `Stop` that SIGINT and SIGTERM request (its cause is the signal's number). A signal that
/// comes `FORCE_AFTER` or more after the first ends the program at once with status 130 (a user
/// who presses Ctrl-C again); one sooner is the same request again (`timeout -s INT` signals
/// the child and then its whole process group, so the child gets two at once).
fn stop_on_signals() -> Stop {
    use signal_hook::consts::{SIGINT, SIGTERM};
    const FORCE_AFTER: Duration = Duration::from_secs(2);
    let stop = Stop::new();
    let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) {
        Ok(s) => s,
        Err(e) => {
            eprint(&format!("warning: cannot handle SIGINT and SIGTERM: {e}\n"));
            return stop;
        }
    };
    let cause = stop.cause_cell().clone();
    std::thread::spawn(move || {
        let mut first: Option<Instant> = None;
        for signal in signals.forever() {
            match first {
                Some(t) if t.elapsed() >= FORCE_AFTER => std::process::exit(130),
                Some(_) => {}
                None => {
                    first = Some(Instant::now());
                    cause.store(signal as usize, std::sync::atomic::Ordering::SeqCst);
                }
            }
        }
    });
    stop
}

/// What stopped a check, in words.
fn stop_cause(stop: &Stop, timeout: Option<u64>) -> String {
    use signal_hook::consts::{SIGINT, SIGTERM};
    match stop.cause() {
        c if c == SIGINT as usize => "SIGINT".into(),
        c if c == SIGTERM as usize => "SIGTERM".into(),
        0 if stop.deadline_passed() => format!("--timeout {} s", timeout.unwrap_or_default()),
        _ => "asked to stop".into(),
    }
}

fn run(
    model: &Path,
    tests: &[PathBuf],
    json: bool,
    unroll: usize,
    max_candidates: u64,
) -> Result<(), Error> {
    let model = ir::load(model)?;
    let opts = runner::Options {
        unroll,
        max_candidates,
    };
    for path in tests {
        let test = litmus::parse_file(path)?;
        let outcome = runner::run(&model, &test, &opts)?;
        if json {
            let text = serde_json::to_string_pretty(&outcome).expect("outcomes serialise");
            print(&format!("{text}\n"));
        } else {
            print(&runner::render_herd(&outcome));
        }
    }
    Ok(())
}

fn run_oracle(dir: &Path, table: &Path, only: &[String], json: bool) -> Result<(), Error> {
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
        let text = serde_json::to_string_pretty(&reports).expect("reports serialise");
        print(&format!("{text}\n"));
    } else {
        print(&oracle::render(&reports));
    }
    Ok(())
}

fn compile(map: &Path, source: &Path, output: Option<&Path>) -> Result<(), Error> {
    if let Some(path) = output {
        refuse_overwriting(path, &[map, source])?;
    }
    let mapping = mapping::load(map)?;
    let test = litmus::parse_file(source)?;
    let text = litmus::print_ptx(&mapping.compile_program(&test)?.target)?;
    match output {
        Some(path) => mapcheck::output::write_file(path, text),
        None => {
            print(&text);
            Ok(())
        }
    }
}

/// Refuse an output path that is one of the command's inputs (or the same file by another name).
fn refuse_overwriting(output: &Path, inputs: &[&Path]) -> Result<(), Error> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    match inputs.iter().find(|i| same(output, i)) {
        Some(input) => Err(Error::file(
            output.display().to_string(),
            format!("is the input {}; give another output file", input.display()),
        )),
        None => Ok(()),
    }
}

fn check(
    map: &Path,
    opts: &search::Options,
    out: &Path,
    coq_dir: Option<&Path>,
    timeout: Option<u64>,
    json: bool,
) -> ExitCode {
    let m = match mapping::load(map) {
        Ok(m) => m,
        Err(e) => return fail(&e, json),
    };
    let live = match search::scope(&m, opts).and_then(|scope| {
        Ok((
            scope,
            report::LiveReport::new(&m, opts, out, coq_dir, json)?,
        ))
    }) {
        Ok((scope, live)) => {
            for gap in &scope.not_searched {
                eprint(&format!("warning: not searched: {gap}\n"));
            }
            if !json {
                print(&report::render_header(&m.path, opts, &scope));
            }
            live
        }
        Err(e) => return fail(&e, json),
    };
    let result = search::check(&m, opts, &|e| live.observe(e));
    let (r, files) = match live.finish(result) {
        Ok(done) => done,
        Err(e) => return fail(&e, json),
    };
    let cause = r.stopped.then(|| stop_cause(&opts.stop, timeout));
    if json {
        print(&format!("{}\n", report::json(&r, &files, cause.as_deref())));
    } else {
        print(&report::render_summary(&r, &files, cause.as_deref()));
    }
    if r.axioms.iter().any(|a| a.counterexample.is_some()) {
        ExitCode::from(1)
    } else if r.stopped {
        ExitCode::from(STOPPED)
    } else {
        ExitCode::SUCCESS
    }
}

fn export_coq(map: &Path, out: &Path, bound: usize, backend: Backend) -> Result<(), Error> {
    mapcheck::output::OutputDir::check(out)?;
    let m = mapping::load(map)?;
    let report = if bound == 0 {
        None
    } else {
        let opts = search::Options::natural(bound, backend);
        let progress = report::Progress::new(bound);
        let r = search::check(&m, &opts, &|e| progress.observe(&e));
        progress.finish();
        Some(r?)
    };
    let evidence = report.as_ref().map(coq::evidence).unwrap_or_default();
    let counterexamples: Vec<_> = report
        .iter()
        .flat_map(|r| &r.axioms)
        .filter_map(|a| a.counterexample.as_ref())
        .collect();
    let written = coq::export_mapping(&m, &evidence, &counterexamples, out)?;
    print(&format!(
        "wrote {} files to {} (compile: cd {} && coq_makefile -f _CoqProject -o Makefile && make)\n",
        written.files.len(),
        out.display(),
        out.display()
    ));
    Ok(())
}

fn bench(bounds: &[usize], b1_bound: usize, backend: Backend, json: bool) -> Result<(), Error> {
    let rows = bench::run(bounds, b1_bound, backend, &|r| {
        eprint(&format!(
            "{} bound {}: {:.2} s, {}\n",
            r.check, r.bound, r.seconds, r.result
        ))
    })?;
    if json {
        let text = serde_json::to_string_pretty(&rows).expect("rows serialise");
        print(&format!("{text}\n"));
    } else {
        print(&bench::render(&rows, backend));
    }
    Ok(())
}

fn gpu(command: GpuCommand) -> ExitCode {
    use mapcheck::gpu::commands::{self, EmitOptions, Failure, RunOptions, Target};
    let options = match command {
        GpuCommand::Emit {
            test,
            target,
            output,
            params,
            model,
            mapping,
            source,
            source_model,
            run,
            iterations,
            device,
        } => {
            let target = match target {
                TargetArg::Cuda => Target::Cuda,
                TargetArg::Opencl => Target::OpenCl,
            };
            let o = EmitOptions {
                test,
                target,
                output: output.clone(),
                params,
                model,
                mapping,
                source,
                source_model,
            };
            match commands::emit(&o) {
                Ok(e) => print(&commands::render_emitted(&e)),
                Err(e) => return fail(&e, false),
            }
            if !run {
                return ExitCode::SUCCESS;
            }
            RunOptions {
                dir: output,
                params: None,
                iterations,
                tune: None,
                device,
            }
        }
        GpuCommand::Run {
            dir,
            params,
            iterations,
            tune,
            device,
        } => RunOptions {
            dir,
            params,
            iterations,
            tune,
            device,
        },
    };
    match commands::run(&options, &mut |s| print(s)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(e)) => fail(&e, false),
        Err(Failure::NoDevice(why)) => {
            eprint(&format!("{why}\n"));
            ExitCode::from(3)
        }
    }
}
