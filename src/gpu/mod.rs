//! The hardware backend: a litmus test (typically a counterexample of the mapping check) becomes
//! a harness that runs it many times under stress on a GPU and reports what it saw.
//!
//! Flow: `outcome::select` (the condition that identifies the execution, checked with the
//! runner, and the models' verdict on every observable state, kept by `judgement`) → `layout` (the scope tree as work-groups; per-launch iteration parameters) →
//! `opencl` (the OpenCL C kernels; `classify` is the on-device outcome classification, C shared
//! with the CUDA side) → `harness` (the directory `gpu emit` writes, `gpu run` reads) → `host`
//! (the `opencl3` runner on a device found by `detect`) → `stats` (tally, P_rep, bounds, report).
//! `params` holds the Table 3 parameters of Kirkham et al. (OOPSLA 2020); `commands` is the
//! `mapcheck gpu emit` / `gpu run` pair as library calls.
//! CUDA target: `ptx` (the PTX harness mapcheck writes itself, and its `cudarc` host) and
//! `optcheck` (ptxas and nvdisasm: did every access and fence of the test survive in the SASS?).
//!
//! Uses: `litmus`, `runner`, `ir`, `mapping` (its target's tags), `isa` and `vocab` (the words
//! the emitters print), `output` (the files), `diag`. Nothing outside `gpu` and the CLI uses it;
//! it never
//! feeds back into the mapping check. Decisions: `docs/decisions/003-gpu-harness.md`.
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
