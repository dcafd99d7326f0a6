//! The thread table shared by the PTX and Vulkan front ends: `;`-terminated rows of
//! `|`-separated cells, a header row naming the threads and their placement
//! (`P0@cta 0,gpu 0 | …;`, `P0@sg 0, wg 0, qf 0 | …;`), then one instruction cell per thread
//! per row.
//!
//! Owns: cutting the table into rows and cells, parsing the header row (grammar `litmus_ptx`'s
//! `Header`), handing each instruction cell to the front end's own cell parser, and lowering a
//! column with the front end's instruction meaning (labels and jumps checked here). Uses `source`
//! (regions, errors) and `cond` (thread names).
use std::collections::HashSet;

use crate::diag::Result;
use crate::litmus::ast::{Span, Spanned};
use crate::litmus::cond;
use crate::litmus::grammars;
use crate::litmus::labels::Labels;
use crate::litmus::program::Instr;
use crate::litmus::ptx_ast::{Cell, Header};
use crate::litmus::source::{parse_error, Source, TokenNames};
use crate::vocab::{Level, Placement};

/// Names of the header grammar's regex terminals, for "expected …" messages.
const HEADER_NAMES: TokenNames = &[("INT", "an integer"), ("IDENT", "a name")];

/// The thread headers and, per thread, its column of parsed cells with their spans.
pub(crate) type Columns<C> = (Vec<Header>, Vec<Vec<(C, Span)>>);

/// Cut the table in `body` into its header row and the columns of cells `parse_cell` gives;
/// `example` is a header row shown when the table is empty.
pub(crate) fn columns<C>(
    src: &Source,
    body: Span,
    example: &str,
    parse_cell: &dyn Fn(Span) -> Result<C>,
) -> Result<Columns<C>> {
    let rows = rows(src, body)?;
    let (header_row, code_rows) = rows.split_first().ok_or_else(|| {
        let at = src.trim(body);
        src.error(at, format!("expected the thread header row `{example}`"))
    })?;
    let headers = headers(src, *header_row)?;
    let mut columns: Vec<Vec<(C, Span)>> = headers.iter().map(|_| Vec::new()).collect();
    for row in code_rows {
        for (column, cell) in columns.iter_mut().zip(row_cells(src, *row, headers.len())?) {
            column.push((parse_cell(cell)?, cell));
        }
    }
    Ok((headers, columns))
}

/// The `;`-terminated rows of the table.
fn rows(src: &Source, body: Span) -> Result<Vec<Span>> {
    let mut rows = Vec::new();
    let mut start = body.lo;
    for (i, _) in src.slice(body).match_indices(';') {
        rows.push(Span::new(start, body.lo + i));
        start = body.lo + i + 1;
    }
    let rest = src.trim(Span::new(start, body.hi));
    if rest.lo < rest.hi {
        return Err(src.error(rest, "expected `;` at the end of this table row"));
    }
    Ok(rows)
}

/// The `|`-separated cells of a row.
fn cells(src: &Source, row: Span) -> Vec<Span> {
    let mut cells = Vec::new();
    let mut start = row.lo;
    for (i, _) in src.slice(row).match_indices('|') {
        cells.push(Span::new(start, row.lo + i));
        start = row.lo + i + 1;
    }
    cells.push(Span::new(start, row.hi));
    cells
}

fn headers(src: &Source, row: Span) -> Result<Vec<Header>> {
    let mut seen = HashSet::new();
    let mut headers = Vec::new();
    for cell in cells(src, row) {
        let header = grammars::ptx_header()
            .parse(cell.lo, src.slice(cell))
            .map_err(|e| parse_error(src, cell.lo, "thread header", HEADER_NAMES, e))?;
        cond::check_thread_name(src, &header.name)?;
        if !seen.insert(header.name.node.clone()) {
            return Err(src.error(
                header.name.span,
                format!("thread `{}` is declared twice", header.name.node),
            ));
        }
        headers.push(header);
    }
    Ok(headers)
}

/// The cells of an instruction row, which must have one cell per thread.
fn row_cells(src: &Source, row: Span, width: usize) -> Result<Vec<Span>> {
    let spans = cells(src, row);
    if spans.len() != width {
        let at = src.trim(row);
        let msg = format!(
            "this row has {} column(s) but the header declares {width} thread(s)",
            spans.len()
        );
        return Err(src.error(at, msg));
    }
    Ok(spans)
}

/// A thread's column lowered to code: each cell's label, then its instruction as `lower` gives
/// it; every jump (`jump_target`) must reach a label of the column.
pub(crate) fn lower_column<I>(
    src: &Source,
    header: &Header,
    column: &[(Cell<I>, Span)],
    jump_target: fn(&I) -> Option<&Spanned<String>>,
    lower: &dyn Fn(&I, Span) -> Result<Instr>,
) -> Result<Vec<Instr>> {
    let mut labels = Labels::default();
    let mut code = Vec::new();
    for (cell, _) in column {
        if let Some(label) = &cell.label {
            labels.define(src, &label.node, label.span)?;
            code.push(Instr::Label(label.node.clone()));
        }
        if let Some(instr) = &cell.instr {
            if let Some(target) = jump_target(&instr.node) {
                labels.jump(&target.node, target.span);
            }
            code.push(lower(&instr.node, instr.span)?);
        }
    }
    labels.finish(src, &header.name.node)?;
    Ok(code)
}

/// The placement a thread's pairs give (`@cta 0,gpu 0`), each key one of `words`, the
/// dialect's word for a level; `dialect` ("a PTX") names it in messages, `hint` follows the
/// expected words. Pairs may come in any order; a missing one is 0; an unknown or repeated key
/// is an error.
pub(crate) fn placement(
    src: &Source,
    pairs: &[(Spanned<String>, Spanned<i64>)],
    words: &[(&str, Level)],
    dialect: &str,
    hint: &str,
) -> Result<Placement> {
    let mut placement = Placement::default();
    let mut seen = HashSet::new();
    for (key, value) in pairs {
        let Some(&(_, level)) = words.iter().find(|(w, _)| *w == key.node) else {
            let msg = format!(
                "unexpected `{}` in {dialect} placement; expected {}{hint}",
                key.node,
                quoted_words(words, " or ")
            );
            return Err(src.error(key.span, msg));
        };
        if !seen.insert(level) {
            return Err(src.error(key.span, format!("`{}` is given twice", key.node)));
        }
        placement = placement.with(level, value.node);
    }
    Ok(placement)
}

/// A placement's words, backquoted and joined by `sep` (`` `cta` or `gpu` ``).
pub(crate) fn quoted_words(words: &[(&str, Level)], sep: &str) -> String {
    let quoted: Vec<String> = words.iter().map(|(w, _)| format!("`{w}`")).collect();
    quoted.join(sep)
}
