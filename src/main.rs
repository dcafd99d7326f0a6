//! The `mapcheck` command line: parses arguments (`cli::args`), calls one library entry point per
//! command, prints, exits.
//!
//! Exit status (`exit_status`): 0 success (for `check`: no counterexample up to the bound), 1 a
//! counterexample found (also by a check stopped early) or, for `oracle`, a test that disagrees
//! with its verdict or could not be run, or, for `gpu run`, an observed outcome the test's model
//! forbids, 2 bad input or a failed write (a
//! diagnostic on stderr; with `check --json` also as JSON on stdout), 70 an internal error: a bug
//! in mapcheck, such as two of its parts disagreeing or a panic (`diag::Fault::Internal`; its
//! diagnostic the same way), 2 also when memory ran out (`cli::memory`), 3 (`gpu run`) no device to
//! run on, 4 a check stopped (SIGINT, SIGTERM, `--timeout`) before its bound with no
//! counterexample found so far (for `check --shard`: its shard stopped; for `merge`: a shard the
//! verdicts need is missing or was stopped; for `export-coq`: its search stopped, the export
//! written with the bounds it settled); and, ended where they happen, 141 standard output closed
//! (`| head`, `output::print`), 130 another SIGINT or SIGTERM 2 s or more after the first
//! (`cli::signals`).
//!
//! Files:
//! - `cli/args.rs`: the `clap` argument structs, each command's arguments turned into the library's
//!   options, once
//! - `cli/memory.rs`: the binary's allocator: the system's, with a failed allocation reported (exit
//!   status 2) instead of aborting
//! - `cli/signals.rs`: SIGINT and SIGTERM turned into a `solver::Stop`; a second one 2 s or more
//!   later exits 130
//! - `cli/manual.rs`: shell completions and man pages generated from `cli/args.rs`
mod cli {
    pub mod args;
    pub mod manual;
    pub mod memory;
    pub mod signals;
}

#[global_allocator]
static ALLOCATOR: cli::memory::Reporting = cli::memory::Reporting;

use std::process::ExitCode;
use std::time::Instant;

use cli::args::{
    BenchArgs, CheckArgs, Cli, Command, CompareArgs, CompileArgs, DialectArg, ExportCoqArgs,
    GpuCommand, GpuEmitArgs, MergeArgs, OracleArgs, RepairArgs, RunArgs,
};
use mapcheck::batch::{self, Ran};
use mapcheck::diag::Fault;
use mapcheck::gpu::commands::{self, Failure};
use mapcheck::output::{self, eprint, print, OutputDir};
use mapcheck::{
    bench, compare, coq, decide, ir, litmus, mapping, oracle, repair, report, runner, search, shard,
};

/// How a command that did not fail ended.
enum Ended {
    /// Done; for `check`: no counterexample up to the bound.
    Done,
    /// `check` found a counterexample (also one stopped early).
    Counterexample,
    /// `check` stopped before its bound with nothing found; `run`: a test stopped by its
    /// `--timeout`.
    Stopped,
    /// `oracle`: some test disagrees with its verdict or could not be run.
    Disagreement,
    /// `gpu run`: some run observed an outcome the test's model forbids.
    Forbidden,
    /// `gpu run` of several directories, or `run` of several tests: some could not run (each
    /// diagnostic printed).
    NotRun,
    /// `run` of several tests: one met a bug in mapcheck (its diagnostic printed).
    Bug,
}

fn main() -> ExitCode {
    let cli = Cli::parse_arguments();
    let errors_as_json = match &cli.command {
        Command::Check(c) => c.json,
        Command::Compare(c) => c.json,
        Command::Merge(m) => m.json,
        Command::Repair(r) => r.json,
        _ => false,
    };
    let result = run_catching_panics(|| match &cli.command {
        Command::Run(args) => run(args),
        Command::Oracle(args) => run_oracle(args),
        Command::Check(args) => check(args),
        Command::Merge(args) => merge(args),
        Command::Compare(args) => run_compare(args),
        Command::Repair(args) => run_repair(args),
        Command::ExportCoq(args) => export_coq(args),
        Command::Bench(args) => run_bench(args),
        Command::Compile(args) => compile(args),
        Command::Gpu { command } => gpu(command),
        Command::Completions { shell } => {
            print(&cli::manual::completions(*shell));
            Ok(Ended::Done)
        }
        Command::Man { dir } => {
            for page in cli::manual::man_pages(dir)? {
                print(&format!("{}\n", dir.join(page).display()));
            }
            Ok(Ended::Done)
        }
    });
    exit_status(result, errors_as_json)
}

