//! The PTX front end: splits the thread table into `;`-terminated rows and `|`-separated cells,
//! parses the header row (`P0@cta 0,gpu 0 | …`) and every cell with the `litmus_ptx` grammar,
//! lowers each thread's column, and assembles the `Litmus`.
//!
//! Owns: the table layout, PTX thread placement and the PTX 7.5 alias declarations of the
//! initial state (`y @ generic aliases x`: proxy word, target declared before, no name twice). Uses `source` (regions, errors), `cond`
//! (initial state, condition), `ptx_instr` (instruction meaning) and `labels`.
use std::collections::HashSet;

use crate::diag::Result;
use crate::litmus::ast::InitItem;
use crate::litmus::ast::Span;
use crate::litmus::cond::{self, Init};
use crate::litmus::grammars;
use crate::litmus::labels::Labels;
use crate::litmus::program::{Alias, Arch, Instr, Litmus, Placement, Target, Thread};
use crate::litmus::ptx_ast::{Cell, Header, PtxInstr};
use crate::litmus::ptx_instr;
use crate::litmus::source::{parse_error, Layout, Source, TokenNames};
use crate::syntax::ptx::{GENERIC, PROXIES};

/// Names of the PTX grammar's regex terminals, for "expected …" messages.
const NAMES: TokenNames = &[
    ("REG", "a register (`r0`)"),
    ("PREG", "a register (`r0`)"),
    ("INT", "an integer"),
    ("IDENT", "a name"),
];

/// Parse a PTX test whose title is `name` and whose regions are `layout`.
pub(crate) fn parse(src: &Source, name: String, layout: &Layout) -> Result<Litmus> {
    let (init_items, aliases) = aliases(src, cond::parse_init_with_aliases(src, layout.init)?)?;
    let rows = rows(src, layout.body)?;
    let (header_row, code_rows) = rows.split_first().ok_or_else(|| {
        let at = src.trim(layout.body);
        src.error(at, "expected the thread header row `P0@cta 0,gpu 0 | … ;`")
    })?;
    let headers = headers(src, *header_row)?;
    let names: Vec<String> = headers.iter().map(|h| h.name.node.clone()).collect();
    let mut columns: Vec<Vec<(Cell, Span)>> = vec![Vec::new(); headers.len()];
    for row in code_rows {
        for (column, cell) in columns.iter_mut().zip(row_cells(src, *row, headers.len())?) {
            column.push(cell);
        }
    }
    let mut threads = Vec::with_capacity(headers.len());
    for (header, column) in headers.iter().zip(&columns) {
        threads.push(thread(src, header, column)?);
    }
    let init: Init = cond::resolve_init(src, init_items, &names)?;
    let scope = cond::CondScope {
        threads: &names,
        init: &init,
        pointers: &[],
        code: &threads,
    };
    let (condition, locations) = cond::parse_condition(src, layout.condition, &scope)?;
    let named = condition.prop.targets();
    if let Some(a) = aliases
        .iter()
        .find(|a| named.contains(&&Target::Mem(a.name.clone())))
    {
        let msg = format!(
            "the final condition names the alias `{}`; name its location `{}`",
            a.name, a.target
        );
        return Err(src.error(src.trim(layout.condition), msg));
    }
    Ok(Litmus {
        arch: Arch::Ptx,
        name,
        init_mem: init.mem,
        init_regs: init.regs,
        loc_tags: vec![],
        aliases,
        threads,
        condition,
        locations,
    })
}

