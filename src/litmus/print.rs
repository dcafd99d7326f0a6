//! The PTX printer: writes a `Litmus` back as a PTX litmus file that the PTX front end (`ptx`,
//! `ptx_instr`) parses into the same `Litmus`.
//!
//! Owns: `print_ptx` — the title, the initial state, the `P0@cta N,gpu N | … ;` table (columns
//! padded to align), each instruction's mnemonic and qualifiers (the words are `isa::ptx`'s,
//! the tag combinations the inverse of `ptx_instr`'s header), and the final clause. Nested expressions are flattened into
//! `add`/`sub`/… on fresh `%tN` registers; an RMW without destination and without RED stays an
//! `atom` with a fresh `%tN` destination. Register and label names the PTX grammar cannot read
//! (C locals such as `t`, the C front end's `%L0`) are renamed per thread. Location tags may only
//! be GLOBAL, which is dropped (the PTX front end ignores state spaces: all memory is global).
//! Whatever PTX cannot express (C-only tags such as NA, a C11 failure order, local memory, array
//! elements) is a `diag::Error` naming the thread and instruction; nothing panics or is dropped.
//! Uses: `program` (the `Litmus` type), `isa::ptx`, `vocab` (the tags), `diag` for errors.
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use crate::diag::{Error, Result};
use crate::isa::ptx::{
    self, OpKind, ALIAS_FENCE, BARRIER_MODES, GENERIC, PROXIES, PROXY_LOADS, PROXY_STORES,
};
use crate::isa::{self, Words};
use crate::litmus::program::{
    unsequenced_refusal, Arch, BinOp, Cond, Condition, Expr, Instr, Litmus, Prop, Quantifier,
    RmwOp, Target, Thread,
};
use crate::litmus::ptx_ast::{arith_mnemonic, branch_mnemonic};
use crate::vocab::{self, Level, Placement, Tag};

/// Write `test` as a PTX litmus file.
pub fn print_ptx(test: &Litmus) -> Result<String> {
    let fail = |msg: String| Error::file(test.name.clone(), msg);
    if test.arch == Arch::Vulkan {
        return Err(fail(
            "this is a Vulkan test; print_ptx writes PTX tests".into(),
        ));
    }
    if let Some(msg) = test.filter_refusal() {
        return Err(fail(msg));
    }
    if test.name.trim().is_empty() || test.name.contains('\n') {
        return Err(fail(format!(
            "test name `{}` cannot be a PTX title",
            test.name
        )));
    }
    if let Some((loc, tags)) = test
        .loc_tags
        .iter()
        .find(|(_, t)| t.iter().any(|t| *t != Tag::Global))
    {
        let msg = format!(
            "location `{loc}` has tags [{}]; a PTX test can only say global memory",
            vocab::join(tags, ", ")
        );
        return Err(fail(msg));
    }
    if test.threads.is_empty() {
        return Err(fail("a PTX test needs at least one thread".into()));
    }
    if let Some(t) = test.unsequenced_thread() {
        return Err(fail(unsequenced_refusal(t)));
    }
    let mut names: Vec<Names> = (0..test.threads.len())
        .map(|i| Names::new(test, i))
        .collect();
    let mut out = format!("PTX {}\n", test.name.trim());
    init(test, &names, &mut out).map_err(fail)?;
    let columns = test
        .threads
        .iter()
        .zip(&mut names)
        .map(|(t, n)| column(t, n))
        .collect::<Msg<Vec<_>>>()
        .map_err(fail)?;
    table(&columns, &mut out);
    let clause = final_clause(test, &|t| target(test, &names, t)).map_err(fail)?;
    writeln!(out, "{clause}").ok();
    Ok(out)
}

/// Internal results: a message, which `print_ptx` (`print_c`) turns into a `diag::Error` on the
/// test.
pub(super) type Msg<T> = std::result::Result<T, String>;

