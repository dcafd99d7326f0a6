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
//! `syntax::c` for the words of orders, scopes, fence flags and address spaces.
use std::collections::HashSet;
use std::fmt::Write;

use crate::diag::{Error, Result};
use crate::litmus::ast::C_TYPE_WORDS;
use crate::litmus::c_lower::fold;
use crate::litmus::print::{condition_text, is_ident, Msg, RESERVED};
use crate::litmus::program::{
    Arch, BinOp, CmpOp, Cond, Expr, Instr, Litmus, RmwOp, Target, Thread,
};
use crate::syntax::c;
use crate::vocab::{self, Tag};

/// Write `test` (a C11 or OpenCL test) as a litmus file in the C dialect.
pub fn print_c(test: &Litmus) -> Result<String> {
    let fail = |msg: String| Error::file(test.name.clone(), msg);
    let text = write_test(test).map_err(fail)?;
    check(test, &text).map_err(fail)?;
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
    let opencl =
        match test.arch {
            Arch::C11 => false,
            Arch::OpenCl => true,
            Arch::Ptx => return Err(
                "this is a PTX test; print_c writes C11 and OpenCL tests (print_ptx writes PTX)"
                    .into(),
            ),
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
    writeln!(out, "\n{}", condition_text(&test.condition, &target)?).ok();
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
        (true, _) => format!("@wg {}, dev {}", p.cta, p.gpu),
        (false, true) => format!("@cta {}, gpu {}", p.cta, p.gpu),
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

/// A value the front end put in a fresh register, waiting for the expression that uses it.
struct Pending {
    reg: String,
    text: String,
    /// `Some(x)` when the value is a plain (NA) load of `x` (a compare-exchange's expected value).
    na_load: Option<String>,
}

/// The statements of one thread being written.
struct Body<'a> {
    opencl: bool,
    locs: &'a HashSet<&'a str>,
    lines: Vec<String>,
    pending: Vec<Pending>,
    /// Registers already declared or mentioned.
    seen: HashSet<String>,
    /// Registers declared at the top (`int r;`): first mentioned by a read or inside a block.
    declare: Vec<String>,
}

/// How an access is written.
enum Access {
    Plain,
    Atomic { order: &'static str, scope: String },
    Volatile,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    Load,
    Store,
    Rmw,
}

impl Body<'_> {
    /// Write `code[lo..hi]` at nesting `depth` (1: the thread's body).
    fn block(&mut self, code: &[Instr], lo: usize, hi: usize, depth: usize) -> Msg<()> {
        let mut i = lo;
        while i < hi {
            i = self
                .item(code, i, hi, depth)
                .map_err(|m| format!("instruction {i} `{:?}`: {m}", code[i]))?;
        }
        if let Some(p) = self.pending.first() {
            return Err(format!(
                "the value read into `{}` is never used as the C front end would use it",
                p.reg
            ));
        }
        Ok(())
    }

    /// Write the statement starting at `code[i]`; returns the index after it.
    fn item(&mut self, code: &[Instr], i: usize, hi: usize, depth: usize) -> Msg<usize> {
        match &code[i] {
            Instr::Load { dst, loc, tags } => {
                let text = match self.access(tags, Use::Load)? {
                    Access::Plain => format!("*{loc}"),
                    Access::Atomic { order, scope } => {
                        format!("atomic_load_explicit({loc}, {order}{scope})")
                    }
                    Access::Volatile => format!("volatile_load({loc})"),
                };
                let na_load = tags.iter().all(|t| *t == Tag::Na).then(|| loc.clone());
                self.define(dst, text, na_load, depth)?;
            }
            Instr::Store { loc, value, tags } => {
                let access = self.access(tags, Use::Store)?;
                let v = self.expr(value)?;
                let line = match access {
                    Access::Plain => format!("*{loc} = {v};"),
                    Access::Atomic { order, scope } => {
                        format!("atomic_store_explicit({loc}, {v}, {order}{scope});")
                    }
                    Access::Volatile => format!("volatile_store({loc}, {v});"),
                };
                self.stmt(line, depth)?;
            }
            Instr::Rmw {
                op: RmwOp::Cas { .. },
                ..
            } => return self.cas(code, i, hi, depth),
            Instr::Rmw {
                dst,
                loc,
                op,
                tags,
                fail_tags,
            } => {
                if fail_tags.is_some() {
                    return Err("only a compare-exchange has a failure order".into());
                }
                let Access::Atomic { order, scope } = self.access(tags, Use::Rmw)? else {
                    return Err("a read-modify-write must be atomic, with a memory order".into());
                };
                let (function, operand) = match op {
                    RmwOp::Arith(b, e) => (fetch_name(*b)?, e),
                    RmwOp::Exch(e) => ("atomic_exchange", e),
                    RmwOp::Cas { .. } => unreachable!("handled above"),
                };
                let v = self.expr(operand)?;
                let text = format!("{function}_explicit({loc}, {v}, {order}{scope})");
                match dst {
                    Some(d) => self.define(d, text, None, depth)?,
                    None => self.stmt(format!("{text};"), depth)?,
                }
            }
            Instr::Fence { tags } => {
                let line = self.fence(tags)?;
                self.stmt(line, depth)?;
            }
            Instr::Barrier { id, count, tags } => {
                if *id != Expr::Const(0) {
                    return Err(
                        "a barrier with an id is written with a label before it (`B1: barrier(…)`)"
                            .into(),
                    );
                }
                let line = format!("{};", self.barrier(count.as_ref(), tags)?);
                self.stmt(line, depth)?;
            }
            Instr::Assign { dst, value } => {
                let v = self.expr(value)?;
                self.define(dst, v, None, depth)?;
            }
            Instr::BranchIf { cond, target } if is_fresh_label(target) => {
                return self.if_stmt(code, i, cond, target, hi, depth)
            }
            Instr::Label(head) if is_fresh_label(head) => {
                return self.while_stmt(code, i, head, hi, depth)
            }
            Instr::Label(l) => {
                if !c_name(l) {
                    return Err(format!("label `{l}` cannot be written in a C test"));
                }
                if let Some(Instr::Barrier { id, count, tags }) =
                    code.get(i + 1).filter(|_| i + 1 < hi)
                {
                    if *id != Expr::Const(0) {
                        let line = format!("{l}: {};", self.barrier(count.as_ref(), tags)?);
                        self.stmt(line, depth)?;
                        return Ok(i + 2);
                    }
                }
                self.stmt(format!("{l}: ;"), depth)?;
            }
            Instr::Goto(l) if c_name(l) => self.stmt(format!("goto {l};"), depth)?,
            Instr::Goto(_) | Instr::BranchIf { .. } => {
                return Err(
                    "a jump that is no `if`, `if … else`, `while` or `goto` of the C front end"
                        .into(),
                )
            }
        }
        Ok(i + 1)
    }

    /// `if (c) { … }` and `if (c) { … } else { … }`: `BranchIf(!c, else)`, then, [`Goto(end)`,
    /// `Label(else)`, else], `Label(…)`.
    fn if_stmt(
        &mut self,
        code: &[Instr],
        i: usize,
        cond: &Cond,
        target: &str,
        hi: usize,
        depth: usize,
    ) -> Msg<usize> {
        let k = find_label(code, target, i + 1, hi)
            .ok_or("a jump forward to no label of its block is no `if` of the C front end")?;
        let c = self.condition(cond)?;
        self.stmt(format!("if ({c}) {{"), depth)?;
        let otherwise = match code.get(k.wrapping_sub(1)) {
            Some(Instr::Goto(end)) if k > i + 1 && is_fresh_label(end) => {
                find_label(code, end, k + 1, hi).map(|m| (k - 1, m))
            }
            _ => None,
        };
        match otherwise {
            Some((then_end, m)) => {
                self.block(code, i + 1, then_end, depth + 1)?;
                self.stmt("} else {".into(), depth)?;
                self.block(code, k + 1, m, depth + 1)?;
                self.stmt("}".into(), depth)?;
                Ok(m + 1)
            }
            None => {
                self.block(code, i + 1, k, depth + 1)?;
                self.stmt("}".into(), depth)?;
                Ok(k + 1)
            }
        }
    }

    /// `while (c) { … }`: `Label(head)`, reads of `c`, `BranchIf(!c, end)`, body, `Goto(head)`,
    /// `Label(end)`.
    fn while_stmt(
        &mut self,
        code: &[Instr],
        i: usize,
        head: &str,
        hi: usize,
        depth: usize,
    ) -> Msg<usize> {
        const NOT_A_LOOP: &str = "a label the C front end makes only for `while` heads";
        if !self.pending.is_empty() {
            return Err(NOT_A_LOOP.into());
        }
        let mut j = i + 1;
        // The reads of the condition go to fresh registers, used by the branch.
        while j < hi
            && matches!(&code[j], Instr::Load { dst, .. } | Instr::Rmw { dst: Some(dst), .. } if is_fresh_reg(dst))
        {
            j = self.item(code, j, hi, depth)?;
        }
        let Some(Instr::BranchIf { cond, target: end }) = code.get(j).filter(|_| j < hi) else {
            return Err(NOT_A_LOOP.into());
        };
        let m = find_label(code, end, j + 1, hi).ok_or(NOT_A_LOOP)?;
        if m == j + 1 || code[m - 1] != Instr::Goto(head.to_string()) {
            return Err(NOT_A_LOOP.into());
        }
        let c = self.condition(cond)?;
        self.stmt(format!("while ({c}) {{"), depth)?;
        self.block(code, j + 1, m - 1, depth + 1)?;
        self.stmt("}".into(), depth)?;
        Ok(m + 1)
    }

    /// `r = atomic_compare_exchange_strong_explicit(x, exp, v, s, f);` from the front end's
    /// lowering (`c_calls`): [load of `exp` into a fresh register,] the RMW into a fresh `old`,
    /// [`r = 1`,] `BranchIf(old == expected, ok)`, [`r = 0`,] the write-back of `old` to `*exp`
    /// (NA store) or to the register (`&e`), `Label(ok)`.
    fn cas(&mut self, code: &[Instr], i: usize, hi: usize, depth: usize) -> Msg<usize> {
        let Instr::Rmw {
            dst: Some(old),
            loc,
            op: RmwOp::Cas { expected, desired },
            tags,
            fail_tags,
        } = &code[i]
        else {
            return Err("a compare-exchange without a destination register".into());
        };
        const SHAPE: &str =
            "a compare-exchange not followed by the front end's write-back of the old value";
        if !is_fresh_reg(old) {
            return Err(SHAPE.into());
        }
        // Where the expected value lives: a location read just before, or a register (`&e`).
        let (exp_text, exp_loc) = match expected {
            Expr::Reg(e) if is_fresh_reg(e) => match self.pending.first() {
                Some(Pending {
                    reg,
                    na_load: Some(l),
                    ..
                }) if reg == e => {
                    let l = l.clone();
                    self.pending.remove(0);
                    (l.clone(), Some(l))
                }
                _ => return Err(SHAPE.into()),
            },
            Expr::Reg(e) => {
                self.read(e)?;
                (format!("&{e}"), None)
            }
            _ => return Err("a compare-exchange whose expected value is not in a register".into()),
        };
        let v = self.expr(desired)?;
        let Access::Atomic { order, scope } = self.access(tags, Use::Rmw)? else {
            return Err("a compare-exchange must be atomic, with a memory order".into());
        };
        let fail = fail_tags.as_ref().unwrap_or(tags);
        let Access::Atomic {
            order: fail_order,
            scope: fail_scope,
        } = self.access(fail, Use::Load)?
        else {
            return Err("the failure order of a compare-exchange must be atomic".into());
        };
        if fail_scope != scope {
            return Err("a compare-exchange has one scope for success and failure".into());
        }
        let text = format!(
            "atomic_compare_exchange_strong_explicit({loc}, {exp_text}, {v}, {order}, {fail_order}{scope})"
        );
        let at = |j: usize| code.get(j).filter(|_| j < hi);
        let mut j = i + 1;
        let result = match at(j) {
            Some(Instr::Assign {
                dst,
                value: Expr::Const(1),
            }) => {
                j += 1;
                Some(dst.clone())
            }
            _ => None,
        };
        let ok = match at(j) {
            Some(Instr::BranchIf {
                cond:
                    Cond {
                        op: CmpOp::Eq,
                        lhs: Expr::Reg(o),
                        rhs,
                    },
                target,
            }) if o == old && rhs == expected => target.clone(),
            _ => return Err(SHAPE.into()),
        };
        j += 1;
        if let Some(r) = &result {
            match at(j) {
                Some(Instr::Assign {
                    dst,
                    value: Expr::Const(0),
                }) if dst == r => j += 1,
                _ => return Err(SHAPE.into()),
            }
        }
        let old_value = Expr::Reg(old.clone());
        let written_back = match (at(j), &exp_loc, expected) {
            (Some(Instr::Store { loc, value, tags }), Some(l), _) => {
                loc == l && *value == old_value && *tags == [Tag::Na]
            }
            (Some(Instr::Assign { dst, value }), None, Expr::Reg(e)) => {
                dst == e && *value == old_value
            }
            _ => false,
        };
        if !written_back || at(j + 1) != Some(&Instr::Label(ok)) {
            return Err(SHAPE.into());
        }
        match result {
            Some(r) => self.define(&r, text, None, depth)?,
            None => self.stmt(format!("{text};"), depth)?,
        }
        Ok(j + 2)
    }

    /// `dst = text;`, or, for a fresh register, keep `text` for the expression that uses it.
    fn define(
        &mut self,
        dst: &str,
        text: String,
        na_load: Option<String>,
        depth: usize,
    ) -> Msg<()> {
        if is_fresh_reg(dst) {
            self.pending.push(Pending {
                reg: dst.to_string(),
                text,
                na_load,
            });
            return Ok(());
        }
        register(dst, self.locs)?;
        let first = self.seen.insert(dst.to_string());
        if first && depth > 1 {
            self.declare.push(dst.to_string());
        }
        let int = if first && depth == 1 { "int " } else { "" };
        self.stmt(format!("{int}{dst} = {text};"), depth)
    }

    /// A register read in an expression (declared at the top if not seen yet).
    fn read(&mut self, r: &str) -> Msg<()> {
        register(r, self.locs)?;
        if self.seen.insert(r.to_string()) {
            self.declare.push(r.to_string());
        }
        Ok(())
    }

    fn stmt(&mut self, line: String, depth: usize) -> Msg<()> {
        if let Some(p) = self.pending.first() {
            return Err(format!(
                "the value read into `{}` is not used by the next statement, as the C front end would use it",
                p.reg
            ));
        }
        self.lines.push(format!("{}{line}", "  ".repeat(depth)));
        Ok(())
    }

    /// The C expression of `e`; the fresh registers it reads are replaced by their reads, which
    /// must come in the order the front end evaluates them (left to right).
    fn expr(&mut self, e: &Expr) -> Msg<String> {
        match e {
            Expr::Const(i64::MIN) => Ok(format!("({} - 1)", i64::MIN + 1)),
            Expr::Const(c) => Ok(c.to_string()),
            Expr::Reg(r) if is_fresh_reg(r) => match self.pending.first() {
                Some(p) if p.reg == *r => Ok(self.pending.remove(0).text),
                _ => Err(format!(
                    "register `{r}` is used where the C front end would not have read it"
                )),
            },
            Expr::Reg(r) => {
                self.read(r)?;
                Ok(r.clone())
            }
            Expr::Bin(op, a, b) => {
                if fold(*op, (**a).clone(), (**b).clone()) != *e {
                    return Err(format!(
                        "the C front end would simplify the expression `{e:?}`"
                    ));
                }
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                Ok(format!("({a} {} {b})", op.c_symbol()))
            }
        }
    }

    /// The C condition `c` such that the front end's jump "if not `c`" is `cond`.
    fn condition(&mut self, cond: &Cond) -> Msg<String> {
        if matches!((&cond.lhs, &cond.rhs), (Expr::Const(_), Expr::Const(_))) {
            return Err("the C front end decides a comparison of two constants itself".into());
        }
        let symbol = match cond.op {
            CmpOp::Eq => "!=",
            CmpOp::Ne => "==",
            CmpOp::Lt => ">=",
            CmpOp::Le => ">",
            CmpOp::Gt => "<=",
            CmpOp::Ge => "<",
        };
        let (a, b) = (self.expr(&cond.lhs)?, self.expr(&cond.rhs)?);
        Ok(format!("{a} {symbol} {b}"))
    }

    /// Decode the tags of an access into how it is written.
    fn access(&self, tags: &[Tag], u: Use) -> Msg<Access> {
        let t = Tags::split(tags, self.opencl)?;
        let bad = || Err(format!("tags [{}] have no C call", vocab::join(tags, ", ")));
        if !t.regions.is_empty() {
            return bad();
        }
        match (t.order, t.scope, t.volatile) {
            (Tag::Na, None, false) if u != Use::Rmw => Ok(Access::Plain),
            (Tag::Na, _, _) if u == Use::Rmw => {
                Err("a read-modify-write must be atomic, with a memory order".into())
            }
            (Tag::Rlx, Some(Tag::Sys), true) if !self.opencl && u != Use::Rmw => {
                Ok(Access::Volatile)
            }
            (o, scope, false) if o != Tag::Na => {
                let legal = match u {
                    Use::Load => !matches!(o, Tag::Rel | Tag::AcqRel),
                    Use::Store => !matches!(o, Tag::Acq | Tag::AcqRel | Tag::Con),
                    Use::Rmw => true,
                };
                if !legal {
                    return Err(format!("C has no {} with order {o}", use_name(u)));
                }
                let scope = match (scope, self.opencl) {
                    (Some(s), _) => format!(", {}", c::scopes(self.opencl).spelling(s)),
                    (None, false) => String::new(),
                    (None, true) => return Err("an OpenCL atomic always has a scope tag".into()),
                };
                Ok(Access::Atomic {
                    order: c::MEMORY_ORDERS.spelling(o),
                    scope,
                })
            }
            _ => bad(),
        }
    }

    fn fence(&self, tags: &[Tag]) -> Msg<String> {
        let t = Tags::split(tags, self.opencl)?;
        let no_fence = || {
            Err(format!(
                "tags [{}] have no C fence",
                vocab::join(tags, ", ")
            ))
        };
        if t.volatile || t.order == Tag::Na {
            return no_fence();
        }
        let order = c::MEMORY_ORDERS.spelling(t.order);
        let scope = |s| c::scopes(self.opencl).spelling(s);
        match (self.opencl, t.scope) {
            (false, s) if t.regions.is_empty() => Ok(match s {
                Some(s) => format!("atomic_thread_fence({order}, {});", scope(s)),
                None => format!("atomic_thread_fence({order});"),
            }),
            (true, Some(s)) => Ok(format!(
                "atomic_work_item_fence({}, {order}, {});",
                flags(&t.regions),
                scope(s)
            )),
            _ => no_fence(),
        }
    }

    /// `barrier(flags)` (OpenCL): tags SYNC, WG and the regions; the whole work-group.
    fn barrier(&self, count: Option<&Expr>, tags: &[Tag]) -> Msg<String> {
        let regions: Vec<Tag> = tags
            .iter()
            .copied()
            .filter(|t| !matches!(t, Tag::Sync | Tag::Wg))
            .collect();
        let shape = tags.iter().filter(|t| **t == Tag::Sync).count() == 1
            && tags.iter().filter(|t| **t == Tag::Wg).count() == 1
            && regions.iter().all(|r| c::FENCE_FLAGS.has(*r))
            && regions.len() == regions.iter().collect::<HashSet<_>>().len();
        if !self.opencl || count.is_some() || !shape {
            return Err(format!(
                "a barrier with tags [{}]{} has no C call (OpenCL's `barrier(flags)` waits for the whole work-group)",
                vocab::join(tags, ", "),
                if count.is_some() { " and a thread count" } else { "" }
            ));
        }
        Ok(format!("barrier({})", flags(&regions)))
    }
}

/// The tags of one instruction, sorted by role.
struct Tags {
    order: Tag,
    scope: Option<Tag>,
    volatile: bool,
    /// GLOBAL / LOCAL, in their order.
    regions: Vec<Tag>,
}

impl Tags {
    fn split(tags: &[Tag], opencl: bool) -> Msg<Tags> {
        let mut orders = vec![];
        let mut scopes = vec![];
        let mut volatile = 0;
        let mut regions = vec![];
        for &t in tags {
            match t {
                Tag::Na => orders.push(t),
                t if c::MEMORY_ORDERS.has(t) => orders.push(t),
                t if c::scopes(opencl).has(t) => scopes.push(t),
                Tag::V if !opencl => volatile += 1,
                t if opencl && c::FENCE_FLAGS.has(t) && !regions.contains(&t) => regions.push(t),
                _ => {
                    return Err(format!(
                        "tags [{}]: `{t}` has no C spelling in a {} test",
                        vocab::join(tags, ", "),
                        if opencl { "OpenCL" } else { "C11" }
                    ))
                }
            }
        }
        match (orders.as_slice(), scopes.as_slice(), volatile) {
            ([order], [] | [_], 0 | 1) => Ok(Tags {
                order: *order,
                scope: scopes.first().copied(),
                volatile: volatile == 1,
                regions,
            }),
            _ => Err(format!(
                "tags [{}] need exactly one memory order and at most one scope",
                vocab::join(tags, ", ")
            )),
        }
    }
}

/// OpenCL fence flags for the regions, in their order (`0` for none).
fn flags(regions: &[Tag]) -> String {
    if regions.is_empty() {
        return "0".into();
    }
    let words: Vec<&str> = regions
        .iter()
        .map(|r| c::FENCE_FLAGS.spelling(*r))
        .collect();
    words.join(" | ")
}

fn use_name(u: Use) -> &'static str {
    match u {
        Use::Load => "load",
        Use::Store => "store",
        Use::Rmw => "read-modify-write",
    }
}