/// Take the alias declarations (`y @ generic aliases x`) out of the initial state's items, in
/// order: each names a proxy (`generic`, or a `syntax::ptx::PROXIES` word), a target declared
/// before it (a location or an earlier alias) and a name declared nowhere else.
fn aliases(src: &Source, items: Vec<InitItem>) -> Result<(Vec<InitItem>, Vec<Alias>)> {
    let mut declared: HashSet<String> = HashSet::new();
    let mut alias_names: HashSet<String> = HashSet::new();
    let mut rest = Vec::new();
    let mut aliases = Vec::new();
    for item in items {
        let InitItem::Alias {
            name,
            proxy,
            keyword,
            target,
        } = item
        else {
            if let InitItem::Loc { name, .. } | InitItem::Array { name, .. } = &item {
                if alias_names.contains(&name.node) {
                    let msg = format!("`{}` is declared as an alias above", name.node);
                    return Err(src.error(name.span, msg));
                }
                declared.insert(name.node.clone());
            }
            rest.push(item);
            continue;
        };
        if keyword.node != "aliases" {
            let msg = format!("expected `aliases`, found `{}`", keyword.node);
            return Err(src.error(keyword.span, msg));
        }
        let proxy_tag = match PROXIES.tag(&proxy.node) {
            Some(tag) => Some(tag),
            None if proxy.node == GENERIC => None,
            None => {
                let msg = format!(
                    "unknown proxy `{}`; expected `{GENERIC}`, `surface`, `texture` or `constant`",
                    proxy.node
                );
                return Err(src.error(proxy.span, msg));
            }
        };
        if !declared.contains(&target.node) {
            let msg = format!(
                "`{}` is not declared before this alias; declare it first (`{} = 0;`)",
                target.node, target.node
            );
            return Err(src.error(target.span, msg));
        }
        if !declared.insert(name.node.clone()) {
            return Err(src.error(name.span, format!("`{}` is declared twice", name.node)));
        }
        alias_names.insert(name.node.clone());
        aliases.push(Alias {
            name: name.node,
            proxy: proxy_tag,
            target: target.node,
        });
    }
    Ok((rest, aliases))
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
            .map_err(|e| parse_error(src, cell.lo, "thread header", NAMES, e))?;
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

/// Parse the cells of an instruction row, which must have one cell per thread.
fn row_cells(src: &Source, row: Span, width: usize) -> Result<Vec<(Cell, Span)>> {
    let spans = cells(src, row);
    if spans.len() != width {
        let at = src.trim(row);
        let msg = format!(
            "this row has {} column(s) but the header declares {width} thread(s)",
            spans.len()
        );
        return Err(src.error(at, msg));
    }
    spans
        .into_iter()
        .map(|cell| {
            grammars::ptx_cell()
                .parse(cell.lo, src.slice(cell))
                .map(|c| (c, cell))
                .map_err(|e| {
                    unknown_mnemonic(src, cell)
                        .unwrap_or_else(|| parse_error(src, cell.lo, "instruction", NAMES, e))
                })
        })
        .collect()
}

fn thread(src: &Source, header: &Header, column: &[(Cell, Span)]) -> Result<Thread> {
    let mut labels = Labels::default();
    let mut code = Vec::new();
    for (cell, _) in column {
        if let Some(label) = &cell.label {
            labels.define(src, &label.node, label.span)?;
            code.push(Instr::Label(label.node.clone()));
        }
        if let Some(instr) = &cell.instr {
            if let PtxInstr::Branch { target, .. } | PtxInstr::Goto { target, .. } = &instr.node {
                labels.jump(&target.node, target.span);
            }
            code.push(ptx_instr::lower(src, &instr.node, instr.span)?);
        }
    }
    labels.finish(src, &header.name.node)?;
    Ok(Thread {
        name: header.name.node.clone(),
        placement: placement(src, header)?,
        code,
        unsequenced: vec![],
    })
}

/// `@cta C,gpu G` (either order; a missing one is 0).
fn placement(src: &Source, header: &Header) -> Result<Placement> {
    let mut placement = Placement::default();
    let mut seen = HashSet::new();
    for (key, value) in &header.placement {
        let slot = match key.node.as_str() {
            "cta" => &mut placement.cta,
            "gpu" => &mut placement.gpu,
            _ => {
                return Err(src.error(
                    key.span,
                    format!(
                        "unexpected `{}` in a PTX placement; expected `cta` or `gpu`",
                        key.node
                    ),
                ))
            }
        };
        if !seen.insert(key.node.as_str()) {
            return Err(src.error(key.span, format!("`{}` is given twice", key.node)));
        }
        *slot = value.node;
    }
    Ok(placement)
}

/// Mnemonics the PTX grammar knows.
const MNEMONICS: &[&str] = &[
    "ld", "suld", "tld", "cold", "st", "sust", "atom", "red", "fence", "membar", "bar", "barrier",
    "mov", "add", "sub", "mul", "and", "or", "xor", "beq", "bne", "blt", "ble", "bgt", "bge",
    "bra", "goto",
];

/// Mnemonics of the PTX 7.5 mixed-proxy extension that mapcheck does not model.
const PROXY_MNEMONICS: &[&str] = &["suatom", "sured"];

/// A clearer error than the grammar's when a cell starts with a word that is no mnemonic
/// (and is not a label).
fn unknown_mnemonic(src: &Source, cell: Span) -> Option<crate::diag::Error> {
    let text = src.slice(cell);
    let start = text.len() - text.trim_start().len();
    let word_len = text[start..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len() - start);
    let word = &text[start..start + word_len];
    let after = text[start + word_len..].trim_start();
    if word.is_empty() || after.starts_with(':') || MNEMONICS.contains(&word) {
        return None;
    }
    let span = Span::new(cell.lo + start, cell.lo + start + word_len);
    if PROXY_MNEMONICS.contains(&word) {
        return Some(src.error(
            span,
            format!("`{word}` {}", crate::litmus::ast::MIXED_PROXY),
        ));
    }
    Some(src.error(
        span,
        format!(
            "unknown instruction `{word}`; expected one of {}",
            MNEMONICS.join(", ")
        ),
    ))
}
