//! The initial state and the final condition, for every dialect: parsed with the `litmus_common`
//! grammar, then resolved against the test's threads into `program` types.
//!
//! Owns: `Init` (memory and register initial values, arrays), thread-reference resolution
//! (`P1:` / `1:`), and the lowering of condition trees to `Prop`. Uses `source` for regions and
//! errors, `grammars::litmus_common` for syntax.
use std::collections::HashSet;

use crate::diag::Result;
use crate::litmus::ast::{CondAst, InitItem, Operand, PropAst, Span, Spanned, ThreadRef};
use crate::litmus::grammars;
use crate::litmus::program::{Condition, Prop, Quantifier, Target, Thread};
use crate::litmus::source::{parse_error, Source, TokenNames};

/// Names of the common grammar's regex terminals, for "expected …" messages.
const NAMES: TokenNames = &[("INT", "an integer"), ("IDENT", "a name")];

/// Largest array a test may declare.
const MAX_ARRAY: i64 = 64;

/// The resolved initial state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Init {
    pub(crate) mem: Vec<(String, i64)>,
    pub(crate) regs: Vec<(usize, String, i64)>,
    /// Arrays declared in the initial state, with their sizes.
    pub(crate) arrays: Vec<(String, usize)>,
}

impl Init {
    pub(crate) fn array_size(&self, name: &str) -> Option<usize> {
        self.arrays.iter().find(|(n, _)| n == name).map(|(_, s)| *s)
    }
    /// Every location named by the initial state (array elements included).
    pub(crate) fn locations(&self) -> impl Iterator<Item = &str> {
        self.mem.iter().map(|(n, _)| n.as_str())
    }
}

/// The location of element `index` of array `base`: `base` itself for element 0, else `base[i]`.
pub(crate) fn element_name(base: &str, index: i64) -> String {
    if index == 0 {
        base.to_string()
    } else {
        format!("{base}[{index}]")
    }
}

/// Parse the `{ … }` block at `span` of a test that may not declare aliases (C11, OpenCL).
pub(crate) fn parse_init(src: &Source, span: Span) -> Result<Vec<InitItem>> {
    let items = parse_init_with_aliases(src, span)?;
    match items.iter().find_map(|i| match i {
        InitItem::Alias { name, .. } => Some(name.span),
        _ => None,
    }) {
        Some(at) => Err(src.error(
            at,
            "a virtual alias (`y @ generic aliases x`) is PTX 7.5 syntax; only PTX tests declare one",
        )),
        None => Ok(items),
    }
}

/// Parse the `{ … }` block at `span`, alias declarations included (PTX).
pub(super) fn parse_init_with_aliases(src: &Source, span: Span) -> Result<Vec<InitItem>> {
    grammars::init()
        .parse(span.lo, src.slice(span))
        .map_err(|e| parse_error(src, span.lo, "initial state", NAMES, e))
}

/// Resolve parsed init items against the thread names (`P0`, `P1`, …).
pub(crate) fn resolve_init(src: &Source, items: Vec<InitItem>, threads: &[String]) -> Result<Init> {
    let mut init = Init::default();
    let mut seen_locs: HashSet<String> = HashSet::new();
    let mut seen_regs: HashSet<(usize, String)> = HashSet::new();
    for item in items {
        match item {
            InitItem::Loc { name, value, types } => {
                check_types(src, &types)?;
                add_location(
                    src,
                    &mut init,
                    &mut seen_locs,
                    &name,
                    name.node.clone(),
                    value,
                )?;
            }
            InitItem::Reg { thread, reg, value } => {
                let t = thread_index(src, &thread, threads)?;
                if !seen_regs.insert((t, reg.node.clone())) {
                    return Err(src.error(
                        reg.span,
                        format!("register `{}` is initialised twice", reg.node),
                    ));
                }
                init.regs.push((t, reg.node, value));
            }
            InitItem::Array {
                name,
                size,
                values,
                types,
            } => {
                check_types(src, &types)?;
                add_array(src, &mut init, &mut seen_locs, name, size, values)?;
            }
            // Taken out by the PTX front end, refused by `parse_init`.
            InitItem::Alias { name, .. } => {
                return Err(src.error(name.span, "a virtual alias is not expected here"))
            }
        }
    }
    Ok(init)
}

fn add_location(
    src: &Source,
    init: &mut Init,
    seen: &mut HashSet<String>,
    at: &Spanned<String>,
    loc: String,
    value: i64,
) -> Result<()> {
    if !seen.insert(loc.clone()) {
        return Err(src.error(at.span, format!("location `{loc}` is initialised twice")));
    }
    init.mem.push((loc, value));
    Ok(())
}

