//! The entry points of the front ends: a litmus file read, its title word (`PTX`, `C`,
//! `OPENCL`, `VULKAN`) read, and the file handed to the matching front end (`ptx`, `c`,
//! `vulkan`). `litmus/mod.rs` re-exports them; they live here so that a printer's read-back
//! check (`print_c::check`) can parse without importing the module that re-exports the printer.

use std::path::Path;
use std::sync::Arc;

use super::positions::Positions;
use super::program::{Arch, Litmus};
use super::{ast, c, ptx, source, vulkan};
use crate::diag::{self, Error};

/// The architectures a title line may name, as written there.
pub(crate) const ARCHITECTURES: &[&str] = &["PTX", "C", "OPENCL", "VULKAN"];

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