/// `command()`, a panic in it turned into an internal error (`diag::catching_panics`).
fn run_catching_panics(command: impl FnOnce() -> Result<Ended, Failure>) -> Result<Ended, Failure> {
    mapcheck::diag::catching_panics(command).unwrap_or_else(|e| Err(Failure::Diagnostic(e)))
}

/// The exit status of a command's result; a failure is reported first, on stderr (bad input
/// also as JSON on stdout when `errors_as_json`).
fn exit_status(result: Result<Ended, Failure>, errors_as_json: bool) -> ExitCode {
    match &result {
        Err(Failure::Diagnostic(e)) => {
            eprint(&e.render());
            if errors_as_json {
                print_json("mapcheck-error", e.json());
            }
        }
        Err(Failure::NoDevice(why)) => eprint(&format!("{why}\n")),
        Ok(_) => {}
    }
    ExitCode::from(status(&result))
}

/// The exit status of a command's result (the module's header lists them).
fn status(result: &Result<Ended, Failure>) -> u8 {
    match result {
        Ok(Ended::Done) => 0,
        Ok(Ended::Counterexample | Ended::Disagreement | Ended::Forbidden) => 1,
        Ok(Ended::Stopped) => 4,
        Ok(Ended::NotRun) => 2,
        Ok(Ended::Bug) => Fault::Internal.exit_status(),
        Err(Failure::Diagnostic(e)) => e.fault().exit_status(),
        Err(Failure::NoDevice(_)) => 3,
    }
}

/// Print `value` as the JSON document of `format` (`output::JSON_FORMATS`), pretty.
fn print_json(format: &str, value: impl serde::Serialize) {
    let value = serde_json::to_value(value).expect("results serialise");
    let document = mapcheck::output::json_document(format, value);
    let text = serde_json::to_string_pretty(&document).expect("results serialise");
    print(&format!("{text}\n"));
}

/// Print the models' loading warnings on stderr, each distinct one once.
fn warn<'m>(models: impl IntoIterator<Item = &'m ir::Model>) {
    let mut seen = std::collections::BTreeSet::new();
    for w in models.into_iter().flat_map(|m| &m.warnings) {
        if seen.insert(w) {
            eprint(&format!("{w}\n"));
        }
    }
}

fn run(args: &RunArgs) -> Result<Ended, Failure> {
    let model = ir::load_with(&args.model, &args.cat.load_options())?;
    warn([&model]);
    if args.json {
        // One document however many tests: every outcome, printed once all have run.
        let outcomes = (args.tests.iter())
            .map(|path| {
                let test = batch::read_test(path, args.default_scope.as_deref())?;
                decide::run(&model, &test, &args.options())
            })
            .collect::<Result<Vec<_>, _>>()?;
        print_json("mapcheck-run", serde_json::json!({ "outcomes": outcomes }));
        return Ok(Ended::Done);
    }
    let progress = (args.tests.len() > 1).then(|| batch::BatchProgress::new(args.tests.len()));
    let mut ended = Ended::Done;
    for path in &args.tests {
        if let Some(p) = &progress {
            p.start(path);
        }
        let start = Instant::now();
        let mut ran = batch::run_file(&model, path, &args.options(), args.default_scope.as_deref());
        if let (Ran::Outcome(_, test), Some(dir)) = (&ran, &args.output) {
            let show = args.show.show();
            if let Err(e) = batch::draw_executions(&model, test, path, &args.options(), show, dir) {
                ran = Ran::Bad(e);
            }
        }
        let (text, note) = match (&ran, args.json_lines) {
            (_, true) => (
                ran.json_line(path, start.elapsed(), args.timeout),
                String::new(),
            ),
            (Ran::Outcome(outcome, test), false) if args.herd => (
                runner::render_herd_exact(outcome, test, args.hexa),
                String::new(),
            ),
            (Ran::Outcome(outcome, _), false) => (runner::render_herd(outcome), String::new()),
            (Ran::Bad(e), false) => (String::new(), e.render()),
            (Ran::Stopped, false) => (String::new(), stopped_note(path, args.timeout)),
        };
        match &progress {
            Some(p) => p.ended(&text, &note),
            None => {
                print(&text);
                eprint(&note);
            }
        }
        ended = worse(ended, &ran);
    }
    Ok(ended)
}

