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
use crate::isa::ptx::{self, OpKind};
use crate::litmus::{BinOp, Instr, Litmus, RmwOp, Thread};
use crate::vocab::{self, Tag};

/// A PTX scope: a tag of `isa::ptx::SCOPES`, ordered as PTX nests them (`scope_order`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scope(pub(crate) Tag);

impl Scope {
    /// The PTX qualifier (`.cta`).
    pub(crate) fn ptx(self) -> String {
        ptx::quals(&[self.0])
    }
    fn rank(self) -> Option<usize> {
        ptx::scope_order().position(|t| t == self.0)
    }
}

impl PartialOrd for Scope {
    fn partial_cmp(&self, other: &Scope) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Scope {
    fn cmp(&self, other: &Scope) -> std::cmp::Ordering {
        self.rank().cmp(&other.rank())
    }
}

/// Ordering semantics of a strong access or a fence: a `.sem` tag of its row of
/// `isa::ptx::FORMS` (never WEAK or V: those are a `Strength`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sem(pub(crate) Tag);

impl Sem {
    /// The PTX qualifier (`.acquire`).
    pub(crate) fn ptx(self) -> String {
        ptx::quals(&[self.0])
    }
    pub(crate) fn releases(self) -> bool {
        ptx::releases(self.0)
    }
    pub(crate) fn acquires(self) -> bool {
        ptx::acquires(self.0)
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
            Strength::Volatile => Some(Scope(Tag::Sys)),
            Strength::Strong(_, s) => Some(s),
        }
    }
    pub(crate) fn sem(self) -> Sem {
        match self {
            Strength::Strong(sem, _) => sem,
            Strength::Weak | Strength::Volatile => Sem(Tag::Rlx),
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
pub(crate) fn tag_of(number: usize) -> u32 {
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

fn fence(tags: &[Tag]) -> std::result::Result<(Sem, Scope), String> {
    let written = ptx::written(OpKind::Fence, tags)?;
    let scope = written
        .scope
        .expect("a fence's semantics are scoped (FORMS)");
    Ok((Sem(written.sem), Scope(scope)))
}

/// An access's strength, as its form of `isa::ptx::FORMS` reads its tags.
fn access_strength(written: ptx::Written) -> Strength {
    match (written.sem, written.scope) {
        (Tag::V, _) => Strength::Volatile,
        (sem, Some(scope)) => Strength::Strong(Sem(sem), Scope(scope)),
        (_, None) => Strength::Weak,
    }
}

/// Operation, strength and location of a memory access; `None` for other instructions.
fn access_parts(instr: &Instr) -> std::result::Result<Option<(Op, Strength, &str)>, String> {
    let (op, written, loc) = match instr {
        Instr::Load { loc, tags, .. } => (Op::Load, ptx::written(OpKind::Load, tags)?, loc),
        Instr::Store { loc, tags, .. } => (Op::Store, ptx::written(OpKind::Store, tags)?, loc),
        Instr::Rmw {
            dst,
            loc,
            op,
            tags,
            fail_tags,
        } => {
            crate::litmus::single_order(tags, fail_tags.as_deref())?;
            let written = ptx::written(OpKind::Rmw, tags)?;
            let form = written.form;
            if let Some(refusal) = form.op_refusal(crate::litmus::rmw_op_word(op)?) {
                return Err(refusal);
            }
            let atom = atom_op(op)?;
            match (form.returns, dst) {
                (false, Some(_)) => {
                    return Err(format!("`{}` has no destination register", form.mnemonic))
                }
                (false, None) => (Op::Red(atom), written, loc),
                (true, _) => (Op::Atom(atom), written, loc),
            }
        }
        _ => return Ok(None),
    };
    Ok(Some((op, access_strength(written), loc.as_str())))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::ptx::{Form, FORMS, SCOPES, SEMANTICS, VOLATILE};
    use crate::litmus::{parse_str, print_ptx};

    /// One instruction of `form` with `.sem` word `sem`, a scope where the semantics takes one,
    /// and operation `op` (RMW forms), as PTX text and as the tags its reading would give.
    fn instruction(form: &Form, sem: &str, scope: &str, op: &str) -> (String, Vec<Tag>) {
        let tag = SEMANTICS.tag(sem).expect("a .sem word");
        let scoped = ptx::is_scoped(tag);
        let scope_quals = if scoped {
            format!(".{scope}")
        } else {
            String::new()
        };
        let quals = format!(".{sem}{scope_quals}");
        let text = match form.kind {
            OpKind::Load => format!("ld{quals} r0, x"),
            OpKind::Store => format!("st{quals} x, 1"),
            OpKind::Rmw if form.returns => format!(
                "{}{quals}.{op} r0, x, 1{}",
                form.mnemonic,
                if op == "cas" { ", 2" } else { "" }
            ),
            // The grammar gives a form without a result one value operand.
            OpKind::Rmw => format!("{}{quals}.{op} x, 1", form.mnemonic),
            OpKind::Fence => format!("fence{quals}"),
        };
        let mut tags = match (tag, scoped) {
            (Tag::V, _) => VOLATILE.to_vec(),
            (t, true) => vec![t, SCOPES.tag(scope).expect("a scope word")],
            (t, false) => vec![t],
        };
        tags.extend(form.flavour);
        (text, tags)
    }

    fn tags_of(i: &Instr) -> &[Tag] {
        match i {
            Instr::Load { tags, .. }
            | Instr::Store { tags, .. }
            | Instr::Rmw { tags, .. }
            | Instr::Fence { tags } => tags,
            _ => &[],
        }
    }

    /// The instruction of `form` with `tags` and operation `op`, built without the front end.
    fn instr(form: &Form, tags: Vec<Tag>, op: &str) -> Instr {
        let one = crate::litmus::Expr::Const(1);
        let (x, r0) = ("x".to_string(), "r0".to_string());
        match form.kind {
            OpKind::Load => Instr::Load {
                dst: r0,
                loc: x,
                tags,
            },
            OpKind::Store => Instr::Store {
                loc: x,
                value: one,
                tags,
            },
            OpKind::Fence => Instr::Fence { tags },
            OpKind::Rmw => {
                let op = match op {
                    "exch" => RmwOp::Exch(one),
                    "cas" => RmwOp::Cas {
                        expected: one.clone(),
                        desired: crate::litmus::Expr::Const(2),
                    },
                    word => {
                        let b = [BinOp::Add, BinOp::Sub, BinOp::And, BinOp::Or, BinOp::Xor];
                        let arith = |b| RmwOp::Arith(b, one.clone());
                        let b = b
                            .into_iter()
                            .find(|&b| crate::litmus::rmw_op_word(&arith(b)) == Ok(word));
                        arith(b.expect("an arithmetic op word"))
                    }
                };
                let dst = form.returns.then_some(r0);
                Instr::Rmw {
                    dst,
                    loc: x,
                    op,
                    tags,
                    fail_tags: None,
                }
            }
        }
    }

    fn test_text(instruction: &str) -> String {
        format!("PTX t\n{{ x=0; }}\n P0@cta 0,gpu 0 ;\n {instruction} ;\nexists (x=0)")
    }

    /// Every instruction the round trip tries: each form with each `.sem` word, scope and (for
    /// an RMW) operation word of any form.
    fn every_instruction(
    ) -> impl Iterator<Item = (&'static Form, &'static str, &'static str, &'static str)> {
        let ops: Vec<&'static str> = FORMS.iter().flat_map(|f| f.ops.iter().copied()).collect();
        FORMS.iter().flat_map(move |form| {
            let form_ops = match form.kind {
                OpKind::Rmw => ops.clone(),
                _ => vec![""],
            };
            SEMANTICS.0.iter().flat_map(move |&(sem, _)| {
                let form_ops = form_ops.clone();
                SCOPES.0.iter().flat_map(move |&(scope, _)| {
                    form_ops
                        .clone()
                        .into_iter()
                        .map(move |op| (form, sem, scope, op))
                })
            })
        })
    }

    /// An accepted instruction is printed, read back to the same tags and emitted.
    fn assert_round_trip(what: &str, test: &crate::litmus::Litmus, tags: &[Tag]) {
        let printed = print_ptx(test).unwrap_or_else(|e| panic!("{what} prints: {e}"));
        let again =
            parse_str("t.litmus", &printed).unwrap_or_else(|e| panic!("{what} reads back: {e}"));
        assert_eq!(again.threads[0].code, test.threads[0].code, "{what}");
        assert_eq!(tags_of(&test.threads[0].code[0]), tags, "{what}");
        events(test).unwrap_or_else(|e| panic!("{what} is emitted: {e}"));
    }

    /// `stage` (the printer, the emitter) refuses `what` with the front end's `reason`.
    fn assert_refused_with<T>(
        what: &str,
        stage: &str,
        result: crate::diag::Result<T>,
        reason: &str,
    ) {
        let Err(e) = result else {
            panic!("{what}: the {stage} accepts what the front end refuses ({reason})")
        };
        assert!(
            e.message.contains(reason),
            "{what}: the {stage} says `{}`, the front end `{reason}`",
            e.message
        );
    }

    /// The invariant of `isa::ptx::FORMS`: every form with every `.sem` word, scope and operation
    /// is either read, printed, read back to the same tags and emitted, or refused by the front
    /// end, the printer and the CUDA emitter alike, each giving the form's own reason.
    #[test]
    fn every_form_is_read_printed_and_emitted_or_refused_alike_everywhere() {
        let (mut accepted, mut refused) = (0, 0);
        for (form, sem, scope, op) in every_instruction() {
            let (text, tags) = instruction(form, sem, scope, op);
            let what = format!("`{text}`");
            match parse_str("t.litmus", &test_text(&text)) {
                Ok(test) => {
                    accepted += 1;
                    assert_round_trip(&what, &test, &tags);
                }
                Err(e) => {
                    refused += 1;
                    let mut test = parse_str("t.litmus", &test_text("ld.weak r0, x")).unwrap();
                    test.threads[0].code[0] = instr(form, tags.clone(), op);
                    assert_refused_with(&what, "printer", print_ptx(&test), &e.message);
                    assert_refused_with(&what, "emitter", events(&test), &e.message);
                }
            }
        }
        assert!(
            accepted > 100 && refused > 100,
            "{accepted} accepted, {refused} refused"
        );
    }
}
