//! Meaning of one PTX instruction: its qualifiers become vocabulary tags (with the PTX defaults),
//! its operands become `Expr`s, and illegal combinations become errors.
//!
//! Tags, by qualifier (S is the scope tag CTA, GPU or SYS):
//!   ld/st: none or `.weak` → [WEAK]; `.relaxed.S` → [RLX, S]; `.acquire.S` (ld) → [ACQ, S];
//!          `.release.S` (st) → [REL, S]; `.volatile` → [RLX, SYS, V] (the ISA: volatile
//!          is relaxed.sys).
//!   atom/red: semantics `.relaxed` (default), `.acquire`, `.release`, `.acq_rel`; scope default
//!          `.gpu`; ops add, sub, and, or, xor, exch, cas.
//!   fence: `.sc.S` → [SC, S]; `.acq_rel.S` or `.S` → [ACQ_REL, S] (the ISA's default);
//!          `.acquire.S` → [ACQ, S], `.release.S` → [REL, S] (PTX 8.6's light fences, used by the
//!          ASPLOS'19 Fig. 11 mapping).
//!   red: as atom, plus [RED] on both events (reductions form no acquire pattern, §8.11.1).
//!   membar: `.cta`/`.gl`/`.sys` → [SC, CTA/GPU/SYS] (the ISA defines membar as fence.sc).
//!   bar/barrier: `.sync` → [SYNC, CTA], `.arrive` → [ARRIVE, CTA] (`.cta` optional, `.aligned`
//!          ignored). Operands, as the Dat3M test suite writes them: `bar.cta.sync b` — barrier b;
//!          `bar.cta.sync i, b` — i is a static instance label that only the Dat3M encoding uses,
//!          b the barrier (may be a register); `bar.cta.sync i, b, n` — n the number of threads
//!          that must arrive (the ISA's thread count). The ISA's own two-operand form
//!          `bar.sync a, b` means barrier a with b threads; the corpus verdicts (e.g.
//!          SB+named-bar-reg-const-diff) are only consistent with the Dat3M reading, which is the
//!          one implemented: `Barrier { id: b, count: n }`; i is dropped.
//! State spaces (`.global`, `.shared`, …), types (`.s32`, `.b64`, …), `.aligned` and `.uni` are
//! accepted and ignored.
//!
//! Owns: qualifier classification and `lower`. Uses `ptx_ast`, `program`, `source` for errors.
use crate::diag::Result;
use crate::litmus::ast::{Span, Spanned};
use crate::litmus::program::{BinOp, Cond, Expr, Instr, RmwOp};
use crate::litmus::ptx_ast::{arith_mnemonic, LdSrc, PtxInstr, Qual, Value};
use crate::litmus::source::Source;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sem {
    Weak,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    Sc,
    Volatile,
}

