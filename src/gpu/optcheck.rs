//! optcheck: did ptxas keep the test? Assemble a harness's `kernel.ptx` for sm_90 (`ptxas`),
//! disassemble it (`nvdisasm`), and check, thread by thread, that every access and fence of the
//! test is in the SASS, in program order, at least as strong as the test says (Alglave et al.,
//! ASPLOS 2015, §4.4, with tags instead of their xor specifications).
//!
//! How the SASS is read. Each test thread is its own function (`$litmus_test$P<i>`); each test
//! access names itself by its tag, the immediate offset of its address (`events`). What each
//! PTX instruction must become was measured with ptxas 13.5 for sm_90
//! (`docs/decisions/004-ptx-harness.md` has the table):
//! - strength: weak → no `.STRONG`; `.volatile` → `.STRONG.SYS`; relaxed, acquire, release at
//!   scope S → `.STRONG.SM` (cta), `.STRONG.GPU`, `.STRONG.SYS`;
//! - release (st, atom, red; `.release`, `.acq_rel`) → a `MEMBAR.ALL.S` (or `.SC`) between the
//!   previous access and this one; acquire at gpu or sys scope → `CCTL.IVALL` between this access
//!   and the next (at cta scope nothing: the L1 is the CTA's);
//! - `fence.sc.S` → `MEMBAR.SC.S`; `fence.acq_rel.S`, `fence.release.S` → `MEMBAR.ALL.S` (or
//!   `.SC`); `fence.acquire.S` → `CCTL.IVALL` at gpu and sys scope, nothing at cta;
//!   a fence must sit between the accesses it sits between in the test; one `MEMBAR` may serve
//!   several fences of one gap (no access between them: the strongest stands for all).
//!
//! A guarded access must be predicated or come after a conditional branch; an unguarded one
//! must not be predicated. A stronger scope or `MEMBAR` passes, with a note.
//!
//! Owns: `Tools` (`find_tools`), `check_dir` (assemble, disassemble, check), `check_sass` (the
//! check itself, on SASS text), `Report`. Uses: `gpu::ptx` (the harness and its events).
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::ptx::{thread_function, Event, Op, PtxHarness, Scope, Sem, Strength, TEST_KERNEL};
use crate::diag::{Error, Result};
use crate::litmus::Litmus;

/// The architecture optcheck assembles for (a macro too, for the file names in `FILES`).
macro_rules! arch {
    () => {
        "sm_90"
    };
}
pub const ARCH: &str = arch!();
/// The environment variable naming the directory with `ptxas` and `nvdisasm`.
pub const BIN_ENV: &str = "MAPCHECK_CUDA_BIN";

/// Where `ptxas` and `nvdisasm` are.
#[derive(Clone, Debug)]
pub struct Tools {
    pub ptxas: PathBuf,
    pub nvdisasm: PathBuf,
}

/// The tools from `$MAPCHECK_CUDA_BIN`, else `.tools/cuda` of the checkout (where
/// `scripts/install-cuda-wheels.sh` puts them), else `PATH`; the error says where it looked.
pub fn find_tools() -> std::result::Result<Tools, String> {
    let mut dirs: Vec<PathBuf> = vec![];
    if let Some(d) = std::env::var_os(BIN_ENV) {
        dirs.push(PathBuf::from(d));
    } else {
        for root in [Path::new(env!("CARGO_MANIFEST_DIR")), Path::new(".")] {
            dirs.extend(wheel_bins(&root.join(".tools/cuda")));
        }
        dirs.extend(
            std::env::var_os("PATH")
                .iter()
                .flat_map(std::env::split_paths),
        );
    }
    let find = |tool: &str| dirs.iter().map(|d| d.join(tool)).find(|p| p.is_file());
    match (find("ptxas"), find("nvdisasm")) {
        (Some(ptxas), Some(nvdisasm)) => Ok(Tools { ptxas, nvdisasm }),
        _ => Err(format!(
            "ptxas and nvdisasm not found (looked in {}): run scripts/install-cuda-wheels.sh, \
             set {BIN_ENV}, or put them on PATH",
            if std::env::var_os(BIN_ENV).is_some() {
                BIN_ENV
            } else {
                ".tools/cuda and PATH"
            }
        )),
    }
}

