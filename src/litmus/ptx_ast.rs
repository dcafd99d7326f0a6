//! Syntax trees of one PTX table cell and one thread-header cell, as `grammar/litmus_ptx.lalrpop`
//! produces them. Qualifiers (`.acquire`, `.gpu`, `.s32`, …) are kept as written; `ptx` gives
//! them meaning.
//!
//! Owns: `Cell`, `PtxInstr`, `Header` and their parts. Uses `ast` for spans.
use crate::litmus::ast::{Span, Spanned};
use crate::litmus::program::Expr;
pub(crate) use crate::litmus::program::{BinOp, CmpOp};

/// `.word` after a mnemonic, without the dot.
pub(crate) type Qual = Spanned<String>;

/// A register (`r0`, `%r1`) or an integer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Value {
    Reg(Spanned<String>),
    Int(Spanned<i64>),
}

impl Value {
    /// The value as an expression: a register read or a constant.
    pub(crate) fn expr(&self) -> Expr {
        match self {
            Value::Reg(r) => Expr::Reg(r.node.clone()),
            Value::Int(i) => Expr::Const(i.node),
        }
    }

    pub(crate) fn span(&self) -> Span {
        match self {
            Value::Reg(r) => r.span,
            Value::Int(i) => i.span,
        }
    }
}

/// The source operand of `ld`: a location, or (Memalloy style `ld r0, 1`) a value to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LdSrc {
    Addr(Spanned<String>),
    Value(Value),
}

/// The PTX mnemonic of a register operation (`add r, a, b`); the grammar reads these words.
pub(crate) fn arith_mnemonic(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "add",
        BinOp::Sub => "sub",
        BinOp::Mul => "mul",
        BinOp::And => "and",
        BinOp::Or => "or",
        BinOp::Xor => "xor",
    }
}

/// The PTX mnemonic of a compare-and-branch (`beq a, b, L`); the grammar reads these words.
pub(crate) fn branch_mnemonic(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "beq",
        CmpOp::Ne => "bne",
        CmpOp::Lt => "blt",
        CmpOp::Le => "ble",
        CmpOp::Gt => "bgt",
        CmpOp::Ge => "bge",
    }
}

/// The barrier mnemonic as written (`bar` or `barrier`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BarKind {
    Bar,
    Barrier,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PtxInstr {
    /// `ld`, or a load through another proxy: `suld`, `tld`, `cold`.
    Ld {
        mnemonic: &'static str,
        quals: Vec<Qual>,
        dst: Spanned<String>,
        src: LdSrc,
    },
    /// `st`, or the surface store `sust`.
    St {
        mnemonic: &'static str,
        quals: Vec<Qual>,
        addr: Spanned<String>,
        value: Value,
    },
    Atom {
        quals: Vec<Qual>,
        dst: Spanned<String>,
        addr: Spanned<String>,
        operands: Vec<Value>,
    },
    Red {
        quals: Vec<Qual>,
        addr: Spanned<String>,
        value: Value,
    },
    Fence {
        quals: Vec<Qual>,
    },
    Membar {
        quals: Vec<Qual>,
    },
    Bar {
        kind: BarKind,
        quals: Vec<Qual>,
        operands: Vec<Value>,
    },
    Mov {
        quals: Vec<Qual>,
        dst: Spanned<String>,
        value: Value,
    },
    Arith {
        op: BinOp,
        quals: Vec<Qual>,
        dst: Spanned<String>,
        lhs: Value,
        rhs: Value,
    },
    Branch {
        op: CmpOp,
        lhs: Value,
        rhs: Value,
        target: Spanned<String>,
    },
    /// `bra L` (qualifiers such as `.uni` allowed) or `goto L`.
    Goto {
        quals: Vec<Qual>,
        target: Spanned<String>,
    },
}

/// One cell of an instruction row: empty, a label, an instruction, or a label then an instruction.
/// One table cell: an optional label and an optional instruction (`I`: the dialect's
/// instruction tree, `PtxInstr` or `VulkanInstr`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Cell<I> {
    pub(crate) label: Option<Spanned<String>>,
    pub(crate) instr: Option<Spanned<I>>,
}

/// A thread-header cell: `P0@cta 0,gpu 0` (the placement may be absent).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) name: Spanned<String>,
    /// `(key, value)` pairs after `@`, e.g. `("cta", 0)`, `("gpu", 0)`.
    pub(crate) placement: Vec<(Spanned<String>, Spanned<i64>)>,
}

impl PtxInstr {
    /// The label a branch or jump goes to.
    pub(crate) fn jump_target(&self) -> Option<&Spanned<String>> {
        match self {
            Self::Branch { target, .. } | Self::Goto { target, .. } => Some(target),
            _ => None,
        }
    }
}
