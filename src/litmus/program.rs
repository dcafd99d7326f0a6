//! A parsed litmus test, independent of its concrete syntax (PTX, C11, OpenCL).
//!
//! Owns: `Litmus`, the per-thread instruction lists, and the final condition. Front ends produce it;
//! the runner executes it. Instruction annotations are vocabulary tags (`crate::vocab::Tag`).

pub use crate::vocab::Placement;
use crate::vocab::Tag;

/// The instruction set a test is written in.
#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize)]
pub enum Arch {
    /// NVIDIA PTX (title line `PTX`).
    Ptx,
    /// Vulkan / SPIR-V memory operations in the Khronos and Dat3M litmus syntax (title line
    /// `Vulkan`).
    Vulkan,
    /// C11 atomics (title line `C`); threads may be placed with `@cta N` / `gpu N`.
    C11,
    /// OpenCL C atomics, fences and barriers (title line `OpenCL`).
    OpenCl,
}

impl Arch {
    /// The words of a thread's placement in a test of this language, innermost first: the
    /// scope levels its tests can place threads at.
    pub(crate) fn placement(self) -> &'static [(&'static str, crate::vocab::Level)] {
        match self {
            Arch::Ptx => &crate::isa::ptx::PLACEMENT,
            Arch::Vulkan => &crate::isa::vulkan::PLACEMENT,
            Arch::C11 => &crate::isa::c::C11_PLACEMENT,
            Arch::OpenCl => &crate::isa::c::OPENCL_PLACEMENT,
        }
    }
}

pub(crate) type Reg = String;

/// An instruction's (or a location's) vocabulary tags, in the order its front end wrote them.
///
/// A list, not a set: the order is what error messages, reports (`R.RLX.SYS.V`) and printed
/// tests show, and a sorted set would change them; `print_c` compares tests up to tag order.
pub(crate) type Tags = Vec<Tag>;

#[derive(Clone, PartialEq, Eq, Debug)]
/// One thread of a litmus test: its name, its place in the scope tree and its code.
pub struct Thread {
    /// Thread name as written (`P0`).
    pub name: String,
    /// The CTA / work-group and GPU / device the thread runs on.
    pub placement: Placement,
    /// The thread's instructions in program order (`po`), labels and branches included.
    pub code: Vec<Instr>,
    /// The operands of C operators whose evaluations are unsequenced (C11 6.5p2), as ranges of
    /// `code`; empty for PTX and for code a tool wrote.
    pub unsequenced: Vec<Unsequenced>,
}

/// The two operands of one C binary operator (`a + b`, `a == b`), as the ranges of `code` they
/// were lowered to: every event one range performs is unsequenced with every event the other
/// performs in the same evaluation of the operator — neither is `po`-before the other — while
/// both stay `po`-after what precedes the expression and `po`-before what follows it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Unsequenced {
    /// The indices into `Thread::code` of the instructions the left operand was lowered to.
    pub left: std::ops::Range<usize>,
    /// The indices into `Thread::code` of the instructions the right operand was lowered to.
    pub right: std::ops::Range<usize>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
/// A binary arithmetic or bitwise operator on 64-bit values (C operators, PTX `add` … `xor`,
/// the operation of `atom` / `red` / `atomic_fetch_*`); `+`, `-` and `*` wrap on overflow.
pub enum BinOp {
    /// `+` / PTX `add`, `atom.add`, `red.add` / C `atomic_fetch_add`.
    Add,
    /// `-` / PTX `sub`, `atom.sub`, `red.sub` / C `atomic_fetch_sub`.
    Sub,
    /// `*` / PTX `mul` (no RMW form).
    Mul,
    /// Bitwise `&` / PTX `and`, `atom.and` / C `atomic_fetch_and`.
    And,
    /// Bitwise `|` / PTX `or`, `atom.or` / C `atomic_fetch_or`.
    Or,
    /// Bitwise `^` / PTX `xor`, `atom.xor` / C `atomic_fetch_xor`.
    Xor,
}