/// The `bin` directories of the CUDA wheels under `root` (`nvidia/cu13/bin`, …).
fn wheel_bins(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root.join("nvidia")) else {
        return vec![];
    };
    let mut bins: Vec<PathBuf> = entries.flatten().map(|e| e.path().join("bin")).collect();
    bins.sort();
    bins
}

/// The files `check_dir` writes into a harness directory: the cubin and its SASS.
pub const FILES: [&str; 2] = [
    concat!("kernel.", arch!(), ".cubin"),
    concat!("kernel.", arch!(), ".sass"),
];

/// Assemble and disassemble the harness in `dir` (writing `FILES` beside it) and check the SASS.
pub fn check_dir(dir: &Path, tools: &Tools) -> Result<Report> {
    let h = PtxHarness::load(dir)?;
    let cubin = dir.join(FILES[0]);
    let ptx = dir.join(super::ptx::KERNEL_FILE);
    let arch = format!("-arch={ARCH}");
    tool_output(
        &tools.ptxas,
        &[
            arch.as_ref(),
            "-o".as_ref(),
            cubin.as_os_str(),
            ptx.as_os_str(),
        ],
    )?;
    let sass = tool_output(&tools.nvdisasm, &["-c".as_ref(), cubin.as_os_str()])?;
    let sass_path = dir.join(FILES[1]);
    crate::output::write_file(&sass_path, &sass)?;
    Ok(check_sass(&h.test, &h.events, &sass))
}