fn add_array(
    src: &Source,
    init: &mut Init,
    seen: &mut HashSet<String>,
    name: Spanned<String>,
    size: Spanned<i64>,
    values: Option<Spanned<Vec<i64>>>,
) -> Result<()> {
    if !(1..=MAX_ARRAY).contains(&size.node) {
        return Err(src.error(
            size.span,
            format!("array size must be between 1 and {MAX_ARRAY}"),
        ));
    }
    let values = values.map_or((vec![], size.span), |v| (v.node, v.span));
    if values.0.len() as i64 > size.node {
        return Err(src.error(
            values.1,
            format!("{} values for an array of {}", values.0.len(), size.node),
        ));
    }
    for i in 0..size.node {
        let value = values.0.get(i as usize).copied().unwrap_or(0);
        add_location(src, init, seen, &name, element_name(&name.node, i), value)?;
    }
    init.arrays.push((name.node, size.node as usize));
    Ok(())
}

/// Check the words of a C type (`volatile`, `atomic_int`, …).
pub(crate) fn check_types(src: &Source, words: &[Spanned<String>]) -> Result<()> {
    for w in words {
        if !crate::litmus::ast::C_TYPE_WORDS.contains(&w.node.as_str()) {
            return Err(src.error(w.span, format!("unknown type word `{}`; expected an integer type such as `int` or `atomic_int`", w.node)));
        }
    }
    Ok(())
}

/// Thread names are `P` followed by a number, as in herd.
pub(crate) fn check_thread_name(src: &Source, name: &Spanned<String>) -> Result<()> {
    let digits = name.node.strip_prefix('P').unwrap_or("");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(src.error(
            name.span,
            format!("expected a thread name such as `P0`, found `{}`", name.node),
        ));
    }
    Ok(())
}

/// The index (into the thread list) of `P1` or `1`.
pub(crate) fn thread_index(
    src: &Source,
    t: &Spanned<ThreadRef>,
    threads: &[String],
) -> Result<usize> {
    let name = match &t.node {
        ThreadRef::Name(n) => n.clone(),
        ThreadRef::Index(i) => format!("P{i}"),
    };
    threads.iter().position(|n| *n == name).ok_or_else(|| {
        let known = threads.join(", ");
        src.error(
            t.span,
            format!("no thread `{name}` in this test (threads: {known})"),
        )
    })
}

/// What names in a final condition refer to.
pub(crate) struct CondScope<'a> {
    /// Thread names, in order.
    pub(crate) threads: &'a [String],
    pub(crate) init: &'a Init,
    /// Per thread, its pointer parameters (C11 / OpenCL; empty for PTX). `0:x` for a pointer
    /// parameter `x` names the pointer itself, as in herd and Dat3M: an address, which equals no
    /// integer (and only a pointer to the same location).
    pub(crate) pointers: &'a [HashSet<String>],
    /// The threads' code: a register the condition names must be one its thread uses (or one
    /// the initial state sets), a location one some thread accesses (or the initial state or a
    /// parameter declares).
    pub(crate) code: &'a [Thread],
}

impl CondScope<'_> {
    /// Does the test declare `t`? Anything else in a condition is a mistake (herd's strict
    /// reading), not a value that silently reads as 0.
    fn declares(&self, t: &Target) -> bool {
        match t {
            Target::Reg { thread, reg } => {
                self.init
                    .regs
                    .iter()
                    .any(|(i, r, _)| i == thread && r == reg)
                    || self.code[*thread]
                        .code
                        .iter()
                        .any(|i| i.registers().contains(&reg))
            }
            Target::Mem(loc) => {
                self.init.locations().any(|l| l == loc)
                    || self.pointers.iter().any(|p| p.contains(loc))
                    || self
                        .code
                        .iter()
                        .flat_map(|t| &t.code)
                        .any(|i| i.location() == Some(loc))
            }
        }
    }
}

/// Parse and resolve the final clause at `span`: the condition and herd's `locations` list.
pub(crate) fn parse_condition(src: &Source, span: Span, scope: &CondScope) -> Result<Clauses> {
    if src.slice(span).trim().is_empty() {
        return Ok(Clauses {
            condition: Condition {
                quantifier: Quantifier::Forall,
                prop: Prop::True,
            },
            locations: vec![],
            filter: None,
        });
    }
    let ast: CondAst = grammars::condition()
        .parse(span.lo, src.slice(span))
        .map_err(|e| parse_error(src, span.lo, "final condition", NAMES, e))?;
    let locations = ast
        .locations
        .into_iter()
        .map(|o| location_item(src, o, scope))
        .collect::<Result<Vec<_>>>()?;
    let filter = ast
        .filter
        .map(|p| resolve_prop(src, p, scope))
        .transpose()?;
    // A filter alone (Dat3M's data-race tests), or no clause at all (herd's tests that only
    // show their final states), asks nothing of the final states: `forall true`, as herd reads
    // it (herdtools7 lib/stateParser.mly, `constr: | { ConstrGen.constr_true }`).
    let (quantifier, prop) = ast.clause.unwrap_or((Quantifier::Forall, PropAst::True));
    let condition = Condition {
        quantifier,
        prop: resolve_prop(src, prop, scope)?,
    };
    Ok(Clauses {
        condition,
        locations,
        filter,
    })
}

