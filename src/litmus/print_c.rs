//! The C printer: writes a C11 or OpenCL `Litmus` as a litmus file in the C dialect that the C
//! front end (`c`, `c_lower`, `c_calls`) parses into the same `Litmus`.
//!
//! Owns: `print_c` — the title, the initial state, the thread headers, each instruction written back
//! as the C statement the front end lowers to it (the inverse of the table in `c_calls`'s
//! header), and the final clause. Decisions:
//! - Every location of the test is a parameter of every thread: `loc_tags` locations first, in
//!   their order (OpenCL: marked `global` / `local`), then the others. `atomic_int*` when some
//!   access to the location is atomic, `volatile int*` when the others are volatile, else `int*`
//!   (the type is informational for the front end).
//! - Placement: OpenCL threads always get `@wg W, dev D`; C11 threads get `@cta C, gpu G` when
//!   some thread of the test is not at CTA 0, GPU 0, and no placement otherwise.
//! - Accesses: NA → `*x`; an order (and scope) → the `_explicit` call with `memory_order_…` (and
//!   `thread_scope_…` in C11, `memory_scope_…` in OpenCL); [RLX, SYS, V] → `volatile_load` /
//!   `volatile_store`. OpenCL fences are `atomic_work_item_fence(flags, order, scope)`.
//! - Control flow: the shapes the front end lowers `if`, `if … else`, `while`,
//!   `atomic_compare_exchange_strong_explicit` and labelled OpenCL barriers to are recognised and
//!   written back as such; the registers the front end invents (`%t0`, a value read inside an
//!   expression) are folded back into the expression that uses them; named labels and `goto`s
//!   are written as they are. Anything else (a jump of another shape, an array element, a tag set
//!   no C call gives) is an error naming the thread and instruction.
//! - The printed text is parsed again and compared with the test (tags within an instruction
//!   compared as sets); a difference is an error. So `print_c` never returns a file that reads
//!   back as another test: the result re-parses to `test` up to the order of tags within one
//!   instruction (and exactly to `test` when its tags are in the front end's order: order, scope,
//!   then V or the regions).
//!
//! Uses: `program` (the `Litmus` type), `print` (the final clause, shared with `print_ptx`),
//! `c_lower::fold` (which expressions the front end would simplify), `parse_str` for the check,
//! `isa::c` for the words of orders, scopes, fence flags and address spaces, `vocab` (the tags),
//! `diag` for errors.
//!
//! This file keeps the test's header, locations and thread headers; the rest, by job:
//! `statements` (a thread's statements and control flow), `expressions` (expressions, conditions,
//! assignments), `accesses` (tags → C calls) and `check` (the read-back check).
//!
//! Files:
//! - `print_c/statements.rs`: a thread's statements and its control-flow shapes.
//! - `print_c/expressions.rs`: expressions, conditions and assignments.
//! - `print_c/accesses.rs`: tags decoded into the C call that writes them.
//! - `print_c/check.rs`: the read-back check, instruction by instruction.
mod accesses;
mod check;
mod expressions;
mod statements;

use std::collections::HashSet;
use std::fmt::Write;

use crate::diag::{Error, Result};
use crate::isa::c;
use crate::isa::c::{C11_PLACEMENT, OPENCL_PLACEMENT};
use crate::litmus::ast::C_TYPE_WORDS;
use crate::litmus::print::{final_clause, is_ident, placement_words, Msg, RESERVED};
use crate::litmus::program::{unsequenced_refusal, Arch, Instr, Litmus, Target, Thread};
use crate::vocab::{self, Tag};
use check::check;
use statements::Body;

/// Write `test` (a C11 or OpenCL test) as a litmus file in the C dialect.
pub fn print_c(test: &Litmus) -> Result<String> {
    let fail = |msg: String| Error::file(test.name.clone(), msg);
    if let Some(t) = test.unsequenced_thread() {
        return Err(fail(unsequenced_refusal(t)));
    }
    if let Some(msg) = test.filter_refusal() {
        return Err(fail(msg));
    }
    let text = write_test(test).map_err(fail)?;
    check(test, &text)?;
    Ok(text)
}