/// Run a tool; its standard output, or an error with its standard error.
fn tool_output(tool: &Path, args: &[&std::ffi::OsStr]) -> Result<String> {
    let name = tool.display().to_string();
    let out = Command::new(tool)
        .args(args)
        .output()
        .map_err(|e| Error::file(&name, format!("cannot run: {e}")))?;
    if !out.status.success() {
        return Err(Error::file(&name, format!("failed ({})", out.status))
            .with_note(String::from_utf8_lossy(&out.stderr).trim().to_string()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// One SASS instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sass {
    /// Its address in the function's section (`/*0100*/`).
    pub address: u32,
    /// `@P0`, `@!P1`, or empty.
    pub predicate: String,
    /// `LDG.E.STRONG.GPU`.
    pub opcode: String,
    pub operands: String,
}

impl Sass {
    fn parse(line: &str) -> Option<Sass> {
        let rest = line.trim().strip_prefix("/*")?;
        let (address, rest) = rest.split_once("*/")?;
        let address = u32::from_str_radix(address.trim(), 16).ok()?;
        let text = rest.split("/*").next()?.trim().trim_end_matches(';').trim();
        let (predicate, text) = match text.strip_prefix('@') {
            Some(p) => {
                let (pred, rest) = p.split_once(char::is_whitespace)?;
                (format!("@{pred}"), rest.trim())
            }
            None => (String::new(), text),
        };
        let (opcode, operands) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
        (!opcode.is_empty()).then(|| Sass {
            address,
            predicate,
            opcode: opcode.to_string(),
            operands: operands.trim().to_string(),
        })
    }
    fn base(&self) -> &str {
        self.opcode.split('.').next().unwrap_or("")
    }
    fn has(&self, modifier: &str) -> bool {
        self.opcode.split('.').skip(1).any(|m| m == modifier)
    }
    /// The immediate offset of the (last) address operand: `[R2.64+0x100]` → 0x100.
    fn offset(&self) -> Option<u32> {
        let inside = self.operands.rsplit('[').next()?.split(']').next()?;
        let hex = inside.split('+').nth(1)?.trim().strip_prefix("0x")?;
        u32::from_str_radix(hex, 16).ok()
    }
    /// The scope after `.STRONG` (`SM` is the CTA's), if any.
    fn strong_scope(&self) -> Option<Scope> {
        let mut parts = self
            .opcode
            .split('.')
            .skip_while(|m| *m != "STRONG")
            .skip(1);
        scope_of(parts.next()?)
    }
    fn is_memory(&self) -> bool {
        matches!(
            self.base(),
            "LDG" | "STG" | "ATOMG" | "REDG" | "LD" | "ST" | "ATOM" | "RED"
        )
    }
    fn predicated(&self) -> bool {
        !self.predicate.is_empty() && self.predicate != "@PT"
    }
    /// `MEMBAR.SC.GPU` → (true, Gpu).
    fn membar(&self) -> Option<(bool, Scope)> {
        let mut parts = self.opcode.split('.');
        (parts.next()? == "MEMBAR").then_some(())?;
        let sc = parts.next()? == "SC";
        Some((sc, scope_of(parts.next()?)?))
    }
    fn is_invalidation(&self) -> bool {
        self.opcode == "CCTL.IVALL"
    }
    fn is_conditional_branch(&self) -> bool {
        self.base() == "BRA" && self.predicated()
    }
    fn text(&self) -> String {
        let pred = if self.predicate.is_empty() {
            String::new()
        } else {
            format!("{} ", self.predicate)
        };
        format!(
            "/*{:04x}*/ {pred}{} {}",
            self.address, self.opcode, self.operands
        )
        .trim_end()
        .to_string()
    }
}

fn scope_of(word: &str) -> Option<Scope> {
    match word {
        "SM" | "CTA" => Some(Scope::Cta),
        "GPU" => Some(Scope::Gpu),
        "SYS" => Some(Scope::Sys),
        _ => None,
    }
}

fn scope_word(s: Scope, access: bool) -> &'static str {
    match (s, access) {
        (Scope::Cta, true) => "SM",
        (Scope::Cta, false) => "CTA",
        (Scope::Gpu, _) => "GPU",
        (Scope::Sys, _) => "SYS",
    }
}

/// The functions of a SASS listing (`nvdisasm` names each with `.type NAME,@function`).
pub fn functions(sass: &str) -> Vec<(String, Vec<Sass>)> {
    let mut out: Vec<(String, Vec<Sass>)> = vec![];
    for line in sass.lines() {
        let header = line
            .trim()
            .strip_prefix(".type")
            .and_then(|r| r.trim().strip_suffix(",@function"));
        match header {
            Some(name) => out.push((name.trim().to_string(), vec![])),
            None => {
                if let (Some(i), Some(last)) = (Sass::parse(line), out.last_mut()) {
                    last.1.push(i);
                }
            }
        }
    }
    out
}

/// What optcheck concluded about one instruction of the test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Ok,
    /// Kept, with a stronger scope or fence than the test asks.
    Stronger,
    Missing,
    /// Found more than once (ptxas duplicated it).
    Duplicated,
    /// Found before an access that precedes it in the test.
    Reordered,
    /// Found, weaker than the test says (scope, missing `.STRONG`, release fence, acquire
    /// invalidation, fence kind).
    Weakened,
    /// A guarded access that runs unconditionally.
    GuardLost,
    /// An unguarded access that is predicated (e.g. warp-aggregated).
    Predicated,
}

impl Verdict {
    pub fn passes(self) -> bool {
        matches!(self, Verdict::Ok | Verdict::Stronger)
    }
    fn word(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Stronger => "ok (stronger)",
            Verdict::Missing => "MISSING",
            Verdict::Duplicated => "DUPLICATED",
            Verdict::Reordered => "REORDERED",
            Verdict::Weakened => "WEAKENED",
            Verdict::GuardLost => "GUARD LOST",
            Verdict::Predicated => "PREDICATED",
        }
    }
}