impl BinOp {
    /// The C operator (`+`, `&`, …): how the C printers and the OpenCL harness write it.
    pub(crate) fn c_symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
/// A comparison in a branch condition (C `==`, `<`, … in `if` / `while`; PTX `beq`, `blt`, …),
/// on signed 64-bit values.
pub enum CmpOp {
    /// `==` / PTX `beq`.
    Eq,
    /// `!=` / PTX `bne`.
    Ne,
    /// `<` / PTX `blt`.
    Lt,
    /// `<=` / PTX `ble`.
    Le,
    /// `>` / PTX `bgt`.
    Gt,
    /// `>=` / PTX `bge`.
    Ge,
}

/// A value computed from constants and registers (no memory access).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Expr {
    /// An integer literal.
    Const(i64),
    /// The current value of a register of the executing thread.
    Reg(Reg),
    /// An operator on two subexpressions (C `a + b`, PTX `add r, a, b` as a value).
    Bin(BinOp, Box<Expr>, Box<Expr>),
}

#[derive(Clone, PartialEq, Eq, Debug)]
/// A branch condition `lhs op rhs`, evaluated on the thread's registers (no memory access).
pub struct Cond {
    /// How the two sides are compared.
    pub op: CmpOp,
    /// The value on the left of the comparison.
    pub lhs: Expr,
    /// The value on the right of the comparison.
    pub rhs: Expr,
}

/// The operation of a read-modify-write.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum RmwOp {
    /// Writes `old op operand` (PTX `atom.add`, `red.add`, C `atomic_fetch_add`).
    Arith(BinOp, Expr),
    /// Writes `operand` (PTX `atom.exch`, C `atomic_exchange`).
    Exch(Expr),
    /// Writes `desired` only if the old value equals `expected`; otherwise it is a read alone.
    Cas {
        /// The value the location must hold for the write to happen (C's `*expected`, PTX
        /// `atom.cas`'s first value operand).
        expected: Expr,
        /// The value written when the old value equals `expected`.
        desired: Expr,
    },
}

#[derive(Clone, PartialEq, Eq, Debug)]
/// One instruction of a thread, as a front end lowered it from PTX or C / OpenCL source.
pub enum Instr {
    /// `dst := [loc]`.
    Load {
        /// Register that receives the value read.
        dst: Reg,
        /// Name read: a location, or a PTX alias of one (`Litmus::location_of` resolves it).
        loc: String,
        /// Vocabulary tags of the read: memory order, scope, proxy, … (`ld.acquire.gpu`: `ACQ`,
        /// `GPU`).
        tags: Tags,
    },
    /// `[loc] := value`.
    Store {
        /// Name written: a location, or a PTX alias of one.
        loc: String,
        /// The value written.
        value: Expr,
        /// Vocabulary tags of the write: memory order, scope, proxy, ….
        tags: Tags,
    },
    /// Atomic read-modify-write; `dst` receives the old value (`None` for PTX `red`).
    /// `fail_tags` are the read's tags when a CAS fails (C's failure order); `None` = same as `tags`.
    Rmw {
        /// Register that receives the old value; `None` for PTX `red`, which returns nothing.
        dst: Option<Reg>,
        /// Name read and written: a location, or a PTX alias of one.
        loc: String,
        /// What the write computes from the old value.
        op: RmwOp,
        /// Vocabulary tags of both the read and the write (memory order, scope, …).
        tags: Tags,
        /// Tags of the lone read a failed CAS performs (C's failure order); `None`: the same as
        /// `tags`.
        fail_tags: Option<Tags>,
    },
    /// A memory fence: PTX `fence` / `membar`, C `atomic_thread_fence`, OpenCL
    /// `atomic_work_item_fence` (and OpenCL's `atomic_thread_fence`).
    Fence {
        /// Order and scope of the fence (for OpenCL also its `global` / `local` address-space
        /// flags).
        tags: Tags,
    },
    /// Execution barrier `id`; `count` threads must arrive (`None`: all threads of the CTA).
    Barrier {
        /// Barrier number: PTX `bar.sync b`'s `b`; in OpenCL 0, or a number per label of a labelled
        /// barrier.
        id: Expr,
        /// Number of threads that must arrive (PTX `bar.sync b, n`); `None`: all threads of the
        /// CTA.
        count: Option<Expr>,
        /// The barrier's mode (`bar.sync` / `bar.arrive`, OpenCL sync) and scope (`CTA` / `WG`),
        /// plus OpenCL's fence flags.
        tags: Tags,
    },
    /// Register assignment without memory access (`mov`, `add`, C `r = e`).
    Assign {
        /// Register written.
        dst: Reg,
        /// The value it receives.
        value: Expr,
    },
    /// A branch target (`L:` in PTX, a C label or one the C lowering made); performs no event.
    Label(String),
    /// Unconditional jump to a label: PTX `bra` / `goto`, C `goto`, and the jumps that C `if`,
    /// `while` and `switch` lower to.
    Goto(String),
    /// Jump to the label if the condition holds.
    BranchIf {
        /// The condition tested.
        cond: Cond,
        /// Label jumped to when the condition holds; otherwise execution falls through.
        target: String,
    },
}

