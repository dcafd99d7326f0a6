//! The memory events of a PTX litmus test as the harness emits them, in program order per
//! thread: each access with its tag (the immediate offset that names it in the SASS), its
//! semantics and scope, whether a guard may skip it, and whether it gets a manufactured
//! dependency; each fence with its semantics and scope. The PTX emitter (`thread`) writes these,
//! and optcheck checks the SASS against them, so both read one list.
//!
//! Tags: access number `k` of the test (all threads, in order) is addressed as `[%aK+TAG]` with
//! `TAG = 0x100 * (k + 1)`; its pointer is computed from opaque tables so that ptxas can neither
//! fold the offset away nor prove two accesses (non-)aliasing.
//!
//! Manufactured dependencies: ptxas may reorder two loads with no fence between them when one of
//! them is weak (it did, measured on ptxas 13.5; two strong loads it keeps in order). Such a load
//! gets an address dependency on the previous load's value, masked with a kernel argument that
//! is zero at run time (paper 000 §4.5 masks with 0x80000000, which assumes non-negative values;
//! an opaque zero assumes nothing).
use crate::diag::{Error, Result};
use crate::isa::ptx;
use crate::litmus::{BinOp, Instr, Litmus, RmwOp, Thread};
use crate::vocab::{self, Tag};

/// A PTX scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// `.cta`: the thread's CTA (block).
    Cta,
    /// `.gpu`: the whole device.
    Gpu,
    /// `.sys`: the whole system (host and every device).
    Sys,
}

impl Scope {
    const ALL: [Scope; 3] = [Scope::Cta, Scope::Gpu, Scope::Sys];
    /// The scope's vocabulary tag.
    fn tag(self) -> Tag {
        match self {
            Scope::Cta => Tag::Cta,
            Scope::Gpu => Tag::Gpu,
            Scope::Sys => Tag::Sys,
        }
    }
    fn of(tag: Tag) -> Option<Scope> {
        Self::ALL.into_iter().find(|s| s.tag() == tag)
    }
    /// The PTX qualifier (`.cta`).
    pub(crate) fn ptx(self) -> String {
        ptx::quals(&[self.tag()])
    }
}

/// Ordering semantics of a strong access or a fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sem {
    /// `.relaxed`.
    Relaxed,
    /// `.acquire`.
    Acquire,
    /// `.release`.
    Release,
    /// `.acq_rel`.
    AcqRel,
    /// `.sc` (fences only: a strong access is never `.sc`).
    Sc,
}

impl Sem {
    const ALL: [Sem; 5] = [
        Sem::Relaxed,
        Sem::Acquire,
        Sem::Release,
        Sem::AcqRel,
        Sem::Sc,
    ];
    /// The semantics' vocabulary tag.
    fn tag(self) -> Tag {
        match self {
            Sem::Relaxed => Tag::Rlx,
            Sem::Acquire => Tag::Acq,
            Sem::Release => Tag::Rel,
            Sem::AcqRel => Tag::AcqRel,
            Sem::Sc => Tag::Sc,
        }
    }
    fn of(tag: Tag) -> Option<Sem> {
        Self::ALL.into_iter().find(|s| s.tag() == tag)
    }
    /// The PTX qualifier (`.acquire`).
    pub(crate) fn ptx(self) -> String {
        ptx::quals(&[self.tag()])
    }
    pub(crate) fn releases(self) -> bool {
        ptx::releases(self.tag())
    }
    pub(crate) fn acquires(self) -> bool {
        ptx::acquires(self.tag())
    }
}

/// How strong an access is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strength {
    /// `.weak` or no qualifier: a plain `ld` / `st` that is not strong at any scope.
    Weak,
    /// `.volatile`: relaxed at system scope for the model, its own qualifier for ptxas.
    Volatile,
    /// A strong access with its semantics (not `.sc`) and scope (`.relaxed.gpu`).
    Strong(Sem, Scope),
}

impl Strength {
    /// The PTX qualifiers (`.relaxed.gpu`; empty for weak).
    pub(crate) fn ptx(self) -> String {
        match self {
            Strength::Weak => String::new(),
            Strength::Volatile => ptx::quals(&[Tag::V]),
            Strength::Strong(sem, scope) => format!("{}{}", sem.ptx(), scope.ptx()),
        }
    }
    /// The scope at which the access is strong (volatile: system).
    pub(crate) fn scope(self) -> Option<Scope> {
        match self {
            Strength::Weak => None,
            Strength::Volatile => Some(Scope::Sys),
            Strength::Strong(_, s) => Some(s),
        }
    }
    pub(crate) fn sem(self) -> Sem {
        match self {
            Strength::Strong(sem, _) => sem,
            Strength::Weak | Strength::Volatile => Sem::Relaxed,
        }
    }
}

/// The operation of an atomic (`atom`, `red`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomOp {
    /// Addition (`.add.u32`).
    Add,
    /// PTX has no `atom.sub`: emitted as `add` of the negated operand.
    Sub,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise xor.
    Xor,
    /// Exchange: write the operand, return the old value (no `red` form).
    Exch,
    /// Compare-and-swap (no `red` form).
    Cas,
}

