//! The PTX front end: splits the thread table into `;`-terminated rows and `|`-separated cells,
//! parses the header row (`P0@cta 0,gpu 0 | …`) and every cell with the `litmus_ptx` grammar,
//! lowers each thread's column, and assembles the `Litmus`.
//!
//! Owns: the table layout, PTX thread placement and the PTX 7.5 alias declarations of the
//! initial state (`y @ generic aliases x`: proxy word, target declared before, no name twice). Uses `source` (regions, errors), `cond`
//! (initial state, condition), `ptx_instr` (instruction meaning) and `labels`.
use std::collections::HashSet;

use crate::diag::Result;
use crate::isa;
use crate::isa::ptx::{GENERIC, PROXIES};
use crate::litmus::ast::InitItem;
use crate::litmus::ast::Span;
use crate::litmus::cond;
use crate::litmus::grammars;
use crate::litmus::program::{Alias, Arch, Litmus, Placement, Target, Thread};
use crate::litmus::ptx_ast::{Cell, Header, PtxInstr};
use crate::litmus::ptx_instr;
use crate::litmus::source::{parse_error, Layout, Source, TokenNames};
use crate::litmus::table;

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
    let example = "P0@cta 0,gpu 0 | … ;";
    let (headers, columns) = table::columns(src, layout.body, example, &|cell| cell_at(src, cell))?;
    let names: Vec<String> = headers.iter().map(|h| h.name.node.clone()).collect();
    let mut threads = Vec::with_capacity(headers.len());
    for (header, column) in headers.iter().zip(&columns) {
        threads.push(thread(src, header, column)?);
    }
    let (init, clauses) =
        cond::init_and_clauses(src, init_items, layout.condition, &names, &threads)?;
    let cond::Clauses {
        condition,
        locations,
        filter,
    } = clauses;
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
        ssw: vec![],
        loc_tags: vec![],
        aliases,
        threads,
        condition,
        locations,
        filter,
    })
}

/// Take the alias declarations (`y @ generic aliases x`) out of the initial state's items, in
/// order: each names a proxy (`generic`, or a `isa::ptx::PROXIES` word), a target declared
/// before it (a location or an earlier alias) and a name declared nowhere else.
pub(super) fn aliases(src: &Source, items: Vec<InitItem>) -> Result<(Vec<InitItem>, Vec<Alias>)> {
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

/// Parse one instruction cell.
fn cell_at(src: &Source, cell: Span) -> Result<Cell<PtxInstr>> {
    grammars::ptx_cell()
        .parse(cell.lo, src.slice(cell))
        .map_err(|e| {
            unknown_mnemonic(src, cell)
                .unwrap_or_else(|| parse_error(src, cell.lo, "instruction", NAMES, e))
        })
}

fn thread(src: &Source, header: &Header, column: &[(Cell<PtxInstr>, Span)]) -> Result<Thread> {
    let lower = |i: &PtxInstr, span: Span| ptx_instr::lower(src, i, span);
    let code = table::lower_column(src, header, column, PtxInstr::jump_target, &lower)?;
    Ok(Thread {
        name: header.name.node.clone(),
        placement: placement(src, header)?,
        code,
        unsequenced: vec![],
    })
}

/// `@cta C,gpu G` (either order; a missing one is 0).
fn placement(src: &Source, header: &Header) -> Result<Placement> {
    table::placement(src, &header.placement, &isa::ptx::PLACEMENT, "a PTX", "")
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
