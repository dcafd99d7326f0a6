//! The `mapcheck` command line as `clap` structs: every command, flag, default and help text,
//! and each command's arguments turned into the library's options (`options`, `From`) — once.
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};
use mapcheck::encode::Backend;
use mapcheck::gpu::commands::{EmitOptions, RunOptions, SuiteOptions, Target};
use mapcheck::solver::Stop;
use mapcheck::{ir, mapping, repair, runner, search, shard};

#[derive(Parser)]
#[command(
    name = "mapcheck",
    version,
    about = "Checks compilation mappings between memory consistency models"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// The arguments of this process, with `mapcheck FILE.map …` read as `mapcheck check FILE.map …`.
    pub fn parse_arguments() -> Cli {
        let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        if args
            .get(1)
            .is_some_and(|a| Path::new(a).extension().is_some_and(|e| e == "map"))
        {
            args.insert(1, "check".into());
        }
        Cli::try_parse_from(args).unwrap_or_else(|e| exit_on(&e))
    }
}

/// End the program as clap would for `e` (help, version or a usage error), but through
/// `output::print` for what goes to standard output, so that a failed write (`/dev/full`, a
/// closed pipe) is not a success.
fn exit_on(e: &clap::Error) -> ! {
    if e.use_stderr() {
        e.exit()
    }
    mapcheck::output::print(&e.render().to_string());
    std::process::exit(e.exit_code())
}

#[derive(Subcommand)]
pub enum Command {
    /// What a model allows for litmus tests (herd7's output shape).
    Run(RunArgs),
    /// Agreement with external verdicts, per suite.
    Oracle(OracleArgs),
    /// Search for a counterexample to a mapping (also: `mapcheck FILE.map …`).
    Check(CheckArgs),
    /// Merge the result files of a check run in shards (`check --shard I/N -o DIR`).
    Merge(MergeArgs),
    /// The smallest litmus tests one model allows and the other forbids (memalloy's comparison).
    Compare(CompareArgs),
    /// The cheapest change to a mapping that removes its counterexamples up to the bound
    /// (`--weaken`: which rules of a sound mapping can be made cheaper and stay sound).
    Repair(RepairArgs),
    /// Write a mapping's models and proof obligations as Coq files (compile with coqc).
    ExportCoq(ExportCoqArgs),
    /// Time the mapping check against the published Alloy times (ASPLOS'19 Fig. 17) and B1.
    Bench(BenchArgs),
    /// Compile a litmus test with a mapping; print the target test as a PTX litmus file.
    Compile(CompileArgs),
    /// Litmus tests as GPU harnesses: `gpu emit` writes one, `gpu run` runs it.
    Gpu {
        #[command(subcommand)]
        command: GpuCommand,
    },
    /// Print the completion script for SHELL (e.g. `mapcheck completions bash >
    /// /usr/share/bash-completion/completions/mapcheck`).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Write the man pages (`mapcheck.1`, and `mapcheck-run.1` and so on per command) into DIR,
    /// which must exist; print each page's path.
    Man { dir: std::path::PathBuf },
}