/// C keywords and litmus words that cannot name a location, register or label.
const KEYWORDS: &[&str] = &[
    "if", "else", "while", "for", "do", "goto", "return", "switch", "case", "default", "break",
    "continue", "sizeof", "struct", "union", "enum", "typedef", "static", "extern", "void",
];

/// Can `name` be written as a location, register or label of a C test?
fn c_name(name: &str) -> bool {
    is_ident(name)
        && !RESERVED.contains(&name)
        && !KEYWORDS.contains(&name)
        && !C_TYPE_WORDS.contains(&name)
}

/// Registers the front end invents for values read inside an expression.
fn is_fresh_reg(r: &str) -> bool {
    r.starts_with("%t")
}

/// Labels the front end invents for `if`, `while` and compare-exchange.
fn is_fresh_label(l: &str) -> bool {
    l.starts_with("%L")
}

fn write_test(test: &Litmus) -> Msg<String> {
    let opencl = match test.arch {
        Arch::C11 => false,
        Arch::OpenCl => true,
        Arch::Ptx | Arch::Vulkan => {
            return Err(format!(
                "this is a {:?} test; print_c writes C11 and OpenCL tests (print_ptx writes PTX)",
                test.arch
            ))
        }
    };
    let name = &test.name;
    if name.trim().is_empty() || name.trim() != name || name.contains('\n') {
        return Err(format!("test name `{name}` cannot be a litmus title"));
    }
    if test.threads.is_empty() {
        return Err("a C litmus test needs at least one thread".into());
    }
    let locs = locations(test, opencl)?;
    let loc_names: HashSet<&str> = locs.iter().map(|l| l.name.as_str()).collect();
    let mut out = format!("{} {name}\n\n{{\n", if opencl { "OPENCL" } else { "C" });
    for (loc, v) in &test.init_mem {
        writeln!(out, "  [{loc}] = {};", constant(*v)?).ok();
    }
    for (t, reg, v) in &test.init_regs {
        writeln!(
            out,
            "  {}:{} = {};",
            thread_name(test, *t)?,
            register(reg, &loc_names)?,
            constant(*v)?
        )
        .ok();
    }
    out.push_str("}\n");
    let placed = opencl
        || test
            .threads
            .iter()
            .any(|t| t.placement != Default::default());
    for thread in &test.threads {
        out.push('\n');
        thread_text(thread, opencl, placed, &locs, &loc_names, &mut out)
            .map_err(|m| format!("{}, {m}", thread.name))?;
    }
    let target = |t: &Target| match t {
        Target::Reg { thread, reg } => Ok(format!(
            "{}:{}",
            thread_name(test, *thread)?,
            register(reg, &loc_names)?
        )),
        Target::Mem(loc) => Ok(loc.clone()),
    };
    for c in test.condition.prop.constants() {
        constant(c)?;
    }
    writeln!(out, "\n{}", final_clause(test, &target)?).ok();
    Ok(out)
}

/// A location as declared in every thread's parameter list.
struct Location {
    name: String,
    /// `global` / `local` (OpenCL only).
    region: Option<&'static str>,
    /// Some access is atomic (not NA, not volatile).
    atomic: bool,
    /// Some access is volatile.
    volatile: bool,
}