/// The left-hand side of a final-condition atom.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Target {
    /// Register of a thread (thread index into `Litmus::threads`).
    Reg {
        /// Index of the thread in `Litmus::threads`.
        thread: usize,
        /// The register's name as the thread writes it (`r0`).
        reg: Reg,
    },
    /// Final value of a memory location.
    Mem(String),
}

#[derive(Clone, PartialEq, Eq, Debug)]
/// The proposition of a final condition, over the final values of registers and locations.
pub enum Prop {
    /// `true` (also a comparison of two constants that holds).
    True,
    /// `false` (also a comparison of two constants that fails).
    False,
    /// The target's final value equals the constant (`P0:r0 = 1`, `x == 2`); `!=` gives `Not(Eq)`.
    Eq(Target, i64),
    /// Negation: `~` (a `!=` comparison also gives `Not(Eq)`).
    Not(Box<Prop>),
    /// Conjunction: `/\`.
    And(Box<Prop>, Box<Prop>),
    /// Disjunction: `\/`.
    Or(Box<Prop>, Box<Prop>),
    /// Implication: `=>`.
    Implies(Box<Prop>, Box<Prop>),
    /// Two final values are equal (`P0:r1 == P0:r2`, used by PTX ticket-lock tests).
    EqTargets(Target, Target),
}

impl Prop {
    /// Call `f` on every atom (`Eq`, `EqTargets`) of the proposition, left to right.
    pub(crate) fn for_each_atom<'a>(&'a self, f: &mut dyn FnMut(&'a Prop)) {
        match self {
            Prop::True | Prop::False => {}
            Prop::Eq(..) | Prop::EqTargets(..) => f(self),
            Prop::Not(a) => a.for_each_atom(f),
            Prop::And(a, b) | Prop::Or(a, b) | Prop::Implies(a, b) => {
                a.for_each_atom(f);
                b.for_each_atom(f)
            }
        }
    }

    /// The registers and locations mentioned, in order of first mention, without repetition.
    pub fn targets(&self) -> Vec<&Target> {
        let mut out: Vec<&Target> = vec![];
        self.for_each_atom(&mut |atom| {
            let ts: Vec<&Target> = match atom {
                Prop::Eq(t, _) => vec![t],
                Prop::EqTargets(a, b) => vec![a, b],
                _ => vec![],
            };
            for t in ts {
                if !out.contains(&t) {
                    out.push(t)
                }
            }
        });
        out
    }