fn init(test: &Litmus, names: &[Names], out: &mut String) -> Msg<()> {
    out.push_str("{\n");
    for (loc, v) in &test.init_mem {
        writeln!(out, "{}={v};", location(loc)?).ok();
    }
    for a in &test.aliases {
        let proxy = a.proxy.map_or(Ok(GENERIC), |p| {
            PROXIES
                .word(p)
                .ok_or_else(|| format!("alias `{}`: {}", a.name, ptx::unsupported(&[p])))
        })?;
        let (name, target) = (location(&a.name)?, location(&a.target)?);
        writeln!(out, "{name} @ {proxy} aliases {target};").ok();
    }
    for (t, reg, v) in &test.init_regs {
        writeln!(out, "{}={v};", thread_reg(test, names, *t, reg)?).ok();
    }
    out.push_str("}\n");
    Ok(())
}

/// Both printers name threads `P0`, `P1`, … as both front ends read them.
pub(super) fn check_thread_name(thread: &Thread) -> Msg<()> {
    let digits = thread.name.strip_prefix('P').unwrap_or("");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "thread name `{}` is not of the form `P0`",
            thread.name
        ));
    }
    Ok(())
}

/// A placement in a dialect's words (`cta 0,gpu 1`), joined by `sep`: the dialect's innermost and
/// outermost level always, a level between them (PTX's `cluster`) only where its id is not 0, the
/// instance a front end gives a level not written.
pub(crate) fn placement_words(placement: Placement, words: &[(&str, Level)], sep: &str) -> String {
    let last = words.len().saturating_sub(1);
    let pairs: Vec<String> = words
        .iter()
        .enumerate()
        .filter(|&(i, &(_, level))| i == 0 || i == last || placement.id(level) != 0)
        .map(|(_, &(word, level))| format!("{word} {}", placement.id(level)))
        .collect();
    pairs.join(sep)
}

/// Header cell and instruction cells of one thread.
fn column(thread: &Thread, names: &mut Names) -> Msg<Vec<String>> {
    check_thread_name(thread)?;
    let placement = placement_words(thread.placement, &isa::ptx::PLACEMENT, ",");
    let mut cells = vec![format!("{}@{placement}", thread.name)];
    for (i, instr) in thread.code.iter().enumerate() {
        let lines = instruction(instr, names)
            .map_err(|m| format!("{}, instruction {i} `{instr:?}`: {m}", thread.name))?;
        cells.extend(lines);
    }
    Ok(cells)
}

/// The table, one column per thread, cells padded to the widest of their column.
fn table(columns: &[Vec<String>], out: &mut String) {
    let widths: Vec<usize> = columns
        .iter()
        .map(|c| c.iter().map(String::len).max().unwrap_or(0))
        .collect();
    let rows = columns.iter().map(Vec::len).max().unwrap_or(0);
    for row in 0..rows {
        let cells: Vec<String> = columns
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!(" {:<w$} ", c.get(row).map_or("", String::as_str), w = *w))
            .collect();
        writeln!(out, "{};", cells.join("|")).ok();
    }
}

/// A thread's register and label names as printed: names the PTX grammar cannot read (C locals
/// such as `t`, front-end labels such as `%L0`) are renamed to fresh `rN` / `LN`, consistently in
/// the code, the initial state and the condition; fresh `%tN` registers hold flattened values.
struct Names {
    used: HashSet<String>,
    next: usize,
    regs: HashMap<String, String>,
    labels: HashMap<String, String>,
}