#[derive(Args)]
pub struct RunArgs {
    /// The model, a cat file, or a shipped model's name (`ptx-v6`).
    pub model: PathBuf,
    #[command(flatten)]
    pub cat: CatArgs,
    /// One or more litmus tests.
    #[arg(required = true)]
    pub tests: Vec<PathBuf>,
    /// Print JSON instead of herd7's text: one array of outcomes once every test has run (the
    /// first bad test ends the run).
    #[arg(long, conflicts_with_all = ["json_lines", "timeout", "output"])]
    pub json: bool,
    /// Print one JSON object per test, on its own line, as each test ends: `{"test", "seconds",
    /// "outcome"}`, or `"error"` (the diagnostic as `--json` gives it) or `"timeout"` in place of
    /// `"outcome"`. The run goes on past a bad or stopped test.
    #[arg(long)]
    pub json_lines: bool,
    /// Print herd7's output byte for byte, but for its `Hash=` line (which mapcheck does not
    /// compute): herd's order and spelling of states and condition (a C test's memory as `[x]`,
    /// `not (…)`), no `Candidates` line, and herd's closing blank line; to diff against herd's
    /// `.expected` files with their `Hash=` lines removed.
    #[arg(long, conflicts_with_all = ["json", "json_lines"])]
    pub herd: bool,
    /// With --herd, values in hexadecimal (`0x1`), as herd7's -hexa (herd's own C tests' cfg).
    #[arg(long, requires = "herd")]
    pub hexa: bool,
    /// Stop a test after this many seconds (of its run, parsing included) and go on to the next:
    /// it gets no verdict, and the exit status is 4 unless a test was bad (2).
    #[arg(long, value_name = "SECONDS", value_parser = at_least_one_u64)]
    pub timeout: Option<u64>,
    /// Draw each test's executions (those --show selects) into DIR/NAME.dot, NAME the test
    /// file's stem, and DIR/NAME.svg when Graphviz is installed: one graph per test, one
    /// scene per execution, as herd7's -o DIR. A test that must be decided by the solver (over
    /// --max-candidates) cannot be drawn: an error for that test.
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Which consistent executions -o draws (herd7's -show): those whose final state satisfies
    /// the condition's proposition, those that falsify it, or all.
    #[arg(long, value_enum, default_value = "prop", requires = "output")]
    pub show: ShowArg,
    /// Give every atomic access and fence of a C test that names no scope this one
    /// (`thread_scope_thread`, `_block`, `_cluster`, `_device`, `_system`), as the scoped models
    /// and mappings need; tests of other languages name theirs.
    #[arg(long, value_name = "SCOPE")]
    pub default_scope: Option<String>,
    /// Times one instruction may run on a path (loop unrolling bound).
    #[arg(long, default_value_t = 2, value_parser = at_least_one)]
    pub unroll: usize,
    /// Enumerate a test's candidate executions only up to this many (the runner's estimate);
    /// decide a larger test with the solver instead.
    #[arg(long, default_value_t = runner::MAX_CANDIDATES)]
    pub max_candidates: u64,
    /// Enumerate a test only when judging its candidates takes at most this many seconds by the
    /// runner's estimate (one core); decide a slower one with the solver instead.
    #[arg(long, default_value_t = runner::ENUMERATION_SECONDS)]
    pub enumeration_seconds: u64,
}

impl RunArgs {
    /// The runner's options for one test, its `--timeout` counted from now.
    pub fn options(&self) -> runner::Options {
        runner::Options {
            unroll: self.unroll,
            max_candidates: self.max_candidates,
            enumeration_seconds: Some(self.enumeration_seconds),
            deadline: (self.timeout).map(|t| Instant::now() + Duration::from_secs(t)),
        }
    }
}

#[derive(Args)]
pub struct OracleArgs {
    /// Oracle directory: with `expected/<SUITE>.tsv` and `litmus/`, or a Dat3M checkout (verdicts
    /// in `dartagnan/src/test/resources/<SUITE>-expected.csv`).
    #[arg(default_value = "tests/data/oracle/dat3m")]
    pub dir: PathBuf,
    /// Suite → model table.
    #[arg(long, default_value = "models/suites.tsv")]
    pub suites: PathBuf,
    /// Run only these suites.
    #[arg(long)]
    pub suite: Vec<String>,
    /// Judge every suite with this model instead of the table's (a file or a shipped name).
    #[arg(long)]
    pub model: Option<PathBuf>,
    #[command(flatten)]
    pub cat: CatArgs,
    #[arg(long)]
    pub json: bool,
}

/// How a cat model is read (`ir::LoadOptions`).
#[derive(Args)]
pub struct CatArgs {
    /// Look for included files here too, after the including file's directory (herd's -I).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Read an included file even where it lies outside the model's directory, every -I
    /// directory and mapcheck's cat-lib (refused by default).
    #[arg(long)]
    pub allow_include_anywhere: bool,
    /// Enable herd's variant NAME (`if "NAME"` in the model).
    #[arg(long, value_name = "NAME")]
    pub variant: Vec<String>,
    /// Read the model's names as mapcheck's, herd7's or Dartagnan's models mean them (default:
    /// the model's own `dialect` declaration; mapcheck's, with warnings, when it has none).
    #[arg(long, value_enum)]
    pub dialect: Option<DialectArg>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ShowArg {
    Prop,
    Neg,
    All,
}

impl ShowArg {
    pub fn show(self) -> mapcheck::batch::Show {
        match self {
            ShowArg::Prop => mapcheck::batch::Show::Prop,
            ShowArg::Neg => mapcheck::batch::Show::Neg,
            ShowArg::All => mapcheck::batch::Show::All,
        }
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum DialectArg {
    Mapcheck,
    Herd,
    Dat3m,
}

impl CatArgs {
    pub fn load_options(&self) -> ir::LoadOptions {
        ir::LoadOptions {
            include_dirs: self.include.clone(),
            include_roots: vec![],
            include_anywhere: self.allow_include_anywhere,
            variants: self.variant.clone(),
            dialect: self.dialect.map(DialectArg::dialect),
        }
    }
}

impl DialectArg {
    pub fn dialect(self) -> ir::Dialect {
        match self {
            DialectArg::Mapcheck => ir::Dialect::Mapcheck,
            DialectArg::Herd => ir::Dialect::Herd,
            DialectArg::Dat3m => ir::Dialect::Dat3m,
        }
    }
}

#[derive(Args)]
pub struct CheckArgs {
    /// The mapping, a `.map` file, or a shipped mapping's name (`rc11-ptx`).
    pub mapping: PathBuf,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Count the bound as the Alloy artifact of ASPLOS'19 did (N source and N target events,
    /// N scopes, no SC accesses) instead of N source events.
    #[arg(long)]
    pub alloy_bounds: bool,
    /// Check only this source axiom (repeatable).
    #[arg(long)]
    pub axiom: Vec<String>,
    /// Stop at the first bound where some axiom has a counterexample.
    #[arg(long)]
    pub first: bool,
    /// Write counterexamples (litmus tests, DOT graphs) into this directory.
    #[arg(short, long, default_value = "counterexamples")]
    pub output: PathBuf,
    /// Also write each counterexample as a Coq refutation into DIR/<name>/.
    #[arg(long, value_name = "DIR")]
    pub coq: Option<PathBuf>,
    /// Print the report (and any error) as JSON.
    #[arg(long)]
    pub json: bool,
    /// Run only shard I of N (1-based) of the check, writing -o DIR/shard-I-of-N.json (merge
    /// the shards with `mapcheck merge DIR`); `env`: the index and count of a Slurm array task
    /// (SLURM_ARRAY_TASK_ID, _MIN, _STEP, _COUNT) or a Kubernetes Indexed Job pod
    /// (JOB_COMPLETION_INDEX, with --shards N).
    #[arg(long, value_name = "I/N|env", conflicts_with_all = ["first", "coq"])]
    pub shard: Option<shard::ShardSpec>,
    /// The number of shards, with --shard env where the environment does not say it
    /// (Kubernetes).
    #[arg(long, value_name = "N", requires = "shard", value_parser = at_least_one)]
    pub shards: Option<usize>,
    /// Search nothing: judge this source litmus test (one written by hand or by another tool)
    /// as the search judges its solutions — is it a counterexample, and to which axioms? Its
    /// files and Coq refutation (`--coq`) are written as a search's are.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["shard", "first", "alloy_bounds", "bound", "threads", "locations"]
    )]
    pub test: Option<PathBuf>,
    /// With --test: give every atomic access and fence of a C test that names no scope this
    /// one (`thread_scope_block`, `_device`, `_system`, …), as the scoped mappings need.
    #[arg(long, value_name = "SCOPE", requires = "test")]
    pub default_scope: Option<String>,
    /// Read the source model with herd's variant NAME as well as those the mapping names
    /// (`cxx20`: C++20's release sequences). Not with --shard: shards name the mapping file
    /// alone, so write `variant "NAME"` under its source line instead.
    #[arg(long, value_name = "NAME", conflicts_with = "shard")]
    pub source_variant: Vec<String>,
    /// Read the target model with herd's variant NAME as well as those the mapping names
    /// (`dep-without-rmw`). Not with --shard, as --source-variant.
    #[arg(long, value_name = "NAME", conflicts_with = "shard")]
    pub target_variant: Vec<String>,
}

impl CheckArgs {
    /// The variants to read the mapping's models with besides its own.
    pub fn variants(&self) -> mapping::Variants {
        mapping::Variants {
            source: self.source_variant.clone(),
            target: self.target_variant.clone(),
        }
    }
}

/// `mapcheck merge DIR`.
#[derive(Args)]
pub struct MergeArgs {
    /// The directory the shards wrote (`check --shard I/N -o DIR`).
    pub dir: PathBuf,
    /// First run, in this process, every shard that is missing or was stopped (resuming the
    /// check from the results present).
    #[arg(long)]
    pub run_missing: bool,
    /// Merge results written by different builds of mapcheck (refused otherwise).
    #[arg(long)]
    pub mixed_builds: bool,
    /// Print the merged verdicts as JSON.
    #[arg(long)]
    pub json: bool,
}

/// How far a search goes: the options `check` and `compare` share.
#[derive(Args)]
pub struct SearchArgs {
    /// Largest program size, in source events (an RMW counts two).
    #[arg(long, default_value_t = 4, value_parser = at_least_one)]
    pub bound: usize,
    /// At most this many threads.
    #[arg(long, value_parser = at_least_one)]
    pub threads: Option<usize>,
    /// At most this many locations.
    #[arg(long, value_parser = at_least_one)]
    pub locations: Option<usize>,
    /// SAT solver.
    #[arg(long, value_enum, default_value_t = SolverArg::Batsat)]
    pub solver: SolverArg,
    /// Stop after this many seconds with what is settled (as on SIGINT or SIGTERM).
    #[arg(long, value_name = "SECONDS", value_parser = at_least_one_u64)]
    pub timeout: Option<u64>,
    /// Refuse a search one of whose SAT problems is estimated above this many GiB.
    #[arg(long, value_name = "GIB", default_value_t = search::MAX_MEMORY_GIB, value_parser = at_least_one_u64)]
    pub max_memory: u64,
}

impl SearchArgs {
    /// The search's options with natural counting, every axiom, not stopping at the first bound
    /// with a counterexample; `stop` is also requested when `--timeout` runs out.
    pub fn options(&self, stop: Stop) -> search::Options {
        search::Options {
            bound: self.bound,
            counting: search::Counting::Natural,
            axioms: vec![],
            threads: self.threads,
            locations: self.locations,
            backend: self.solver.into(),
            first: false,
            max_memory_gib: self.max_memory,
            stop: match self.timeout {
                Some(t) => stop.with_deadline(Instant::now() + Duration::from_secs(t)),
                None => stop,
            },
        }
    }
}

impl CheckArgs {
    /// The search's options; `stop` is also requested when `--timeout` runs out.
    pub fn options(&self, stop: Stop) -> search::Options {
        search::Options {
            counting: if self.alloy_bounds {
                search::Counting::Alloy
            } else {
                search::Counting::Natural
            },
            axioms: self.axiom.clone(),
            first: self.first,
            ..self.search.options(stop)
        }
    }
}

/// `mapcheck repair MAP`.
#[derive(Args)]
pub struct RepairArgs {
    /// The mapping, a `.map` file, or a shipped mapping's name (`rc11-ptx`).
    pub mapping: PathBuf,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Ask the dual question: which rule of a sound mapping can be made one step cheaper (a
    /// fence dropped, a scope narrowed, a semantics weakened) and stay sound up to the bound.
    #[arg(long)]
    pub weaken: bool,
    /// Instruction costs (TOML: `"fence.sc.gpu" = 45`), replacing the default's entries.
    #[arg(long, value_name = "FILE")]
    pub costs: Option<PathBuf>,
    /// Search at most this many mappings of the least cost besides the first.
    #[arg(long, default_value_t = 4)]
    pub ties: usize,
    /// Write the repaired mapping here (default: NAME.repaired.map beside the input).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Print the answer (and any error) as JSON.
    #[arg(long)]
    pub json: bool,
}

impl RepairArgs {
    /// The repair's options: every full search stops at the first bound with a counterexample.
    pub fn options(&self, stop: Stop) -> Result<repair::Options, mapcheck::Error> {
        Ok(repair::Options {
            search: search::Options {
                first: true,
                ..self.search.options(stop)
            },
            costs: match &self.costs {
                Some(path) => repair::Costs::load(path)?,
                None => repair::Costs::default(),
            },
            max_ties: self.ties,
            progress: |line| mapcheck::output::eprint(&format!("{line}\n")),
        })
    }
}

/// `mapcheck compare A.cat B.cat`.
#[derive(Args)]
pub struct CompareArgs {
    /// The first model, a cat file or a shipped model's name.
    pub a: PathBuf,
    /// The second model, a cat file of the same language (its title line names it), or a
    /// shipped model's name.
    pub b: PathBuf,
    #[command(flatten)]
    pub cat: CatArgs,
    /// Enable herd's variant NAME in the first model only (compare a model's two readings:
    /// `compare M.cat M.cat --b-variant cxx20`).
    #[arg(long, value_name = "NAME")]
    pub a_variant: Vec<String>,
    /// Enable herd's variant NAME in the second model only.
    #[arg(long, value_name = "NAME")]
    pub b_variant: Vec<String>,
    /// Read the first model's names in this dialect (a Dartagnan model against a mapcheck one:
    /// `compare ptx-v7.5.cat ptx-v7.5 --a-dialect dat3m`); overrides --dialect for it.
    #[arg(long, value_enum, value_name = "DIALECT")]
    pub a_dialect: Option<DialectArg>,
    /// Read the second model's names in this dialect; overrides --dialect for it.
    #[arg(long, value_enum, value_name = "DIALECT")]
    pub b_dialect: Option<DialectArg>,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Print the comparison (and any error) as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct ExportCoqArgs {
    /// The mapping, a `.map` file, or a shipped mapping's name (`rc11-ptx`).
    pub mapping: PathBuf,
    /// The directory to write (created if missing).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Search up to this bound first (natural counting), name the result in each obligation
    /// and refute the claim of each axiom with a counterexample (0: no search).
    #[arg(long, default_value_t = 5)]
    pub bound: usize,
    #[arg(long, value_enum, default_value_t = SolverArg::Batsat)]
    pub solver: SolverArg,
}

impl ExportCoqArgs {
    /// The search to run before the export, stopped by `stop`; `None` for `--bound 0`.
    pub fn options(&self, stop: Stop) -> Option<search::Options> {
        (self.bound > 0).then(|| search::Options {
            stop,
            ..search::Options::natural(self.bound, self.solver.into())
        })
    }
}

#[derive(Args)]
pub struct BenchArgs {
    /// Bounds of the Fig. 17 table (Alloy counting).
    #[arg(long, value_delimiter = ',', default_value = "4,5,6")]
    pub bounds: Vec<usize>,
    /// Bounds of the natural-counting rows, all axioms in one check per bound (bound 7 takes
    /// 1.5–2 minutes on 2 cores; `--natural-bounds 5,6` leaves it out).
    #[arg(long, value_delimiter = ',', default_value = "5,6,7")]
    pub natural_bounds: Vec<usize>,
    /// Search B1 up to this bound (natural counting).
    #[arg(long, default_value_t = 7)]
    pub b1_bound: usize,
    /// Also time the repairs of `bench::REPAIRS` (minutes): each repair's full searches against
    /// its runner checks.
    #[arg(long)]
    pub repairs: bool,
    /// Stop each repair after this many seconds (its row says so).
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub repair_limit: u64,
    #[arg(long, value_enum, default_value_t = SolverArg::Cadical)]
    pub solver: SolverArg,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct CompileArgs {
    /// The mapping, a `.map` file, or a shipped mapping's name (`rc11-ptx`).
    pub mapping: PathBuf,
    /// The source litmus test.
    pub source: PathBuf,
    /// Write the compiled test here instead of to stdout.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Give every atomic access and fence of a C test that names no scope this one
    /// (`thread_scope_thread`, `_block`, `_cluster`, `_device`, `_system`), as the scoped models
    /// and mappings need; tests of other languages name theirs.
    #[arg(long, value_name = "SCOPE")]
    pub default_scope: Option<String>,
}

#[derive(Subcommand)]
pub enum GpuCommand {
    /// Write a harness for a litmus test, its condition selected to identify the execution.
    Emit(GpuEmitArgs),
    /// Detect devices, run harness directories, print each outcome's count, statistics and
    /// verdict, write DIR/result.json and DIR/result.csv; a summary table for several.
    Run(GpuRunArgs),
    /// Emit a harness for every .litmus file of a directory, run them all, print the summary.
    Suite(GpuSuiteArgs),
    /// The summary table of runs already made, from each DIR/result.json (verdicts re-judged
    /// with DIR/judgement.json); status 1 when one observed a forbidden outcome.
    Summary(GpuSummaryArgs),
}

#[derive(Args)]
pub struct GpuSummaryArgs {
    /// Harness directories that `gpu run` wrote a result.json into.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
}

#[derive(Args)]
pub struct GpuSuiteArgs {
    /// A directory of litmus tests (PTX, C or OpenCL; not descended into).
    pub tests: PathBuf,
    #[arg(long, value_enum)]
    pub target: TargetArg,
    /// Where the harnesses go, one directory per test.
    #[arg(short, long)]
    pub output: PathBuf,
    /// The model that judges every test (default: each test's language's, as for gpu emit).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Parameter file for every harness (default: the target's preset).
    #[arg(long)]
    pub params: Option<PathBuf>,
    /// Launches per test, instead of the parameter file's `iterations`.
    #[arg(long, value_parser = at_least_one_u32)]
    pub iterations: Option<u32>,
    /// The device (OpenCL: its index in the detection list; CUDA: the driver's ordinal).
    #[arg(long)]
    pub device: Option<usize>,
    /// Print the results as JSON (a `mapcheck-gpu-runs` document, `results`: one object per
    /// run) instead of the reports.
    #[arg(long)]
    pub json: bool,
}

impl GpuSuiteArgs {
    pub fn options(&self) -> SuiteOptions {
        SuiteOptions {
            tests: self.tests.clone(),
            target: self.target.into(),
            output: self.output.clone(),
            model: self.model.clone(),
            params: self.params.clone(),
            run: RunOptions {
                dirs: vec![],
                params: None,
                iterations: self.iterations,
                tune: None,
                device: self.device,
                json: self.json,
            },
        }
    }
}

#[derive(Args)]
pub struct GpuEmitArgs {
    /// The test (a counterexample's target.litmus, or any PTX, C or OpenCL test).
    pub test: PathBuf,
    #[arg(long, value_enum)]
    pub target: TargetArg,
    /// The harness directory to write.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Parameter file (default: gpu/params-gpu.toml for --target cuda, gpu/params.toml for
    /// --target opencl; both compiled in).
    #[arg(long)]
    pub params: Option<PathBuf>,
    /// The test's model: the selected outcome must be one it allows, and it judges every
    /// outcome `gpu run` observes (default: by the test's language, models/ptx-v6.cat for PTX,
    /// models/opencl.cat for OpenCL, models/rc11-scoped.cat for C).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// A mapping: its target model judges the test, its source model judges --source.
    #[arg(long)]
    pub mapping: Option<PathBuf>,
    /// The counterexample's source program: the selected outcome must be one its model forbids.
    #[arg(long)]
    pub source: Option<PathBuf>,
    /// The source program's model (instead of the mapping's).
    #[arg(long)]
    pub source_model: Option<PathBuf>,
    /// Run the harness once written (as `gpu run`).
    #[arg(long)]
    pub run: bool,
    /// With --run: launches, instead of the parameter file's `iterations`.
    #[arg(long, value_parser = at_least_one_u32)]
    pub iterations: Option<u32>,
    /// With --run: the device (OpenCL: its index in the detection list; CUDA: the driver's
    /// ordinal).
    #[arg(long)]
    pub device: Option<usize>,
}

impl GpuEmitArgs {
    pub fn options(&self) -> EmitOptions {
        EmitOptions {
            test: self.test.clone(),
            target: self.target.into(),
            output: self.output.clone(),
            params: self.params.clone(),
            model: self.model.clone(),
            mapping: self.mapping.clone(),
            source: self.source.clone(),
            source_model: self.source_model.clone(),
        }
    }