/// What `run` says on stderr of a test its `--timeout` stopped.
fn stopped_note(path: &std::path::Path, timeout: Option<u64>) -> String {
    let after = timeout.map_or(String::new(), |t| format!(" after its --timeout of {t} s"));
    format!("warning: {}: stopped{after}; no verdict\n", path.display())
}

/// How a batch ends, one test later: a bug over a bad test over a stopped one.
fn worse(so_far: Ended, ran: &Ran) -> Ended {
    let now = match ran {
        Ran::Outcome(..) => Ended::Done,
        Ran::Bad(e) if e.fault() == Fault::Internal => Ended::Bug,
        Ran::Bad(_) => Ended::NotRun,
        Ran::Stopped => Ended::Stopped,
    };
    let rank = |e: &Ended| match e {
        Ended::Bug => 3,
        Ended::NotRun => 2,
        Ended::Stopped => 1,
        _ => 0,
    };
    match rank(&now) > rank(&so_far) {
        true => now,
        false => so_far,
    }
}

fn run_oracle(args: &OracleArgs) -> Result<Ended, Failure> {
    let suites = oracle::select_suites(&args.suites, &args.suite)?;
    let opts = runner::Options::default();
    let load = args.cat.load_options();
    let models = suites
        .iter()
        .map(|s| match &args.model {
            Some(model) => ir::load_with(model, &load),
            None => s.load_model(&load),
        })
        .collect::<Result<Vec<_>, _>>()?;
    warn(&models);
    let reports = suites
        .iter()
        .zip(&models)
        .map(|(s, model)| oracle::run_suite_under(&args.dir, s, model, &opts))
        .collect::<Result<Vec<_>, _>>()?;
    if args.json {
        print_json("mapcheck-oracle", serde_json::json!({ "suites": reports }));
    } else {
        print(&oracle::render(&reports));
    }
    match oracle::failures(&reports) {
        Some(summary) => {
            eprint(&format!("{summary}\n"));
            Ok(Ended::Disagreement)
        }
        None => Ok(Ended::Done),
    }
}

fn compile(args: &CompileArgs) -> Result<Ended, Failure> {
    if let Some(path) = &args.output {
        output::refuse_overwriting(path, &[&args.mapping, &args.source])?;
    }
    let mapping = mapping::load(&args.mapping)?;
    let (test, positions) = litmus::parse_file_with_positions(&args.source)?;
    let test = litmus::with_default_scope(test, args.default_scope.as_deref())?;
    let text = litmus::print_ptx(&mapping.compile_program_at(&test, &positions)?.target)?;
    match &args.output {
        Some(path) => output::write_file(path, text)?,
        None => print(&text),
    }
    Ok(Ended::Done)
}

fn check(args: &CheckArgs) -> Result<Ended, Failure> {
    let opts = args.options(cli::signals::stop_on_signals());
    let mapping = mapping::load_with(&args.mapping, &args.variants())?;
    warn([&mapping.source, &mapping.target]);
    if let Some(test) = &args.test {
        return check_test(args, &opts, &mapping, test);
    }
    if let Some(spec) = args.shard {
        let cause = || cli::signals::stop_cause(&opts.stop, args.search.timeout);
        let var = |name: &str| std::env::var(name).ok();
        let r = shard::check_shard(
            &mapping,
            &opts,
            spec,
            args.shards,
            &var,
            &args.output,
            args.json,
            &cause,
        )?;
        if args.json {
            print(&shard::result_json(&r));
        } else {
            print(&shard::render_shard(&r, &args.output));
        }
        return Ok(shard_ended(&r));
    }
    let (r, files) = report::check_live(
        &mapping,
        &opts,
        &args.output,
        args.coq.as_deref(),
        args.json,
    )?;
    let cause = r
        .stopped
        .then(|| cli::signals::stop_cause(&opts.stop, args.search.timeout));
    if args.json {
        print_json(
            "mapcheck-check",
            report::json(&r, &files, cause.as_deref())?,
        );
    } else {
        print(&report::render_summary(&r, &files, cause.as_deref()));
    }
    Ok(check_ended(&r))
}

/// `mapcheck check MAP --test FILE`: 1 when the test is a counterexample to some axiom, else 0
/// (2 for a test outside the searched class, as for bad input).
fn check_test(
    args: &CheckArgs,
    opts: &search::Options,
    mapping: &mapping::Mapping,
    test: &std::path::Path,
) -> Result<Ended, Failure> {
    let (source, positions) = litmus::parse_file_with_positions(test)?;
    let source = litmus::with_default_scope(source, args.default_scope.as_deref())?;
    let found = report::confirm_test(
        mapping,
        &source,
        &positions,
        opts,
        &args.output,
        args.coq.as_deref(),
    )?;
    if args.json {
        print_json(
            "mapcheck-confirm",
            report::confirmations_json(mapping, test, &found)?,
        );
    } else {
        print(&report::render_confirmations(mapping, test, &found)?);
    }
    let any = found
        .axioms
        .iter()
        .any(|c| matches!(c.verdict, search::TestVerdict::Counterexample(_)));
    Ok(if any {
        Ended::Counterexample
    } else {
        Ended::Done
    })
}

