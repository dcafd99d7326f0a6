//! The C11 and OpenCL front end: parses the thread section with the `litmus_c` grammar, checks
//! thread headers and parameters, derives OpenCL location regions, lowers each thread body
//! (`c_lower`), and assembles the `Litmus`.
//!
//! Thread headers: C11 `P0 (atomic_int* x, int* y)`, optionally placed in the scope tree with
//! PTX's words, `P0@cta 1, gpu 0 (…)` (for the scoped C++ models: `thread_scope_block` is the CTA,
//! `thread_scope_device` the GPU); OpenCL `P0@wg 0, dev 0 (global atomic_int* x, local int* y)`,
//! where `wg` is the work-group (`Placement::cta`) and `dev` the device (`Placement::gpu`). Either
//! key may be left out (it is then 0), as may the whole placement. An OpenCL parameter marked `global`
//! or `local` (or `__global`, `__local`) puts its location in `loc_tags` with [GLOBAL] or [LOCAL];
//! an unmarked one adds nothing. The elements of an array share the array's region. Parameter
//! types are otherwise informational: whether an access is atomic is decided by the access
//! (`*x` is NA, `atomic_*` calls are atomic).
//!
//! Owns: thread-level checks and `loc_tags`. Uses `source`, `cond`, `c_ast`, `c_lower`.
use std::collections::HashSet;

use crate::diag::Result;
use crate::isa::c::{ADDRESS_SPACES, C11_PLACEMENT, OPENCL_PLACEMENT};
use crate::litmus::ast::{Span, Spanned};
use crate::litmus::c_ast::CThread;
use crate::litmus::c_lower::Lowerer;
use crate::litmus::cond::{self, Init};
use crate::litmus::grammars;
use crate::litmus::program::{Arch, Litmus, Placement, Thread};
use crate::litmus::source::{parse_error, Layout, Source, TokenNames};
use crate::litmus::table;
use crate::vocab::Tag;

/// Names of the C grammar's regex terminals, for "expected …" messages.
const NAMES: TokenNames = &[
    ("INT", "an integer"),
    ("HEX", "an integer"),
    ("IDENT", "a name"),
];

/// Parse a C11 (`arch` = C11) or OpenCL test whose title is `name`.
/// Also, per thread, where each instruction was written.
pub(crate) fn parse(
    src: &Source,
    arch: Arch,
    name: String,
    layout: &Layout,
) -> Result<(Litmus, Vec<Vec<Span>>)> {
    let init_items = cond::parse_init(src, layout.init)?;
    let asts = grammars::c_threads()
        .parse(layout.body.lo, src.slice(layout.body))
        .map_err(|e| parse_error(src, layout.body.lo, "thread code", NAMES, e))?;
    let names = thread_names(src, &asts, layout)?;
    let init = cond::resolve_init(src, init_items, &names)?;
    let loc_tags = with_array_elements(&init, loc_tags(src, arch, &asts)?);
    let mut barrier_ids = Vec::new();
    let (mut threads, mut spans) = (Vec::with_capacity(asts.len()), vec![]);
    for t in &asts {
        let (thread, written) = thread(src, arch, &init, &mut barrier_ids, t)?;
        threads.push(thread);
        spans.push(written);
    }
    let pointers: Vec<HashSet<String>> = asts
        .iter()
        .map(|t| t.params.iter().map(|p| p.name.node.clone()).collect())
        .collect();
    let scope = cond::CondScope {
        threads: &names,
        init: &init,
        pointers: &pointers,
        code: &threads,
    };
    let cond::Clauses {
        condition,
        locations,
        filter,
    } = cond::parse_condition(src, layout.condition, &scope)?;
    let test = Litmus {
        arch,
        name,
        init_mem: init.mem,
        init_regs: init.regs,
        loc_tags,
        ssw: vec![],
        aliases: vec![],
        threads,
        condition,
        locations,
        filter,
    };
    Ok((test, spans))
}

