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
pub use positions::Positions;
pub use print::{print_ptx, single_order};
pub(crate) use print::rmw_op_word;
pub use print_c::print_c;

use std::path::Path;
use std::sync::Arc;

pub use program::*;

use crate::diag::{self, Error};

/// The architectures a title line may name, as written there.
pub(crate) const ARCHITECTURES: &[&str] = &["PTX", "C", "OPENCL", "VULKAN"];

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

/// Read and parse the litmus test at `path`.
pub fn parse_file(path: &Path) -> diag::Result<Litmus> {
    parse_file_with_positions(path).map(|(test, _)| test)
}

/// `parse_file`, and where the test's instructions were written.
pub fn parse_file_with_positions(path: &Path) -> diag::Result<(Litmus, Positions)> {
    let text = diag::read_source(path)?;
    let shown = path.display().to_string();
    let (test, spans) = parse_source(&shown, &text)?;
    Ok((test, Positions::new(&shown, &text, spans)))
}

/// Parse the litmus test `text`; `path_name` is used in error messages.
pub fn parse_str(path_name: &str, text: &str) -> diag::Result<Litmus> {
    parse_source(path_name, &Arc::from(text)).map(|(test, _)| test)
}

/// The test, and per thread the span of each instruction where its front end records them.
fn parse_source(path: &str, text: &Arc<str>) -> diag::Result<(Litmus, Vec<Vec<ast::Span>>)> {
    let title = source::title(path, text)?;
    let arch = match title.arch.to_ascii_uppercase().as_str() {
        "PTX" => Arch::Ptx,
        "C" => Arch::C11,
        "OPENCL" => Arch::OpenCl,
        "VULKAN" => Arch::Vulkan,
        _ => {
            let msg = format!(
                "unsupported architecture `{}`; supported: {}",
                title.arch,
                ARCHITECTURES.join(", ")
            );
            return Err(Error::at(path, text, title.arch_span.range(), msg));
        }
    };
    let src = source::mask(path, text, title.body_start)?;
    diag::check_input_limits(path, text, &src.masked)?;
    let layout = source::layout(&src, title.body_start)?;
    match arch {
        Arch::Ptx => ptx::parse(&src, title.name, &layout).map(|test| (test, vec![])),
        Arch::C11 | Arch::OpenCl => c::parse(&src, arch, title.name, &layout),
        Arch::Vulkan => vulkan::parse(&src, title.name, &layout).map(|test| (test, vec![])),
    }
}