/// `mapcheck repair`: 0 repaired (the mapping written) or nothing to repair, 1 no mapping in
/// the space is sound, 4 stopped; `--weaken`: 0, or 1 when the input itself is unsound.
fn run_repair(args: &RepairArgs) -> Result<Ended, Failure> {
    let stop = cli::signals::stop_on_signals();
    let opts = args.options(stop)?;
    let input = mapping::load(&args.mapping)?;
    warn([&input.source, &input.target]);
    let to = args
        .output
        .clone()
        .unwrap_or_else(|| repair::default_output(&args.mapping));
    if !args.weaken {
        output::check_file(&to)?;
    }
    if args.weaken {
        let w = repair::weaken(&input, &opts)?;
        if args.json {
            print_json("mapcheck-weaken", &w);
        } else {
            print(&repair::render_weakening(&w));
        }
        return Ok(match (w.stopped, w.input_sound) {
            (true, _) => Ended::Stopped,
            (false, true) => Ended::Done,
            (false, false) => Ended::Counterexample,
        });
    }
    let r = repair::repair(&input, &opts)?;
    let written = match r.verdict {
        repair::RepairVerdict::Repaired => {
            repair::write_mapping(&args.mapping, &input, &r, &to)?;
            Some(to)
        }
        _ => None,
    };
    if args.json {
        print_json(
            "mapcheck-repair",
            serde_json::json!({ "repair": r, "written": written }),
        );
    } else {
        print(&repair::render_repair(&r, written.as_deref()));
    }
    Ok(match r.verdict {
        repair::RepairVerdict::Repaired | repair::RepairVerdict::AlreadySound => Ended::Done,
        repair::RepairVerdict::NoneInSpace => Ended::Counterexample,
        repair::RepairVerdict::Stopped => Ended::Stopped,
    })
}

/// A shard's status as `check`'s: 1 when it found a counterexample, 4 when it was stopped.
fn shard_ended(r: &shard::ShardResult) -> Ended {
    let found = r.shapes.iter().flat_map(|s| &s.axioms);
    if found
        .into_iter()
        .any(|a| matches!(a.verdict, shard::Verdict::Counterexample { .. }))
    {
        Ended::Counterexample
    } else if !r.finished {
        Ended::Stopped
    } else {
        Ended::Done
    }
}

/// `mapcheck merge DIR`: `check`'s summary of the shards present, and `check`'s exit status
/// (4 when a shard the verdicts need is missing or was stopped).
fn merge(args: &MergeArgs) -> Result<Ended, Failure> {
    let stop = cli::signals::stop_on_signals();
    let cause = || cli::signals::stop_cause(&stop, None);
    let how = shard::MergeOptions {
        run_missing: args.run_missing,
        mixed_builds: args.mixed_builds,
    };
    let m = shard::merge_dir(&args.dir, &how, &stop, &cause)?;
    if args.json {
        print_json("mapcheck-merge", &m);
    } else {
        print(&shard::render_merged(&m));
    }
    Ok(if m.has_counterexample() {
        Ended::Counterexample
    } else if m.incomplete() {
        Ended::Stopped
    } else {
        Ended::Done
    })
}

fn check_ended(r: &search::Report) -> Ended {
    if r.axioms.iter().any(|a| a.counterexample.is_some()) {
        Ended::Counterexample
    } else if r.stopped {
        Ended::Stopped
    } else {
        Ended::Done
    }
}

fn run_compare(args: &CompareArgs) -> Result<Ended, Failure> {
    let opts = args.search.options(cli::signals::stop_on_signals());
    let with = |variants: &[String], dialect: Option<DialectArg>| {
        let mut load = args.cat.load_options();
        load.variants.extend(variants.iter().cloned());
        load.dialect = dialect.map(DialectArg::dialect).or(load.dialect);
        load
    };
    let loads = [
        with(&args.a_variant, args.a_dialect),
        with(&args.b_variant, args.b_dialect),
    ];
    let c = compare::compare(&args.a, &args.b, &loads, &opts)?;
    warn(&c.models);
    if args.json {
        print_json("mapcheck-compare", compare::json(&c));
    } else {
        print(&compare::render(&c));
    }
    if c.stopped() {
        eprint(&format!(
            "{}\n",
            cli::signals::stop_cause(&opts.stop, args.search.timeout)
        ));
    }
    Ok(if c.differs() {
        Ended::Counterexample
    } else if c.stopped() {
        Ended::Stopped
    } else {
        Ended::Done
    })
}