/// One line of the report: a test instruction, what it must become, what was found.
#[derive(Clone, Debug)]
pub struct Row {
    pub thread: String,
    pub ptx: String,
    pub expected: String,
    pub found: String,
    pub verdict: Verdict,
    pub why: String,
}

/// optcheck's table, per thread and instruction in program order.
#[derive(Clone, Debug)]
pub struct Report {
    pub test: String,
    pub rows: Vec<Row>,
}

impl Report {
    pub fn passed(&self) -> bool {
        self.rows.iter().all(|r| r.verdict.passes())
    }
    pub fn failures(&self) -> Vec<&Row> {
        self.rows.iter().filter(|r| !r.verdict.passes()).collect()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "optcheck {} ({ARCH}):", self.test)?;
        let w = |get: &dyn Fn(&Row) -> usize, min: usize| {
            self.rows.iter().map(get).max().unwrap_or(0).max(min)
        };
        let (wt, wp, we) = (
            w(&|r| r.thread.len(), 6),
            w(&|r| r.ptx.len(), 3),
            w(&|r| r.expected.len(), 13),
        );
        let wf = w(&|r| r.found.len(), 5);
        writeln!(
            f,
            "  {:wt$}  {:wp$}  {:we$}  {:wf$}  verdict",
            "thread", "PTX", "expected SASS", "found"
        )?;
        for r in &self.rows {
            let why = if r.why.is_empty() {
                String::new()
            } else {
                format!(": {}", r.why)
            };
            writeln!(
                f,
                "  {:wt$}  {:wp$}  {:we$}  {:wf$}  {}{why}",
                r.thread,
                r.ptx,
                r.expected,
                r.found,
                r.verdict.word()
            )?;
        }
        let verdict = if self.passed() { "passed" } else { "FAILED" };
        write!(
            f,
            "optcheck {verdict}: {} instructions, {} failures",
            self.rows.len(),
            self.failures().len()
        )
    }
}

/// Check the SASS listing of a harness against the test's events.
pub fn check_sass(test: &Litmus, events: &[Vec<Event>], sass: &str) -> Report {
    let functions = functions(sass);
    let mut rows = vec![];
    for (t, ev) in events.iter().enumerate() {
        let thread = test.threads[t].name.clone();
        let plain = thread_function(t);
        let suffix = format!("${plain}");
        let function = functions
            .iter()
            .find(|(name, _)| name.ends_with(&suffix) || *name == plain);
        match function {
            Some((_, code)) => rows.extend(ThreadCheck::new(&thread, ev, code).rows()),
            None => rows.extend(ev.iter().map(|e| Row {
                thread: thread.clone(),
                ptx: ptx_text(e),
                expected: expected_text(e),
                found: String::new(),
                verdict: Verdict::Missing,
                why: format!(
                    "no function {suffix} in the SASS of {TEST_KERNEL} (inlined or renamed)"
                ),
            })),
        }
    }
    Report {
        test: test.name.clone(),
        rows,
    }
}

/// The PTX of an event, as the harness writes it (address by location).
fn ptx_text(e: &Event) -> String {
    match e {
        Event::Fence(f) => format!("fence{}{}", f.sem.ptx(), f.scope.ptx()),
        Event::Access(a) => {
            let (word, op) = match a.op {
                Op::Load => ("ld", String::new()),
                Op::Store => ("st", String::new()),
                Op::Atom(o) => ("atom", o.ptx().to_string()),
                Op::Red(o) => ("red", o.ptx().to_string()),
            };
            let op = op
                .split('.')
                .nth(1)
                .map(|o| format!(".{o}"))
                .unwrap_or_default();
            let guard = if a.guarded { " (guarded)" } else { "" };
            format!(
                "{word}{}.global{op} [{}]{guard}",
                a.strength.ptx(),
                a.location
            )
        }
    }
}