/// The initial state and the clauses of a test whose threads have no pointer parameters (PTX,
/// Vulkan): `items` resolved against the thread `names`, the clauses in `span` against both.
pub(crate) fn init_and_clauses(
    src: &Source,
    items: Vec<InitItem>,
    span: Span,
    names: &[String],
    code: &[Thread],
) -> Result<(Init, Clauses)> {
    let init = resolve_init(src, items, names)?;
    let scope = CondScope {
        threads: names,
        init: &init,
        pointers: &[],
        code,
    };
    let clauses = parse_condition(src, span, &scope)?;
    Ok((init, clauses))
}

/// The clauses after a test's threads, resolved.
pub(crate) struct Clauses {
    /// The final condition (`forall true` when the test gives only a filter).
    pub(crate) condition: Condition,
    /// herd's `locations` clause.
    pub(crate) locations: Vec<Target>,
    /// herd's `filter` clause.
    pub(crate) filter: Option<Prop>,
}

/// An item of the `locations` list: a register or a location the test declares.
fn location_item(src: &Source, o: Operand, scope: &CondScope) -> Result<Target> {
    let span = o.span();
    match operand(src, o, scope)? {
        Side::Target(t) => Ok(t),
        Side::Const(_) | Side::Pointer(_) => Err(src.error(
            span,
            "expected a register (`0:r0`) or a location (`x`) in the `locations` list",
        )),
    }
}

fn resolve_prop(src: &Source, p: PropAst, scope: &CondScope) -> Result<Prop> {
    let go = |q: Box<PropAst>| resolve_prop(src, *q, scope).map(Box::new);
    Ok(match p {
        PropAst::True => Prop::True,
        PropAst::False => Prop::False,
        PropAst::Not(a) => Prop::Not(go(a)?),
        PropAst::And(a, b) => Prop::And(go(a)?, go(b)?),
        PropAst::Or(a, b) => Prop::Or(go(a)?, go(b)?),
        PropAst::Implies(a, b) => Prop::Implies(go(a)?, go(b)?),
        PropAst::Cmp {
            lhs, rhs, equal, ..
        } => {
            let eq = compare(operand(src, lhs, scope)?, operand(src, rhs, scope)?);
            if equal {
                eq
            } else {
                Prop::Not(Box::new(eq))
            }
        }
    })
}

/// A condition operand: a final value, a constant, or a pointer parameter (to a location).
enum Side {
    Target(Target),
    Const(i64),
    Pointer(String),
}

fn operand(src: &Source, o: Operand, scope: &CondScope) -> Result<Side> {
    let span = o.span();
    let side = named_operand(src, o, scope)?;
    match &side {
        Side::Target(t) if !scope.declares(t) => Err(src.error(span, undeclared(t, scope))),
        _ => Ok(side),
    }
}

/// Why a name in the final clause is refused.
fn undeclared(t: &Target, scope: &CondScope) -> String {
    match t {
        Target::Reg { thread, reg } => format!(
            "`{reg}` is not a register of thread {}: the thread never uses it and the initial \
             state does not set it",
            scope.threads[*thread]
        ),
        Target::Mem(loc) => format!(
            "`{loc}` is not a location of this test: no thread accesses it and the initial state \
             does not declare it"
        ),
    }
}

fn named_operand(src: &Source, o: Operand, scope: &CondScope) -> Result<Side> {
    Ok(match o {
        Operand::Const(c, _) => Side::Const(c),
        Operand::Reg { thread, reg, .. } => {
            let t = thread_index(src, &thread, scope.threads)?;
            match scope.pointers.get(t) {
                Some(p) if p.contains(&reg) => Side::Pointer(reg),
                _ => Side::Target(Target::Reg { thread: t, reg }),
            }
        }
        Operand::Loc {
            name, index: None, ..
        } => Side::Target(Target::Mem(name)),
        Operand::Loc {
            name,
            index: Some(i),
            span,
        } => match scope.init.array_size(&name) {
            Some(size) if (0..size as i64).contains(&i) => {
                Side::Target(Target::Mem(element_name(&name, i)))
            }
            Some(size) => {
                return Err(src.error(
                    span,
                    format!("index {i} is outside array `{name}` of size {size}"),
                ))
            }
            None => {
                return Err(src.error(
                    span,
                    format!("`{name}` is not an array declared in the initial state"),
                ))
            }
        },
    })
}

fn compare(a: Side, b: Side) -> Prop {
    let truth = |b: bool| if b { Prop::True } else { Prop::False };
    match (a, b) {
        (Side::Const(x), Side::Const(y)) => truth(x == y),
        (Side::Pointer(p), Side::Pointer(q)) => truth(p == q),
        (Side::Pointer(_), _) | (_, Side::Pointer(_)) => Prop::False,
        (Side::Target(t), Side::Const(c)) | (Side::Const(c), Side::Target(t)) => Prop::Eq(t, c),
        (Side::Target(s), Side::Target(t)) => Prop::EqTargets(s, t),
    }
}
