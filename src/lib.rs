//! mapcheck: checks compilation mappings between memory consistency models.
//!
//! Stages (data flows down this list): `diag`, `rel` and `vocab` are shared foundations;
//! `cat` parses model files and `ir` lowers them to typed models; `litmus` parses tests;
//! `exec` builds concrete executions; `eval` evaluates a model on one; `runner` enumerates the
//! candidate executions of a test and gives the verdict; `oracle` compares verdicts with external ones.
pub mod cat;
pub mod diag;
pub mod encode; pub mod solver;
pub mod eval;
pub mod exec;
pub mod ir;
pub mod litmus;
pub mod mapping;
pub mod oracle;
pub mod rel;
pub mod runner;
pub mod vocab;