fn thread_names(src: &Source, asts: &[CThread], layout: &Layout) -> Result<Vec<String>> {
    if asts.is_empty() {
        let at = src.trim(layout.body);
        return Err(src.error(
            at,
            "expected at least one thread, such as `P0 (atomic_int* x) { … }`",
        ));
    }
    let mut names = Vec::with_capacity(asts.len());
    for t in asts {
        cond::check_thread_name(src, &t.name)?;
        if names.contains(&t.name.node) {
            return Err(src.error(
                t.name.span,
                format!("thread `{}` is declared twice", t.name.node),
            ));
        }
        names.push(t.name.node.clone());
    }
    Ok(names)
}

fn thread(
    src: &Source,
    arch: Arch,
    init: &Init,
    barrier_ids: &mut Vec<String>,
    t: &CThread,
) -> Result<(Thread, Vec<Span>)> {
    let placement = placement(src, arch, t)?;
    let mut params = HashSet::new();
    for p in &t.params {
        cond::check_types(src, &p.words)?;
        if !params.insert(p.name.node.clone()) {
            return Err(src.error(
                p.name.span,
                format!("parameter `{}` is declared twice", p.name.node),
            ));
        }
    }
    let lowered =
        Lowerer::new(src, arch, init, barrier_ids, params).thread(&t.name.node, &t.body)?;
    let thread = Thread {
        name: t.name.node.clone(),
        placement,
        code: lowered.code,
        unsequenced: lowered.unsequenced,
    };
    Ok((thread, lowered.spans))
}

/// `@wg W, dev D` for OpenCL, `@cta C, cluster K, gpu G` for C11 (any order; a missing one is 0).
fn placement(src: &Source, arch: Arch, t: &CThread) -> Result<Placement> {
    let (words, dialect, others, other_dialect): (&[_], _, &[_], _) = match arch {
        Arch::OpenCl => (&OPENCL_PLACEMENT, "an OpenCL", &C11_PLACEMENT, "C11"),
        _ => (&C11_PLACEMENT, "a C11", &OPENCL_PLACEMENT, "OpenCL"),
    };
    let others = table::quoted_words(others, ", ");
    let hint = format!(" ({others} are the {other_dialect} words)");
    table::placement(src, &t.placement, words, dialect, &hint)
}

/// The memory region of every OpenCL location marked `global` or `local` in some thread.
fn loc_tags(src: &Source, arch: Arch, asts: &[CThread]) -> Result<Vec<(String, Vec<Tag>)>> {
    let mut tags: Vec<(String, Vec<Tag>, Spanned<String>)> = Vec::new();
    for p in asts.iter().flat_map(|t| &t.params) {
        let Some((word, tag)) = p
            .words
            .iter()
            .find_map(|w| ADDRESS_SPACES.tag(&w.node).map(|t| (w, t)))
        else {
            continue;
        };
        if arch != Arch::OpenCl {
            return Err(src.error(
                word.span,
                format!(
                    "`{}` is an OpenCL address space; this is a C11 test",
                    word.node
                ),
            ));
        }
        match tags.iter().find(|(loc, _, _)| *loc == p.name.node) {
            Some((_, t, first)) if t[0] != tag => {
                let (line, _) = src.error(first.span, "").line_col().unwrap_or((0, 0));
                let msg = format!(
                    "location `{}` is {} here but {} on line {line}",
                    p.name.node,
                    word.node,
                    t[0].name().to_lowercase()
                );
                return Err(src.error(word.span, msg));
            }
            Some(_) => {}
            None => tags.push((p.name.node.clone(), vec![tag], word.clone())),
        }
    }
    Ok(tags.into_iter().map(|(loc, t, _)| (loc, t)).collect())
}

/// Give every element of an array the region of the array (`y[1]` is global when `y` is).
fn with_array_elements(init: &Init, tags: Vec<(String, Vec<Tag>)>) -> Vec<(String, Vec<Tag>)> {
    let mut out = Vec::with_capacity(tags.len());
    for (loc, t) in tags {
        let size = init.array_size(&loc).unwrap_or(1) as i64;
        let elements: Vec<String> = (1..size).map(|i| cond::element_name(&loc, i)).collect();
        out.push((loc, t.clone()));
        out.extend(elements.into_iter().map(|e| (e, t.clone())));
    }
    out
}
