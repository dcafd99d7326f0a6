//! Per-thread label bookkeeping: every label is defined once, and every jump names a label of its
//! own thread.
//!
//! Owns: `Labels`. Uses `source` for errors; both front ends use it while lowering a thread.
use std::collections::HashMap;

use crate::diag::Result;
use crate::litmus::ast::Span;
use crate::litmus::source::Source;

#[derive(Default)]
pub(crate) struct Labels {
    defined: HashMap<String, Span>,
    jumps: Vec<(String, Span)>,
}

impl Labels {
    /// Record the definition of `name` at `span`; an error if the thread already has it.
    pub(crate) fn define(&mut self, src: &Source, name: &str, span: Span) -> Result<()> {
        if let Some(first) = self.defined.get(name) {
            let (line, col) = src.error(*first, "").line_col().unwrap_or((0, 0));
            let msg = format!("label `{name}` is defined twice in this thread (first at line {line}, column {col})");
            return Err(src.error(span, msg));
        }
        self.defined.insert(name.to_string(), span);
        Ok(())
    }
    /// Record a jump to `name` at `span`.
    pub(crate) fn jump(&mut self, name: &str, span: Span) {
        self.jumps.push((name.to_string(), span));
    }
    /// Check that every jump target was defined.
    pub(crate) fn finish(&self, src: &Source, thread: &str) -> Result<()> {
        match self
            .jumps
            .iter()
            .find(|(n, _)| !self.defined.contains_key(n))
        {
            Some((name, span)) => Err(src.error(
                *span,
                format!("jump to `{name}`, which is not a label of thread {thread}"),
            )),
            None => Ok(()),
        }
    }
}