impl AtomOp {
    /// The PTX operation and type (`.add.u32`).
    pub(crate) fn ptx(self) -> &'static str {
        match self {
            AtomOp::Add | AtomOp::Sub => ".add.u32",
            AtomOp::And => ".and.b32",
            AtomOp::Or => ".or.b32",
            AtomOp::Xor => ".xor.b32",
            AtomOp::Exch => ".exch.b32",
            AtomOp::Cas => ".cas.b32",
        }
    }
    /// The operation as SASS writes it (`ATOMG.E.ADD`).
    pub(crate) fn sass(self) -> &'static str {
        match self {
            AtomOp::Add | AtomOp::Sub => "ADD",
            AtomOp::And => "AND",
            AtomOp::Or => "OR",
            AtomOp::Xor => "XOR",
            AtomOp::Exch => "EXCH",
            AtomOp::Cas => "CAS",
        }
    }
}

/// What a memory access instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `ld`: one read.
    Load,
    /// `st`: one write.
    Store,
    /// `atom`: reads and writes, the old value to a register.
    Atom(AtomOp),
    /// `red`: an atomic without result.
    Red(AtomOp),
}

/// One memory access of a test thread as the harness emits it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// Index of the access in the whole test (all threads, in order).
    pub(crate) number: usize,
    /// The immediate offset that names it: `0x100 * (number + 1)`.
    pub(crate) tag: u32,
    /// Load, store, `atom` or `red`, with the atomic's operation.
    pub op: Op,
    /// Weak, volatile, or strong with semantics and scope.
    pub strength: Strength,
    pub(crate) location: String,
    /// A forward branch before it may skip it.
    pub guarded: bool,
    /// Its address depends on the previous load's value (see the module doc).
    pub manufactured_dependency: bool,
    /// Its index in the thread's code.
    pub(crate) instr: usize,
}

/// One fence of a test thread (`fence.sc.gpu`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fence {
    /// Its semantics (`fence.sc`, `fence.acq_rel`, …).
    pub sem: Sem,
    /// Its scope.
    pub scope: Scope,
    pub(crate) instr: usize,
}

/// A memory event of a test thread: an access or a fence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A load, store, `atom` or `red`.
    Access(Access),
    /// A fence.
    Fence(Fence),
}

/// The tag of access number `k`.
pub fn tag_of(number: usize) -> u32 {
    0x100 * (number as u32 + 1)
}

/// Per thread, its memory events in program order; an error for what the harness cannot run.
pub fn events(test: &Litmus) -> Result<Vec<Vec<Event>>> {
    check_test(test)?;
    let mut number = 0;
    let mut out = vec![];
    for thread in &test.threads {
        let events = thread_events(test, thread, &mut number)?;
        out.push(events);
    }
    Ok(out)
}

/// The test as a whole: PTX, global memory only.
fn check_test(test: &Litmus) -> Result<()> {
    if test.arch != crate::litmus::Arch::Ptx {
        return Err(Error::file(
            &test.name,
            "the CUDA harness runs PTX tests; compile the test to PTX first (`mapcheck compile`)",
        ));
    }
    match test
        .loc_tags
        .iter()
        .find(|(_, tags)| tags.iter().any(|t| *t != Tag::Global))
    {
        Some((loc, tags)) => Err(Error::file(
            &test.name,
            format!(
                "location `{loc}` is [{}]: the harness places every location in global memory",
                vocab::join(tags, ", ")
            ),
        )),
        None => Ok(()),
    }
}

fn thread_events(test: &Litmus, thread: &Thread, number: &mut usize) -> Result<Vec<Event>> {
    let fail = |i: usize, msg: String| {
        Error::file(
            &test.name,
            format!("{}, instruction {i}: {msg}", thread.name),
        )
    };
    let mut events = vec![];
    for (i, instr) in thread.code.iter().enumerate() {
        let event = match instr {
            Instr::Fence { tags } => {
                let (sem, scope) = fence(tags).map_err(|m| fail(i, m))?;
                Some(Event::Fence(Fence { sem, scope, instr: i }))
            }
            Instr::Barrier { .. } => {
                return Err(fail(
                    i,
                    "barriers are not supported by the CUDA harness: the work-items of a \
                     work-group run different instances, so no barrier joins one instance's threads"
                        .into(),
                ))
            }
            _ => match access_parts(instr).map_err(|m| fail(i, m))? {
                Some((op, strength, location)) => {
                    let access = Access {
                        number: *number,
                        tag: tag_of(*number),
                        op,
                        strength,
                        location: location.to_string(),
                        guarded: is_guarded(&thread.code, i),
                        manufactured_dependency: false,
                        instr: i,
                    };
                    *number += 1;
                    Some(Event::Access(access))
                }
                None => None,
            },
        };
        events.extend(event);
    }
    mark_dependencies(&mut events);
    Ok(events)
}