fn export_coq(args: &ExportCoqArgs) -> Result<Ended, Failure> {
    OutputDir::check(&args.output)?;
    let mapping = mapping::load(&args.mapping)?;
    // SIGINT / SIGTERM stop the search; the export then states what it settled.
    let report = args
        .options(cli::signals::stop_on_signals())
        .map(|opts| report::check_with_progress(&mapping, &opts))
        .transpose()?;
    let written = coq::export_checked_mapping(&mapping, report.as_ref(), &args.output)?;
    let stopped = report.as_ref().is_some_and(|r| r.stopped);
    print(&format!(
        "{}wrote {} files to {} (compile: cd {} && coq_makefile -f _CoqProject -o Makefile && make)\n",
        if stopped {
            "stopped before the bound: the export states the bounds the search settled\n"
        } else {
            ""
        },
        written.files.len(),
        args.output.display(),
        args.output.display()
    ));
    Ok(if stopped { Ended::Stopped } else { Ended::Done })
}

fn run_bench(args: &BenchArgs) -> Result<Ended, Failure> {
    let backend = args.solver.into();
    let reference = bench::machine_reference(backend);
    eprint(&format!("machine reference: {reference:.2} s\n"));
    let plan = bench::Plan {
        alloy_bounds: args.bounds.clone(),
        natural_bounds: args.natural_bounds.clone(),
        b1_bound: args.b1_bound,
        backend,
    };
    let rows = bench::run(&plan, &|r| {
        eprint(&format!(
            "{} bound {}: {:.2} s, {}\n",
            r.check, r.bound, r.seconds, r.result
        ))
    })?;
    let repairs = match args.repairs {
        true => bench::run_repairs(
            bench::REPAIRS,
            backend,
            std::time::Duration::from_secs(args.repair_limit),
            &|r| {
                eprint(&format!(
                    "{} {} bound {}: {:.2} s, {}\n",
                    r.mode, r.mapping, r.bound, r.work.seconds, r.result
                ))
            },
        )?,
        false => vec![],
    };
    if args.json {
        print_json(
            "mapcheck-bench",
            serde_json::json!({
                "machine_reference_seconds": reference,
                "checks": rows,
                "repairs": repairs
            }),
        );
    } else {
        print(&bench::render(&rows, backend, reference));
        if !repairs.is_empty() {
            print(&bench::render_repairs(&repairs));
        }
    }
    Ok(Ended::Done)
}

fn gpu(command: &GpuCommand) -> Result<Ended, Failure> {
    let run = match command {
        GpuCommand::Emit(args) => match emit(args)? {
            Some(run) => run,
            None => return Ok(Ended::Done),
        },
        GpuCommand::Run(args) => args.options(),
        GpuCommand::Suite(args) => {
            let runs = commands::suite(&args.options(), &mut |s| print(s))?;
            return Ok(ended(&runs.results, !runs.failed.is_empty()));
        }
        GpuCommand::Summary(args) => {
            let results = commands::summary(&args.dirs)?;
            print(&mapcheck::gpu::results::render_summary(&results));
            return Ok(ended(&results, false));
        }
    };
    let runs = commands::run(&run, &mut |s| print(s))?;
    Ok(ended(&runs.results, !runs.failed.is_empty()))
}

/// `gpu run` / `gpu suite` / `gpu summary`: status 1 when some run observed an outcome its
/// model forbids, else 2 when some directory could not run.
fn ended(results: &[mapcheck::gpu::results::RunResult], some_not_run: bool) -> Ended {
    if results.iter().any(|r| r.forbidden_observed > 0) {
        Ended::Forbidden
    } else if some_not_run {
        Ended::NotRun
    } else {
        Ended::Done
    }
}

/// `gpu emit`: writes the harness and prints what it wrote; returns the run `--run` asks for.
fn emit(args: &GpuEmitArgs) -> Result<Option<commands::RunOptions>, Failure> {
    let emitted = commands::emit(&args.options())?;
    print(&commands::render_emitted(&emitted));
    Ok(args.run_options())
}
