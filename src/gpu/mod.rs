//! The hardware backend: a litmus test (typically a counterexample of the mapping check) becomes
//! a harness that runs it many times under stress on a GPU and reports what it saw.
//!
//! Flow: `outcome::select` (the condition that identifies the execution, checked with the
//! runner, and the models' verdict on every observable state, kept by `judgement`) → `layout`
//! (the scope tree as work-groups; per-launch iteration parameters) → a target's kernels and
//! host → `stats` (tally, P_rep, bounds, report) → `results`. The core is target-neutral:
//! `harness` (the directory `gpu emit` writes and `gpu run` reads, and its file names),
//! `classify` (the on-device outcome classification, C that both targets' kernels use), `tune`,
//! `params` (the Table 3 parameters of Kirkham et al., OOPSLA 2020), `detect` (what can run).
//! The targets: `opencl` (OpenCL C kernels, the `opencl3` host) and `cuda` (the PTX harness
//! mapcheck writes itself, its `cudarc` host, and `optcheck`: did every access and fence of the
//! test survive in the SASS?). They import the core, never each other; `commands` (the
//! `mapcheck gpu emit` / `gpu run` pair as library calls) picks one.
//!
//! Uses: `litmus`, `runner`, `ir`, `mapping` (its target's tags), `isa` and `vocab` (the words
//! the emitters print), `output` (the files), `diag`. Nothing outside `gpu` and the CLI uses it;
//! it never
//! feeds back into the mapping check. Decisions: `docs/decisions/003-gpu-harness.md`.
//!
//! Files:
//! - `commands.rs`: `emit`, `run`, `suite`, and their exit statuses.
//! - `outcome.rs`: `Space`, `select`, `counted`.
//! - `judgement.rs`: `Judgement`, `Verdict`, reading `judgement.json`.
//! - `layout.rs`: `Layout`, `Launch`, `InstanceSizes`.
//! - `params.rs`: `Params`, its TOML file, validation and random draws.
//! - `classify.rs`: the on-device classification, C that is both OpenCL C and CUDA C.
//! - `harness.rs`: the harness directory of either target: file names, `write_dir`, `load_checked`.
//! - `tune.rs`: `tune`, `Trial`, `render_trials`.
//! - `detect.rs`: the CUDA driver, the OpenCL platforms and devices.
//! - `stats.rs`: `Tally`, `OutcomeStats`, `render_counted`.
//! - `results.rs`: `RunResult`, `Row`, `RunContext`, `render_summary`.
//! - `opencl.rs`: the OpenCL target's map: `Harness`, `write`, `context`.
//! - `cuda.rs`: the CUDA target's map.
pub(crate) mod classify;
pub mod commands;
pub mod cuda;
pub mod detect;
pub mod harness;
pub mod judgement;
pub mod layout;
pub mod opencl;
pub mod outcome;
pub mod params;
pub mod results;
pub mod stats;
pub mod tune;
