//! The syntax tree of one Vulkan table cell, as `grammar/litmus_vulkan.lalrpop` produces it.
//! Qualifiers (`.atom`, `.acq`, `.wg`, `.sc0`, …) are kept as written; `vulkan` gives them
//! meaning.
//!
//! Owns: `VulkanInstr`. Uses `ptx_ast` for the parts both tables share (values, qualifiers).
use crate::litmus::ast::Spanned;
pub(crate) use crate::litmus::program::{BinOp, CmpOp};
use crate::litmus::ptx_ast::{Qual, Value};

/// One Vulkan instruction as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum VulkanInstr {
    /// `ld{.q} r, x`.
    Ld {
        quals: Vec<Qual>,
        dst: Spanned<String>,
        loc: Spanned<String>,
    },
    /// `st{.q} x, v`.
    St {
        quals: Vec<Qual>,
        loc: Spanned<String>,
        value: Value,
    },
    /// `rmw{.q} r, x, v`.
    Rmw {
        quals: Vec<Qual>,
        dst: Spanned<String>,
        loc: Spanned<String>,
        value: Value,
    },
    /// `membar{.q}`.
    Membar { quals: Vec<Qual> },
    /// `cbar{.q} v{, v, v}`.
    Cbar {
        quals: Vec<Qual>,
        operands: Vec<Value>,
    },
    /// `avdevice`.
    AvDevice,
    /// `visdevice`.
    VisDevice,
    /// `add r, v, v` and the other register arithmetic.
    Arith {
        op: BinOp,
        dst: Spanned<String>,
        lhs: Value,
        rhs: Value,
    },
    /// `beq v, v, L` and the other conditional branches.
    Branch {
        op: CmpOp,
        lhs: Value,
        rhs: Value,
        target: Spanned<String>,
    },
    /// `goto L`.
    Goto { target: Spanned<String> },
}

impl VulkanInstr {
    /// The label a branch or jump goes to.
    pub(crate) fn jump_target(&self) -> Option<&Spanned<String>> {
        match self {
            Self::Branch { target, .. } | Self::Goto { target } => Some(target),
            _ => None,
        }
    }
}