/// The SASS an event must become.
fn expected_text(e: &Event) -> String {
    match e {
        Event::Fence(f) => match fence_need(f.sem, f.scope) {
            Need::Membar { sc, scope } => membar_text(sc, scope),
            Need::Invalidate => "CCTL.IVALL".into(),
            Need::Nothing => "(nothing)".into(),
        },
        Event::Access(a) => {
            let mut parts = vec![];
            if let Some(s) = release_scope(a.op, a.strength) {
                parts.push(membar_text(false, s));
            }
            let strong = a.strength.scope().map_or(String::new(), |s| {
                format!(".STRONG.{}", scope_word(s, true))
            });
            parts.push(format!("{}{strong} [+{:#x}]", op_text(a.op), a.tag));
            if acquire_invalidates(a.strength) {
                parts.push("CCTL.IVALL".into());
            }
            parts.join("; ")
        }
    }
}

fn op_text(op: Op) -> String {
    match op {
        Op::Load => "LDG.E".into(),
        Op::Store => "STG.E".into(),
        Op::Atom(o) => format!("ATOMG.E.{}", o.sass()),
        Op::Red(o) => format!("REDG.E.{}", o.sass()),
    }
}

fn membar_text(sc: bool, scope: Scope) -> String {
    format!(
        "MEMBAR.{}.{}",
        if sc { "SC" } else { "ALL" },
        scope_word(scope, false)
    )
}

/// What a fence needs in its gap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Need {
    Membar { sc: bool, scope: Scope },
    Invalidate,
    Nothing,
}

fn fence_need(sem: Sem, scope: Scope) -> Need {
    match (sem, scope) {
        (Sem::Sc, _) => Need::Membar { sc: true, scope },
        (Sem::AcqRel | Sem::Release, _) => Need::Membar { sc: false, scope },
        (_, Scope::Cta) => Need::Nothing,
        _ => Need::Invalidate,
    }
}

/// The scope of the `MEMBAR.ALL` a releasing write needs before it.
fn release_scope(op: Op, s: Strength) -> Option<Scope> {
    match (op, s) {
        (Op::Load, _) => None,
        (_, Strength::Strong(sem, scope)) if sem.releases() => Some(scope),
        _ => None,
    }
}

/// Does an acquiring access need a `CCTL.IVALL` after it?
fn acquire_invalidates(s: Strength) -> bool {
    matches!(s, Strength::Strong(sem, scope) if sem.acquires() && scope != Scope::Cta)
}

/// One thread's events against its function's SASS.
struct ThreadCheck<'a> {
    thread: &'a str,
    events: &'a [Event],
    code: &'a [Sass],
    /// Per event: the index in `code` of its access (accesses found once).
    at: Vec<Option<usize>>,
}

impl<'a> ThreadCheck<'a> {
    fn new(thread: &'a str, events: &'a [Event], code: &'a [Sass]) -> Self {
        let at = events
            .iter()
            .map(|e| match e {
                Event::Access(a) => {
                    let mut hits = code
                        .iter()
                        .enumerate()
                        .filter(|(_, i)| i.is_memory() && i.offset() == Some(a.tag));
                    hits.next().map(|(k, _)| k)
                }
                Event::Fence(_) => None,
            })
            .collect();
        ThreadCheck {
            thread,
            events,
            code,
            at,
        }
    }

    fn rows(&self) -> Vec<Row> {
        (0..self.events.len()).map(|k| self.row(k)).collect()
    }

    fn row(&self, k: usize) -> Row {
        let e = &self.events[k];
        let (verdict, found, why) = match e {
            Event::Access(_) => self.access(k),
            Event::Fence(f) => self.fence(k, fence_need(f.sem, f.scope)),
        };
        Row {
            thread: self.thread.to_string(),
            ptx: ptx_text(e),
            expected: expected_text(e),
            found,
            verdict,
            why,
        }
    }

    /// The code range between the access before event `k` and the one after it (exclusive).
    fn gap(&self, k: usize) -> std::ops::Range<usize> {
        let before = self.at[..k]
            .iter()
            .rev()
            .flatten()
            .next()
            .map_or(0, |p| p + 1);
        let after = self.at[k + 1..]
            .iter()
            .flatten()
            .next()
            .copied()
            .unwrap_or(self.code.len());
        before..after.max(before)
    }

