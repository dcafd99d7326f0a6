//! mapcheck: checks compilation mappings between memory consistency models.
//!
//! The stages, in the order data flows (ARCHITECTURE.md has a section for each):
//! - foundations: `diag` (errors), `output` (files written whole, directories a run owns), `rel` (concrete relations), `vocab` (built-in names);
//! - front ends: `cat` (model syntax) → `ir` (typed models); `litmus` (tests); `mapping` (tables);
//!   `syntax` (each concrete syntax's words for tags, both directions);
//! - consumers: `exec` + `eval` (one execution), `runner` (every execution of a test: the ground
//!   truth), `solver` + `encode` (models as SAT constraints);
//! - the mapping check: `search` (bounded SAT search for counterexamples, each re-validated by
//!   the runner); `coq` (the models, the unbounded obligations and refutations in Coq);
//! - reports: `oracle` (agreement with external verdicts), `report` (the mapping check's
//!   summaries and counterexample files), `bench` (the check's timings beside Alloy's);
//! - hardware: `gpu` (a litmus test as a harness run many times under stress on a device).

#![warn(unreachable_pub)]

// Foundations.
pub mod diag;
pub mod output;
pub mod rel;
pub mod vocab;

// Front ends.
mod cat;
pub mod ir;
pub mod litmus;
pub mod mapping;
mod syntax;

// Consumers.
pub mod encode;
pub mod eval;
pub mod exec;
pub mod runner;
pub mod solver;

// The mapping check.
pub mod search;

// Proof export: models, obligations and counterexample refutations in Coq.
pub mod coq;

// Reports.
pub mod bench;
pub mod oracle;
pub mod report;

// Hardware: litmus tests as GPU / OpenCL harnesses.
pub mod gpu;