impl Sem {
    fn tag(self) -> &'static str {
        match self {
            Sem::Weak => "WEAK",
            Sem::Relaxed | Sem::Volatile => "RLX",
            Sem::Acquire => "ACQ",
            Sem::Release => "REL",
            Sem::AcqRel => "ACQ_REL",
            Sem::Sc => "SC",
        }
    }
    fn word(self) -> &'static str {
        match self {
            Sem::Weak => ".weak",
            Sem::Relaxed => ".relaxed",
            Sem::Acquire => ".acquire",
            Sem::Release => ".release",
            Sem::AcqRel => ".acq_rel",
            Sem::Sc => ".sc",
            Sem::Volatile => ".volatile",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AtomOp {
    Arith(BinOp),
    Exch,
    Cas,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BarMode {
    Sync,
    Arrive,
}

/// What a qualifier word means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum QualKind {
    Sem(Sem),
    Scope(&'static str),
    Op(AtomOp),
    Mode(BarMode),
    /// Accepted and ignored: state spaces, types, `.aligned`, `.uni`, `.lo`.
    Ignored,
}

fn classify_word(word: &str) -> Option<QualKind> {
    use QualKind::*;
    Some(match word {
        "weak" => Sem(self::Sem::Weak),
        "relaxed" => Sem(self::Sem::Relaxed),
        "acquire" => Sem(self::Sem::Acquire),
        "release" => Sem(self::Sem::Release),
        "acq_rel" => Sem(self::Sem::AcqRel),
        "sc" => Sem(self::Sem::Sc),
        "volatile" => Sem(self::Sem::Volatile),
        "cta" => Scope("CTA"),
        "gpu" => Scope("GPU"),
        "sys" => Scope("SYS"),
        "add" => Op(AtomOp::Arith(BinOp::Add)),
        "sub" => Op(AtomOp::Arith(BinOp::Sub)),
        "and" => Op(AtomOp::Arith(BinOp::And)),
        "or" => Op(AtomOp::Arith(BinOp::Or)),
        "xor" => Op(AtomOp::Arith(BinOp::Xor)),
        "exch" => Op(AtomOp::Exch),
        "cas" => Op(AtomOp::Cas),
        "sync" => Mode(BarMode::Sync),
        "arrive" => Mode(BarMode::Arrive),
        "global" | "shared" | "local" | "const" | "param" | "generic" | "aligned" | "uni"
        | "lo" => Ignored,
        w if is_type_word(w) => Ignored,
        _ => return None,
    })
}

/// `.b32`, `.u64`, `.s32`, `.f32`, `.pred`, …
fn is_type_word(w: &str) -> bool {
    let sized =
        |prefix: &str, sizes: &[&str]| w.strip_prefix(prefix).is_some_and(|n| sizes.contains(&n));
    w == "pred"
        || sized("b", &["8", "16", "32", "64"])
        || sized("u", &["8", "16", "32", "64"])
        || sized("s", &["8", "16", "32", "64"])
        || sized("f", &["16", "32", "64"])
}

/// The meaningful qualifiers of one instruction.
#[derive(Default)]
struct Quals {
    sem: Option<Spanned<Sem>>,
    scope: Option<Spanned<&'static str>>,
    op: Option<Spanned<AtomOp>>,
    mode: Option<Spanned<BarMode>>,
}

/// Which qualifier kinds a mnemonic takes.
#[derive(Clone, Copy)]
struct Allowed {
    sem: bool,
    scope: bool,
    op: bool,
    mode: bool,
}

const ACCESS: Allowed = Allowed {
    sem: true,
    scope: true,
    op: false,
    mode: false,
};
const RMW: Allowed = Allowed {
    sem: true,
    scope: true,
    op: true,
    mode: false,
};
const BAR: Allowed = Allowed {
    sem: false,
    scope: true,
    op: false,
    mode: true,
};
const PLAIN: Allowed = Allowed {
    sem: false,
    scope: false,
    op: false,
    mode: false,
};

fn classify(src: &Source, mnemonic: &str, quals: &[Qual], allowed: Allowed) -> Result<Quals> {
    let mut out = Quals::default();
    for q in quals {
        let unexpected = || match q.node.as_str() {
            "proxy" | "alias" => src.error(
                q.span,
                format!(
                    "`{mnemonic}.{}` {}",
                    q.node,
                    crate::litmus::ast::MIXED_PROXY
                ),
            ),
            _ => src.error(
                q.span,
                format!("unexpected qualifier `.{}` on `{mnemonic}`", q.node),
            ),
        };
        let kind = classify_word(&q.node).ok_or_else(unexpected)?;
        let slot_taken = match kind {
            QualKind::Sem(s) if allowed.sem => set(&mut out.sem, s, q.span),
            QualKind::Scope(s) if allowed.scope => set(&mut out.scope, s, q.span),
            QualKind::Op(o) if allowed.op => set(&mut out.op, o, q.span),
            QualKind::Mode(m) if allowed.mode => set(&mut out.mode, m, q.span),
            QualKind::Ignored => false,
            _ => return Err(unexpected()),
        };
        if slot_taken {
            return Err(src.error(
                q.span,
                format!("conflicting qualifier `.{}` on `{mnemonic}`", q.node),
            ));
        }
    }
    Ok(out)
}

/// Fill an empty slot; true if it was already full.
fn set<T>(slot: &mut Option<Spanned<T>>, value: T, span: Span) -> bool {
    let taken = slot.is_some();
    *slot = Some(Spanned { node: value, span });
    taken
}

fn value(v: &Value) -> Expr {
    match v {
        Value::Reg(r) => Expr::Reg(r.node.clone()),
        Value::Int(i) => Expr::Const(i.node),
    }
}

/// Lower one instruction (spanning `span`).
pub fn lower(src: &Source, instr: &PtxInstr, span: Span) -> Result<Instr> {
    match instr {
        PtxInstr::Ld {
            quals,
            dst,
            src: from,
        } => lower_ld(src, quals, dst, from),
        PtxInstr::St {
            quals,
            addr,
            value: v,
        } => {
            let tags = access_tags(src, "st", &classify(src, "st", quals, ACCESS)?, span)?;
            Ok(Instr::Store {
                loc: addr.node.clone(),
                value: value(v),
                tags,
            })
        }
        PtxInstr::Atom {
            quals,
            dst,
            addr,
            operands,
        } => lower_rmw(
            src,
            "atom",
            quals,
            Some(dst.node.clone()),
            &addr.node,
            operands,
            span,
        ),
        PtxInstr::Red {
            quals,
            addr,
            value: v,
        } => lower_rmw(
            src,
            "red",
            quals,
            None,
            &addr.node,
            std::slice::from_ref(v),
            span,
        ),
        PtxInstr::Fence { quals } => lower_fence(src, quals, span),
        PtxInstr::Membar { quals } => lower_membar(src, quals, span),
        PtxInstr::Bar {
            kind,
            quals,
            operands,
        } => {
            let mnemonic = match kind {
                crate::litmus::ptx_ast::BarKind::Bar => "bar",
                crate::litmus::ptx_ast::BarKind::Barrier => "barrier",
            };
            lower_bar(src, mnemonic, quals, operands, span)
        }
        PtxInstr::Mov {
            quals,
            dst,
            value: v,
        } => {
            classify(src, "mov", quals, PLAIN)?;
            Ok(Instr::Assign {
                dst: dst.node.clone(),
                value: value(v),
            })
        }
        PtxInstr::Arith {
            op,
            quals,
            dst,
            lhs,
            rhs,
        } => {
            classify(src, arith_mnemonic(*op), quals, PLAIN)?;
            let e = Expr::Bin(*op, Box::new(value(lhs)), Box::new(value(rhs)));
            Ok(Instr::Assign {
                dst: dst.node.clone(),
                value: e,
            })
        }
        PtxInstr::Branch {
            op,
            lhs,
            rhs,
            target,
        } => {
            let cond = Cond {
                op: *op,
                lhs: value(lhs),
                rhs: value(rhs),
            };
            Ok(Instr::BranchIf {
                cond,
                target: target.node.clone(),
            })
        }
        PtxInstr::Goto { quals, target } => {
            classify(src, "bra", quals, PLAIN)?;
            Ok(Instr::Goto(target.node.clone()))
        }
    }
}

fn lower_ld(src: &Source, quals: &[Qual], dst: &Spanned<String>, from: &LdSrc) -> Result<Instr> {
    let q = classify(src, "ld", quals, ACCESS)?;
    match from {
        // Memalloy / Dat3M: `ld r0, 1` puts a value in a register; qualifiers are irrelevant.
        LdSrc::Value(v) => Ok(Instr::Assign {
            dst: dst.node.clone(),
            value: value(v),
        }),
        LdSrc::Addr(addr) => {
            let tags = access_tags(src, "ld", &q, addr.span)?;
            Ok(Instr::Load {
                dst: dst.node.clone(),
                loc: addr.node.clone(),
                tags,
            })
        }
    }
}

/// Tags of an `ld` / `st`.
fn access_tags(src: &Source, mnemonic: &str, q: &Quals, span: Span) -> Result<Vec<String>> {
    let sem = q.sem.as_ref().map_or(Sem::Weak, |s| s.node);
    let legal = match mnemonic {
        "ld" => matches!(sem, Sem::Weak | Sem::Relaxed | Sem::Acquire | Sem::Volatile),
        _ => matches!(sem, Sem::Weak | Sem::Relaxed | Sem::Release | Sem::Volatile),
    };
    let sem_span = q.sem.as_ref().map_or(span, |s| s.span);
    if !legal {
        return Err(src.error(sem_span, format!("`{mnemonic}` cannot be `{}`", sem.word())));
    }
    match (sem, &q.scope) {
        (Sem::Weak, None) => Ok(tags(&["WEAK"])),
        (Sem::Volatile, None) => Ok(tags(&["RLX", "SYS", "V"])),
        (Sem::Weak | Sem::Volatile, Some(s)) => {
            let what = if q.sem.is_none() {
                "a weak access".to_string()
            } else {
                format!("`{}`", sem.word())
            };
            Err(src.error(
                s.span,
                format!(
                    "{what} takes no scope; use `.relaxed` or `.acquire`/`.release` with a scope"
                ),
            ))
        }
        (_, None) => Err(src.error(
            sem_span,
            format!(
                "`{mnemonic}{}` needs a scope (`.cta`, `.gpu` or `.sys`)",
                sem.word()
            ),
        )),
        (_, Some(s)) => Ok(tags(&[sem.tag(), s.node])),
    }
}

fn lower_rmw(
    src: &Source,
    mnemonic: &str,
    quals: &[Qual],
    dst: Option<String>,
    loc: &str,
    operands: &[Value],
    span: Span,
) -> Result<Instr> {
    let q = classify(src, mnemonic, quals, RMW)?;
    let sem = q.sem.as_ref().map_or(Sem::Relaxed, |s| s.node);
    if !matches!(
        sem,
        Sem::Relaxed | Sem::Acquire | Sem::Release | Sem::AcqRel
    ) {
        let at = q.sem.as_ref().map_or(span, |s| s.span);
        return Err(src.error(at, format!("`{mnemonic}` cannot be `{}`", sem.word())));
    }
    let scope = q.scope.as_ref().map_or("GPU", |s| s.node);
    let op = q.op.as_ref().ok_or_else(|| {
        src.error(span, format!("`{mnemonic}` needs an operation (`.add`, `.sub`, `.and`, `.or`, `.xor`, `.exch` or `.cas`)"))
    })?;
    let op = rmw_op(src, mnemonic, op, operands, span)?;
    // A reduction is tagged RED: the manual (§8.11.1) says it does not form acquire patterns.
    let kind: &[&str] = if dst.is_none() { &["RED"] } else { &[] };
    Ok(Instr::Rmw {
        dst,
        loc: loc.to_string(),
        op,
        tags: tags(&[&[sem.tag(), scope], kind].concat()),
        fail_tags: None,
    })
}

fn rmw_op(
    src: &Source,
    mnemonic: &str,
    op: &Spanned<AtomOp>,
    operands: &[Value],
    span: Span,
) -> Result<RmwOp> {
    let wanted = if op.node == AtomOp::Cas { 2 } else { 1 };
    if operands.len() != wanted {
        let at = operands.get(wanted).map_or(span, |v| v.span());
        return Err(src.error(
            at,
            format!(
                "`{mnemonic}` with this operation takes {wanted} value operand(s), found {}",
                operands.len()
            ),
        ));
    }
    Ok(match op.node {
        AtomOp::Arith(b) => RmwOp::Arith(b, value(&operands[0])),
        AtomOp::Exch => RmwOp::Exch(value(&operands[0])),
        AtomOp::Cas => RmwOp::Cas {
            expected: value(&operands[0]),
            desired: value(&operands[1]),
        },
    })
}

fn lower_fence(src: &Source, quals: &[Qual], span: Span) -> Result<Instr> {
    let q = classify(src, "fence", quals, ACCESS)?;
    let sem = q.sem.as_ref().map_or(Sem::AcqRel, |s| s.node);
    if !matches!(sem, Sem::Sc | Sem::AcqRel | Sem::Acquire | Sem::Release) {
        let at = q.sem.as_ref().map_or(span, |s| s.span);
        return Err(src.error(
            at,
            format!(
                "`fence` cannot be `{}`; expected `.sc`, `.acq_rel`, `.acquire` or `.release`",
                sem.word()
            ),
        ));
    }
    let scope = q
        .scope
        .as_ref()
        .ok_or_else(|| src.error(span, "`fence` needs a scope (`.cta`, `.gpu` or `.sys`)"))?;
    Ok(Instr::Fence {
        tags: tags(&[sem.tag(), scope.node]),
    })
}

fn lower_membar(src: &Source, quals: &[Qual], span: Span) -> Result<Instr> {
    let scope = match quals {
        [q] => match q.node.as_str() {
            "cta" => "CTA",
            "gl" => "GPU",
            "sys" => "SYS",
            _ => {
                return Err(src.error(
                    q.span,
                    format!(
                        "unexpected qualifier `.{}` on `membar`; expected `.cta`, `.gl` or `.sys`",
                        q.node
                    ),
                ))
            }
        },
        _ => {
            return Err(src.error(
                span,
                "`membar` takes exactly one level: `.cta`, `.gl` or `.sys`",
            ))
        }
    };
    Ok(Instr::Fence {
        tags: tags(&["SC", scope]),
    })
}

fn lower_bar(
    src: &Source,
    mnemonic: &str,
    quals: &[Qual],
    operands: &[Value],
    span: Span,
) -> Result<Instr> {
    let q = classify(src, mnemonic, quals, BAR)?;
    if let Some(s) = q.scope.as_ref().filter(|s| s.node != "CTA") {
        return Err(src.error(
            s.span,
            format!("`{mnemonic}` synchronises a CTA; the only scope it takes is `.cta`"),
        ));
    }
    let mode = q
        .mode
        .as_ref()
        .ok_or_else(|| src.error(span, format!("`{mnemonic}` needs `.sync` or `.arrive`")))?;
    let flavour = match mode.node {
        BarMode::Sync => "SYNC",
        BarMode::Arrive => "ARRIVE",
    };
    let (id, count) = match operands {
        [b] => (value(b), None),
        [_instance, b] => (value(b), None),
        [_instance, b, n] => (value(b), Some(value(n))),
        _ => {
            let at = operands.get(3).map_or(span, Value::span);
            return Err(src.error(at, format!("`{mnemonic}` takes one to three operands")));
        }
    };
    Ok(Instr::Barrier {
        id,
        count,
        tags: tags(&[flavour, "CTA"]),
    })
}

fn tags(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}