/// Can a forward branch before instruction `i` jump over it?
fn is_guarded(code: &[Instr], i: usize) -> bool {
    let label_at = |l: &str| {
        code.iter()
            .position(|x| matches!(x, Instr::Label(m) if m == l))
    };
    code[..i].iter().any(|x| match x {
        Instr::Goto(l) | Instr::BranchIf { target: l, .. } => label_at(l).is_some_and(|at| at > i),
        _ => false,
    })
}

/// A load that follows a load, with no fence or other access between, when one of the two is
/// weak and the first does not acquire: ptxas may swap them, so the second gets a dependency.
fn mark_dependencies(events: &mut [Event]) {
    let mut previous_load: Option<Strength> = None;
    for e in events.iter_mut() {
        match e {
            Event::Fence(_) => previous_load = None,
            Event::Access(a) => {
                let is_load = a.op == Op::Load;
                if let (true, Some(prev)) = (is_load, previous_load) {
                    let weak = prev == Strength::Weak || a.strength == Strength::Weak;
                    a.manufactured_dependency = weak && !prev.sem().acquires();
                }
                previous_load = is_load.then_some(a.strength);
            }
        }
    }
}

/// The semantics and scope of tags with exactly one of each, if PTX has them on a strong access.
fn strong(q: &ptx::Quals) -> Option<(Sem, Scope)> {
    match (q.sem.as_slice(), q.scope.as_slice()) {
        ([sem], [scope]) => Some((Sem::of(*sem)?, Scope::of(*scope)?)),
        _ => None,
    }
}

fn fence(tags: &[Tag]) -> std::result::Result<(Sem, Scope), String> {
    let q = ptx::split(tags);
    match strong(&q) {
        Some((sem, scope)) if q.rest.is_empty() && sem != Sem::Relaxed => Ok((sem, scope)),
        _ => Err(ptx::unsupported(tags)),
    }
}

fn access_strength(tags: &[Tag], op: Op) -> std::result::Result<Strength, String> {
    let q = ptx::split(tags);
    let plain = matches!(op, Op::Load | Op::Store);
    let rest_ok = q.rest.is_empty() || (matches!(op, Op::Red(_)) && q.rest == [Tag::Red]);
    match (
        strong(&q),
        q.sem.as_slice(),
        q.scope.as_slice(),
        q.rest.as_slice(),
    ) {
        (_, [Tag::Weak], [], []) if plain => Ok(Strength::Weak),
        (Some((Sem::Relaxed, Scope::Sys)), _, _, [Tag::V]) if plain => Ok(Strength::Volatile),
        (Some((sem, scope)), _, _, _) if rest_ok && sem != Sem::Sc => {
            Ok(Strength::Strong(sem, scope))
        }
        _ => Err(ptx::unsupported(tags)),
    }
}

/// Operation, strength and location of a memory access; `None` for other instructions.
fn access_parts(instr: &Instr) -> std::result::Result<Option<(Op, Strength, &str)>, String> {
    let (op, tags, loc) = match instr {
        Instr::Load { loc, tags, .. } => (Op::Load, tags, loc),
        Instr::Store { loc, tags, .. } => (Op::Store, tags, loc),
        Instr::Rmw {
            dst,
            loc,
            op,
            tags,
            fail_tags,
        } => {
            crate::litmus::single_order(tags, fail_tags.as_deref())?;
            let atom = atom_op(op)?;
            let red = tags.contains(&Tag::Red);
            match (red, dst) {
                (true, Some(_)) => return Err("a reduction (RED) has no destination".into()),
                (true, None) if atom == AtomOp::Cas || atom == AtomOp::Exch => {
                    return Err("PTX has no `red.cas` or `red.exch`".into())
                }
                (true, None) => (Op::Red(atom), tags, loc),
                (false, _) => (Op::Atom(atom), tags, loc),
            }
        }
        _ => return Ok(None),
    };
    let strength = access_strength(tags, op)?;
    if matches!(op, Op::Red(_)) && strength.sem().acquires() {
        return Err(format!(
            "PTX has no `red{}` (ptxas: illegal modifier); a reduction is `.relaxed` or `.release`",
            strength.sem().ptx()
        ));
    }
    Ok(Some((op, strength, loc.as_str())))
}

fn atom_op(op: &RmwOp) -> std::result::Result<AtomOp, String> {
    Ok(match op {
        RmwOp::Arith(BinOp::Add, _) => AtomOp::Add,
        RmwOp::Arith(BinOp::Sub, _) => AtomOp::Sub,
        RmwOp::Arith(BinOp::And, _) => AtomOp::And,
        RmwOp::Arith(BinOp::Or, _) => AtomOp::Or,
        RmwOp::Arith(BinOp::Xor, _) => AtomOp::Xor,
        RmwOp::Arith(BinOp::Mul, _) => return Err("PTX has no `atom.mul`".into()),
        RmwOp::Exch(_) => AtomOp::Exch,
        RmwOp::Cas { .. } => AtomOp::Cas,
    })
}
