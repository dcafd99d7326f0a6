//! Litmus front ends: PTX, C11, OpenCL and Vulkan test files parsed into one `Litmus`
//! representation.
//!
//! Owns: the litmus grammars' drivers and the `Litmus` type. Entry points: `parse_file`,
//! `parse_str`, which read the title word (`PTX`, `C`, `OPENCL`, `VULKAN`) and hand the file to the
//! matching front end (`ptx`, `c`, `vulkan`). Every malformed input yields a `diag::Error` at file:line:column; no
//! input makes the parsers panic.
//! Uses: `diag` for errors, `vocab` for tag names, `isa` for the words of each syntax. Knows
//! nothing of models or executions.
//!
//! Module map: `source` (title, comments, regions, parser errors) → `cond` (initial state and
//! final condition, grammar `litmus_common`) → `ptx` + `ptx_instr` (grammar `litmus_ptx`), `c` +
//! `c_lower` + `c_calls` (grammar `litmus_c`) or `vulkan` (grammar `litmus_vulkan`); `table`
//! cuts the PTX and Vulkan thread tables; `labels` checks jumps; `ast`, `ptx_ast`, `c_ast`,
//! `vulkan_ast` are the syntax trees the grammars build. `print` (`print_ptx`) and `print_c` write a
//! `Litmus` back as a PTX or C / OpenCL file that parses into the same `Litmus`.
pub(crate) mod program;

mod ast;
mod c;
mod c_ast;
mod c_calls;
mod c_lower;
mod cond;
mod grammars;
mod labels;
mod parse;
mod positions;
mod print;
mod print_c;
mod ptx;
mod ptx_ast;
mod ptx_instr;
mod source;
mod table;
mod vulkan;
mod vulkan_ast;
pub use parse::{parse_file, parse_file_with_positions, parse_str};
pub use positions::Positions;
pub use print::{print_ptx, single_order};
pub use print_c::print_c;

pub use program::*;

use crate::diag::{self, Error};

/// Write `test` in its own language's litmus syntax (`print_ptx` or `print_c`); Vulkan tests have
/// no printer.
pub fn print_test(test: &Litmus) -> diag::Result<String> {
    match test.arch {
        Arch::Ptx => print_ptx(test),
        Arch::C11 | Arch::OpenCl => print_c(test),
        Arch::Vulkan => Err(Error::file(
            test.name.clone(),
            "mapcheck has no printer for Vulkan tests".to_string(),
        )),
    }
}