    /// The run of the written harness that `--run` asks for (`None` without it).
    pub fn run_options(&self) -> Option<RunOptions> {
        self.run.then(|| RunOptions {
            dirs: vec![self.output.clone()],
            params: None,
            iterations: self.iterations,
            tune: None,
            device: self.device,
            json: false,
        })
    }
}

#[derive(Args)]
pub struct GpuRunArgs {
    /// Directories written by `gpu emit`, run one after another (a summary table follows).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Parameter file (default: DIR/params.toml).
    #[arg(long)]
    pub params: Option<PathBuf>,
    /// Launches, instead of the parameter file's `iterations`.
    #[arg(long, value_parser = at_least_one_u32)]
    pub iterations: Option<u32>,
    /// Try K random parameter sets; keep the best in DIR/params-tuned.toml.
    #[arg(long, value_name = "K")]
    pub tune: Option<usize>,
    /// The device: OpenCL, its index in the detection list (default: first GPU, else first);
    /// CUDA, the driver's ordinal (default 0).
    #[arg(long)]
    pub device: Option<usize>,
    /// Print the results as JSON (a `mapcheck-gpu-runs` document, `results`: one object per
    /// run) instead of the reports.
    #[arg(long)]
    pub json: bool,
}

impl GpuRunArgs {
    pub fn options(&self) -> RunOptions {
        RunOptions {
            dirs: self.dirs.clone(),
            params: self.params.clone(),
            iterations: self.iterations,
            tune: self.tune,
            device: self.device,
            json: self.json,
        }
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum TargetArg {
    /// PTX kernel and CUDA host.
    Cuda,
    /// OpenCL C kernels (run by `mapcheck gpu run`).
    Opencl,
}

impl From<TargetArg> for Target {
    fn from(t: TargetArg) -> Target {
        match t {
            TargetArg::Cuda => Target::Cuda,
            TargetArg::Opencl => Target::OpenCl,
        }
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum SolverArg {
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
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

fn at_least_one_u64(text: &str) -> Result<u64, String> {
    at_least_one(text).map(|n| n as u64)
}

fn at_least_one_u32(text: &str) -> Result<u32, String> {
    at_least_one(text).and_then(|n| u32::try_from(n).map_err(|e| e.to_string()))
}
