//! mapcheck: checks compilation mappings between memory consistency models.
//!
//! The stages, in the order data flows (ARCHITECTURE.md has a section for each):
//! - foundations: `diag` (errors), `output` (files written whole, directories a run owns), `rel` (concrete relations), `vocab` (built-in names);
//! - front ends: `cat` (model syntax) → `ir` (typed models); `litmus` (tests); `mapping` (tables);
//!   `isa` (each instruction set's and language's facts: its words for tags, both directions, and
//!   which forms PTX's instructions have);
//! - consumers: `exec` + `eval` (one execution), `runner` (every execution of a test: the ground
//!   truth), `solver` + `encode` (models as SAT constraints);
//! - the mapping check: `search` (bounded SAT search for counterexamples, each re-validated by
//!   the runner); `coq` (the models, the unbounded obligations and refutations in Coq);
//! - reports: `oracle` (agreement with external verdicts), `picture` (executions as DOT graphs),
//!   `report` (the mapping check's summaries and counterexample files), `bench` (the check's
//!   timings beside Alloy's);
//! - hardware: `gpu` (a litmus test as a harness run many times under stress on a device).
//!
//! Files:
//! - `diag.rs`: `Span`, `Lines`, `Error`, `Fault` and its exit status, `Internal`,
//!   `catching_panics`, and the rendering.
//! - `output.rs`: `print`, `eprint`, `write_file`, `ProgressDisplay`, `OutputDir`, `refuse_overwriting`,
//!   `check_file`.
//! - `shipped.rs`: the shipped models and mappings by name (`model`, `mapping`, `names`).
//! - `rel.rs`: `Set`, `Rel`, union, composition, closure and the rest of cat's operators.
//! - `vocab.rs`: `EventSet`, `Tag` (the `tags!` table), `Role`, `Relation`, `Name`.
//! - `cat/mod.rs`: `parse`, and parse errors as `diag::Error`s.
//! - `ir/mod.rs`: `Model`, `Witness`, `LoadOptions`, `load`, `load_str`.
//! - `eval/mod.rs`: `Base`, `Value`, `Outcome`; `evaluate`, `evaluate_named`; the step order.
//! - `isa/mod.rs`: `Words`, a table between words and tags.
//! - `litmus/mod.rs`: `parse_file`, `parse_file_with_positions`, `parse_str`, the module map.
//! - `exec.rs`: `Event`, `Execution`, its `Reading`, `Execution::base`.
//! - `runner/mod.rs`: `run`, `Outcome`, final states, the verdict (`Options` re-exported).
//! - `decide.rs`: `run` (the runner when it can enumerate, else this decision) and `decide`.
//! - `mapping/mod.rs`: `Mapping`, `load`, `parse_table`, `Mapping::compile`,
//!   `Mapping::compile_program`.
//! - `solver/mod.rs`: `SatSolver`, `Verdict`, `Stats`, `Backend`, `Stop`, `new`.
//! - `encode/mod.rs`: `Encoding`, `Encoded`, the layers' map.
//! - `search/mod.rs`: the driver: `check`, `scope`, bounds, open axioms, the report.
//! - `coq/mod.rs`: the export's map; `export_mapping`, `write_common`.
//! - `picture.rs`: `Scene`, `Highlight`, `digraph`.
//! - `report.rs`: `check_live`, `confirm_test`, `check_with_progress`, `LiveReport`, `Progress`,
//!   the renderings, `json`, `write_counterexample`, `Files`.
//! - `shard/mod.rs`: the commands: `check_shard`, `merge_dir`.
//! - `repair/mod.rs`: `repair`, `weaken`, `Options`, `Repair`, `Weakening`, `Known`, the driver.
//! - `compare.rs`: `Comparison`, `Direction`, `Difference`, `compare`, `render`, `json`.
//! - `batch.rs`: `run` over many tests: `run_file`, `Ran` and its JSON line, `BatchProgress`.
//! - `bench.rs`: `run`, `render`, `machine_reference`, `run_repairs`, `render_repairs`.
//! - `oracle.rs`: `verdict_file`, `select_suites`, `run_suite`, the tally.
//! - `gpu/mod.rs`: the backend's map.
//! - `main.rs`: the binary: one library entry point per command, its printing and its exit status

//!
//! The entry points a program using mapcheck as a library starts from are re-exported here
//! (`Model`, `Litmus`, `Mapping`, `run`, `check`, `run_suite`, `Error`); the stage modules stay
//! public for the tools and tests that drive one stage, and everything else is `pub(crate)`.
//!
//! ```
//! // Message passing with relaxed atomics: sequential consistency forbids the outcome.
//! let model = mapcheck::ir::load_str("sc", "acyclic po | rf | co | fr as SC", None)?;
//! let test: mapcheck::Litmus = mapcheck::litmus::parse_str("mp.litmus", r#"C mp
//! { [x] = 0; [y] = 0; }
//! P0 (atomic_int* x, atomic_int* y) {
//!   atomic_store_explicit(x, 1, memory_order_relaxed);
//!   atomic_store_explicit(y, 1, memory_order_relaxed);
//! }
//! P1 (atomic_int* x, atomic_int* y) {
//!   int r0 = atomic_load_explicit(y, memory_order_relaxed);
//!   int r1 = atomic_load_explicit(x, memory_order_relaxed);
//! }
//! exists (1:r0=1 /\ 1:r1=0)"#)?;
//! let outcome = mapcheck::run(&model, &test, &mapcheck::runner::Options::default())?;
//! assert!(!outcome.validated);
//! # Ok::<(), mapcheck::Error>(())
//! ```
#![warn(missing_docs, unreachable_pub)]

// The entry points (ARCHITECTURE.md, "Entry points").
pub use diag::Error;
pub use ir::Model;
pub use litmus::Litmus;
pub use mapping::Mapping;
pub use oracle::run_suite;
pub use runner::run;
pub use search::check;

// Foundations.
pub mod diag;
pub mod output;
pub mod rel;
pub mod shipped;
pub mod vocab;

// Front ends, on the instruction sets' (and languages') facts, `isa`.
mod cat;
pub mod ir;
mod isa;
pub mod litmus;
pub mod mapping;

// Consumers.
pub mod decide;
pub mod encode;
pub mod eval;
pub mod exec;
pub mod runner;
pub mod solver;

// The mapping check.
pub mod search;

// Repair: the cheapest sound mapping in a generated space, and safe weakenings.
pub mod repair;

// Proof export: models, obligations and counterexample refutations in Coq.
pub mod coq;

// Reports.
pub mod batch;
pub mod bench;
pub mod compare;
pub mod oracle;
mod picture;
pub mod report;
pub mod shard;

// Hardware: litmus tests as GPU / OpenCL harnesses.
pub mod gpu;
