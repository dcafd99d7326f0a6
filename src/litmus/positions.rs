//! Where a parsed test's instructions were written, for a diagnostic about a test that parsed
//! but that a later stage refuses (`check --test` of a test outside the searched class).
//!
//! Owns: `Positions`. Uses `diag`, and `ast::Span` for what the front ends record. The C and
//! OpenCL front end records each instruction's innermost expression or statement; the PTX and
//! Vulkan front ends record none, and their diagnostics name the thread and instruction instead.
use std::sync::Arc;

use super::ast::Span;
use crate::diag::Error;

/// Where each instruction of each thread of one test file was written.
pub struct Positions {
    path: String,
    text: Arc<str>,
    /// Per thread, the span of each instruction of its code; empty where none were recorded.
    threads: Vec<Vec<Span>>,
}

impl Positions {
    pub(crate) fn new(path: &str, text: &Arc<str>, threads: Vec<Vec<Span>>) -> Positions {
        Positions {
            path: path.to_string(),
            text: text.clone(),
            threads,
        }
    }

    /// An error at instruction `instr` of thread `thread` (as numbered in `Thread::code`), or
    /// about the whole file, naming them, where their position was not recorded.
    pub fn error_at(&self, thread: usize, instr: usize, message: &str) -> Error {
        match self.span(thread, instr) {
            Some(span) => Error::at(&self.path, &self.text, span.range(), message),
            None => Error::file(
                &self.path,
                format!("{message} (thread {thread}, instruction {instr})"),
            ),
        }
    }

    /// An error about the whole file.
    pub fn error(&self, message: &str) -> Error {
        Error::file(&self.path, message)
    }

    /// `path:line:column` of instruction `instr` of thread `thread`, where it was recorded.
    pub fn place(&self, thread: usize, instr: usize) -> Option<String> {
        let span = self.span(thread, instr)?;
        let (line, column) = Error::at(&self.path, &self.text, span.range(), "").line_col()?;
        Some(format!("{}:{line}:{column}", self.path))
    }

    fn span(&self, thread: usize, instr: usize) -> Option<Span> {
        self.threads.get(thread)?.get(instr).copied()
    }
}