impl Names {
    fn new(test: &Litmus, index: usize) -> Names {
        let mut regs = HashSet::new();
        let mut labels = HashSet::new();
        for instr in &test.threads[index].code {
            regs.extend(instr.registers().into_iter().cloned());
            if let Instr::Label(l) | Instr::Goto(l) | Instr::BranchIf { target: l, .. } = instr {
                labels.insert(l.clone());
            }
        }
        // Registers of the initial state and the condition must be `rN` there; in code `%name` too.
        let mut outside: HashSet<String> = test
            .init_regs
            .iter()
            .filter(|(t, ..)| *t == index)
            .map(|(_, r, _)| r.clone())
            .collect();
        for t in test
            .condition
            .prop
            .targets()
            .into_iter()
            .chain(&test.locations)
        {
            if let Target::Reg { thread, reg } = t {
                if *thread == index {
                    outside.insert(reg.clone());
                }
            }
        }
        regs.extend(outside.iter().cloned());
        let ok = |r: &str| {
            is_plain_register(r)
                || (r.strip_prefix('%').is_some_and(is_ident) && !outside.contains(r))
        };
        let regs = renaming(&regs, ok, "r");
        let labels = renaming(&labels, |l| location(l).is_ok(), "L");
        let used = regs.values().cloned().collect();
        Names {
            used,
            next: 0,
            regs,
            labels,
        }
    }
    fn fresh(&mut self) -> String {
        loop {
            let name = format!("%t{}", self.next);
            self.next += 1;
            if self.used.insert(name.clone()) {
                return name;
            }
        }
    }
    fn reg(&self, r: &str) -> String {
        self.regs.get(r).cloned().unwrap_or_else(|| r.to_string())
    }
    fn label(&self, l: &str) -> String {
        self.labels.get(l).cloned().unwrap_or_else(|| l.to_string())
    }
}

/// Each name to itself if `ok`, else to a fresh `{prefix}N` unused by the others (in sorted order,
/// so the output is deterministic).
fn renaming(
    names: &HashSet<String>,
    ok: impl Fn(&str) -> bool,
    prefix: &str,
) -> HashMap<String, String> {
    let mut sorted: Vec<&String> = names.iter().collect();
    sorted.sort();
    let mut taken: HashSet<String> = names.iter().filter(|n| ok(n)).cloned().collect();
    let mut next = 0;
    let mut out = HashMap::new();
    for name in sorted {
        if ok(name) {
            out.insert(name.clone(), name.clone());
            continue;
        }
        let fresh = loop {
            let candidate = format!("{prefix}{next}");
            next += 1;
            if taken.insert(candidate.clone()) {
                break candidate;
            }
        };
        out.insert(name.clone(), fresh);
    }
    out
}

type Lines = Msg<Vec<String>>;

/// The cells (one instruction each) that express `instr`.
fn instruction(instr: &Instr, names: &mut Names) -> Lines {
    let mut pre = vec![];
    let line = match instr {
        Instr::Load { dst, loc, tags } => {
            format!(
                "{} {}, {}",
                access(tags, OpKind::Load, &PROXY_LOADS)?,
                names.reg(dst),
                location(loc)?
            )
        }
        Instr::Store { loc, value, tags } => {
            let v = operand(value, names, &mut pre)?;
            let mnemonic = access(tags, OpKind::Store, &PROXY_STORES)?;
            format!("{mnemonic} {}, {v}", location(loc)?)
        }
        Instr::Rmw {
            dst,
            loc,
            op,
            tags,
            fail_tags,
        } => {
            single_order(tags, fail_tags.as_deref())?;
            rmw(dst.as_deref(), loc, op, tags, names, &mut pre)?
        }
        Instr::Fence { tags } => format!("fence{}", fence_quals(tags)?),
        Instr::Barrier { id, count, tags } => barrier(id, count.as_ref(), tags, names, &mut pre)?,
        Instr::Assign { dst, value } => assign(&names.reg(dst), value, names, &mut pre)?,
        Instr::Label(l) => format!("{}:", names.label(l)),
        Instr::Goto(l) => format!("goto {}", names.label(l)),
        Instr::BranchIf { cond, target } => branch(cond, target, names, &mut pre)?,
    };
    pre.push(line);
    Ok(pre)
}

/// Mnemonic and qualifiers of a load (`ld`) or store (`st`): a weak access through a proxy is
/// that proxy's mnemonic (`suld.weak`, `sust.weak`, from `proxies`).
fn access(tags: &[Tag], kind: OpKind, proxies: &Words) -> Msg<String> {
    match tags {
        [Tag::Weak, p] if proxies.has(*p) => Ok(format!("{}.weak", proxies.spelling(*p))),
        _ => {
            let written = ptx::written(kind, tags)?;
            Ok(format!("{}{}", written.form.mnemonic, written.quals()))
        }
    }
}