/// Every location of the test: `loc_tags` first (their order is what the front end rebuilds from
/// the parameter lists), then the initial state, the accesses and the final condition.
fn locations(test: &Litmus, opencl: bool) -> Msg<Vec<Location>> {
    let mut out: Vec<Location> = vec![];
    let mut add = |name: &str, region: Option<&'static str>| -> Msg<()> {
        if out.iter().any(|l| l.name == name) {
            return match region {
                Some(_) => Err(format!("location `{name}` has tags twice in loc_tags")),
                None => Ok(()),
            };
        }
        if !c_name(name) {
            return Err(format!(
                "location `{name}` cannot be written in a C test (array elements and names that are not C identifiers are not supported)"
            ));
        }
        out.push(Location {
            name: name.to_string(),
            region,
            atomic: false,
            volatile: false,
        });
        Ok(())
    };
    for (loc, tags) in &test.loc_tags {
        let region = match (opencl, tags.as_slice()) {
            (true, [t]) if c::ADDRESS_SPACES.has(*t) => c::ADDRESS_SPACES.spelling(*t),
            _ => {
                return Err(format!(
                    "location `{loc}` has tags [{}]; a C test can only mark an OpenCL location global or local",
                    vocab::join(tags, ", ")
                ))
            }
        };
        add(loc, Some(region))?;
    }
    for (loc, _) in &test.init_mem {
        add(loc, None)?;
    }
    for instr in test.threads.iter().flat_map(|t| &t.code) {
        if let Instr::Load { loc, .. } | Instr::Store { loc, .. } | Instr::Rmw { loc, .. } = instr {
            add(loc, None)?;
        }
    }
    for t in test.condition.prop.targets() {
        if let Target::Mem(loc) = t {
            add(loc, None)?;
        }
    }
    for instr in test.threads.iter().flat_map(|t| &t.code) {
        match instr {
            Instr::Load { loc, tags, .. }
            | Instr::Store { loc, tags, .. }
            | Instr::Rmw { loc, tags, .. }
                if !tags.contains(&Tag::Na) =>
            {
                if let Some(l) = out.iter_mut().find(|l| l.name == *loc) {
                    match tags.contains(&Tag::V) {
                        true => l.volatile = true,
                        false => l.atomic = true,
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

fn thread_name(test: &Litmus, index: usize) -> Msg<&str> {
    let t = test
        .threads
        .get(index)
        .ok_or(format!("there is no thread {index}"))?;
    Ok(t.name.as_str())
}

/// A register as written in the initial state, the condition or the code.
fn register<'r>(reg: &'r str, locs: &HashSet<&str>) -> Msg<&'r str> {
    if !c_name(reg) {
        return Err(format!("register `{reg}` cannot be written in a C test"));
    }
    if locs.contains(reg) {
        return Err(format!(
            "register `{reg}` has the name of a location; C cannot tell them apart"
        ));
    }
    Ok(reg)
}

/// An integer as the C and condition grammars read it (`i64::MIN` has no literal).
fn constant(v: i64) -> Msg<i64> {
    if v == i64::MIN {
        return Err(format!(
            "the value {v} has no literal in the initial state or the final condition"
        ));
    }
    Ok(v)
}

fn thread_text(
    thread: &Thread,
    opencl: bool,
    placed: bool,
    locs: &[Location],
    loc_names: &HashSet<&str>,
    out: &mut String,
) -> Msg<()> {
    super::print::check_thread_name(thread)?;
    let p = thread.placement;
    let placement = match (opencl, placed) {
        (true, _) => format!("@{}", placement_words(p, &OPENCL_PLACEMENT, ", ")),
        (false, true) => format!("@{}", placement_words(p, &C11_PLACEMENT, ", ")),
        (false, false) => String::new(),
    };
    let params: Vec<String> = locs
        .iter()
        .map(|l| {
            let ty = match (l.atomic, l.volatile) {
                (true, _) => "atomic_int",
                (false, true) => "volatile int",
                (false, false) => "int",
            };
            match l.region {
                Some(r) => format!("{r} {ty}* {}", l.name),
                None => format!("{ty}* {}", l.name),
            }
        })
        .collect();
    let mut body = Body {
        opencl,
        locs: loc_names,
        lines: vec![],
        pending: vec![],
        seen: HashSet::new(),
        declare: vec![],
    };
    body.block(&thread.code, 0, thread.code.len(), 1)?;
    writeln!(out, "{}{placement} ({}) {{", thread.name, params.join(", ")).ok();
    for r in &body.declare {
        writeln!(out, "  int {r};").ok();
    }
    for line in &body.lines {
        writeln!(out, "{line}").ok();
    }
    out.push_str("}\n");
    Ok(())
}