    fn access(&self, k: usize) -> (Verdict, String, String) {
        let Event::Access(a) = &self.events[k] else {
            return (Verdict::Missing, String::new(), "not an access".into());
        };
        let hits: Vec<&Sass> = self
            .code
            .iter()
            .filter(|i| i.is_memory() && i.offset() == Some(a.tag))
            .collect();
        let Some(pos) = self.at[k] else {
            return (
                Verdict::Missing,
                String::new(),
                format!("no memory instruction at offset {:#x}", a.tag),
            );
        };
        let found = self.code[pos].text();
        if hits.len() > 1 {
            return (
                Verdict::Duplicated,
                found,
                format!("{} instructions at offset {:#x}", hits.len(), a.tag),
            );
        }
        if let Some(earlier) = self.at[..k].iter().flatten().find(|p| **p > pos) {
            let why = format!("before {}", self.code[*earlier].text());
            return (Verdict::Reordered, found, why);
        }
        let found = self.found_around(k, a.op, a.strength, pos);
        let sass = &self.code[pos];
        let checks = [
            self.operation(a.op, sass),
            self.strength(a.strength, sass),
            self.guard(a.guarded, pos),
            self.release(k, a.op, a.strength, pos),
            self.acquire(k, a.strength, pos),
        ];
        let worst = checks
            .into_iter()
            .flatten()
            .max_by_key(|(v, _)| !v.passes())
            .unwrap_or((Verdict::Ok, String::new()));
        (worst.0, found, worst.1)
    }

    /// The access with the `MEMBAR`s before it (a releasing write) and the `CCTL.IVALL` after it
    /// (an acquiring read) that its checks look at.
    fn found_around(&self, k: usize, op: Op, s: Strength, pos: usize) -> String {
        let gap = self.gap(k);
        let mut parts: Vec<String> = vec![];
        if release_scope(op, s).is_some() {
            let start = gap.start.min(pos);
            parts.extend(
                self.code[start..pos]
                    .iter()
                    .filter(|i| i.membar().is_some())
                    .map(Sass::text),
            );
        }
        parts.push(self.code[pos].text());
        if acquire_invalidates(s) {
            let end = gap.end.max(pos + 1);
            parts.extend(
                self.code[pos + 1..end]
                    .iter()
                    .filter(|i| i.is_invalidation())
                    .map(Sass::text),
            );
        }
        parts.join("; ")
    }

    fn operation(&self, op: Op, sass: &Sass) -> Option<(Verdict, String)> {
        let (base, modifier) = match op {
            Op::Load => ("LDG", None),
            Op::Store => ("STG", None),
            Op::Atom(o) => ("ATOMG", Some(o.sass())),
            Op::Red(o) => ("REDG", Some(o.sass())),
        };
        let ok = sass.base() == base && modifier.is_none_or(|m| sass.has(m));
        (!ok).then(|| (Verdict::Weakened, format!("expected {}", op_text(op))))
    }

    fn strength(&self, s: Strength, sass: &Sass) -> Option<(Verdict, String)> {
        match (s.scope(), sass.strong_scope()) {
            (None, None) => None,
            (None, Some(found)) => Some((
                Verdict::Stronger,
                format!("weak access made .STRONG.{}", scope_word(found, true)),
            )),
            (Some(want), None) => Some((
                Verdict::Weakened,
                format!("no .STRONG.{}: a weak access", scope_word(want, true)),
            )),
            (Some(want), Some(found)) if found < want => Some((
                Verdict::Weakened,
                format!(
                    "scope .STRONG.{}, test says {}",
                    scope_word(found, true),
                    want.ptx()
                ),
            )),
            (Some(want), Some(found)) if found > want => Some((
                Verdict::Stronger,
                format!("scope .STRONG.{}", scope_word(found, true)),
            )),
            _ => None,
        }
    }