fn fence_quals(tags: &[Tag]) -> Msg<String> {
    if let [p] = tags {
        if let Some(kind) = PROXIES.word(*p).or(ALIAS_FENCE.word(*p)) {
            return Ok(format!(".proxy.{kind}"));
        }
    }
    Ok(ptx::written(OpKind::Fence, tags)?.quals())
}

/// PTX gives a compare-and-swap one memory order: its failure order must be its order.
pub fn single_order(tags: &[Tag], fail_tags: Option<&[Tag]>) -> Msg<()> {
    match fail_tags {
        Some(f) if f != tags => {
            Err("PTX has no separate failure order for a compare-and-swap".into())
        }
        _ => Ok(()),
    }
}

fn rmw(
    dst: Option<&str>,
    loc: &str,
    op: &RmwOp,
    tags: &[Tag],
    names: &mut Names,
    pre: &mut Vec<String>,
) -> Msg<String> {
    let written = ptx::written(OpKind::Rmw, tags)?;
    let form = written.form;
    let op_word = rmw_op_word(op)?;
    if let Some(refusal) = form.op_refusal(op_word) {
        return Err(refusal);
    }
    if dst.is_some() && !form.returns {
        return Err(format!("`{}` has no destination register", form.mnemonic));
    }
    let mut operands = match op {
        RmwOp::Arith(_, e) | RmwOp::Exch(e) => vec![operand(e, names, pre)?],
        RmwOp::Cas { expected, desired } => vec![
            operand(expected, names, pre)?,
            operand(desired, names, pre)?,
        ],
    };
    if form.returns {
        let dst = match dst {
            Some(d) => names.reg(d),
            None => names.fresh(),
        };
        operands.insert(0, dst);
    }
    operands.insert(usize::from(form.returns), location(loc)?);
    Ok(format!(
        "{}{}.{op_word} {}",
        form.mnemonic,
        written.quals(),
        operands.join(", ")
    ))
}

/// The operation word of an RMW (`add`, `exch`, `cas`), as `atom` and `red` write it.
pub(crate) fn rmw_op_word(op: &RmwOp) -> Msg<&'static str> {
    Ok(match op {
        RmwOp::Arith(b, _) => bin_word(*b).ok_or("PTX has no `atom.mul`")?,
        RmwOp::Exch(_) => "exch",
        RmwOp::Cas { .. } => "cas",
    })
}

fn barrier(
    id: &Expr,
    count: Option<&Expr>,
    tags: &[Tag],
    names: &mut Names,
    pre: &mut Vec<String>,
) -> Msg<String> {
    let q = ptx::split(tags);
    let mode = match (q.sem.as_slice(), q.scope.as_slice(), q.rest.as_slice()) {
        ([], [Tag::Cta], [m]) => BARRIER_MODES
            .word(*m)
            .ok_or_else(|| ptx::unsupported(tags))?,
        _ => return Err(ptx::unsupported(tags)),
    };
    let id = operand(id, names, pre)?;
    Ok(match count {
        None => format!("bar.cta.{mode} {id}"),
        Some(n) => format!("bar.cta.{mode} 0, {id}, {}", operand(n, names, pre)?),
    })
}

fn assign(dst: &str, value: &Expr, names: &mut Names, pre: &mut Vec<String>) -> Msg<String> {
    match value {
        Expr::Bin(op, a, b) => {
            let (a, b) = (operand(a, names, pre)?, operand(b, names, pre)?);
            Ok(format!("{} {dst}, {a}, {b}", arith_mnemonic(*op)))
        }
        _ => Ok(format!("mov {dst}, {}", operand(value, names, pre)?)),
    }
}

fn branch(cond: &Cond, target: &str, names: &mut Names, pre: &mut Vec<String>) -> Msg<String> {
    let target = names.label(target);
    let word = branch_mnemonic(cond.op);
    let (a, b) = (
        operand(&cond.lhs, names, pre)?,
        operand(&cond.rhs, names, pre)?,
    );
    Ok(format!("{word} {a}, {b}, {target}"))
}