    /// The constants the proposition compares with.
    pub(crate) fn constants(&self) -> Vec<i64> {
        let mut out = vec![];
        self.for_each_atom(&mut |atom| {
            if let Prop::Eq(_, v) = atom {
                out.push(*v)
            }
        });
        out
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize)]
/// How a final condition quantifies over the executions the model allows.
pub enum Quantifier {
    /// `exists`: validated when some execution satisfies the proposition (herd's Positive > 0).
    Exists,
    /// `~exists`: validated when no execution satisfies the proposition (herd's Positive = 0).
    NotExists,
    /// `forall`: validated when every execution satisfies the proposition (herd's Negative = 0).
    Forall,
}

#[derive(Clone, PartialEq, Eq, Debug)]
/// A test's final condition: a quantifier over a proposition.
pub struct Condition {
    /// `exists`, `~exists` or `forall`.
    pub quantifier: Quantifier,
    /// The proposition evaluated on each execution's final state.
    pub prop: Prop,
}

/// A PTX 7.5 virtual alias (`y @ generic aliases x`): the name `y` is another way to reach the
/// location `x` names.
///
/// Through the generic proxy (`proxy: None`) `y` is a second virtual address of `x`'s location;
/// through a surface, texture or constant proxy (`proxy: Some(SUR | TEX | CONST)`) it is `x`'s own
/// address seen through that proxy. `target` is a location or an alias declared before.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Alias {
    /// The alias's own name (`y`).
    pub name: String,
    /// `None` for a generic alias; `Some(SUR | TEX | CONST)` for a surface, texture or constant
    /// one.
    pub proxy: Option<Tag>,
    /// The name aliased (`x`): a location or an alias declared before.
    pub target: String,
}

#[derive(Clone, PartialEq, Eq, Debug)]
/// A parsed litmus test: its threads, initial state and final condition.
pub struct Litmus {
    /// Instruction set the threads are written in (from the title line).
    pub arch: Arch,
    /// Test name from the title line (`MP`, `SB+rel+acq`).
    pub name: String,
    /// Initial memory values; locations not listed start at 0.
    pub init_mem: Vec<(String, i64)>,
    /// Initial register values `(thread index, register, value)`; others start at 0.
    pub init_regs: Vec<(usize, Reg, i64)>,
    /// Tags attached to every access of a location (OpenCL `global` / `local`).
    pub loc_tags: Vec<(String, Tags)>,
    /// Vulkan's system-synchronizes-with declarations (`ssw 0 1;`): pairs of thread indices,
    /// the first synchronising with the second; empty in every other test.
    pub ssw: Vec<(usize, usize)>,
    /// PTX 7.5 virtual aliases, each after its target; empty in every other test.
    pub aliases: Vec<Alias>,
    /// The threads in declaration order; `init_regs` and `Target::Reg` refer to them by index.
    pub threads: Vec<Thread>,
    /// The final condition (`exists`, `~exists` or `forall` over a proposition).
    pub condition: Condition,
    /// herd's `locations [...]` clause: registers and locations whose final values the runner
    /// reports beside those the condition names.
    pub locations: Vec<Target>,
    /// herd's `filter` clause: executions whose final state falsifies it are not considered —
    /// neither for the condition nor for the model's flags.
    pub filter: Option<Prop>,
}

impl Litmus {
    /// The location a name reaches: the name itself, or the end of its alias chain.
    pub fn location_of<'a>(&'a self, name: &'a str) -> &'a str {
        match self.alias(name) {
            Some(a) => self.location_of(&a.target),
            None => name,
        }
    }

    /// The virtual address a name denotes: a location's or a generic alias's own name, and for
    /// a surface, texture or constant alias the address of its target.
    pub fn address_of<'a>(&'a self, name: &'a str) -> &'a str {
        match self.alias(name) {
            Some(a) if a.proxy.is_some() => self.address_of(&a.target),
            _ => name,
        }
    }

    fn alias(&self, name: &str) -> Option<&Alias> {
        self.aliases.iter().find(|a| a.name == name)
    }