    fn guard(&self, guarded: bool, pos: usize) -> Option<(Verdict, String)> {
        let sass = &self.code[pos];
        let branch_before = self.code[..pos].iter().any(Sass::is_conditional_branch);
        match (guarded, sass.predicated(), branch_before) {
            (true, false, false) => Some((
                Verdict::GuardLost,
                "neither predicated nor after a conditional branch".into(),
            )),
            (false, true, _) => Some((
                Verdict::Predicated,
                format!("runs only under {}", sass.predicate),
            )),
            _ => None,
        }
    }

    /// A releasing write needs a `MEMBAR` at its scope between the previous access and it.
    fn release(&self, k: usize, op: Op, s: Strength, pos: usize) -> Option<(Verdict, String)> {
        let scope = release_scope(op, s)?;
        let start = self.gap(k).start.min(pos);
        self.membar_in(start..pos, false, scope)
            .map(|v| (v, format!("release: {}", self.membar_why(start..pos, v))))
    }

    /// An acquiring read at gpu or sys scope needs a `CCTL.IVALL` before the next access.
    fn acquire(&self, k: usize, s: Strength, pos: usize) -> Option<(Verdict, String)> {
        if !acquire_invalidates(s) {
            return None;
        }
        let end = self.gap(k).end.max(pos + 1);
        let found = self.code[pos + 1..end].iter().any(Sass::is_invalidation);
        (!found).then(|| {
            (
                Verdict::Weakened,
                "acquire without CCTL.IVALL after it: a relaxed read".into(),
            )
        })
    }

    fn fence(&self, k: usize, need: Need) -> (Verdict, String, String) {
        let gap = self.gap(k);
        let found = |pred: &dyn Fn(&Sass) -> bool| {
            self.code[gap.clone()]
                .iter()
                .filter(|i| pred(i))
                .map(Sass::text)
                .collect::<Vec<_>>()
                .join("; ")
        };
        match need {
            Need::Nothing => (Verdict::Ok, String::new(), "no SASS at cta scope".into()),
            Need::Invalidate => {
                let f = found(&Sass::is_invalidation);
                let v = if f.is_empty() {
                    Verdict::Missing
                } else {
                    Verdict::Ok
                };
                (v, f, String::new())
            }
            Need::Membar { sc, scope } => {
                let f = found(&|i| i.membar().is_some());
                match self.membar_in(gap.clone(), sc, scope) {
                    None => (Verdict::Ok, f, String::new()),
                    Some(v) => (v, f, self.membar_why(gap, v)),
                }
            }
        }
    }

    /// `None` if `range` has a `MEMBAR` at least as strong as asked; else how it falls short
    /// (`Weakened` if there is a weaker one, `Missing` if none). `Stronger` if only stronger.
    fn membar_in(&self, range: std::ops::Range<usize>, sc: bool, scope: Scope) -> Option<Verdict> {
        let bars: Vec<(bool, Scope)> = self.code[range].iter().filter_map(Sass::membar).collect();
        if bars.contains(&(sc, scope)) {
            return None;
        }
        let covers = |(bar_sc, bar_scope): &(bool, Scope)| (*bar_sc || !sc) && *bar_scope >= scope;
        if bars.iter().any(covers) {
            return Some(Verdict::Stronger);
        }
        Some(if bars.is_empty() {
            Verdict::Missing
        } else {
            Verdict::Weakened
        })
    }

    fn membar_why(&self, range: std::ops::Range<usize>, v: Verdict) -> String {
        let ctx = if range.start == 0 {
            "at the start".to_string()
        } else {
            format!("after {}", self.code[range.start - 1].text())
        };
        match v {
            Verdict::Stronger => "a stronger MEMBAR".into(),
            Verdict::Missing => format!("no MEMBAR in its gap ({ctx})"),
            _ => format!("only weaker MEMBARs in its gap ({ctx})"),
        }
    }
}