/// A register or constant operand; a nested expression is computed into a fresh register first.
fn operand(e: &Expr, names: &mut Names, pre: &mut Vec<String>) -> Msg<String> {
    match e {
        Expr::Const(c) => Ok(c.to_string()),
        Expr::Reg(r) => Ok(names.reg(r)),
        Expr::Bin(..) => {
            let t = names.fresh();
            let line = assign(&t, e, names, pre)?;
            pre.push(line);
            Ok(t)
        }
    }
}

fn bin_word(op: BinOp) -> Option<&'static str> {
    match op {
        BinOp::Mul => None,
        _ => Some(arith_mnemonic(op)),
    }
}

pub(super) fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Words the litmus grammars reserve, which cannot name a location or label.
pub(super) const RESERVED: &[&str] = &["exists", "forall", "true", "false", "locations"];

fn location(loc: &str) -> Msg<String> {
    if is_ident(loc) && !RESERVED.contains(&loc) && !is_plain_register(loc) {
        Ok(loc.to_string())
    } else {
        Err(format!("location `{loc}` cannot be written in a PTX test"))
    }
}

/// `r0`-shaped words: registers for the PTX grammar (so no location or label may be one).
fn is_plain_register(s: &str) -> bool {
    s.strip_prefix('r')
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// `P0:r0`, the register as renamed for its thread.
fn thread_reg(test: &Litmus, names: &[Names], thread: usize, reg: &str) -> Msg<String> {
    let name = test
        .threads
        .get(thread)
        .map(|t| t.name.as_str())
        .ok_or(format!("no thread {thread}"))?;
    let printed = names.get(thread).map_or(reg.to_string(), |n| n.reg(reg));
    if !is_plain_register(&printed) {
        return Err(format!(
            "register `{reg}` of {name} cannot appear in an initial state or condition"
        ));
    }
    Ok(format!("{name}:{printed}"))
}

/// The final clause in the syntax every dialect shares (`cond`): herd's `locations [x; 0:r0;]`
/// line when the test has one, then `exists (P0:r0 == 1 /\ x == 2)`; `target` writes a register
/// or location as the dialect names it.
pub(super) fn final_clause(test: &Litmus, target: &dyn Fn(&Target) -> Msg<String>) -> Msg<String> {
    let condition = condition_text(&test.condition, target)?;
    if test.locations.is_empty() {
        return Ok(condition);
    }
    let items = test
        .locations
        .iter()
        .map(|t| Ok(format!("{};", target(t)?)))
        .collect::<Msg<Vec<String>>>()?;
    Ok(format!("locations [{}]\n{condition}", items.join(" ")))
}

fn condition_text(c: &Condition, target: &dyn Fn(&Target) -> Msg<String>) -> Msg<String> {
    let q = match c.quantifier {
        Quantifier::Exists => "exists",
        Quantifier::NotExists => "~exists",
        Quantifier::Forall => "forall",
    };
    let body = prop(&c.prop, target)?;
    match c.prop {
        Prop::And(..) | Prop::Or(..) | Prop::Implies(..) => Ok(format!("{q} {body}")),
        _ => Ok(format!("{q} ({body})")),
    }
}

fn prop(p: &Prop, target: &dyn Fn(&Target) -> Msg<String>) -> Msg<String> {
    let two = |a: &Prop, op: &str, b: &Prop| {
        Ok::<_, String>(format!("({} {op} {})", prop(a, target)?, prop(b, target)?))
    };
    match p {
        Prop::True => Ok("true".into()),
        Prop::False => Ok("false".into()),
        Prop::Eq(t, v) => Ok(format!("{} == {v}", target(t)?)),
        Prop::EqTargets(a, b) => Ok(format!("{} == {}", target(a)?, target(b)?)),
        Prop::Not(a) => Ok(format!("~({})", prop(a, target)?)),
        Prop::And(a, b) => two(a, "/\\", b),
        Prop::Or(a, b) => two(a, "\\/", b),
        Prop::Implies(a, b) => two(a, "=>", b),
    }
}

fn target(test: &Litmus, names: &[Names], t: &Target) -> Msg<String> {
    match t {
        Target::Reg { thread, reg } => thread_reg(test, names, *thread, reg),
        Target::Mem(loc) => location(loc),
    }
}
