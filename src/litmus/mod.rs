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
//!
//! Files:
//! - `parse.rs`: `parse_file`, `parse_str`: the title word read and the file handed to its front
//!   end.
//! - `positions.rs`: `Positions`, where a parsed test's instructions were written.
//! - `program.rs`: `Litmus`, `Arch`, `Placement`, threads, instructions, the condition.
//! - `source.rs`: the file's text and layout (title, comments, initial state, body, condition), and
//!   parser errors as `diag::Error`s.
//! - `grammars.rs`: the lalrpop parsers, built into OUT_DIR by the crate's build script.
//! - `ast.rs`: spans, grammar-action errors, the nesting guard, init and condition trees.
//! - `cond.rs`: the initial state and the final condition, resolved against the threads.
//! - `labels.rs`: labels defined once, jumps within their own thread.
//! - `table.rs`: the PTX and Vulkan thread table, its rows, cells and header row.
//! - `ptx.rs`: the PTX front end: thread placement, PTX 7.5 alias declarations.
//! - `ptx_ast.rs`: the syntax trees of a PTX cell and a thread header.
//! - `ptx_instr.rs`: one PTX instruction's meaning: qualifiers to tags, with PTX's defaults.
//! - `c.rs`: the C11 and OpenCL front end: thread headers, parameters, OpenCL regions.
//! - `c_ast.rs`: the syntax trees of a C thread section.
//! - `c_lower.rs`: one C thread body lowered to instructions.
//! - `c_calls.rs`: the builtin calls (`atomic_*`, fences, barriers) and their tags.
//! - `vulkan.rs`: the Vulkan front end: its qualifier rules and the `ssw` block.
//! - `vulkan_ast.rs`: the syntax tree of a Vulkan cell.
//! - `print.rs`: `print_ptx`, and the final clause both printers share.
//! - `print_c.rs`: `print_c`: the header, locations and thread headers.
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
pub(crate) use print::rmw_op_word;
pub use print::{print_ptx, single_order};
pub use print_c::print_c;

pub use program::*;

use crate::diag::{self, Error};

/// `test` with every C11 atomic access and fence that names no scope given `scope`, a
/// `thread_scope_*` word (the `--default-scope` of `run`, `compile` and `check --test`): how a
/// scoped model or mapping reads a plain C11 test. A non-atomic access keeps none; a test of
/// another language, or any test when `scope` is `None`, is returned as it is (PTX, OpenCL and
/// Vulkan name every scope).
pub fn with_default_scope(mut test: Litmus, scope: Option<&str>) -> diag::Result<Litmus> {
    let Some(scope) = scope else {
        return Ok(test);
    };
    let scopes = &crate::isa::c::C11_SCOPES;
    let Some(tag) = scopes.tag(scope) else {
        let msg = format!("`{scope}`: expected a thread scope ({})", scopes.listed());
        return Err(diag::Error::file("--default-scope", msg));
    };
    if test.arch != Arch::C11 {
        return Ok(test);
    }
    let orders = &crate::isa::c::MEMORY_ORDERS;
    let give = |tags: &mut crate::litmus::Tags| {
        let atomic = tags.iter().any(|&t| orders.word(t).is_some());
        if atomic && !tags.iter().any(|&t| scopes.word(t).is_some()) {
            tags.push(tag);
        }
    };
    for instr in test.threads.iter_mut().flat_map(|t| &mut t.code) {
        match instr {
            Instr::Load { tags, .. } | Instr::Store { tags, .. } | Instr::Fence { tags } => {
                give(tags)
            }
            Instr::Rmw {
                tags, fail_tags, ..
            } => {
                give(tags);
                fail_tags.iter_mut().for_each(give);
            }
            _ => {}
        }
    }
    Ok(test)
}

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