fn fetch_name(op: BinOp) -> Msg<&'static str> {
    Ok(match op {
        BinOp::Add => "atomic_fetch_add",
        BinOp::Sub => "atomic_fetch_sub",
        BinOp::And => "atomic_fetch_and",
        BinOp::Or => "atomic_fetch_or",
        BinOp::Xor => "atomic_fetch_xor",
        BinOp::Mul => return Err("C has no atomic_fetch_mul".into()),
    })
}

/// The position of `Label(label)` in `code[from..hi]`.
fn find_label(code: &[Instr], label: &str, from: usize, hi: usize) -> Option<usize> {
    (from..hi).find(|&k| matches!(&code[k], Instr::Label(l) if l == label))
}

/// Parse `text` again and compare it with `test`, tags compared as sets.
fn check(test: &Litmus, text: &str) -> Msg<()> {
    let again = crate::litmus::parse_str(&test.name, text).map_err(|e| {
        format!(
            "internal error: the printed test does not parse ({}):\n{text}",
            e
        )
    })?;
    let (a, b) = (normalized(test), normalized(&again));
    if a == b {
        return Ok(());
    }
    Err(format!(
        "cannot be written in C so that it reads back the same: {}",
        difference(&a, &b)
    ))
}

/// `test` with the tags of every instruction and location sorted.
fn normalized(test: &Litmus) -> Litmus {
    let mut t = test.clone();
    for (_, tags) in &mut t.loc_tags {
        tags.sort();
    }
    for instr in t.threads.iter_mut().flat_map(|t| &mut t.code) {
        match instr {
            Instr::Load { tags, .. }
            | Instr::Store { tags, .. }
            | Instr::Fence { tags }
            | Instr::Barrier { tags, .. } => tags.sort(),
            Instr::Rmw {
                tags, fail_tags, ..
            } => {
                tags.sort();
                if let Some(f) = fail_tags {
                    f.sort()
                }
            }
            Instr::Assign { .. } | Instr::Label(_) | Instr::Goto(_) | Instr::BranchIf { .. } => {}
        }
    }
    t
}

/// The first difference between the test and its reading, in words.
fn difference(a: &Litmus, b: &Litmus) -> String {
    if a.init_mem != b.init_mem || a.init_regs != b.init_regs {
        return "the initial state differs".into();
    }
    if a.loc_tags != b.loc_tags {
        return format!(
            "location tags {:?} read back as {:?}",
            a.loc_tags, b.loc_tags
        );
    }
    for (x, y) in a.threads.iter().zip(&b.threads) {
        if x.placement != y.placement {
            return format!("{} is placed differently", x.name);
        }
        for (i, (p, q)) in x.code.iter().zip(&y.code).enumerate() {
            if p != q {
                return format!("{}, instruction {i} `{p:?}` reads back as `{q:?}`", x.name);
            }
        }
        if x.code.len() != y.code.len() {
            return format!(
                "{} has {} instructions, which read back as {}",
                x.name,
                x.code.len(),
                y.code.len()
            );
        }
    }
    if a.condition != b.condition {
        return "the final condition differs".into();
    }
    "the thread list differs".into()
}
