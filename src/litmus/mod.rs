//! Litmus front ends: PTX, C11 and OpenCL test files parsed into one `Litmus` representation.
//!
//! Owns: the litmus grammars' drivers and the `Litmus` type. Entry point: `parse_file`.
//! Uses: `diag` for errors, `vocab` for tag names. Knows nothing of models or executions.
pub mod program;
pub use program::*;