    /// The test without the initial values of locations no instruction reads or writes: such a
    /// declaration adds an initial write that nothing reads or is ordered with, and no program
    /// the search considers has one.
    pub fn without_unused_locations(&self) -> Litmus {
        let used: std::collections::BTreeSet<&str> = self
            .threads
            .iter()
            .flat_map(|t| &t.code)
            .filter_map(|i| match i {
                Instr::Load { loc, .. } | Instr::Store { loc, .. } | Instr::Rmw { loc, .. } => {
                    Some(self.location_of(loc))
                }
                _ => None,
            })
            .collect();
        let mut out = self.clone();
        out.init_mem.retain(|(l, _)| used.contains(l.as_str()));
        out
    }
}

impl Instr {
    /// How many events the instruction gives when it executes (an RMW gives its read and its
    /// write; a register move, label or branch gives none).
    pub(crate) fn event_count(&self) -> usize {
        match self {
            Instr::Load { .. }
            | Instr::Store { .. }
            | Instr::Fence { .. }
            | Instr::Barrier { .. } => 1,
            Instr::Rmw { .. } => 2,
            _ => 0,
        }
    }
}

impl Litmus {
    /// The first thread with unsequenced operands, which the printers refuse: they write one
    /// statement (or PTX instruction) per access, which sequences them.
    pub fn unsequenced_thread(&self) -> Option<&Thread> {
        self.threads.iter().find(|t| !t.unsequenced.is_empty())
    }
}

impl Litmus {
    /// Why the printers refuse the test's `filter` clause, if it has one: they do not write it.
    pub(crate) fn filter_refusal(&self) -> Option<String> {
        let msg = "the test has a `filter` clause, which the printers do not write";
        self.filter.as_ref().map(|_| msg.to_string())
    }
}

/// Why a printer refuses `thread`'s unsequenced operands.
pub fn unsequenced_refusal(thread: &Thread) -> String {
    format!(
        "{} has unsequenced operands (a C operator with memory accesses on both sides); \
         written one access per statement they would be sequenced",
        thread.name
    )
}

impl Instr {
    /// The registers the instruction writes or reads, in the order they appear (a register may
    /// appear twice).
    pub fn registers(&self) -> Vec<&Reg> {
        let mut out = vec![];
        match self {
            Instr::Load { dst, .. } => out.push(dst),
            Instr::Store { value, .. } => value.registers(&mut out),
            Instr::Rmw { dst, op, .. } => {
                out.extend(dst);
                match op {
                    RmwOp::Arith(_, e) | RmwOp::Exch(e) => e.registers(&mut out),
                    RmwOp::Cas { expected, desired } => {
                        expected.registers(&mut out);
                        desired.registers(&mut out)
                    }
                }
            }
            Instr::Barrier { id, count, .. } => {
                id.registers(&mut out);
                count.iter().for_each(|c| c.registers(&mut out))
            }
            Instr::Assign { dst, value } => {
                out.push(dst);
                value.registers(&mut out)
            }
            Instr::BranchIf { cond, .. } => {
                cond.lhs.registers(&mut out);
                cond.rhs.registers(&mut out)
            }
            Instr::Fence { .. } | Instr::Label(_) | Instr::Goto(_) => {}
        }
        out
    }

    /// The location the instruction accesses, if it is a memory access.
    pub fn location(&self) -> Option<&str> {
        match self {
            Instr::Load { loc, .. } | Instr::Store { loc, .. } | Instr::Rmw { loc, .. } => {
                Some(loc)
            }
            _ => None,
        }
    }
}

impl Expr {
    /// Push the registers `self` reads onto `out`, left to right.
    fn registers<'a>(&'a self, out: &mut Vec<&'a Reg>) {
        match self {
            Expr::Const(_) => {}
            Expr::Reg(r) => out.push(r),
            Expr::Bin(_, a, b) => {
                a.registers(out);
                b.registers(out)
            }
        }
    }
}

/// For each instruction of `code`, the index (in its thread) of its first event.
pub(crate) fn first_events(code: &[Instr]) -> Vec<usize> {
    code.iter()
        .scan(0, |next, i| {
            let first = *next;
            *next += i.event_count();
            Some(first)
        })
        .collect()
}
