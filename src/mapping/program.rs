//! Compiling a source litmus test instruction by instruction through a mapping, keeping the map
//! from every target instruction back to the source instruction it came from — the way a later
//! stage lifts a target execution to a source execution, and shows a counterexample as two tests.
//!
//! Owns: `Compiled`, `Origin`, `Role`, `Image` and the per-instruction translation. Uses:
//! `litmus::program` (both sides are `Litmus` values), `class`, `ptx`, `diag`.
use crate::diag;
use crate::litmus::{Arch, Instr, Litmus, Positions, Thread};
use crate::mapping::class::{self, Class, ClassKind, Tag};
use crate::mapping::ptx::{OpKind, TargetOp};
use crate::mapping::Mapping;
use crate::vocab;

/// What a target instruction is to its source instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Stands for the source operation: the access that carries its `rf` / `co` edges (for an RMW
    /// both, through its read and its write), or the single fence of a compiled fence.
    Main,
    /// A fence the rule adds around the main instruction (`fence.sc` of a leading-fence mapping).
    Added,
    /// A copy of an instruction that touches no memory (register move, label, branch) or of a
    /// barrier.
    Copied,
}

/// Where one target instruction came from: an instruction of the same thread of the source test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    /// Index into the source thread's `code`.
    pub source: usize,
    /// What the target instruction is to that source instruction.
    pub role: Role,
}

/// What one source instruction became: `len` target instructions from `start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Image {
    /// Index in the target thread's `code` of the first instruction of the image.
    pub start: usize,
    /// Number of target instructions the source instruction became (0 for a fence compiled to
    /// `skip`).
    pub len: usize,
    /// Target index of the main instruction (see `Rule::main`); `None` for a fence compiled to
    /// `skip` or to several fences.
    pub main: Option<usize>,
    /// The class the instruction was compiled as (`None` for copied instructions).
    pub class: Option<Class>,
}

/// A compiled litmus test with its instruction map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiled {
    /// The target test: same threads, placements, registers, locations, initial state and final
    /// condition as the source; instructions replaced by their rules' sequences.
    pub target: Litmus,
    /// `origins[t][i]`: where target instruction `i` of thread `t` came from.
    pub origins: Vec<Vec<Origin>>,
    /// `images[t][i]`: what source instruction `i` of thread `t` became.
    pub(crate) images: Vec<Vec<Image>>,
}

impl Compiled {
    /// The source instruction a target instruction came from.
    pub fn origin(&self, thread: usize, target_index: usize) -> Option<Origin> {
        self.origins.get(thread)?.get(target_index).copied()
    }
    /// The target instructions a source instruction became.
    pub fn image(&self, thread: usize, source_index: usize) -> Option<Image> {
        self.images.get(thread)?.get(source_index).copied()
    }
}

/// What one source instruction becomes: target instructions with their roles, and its class.
struct Translation {
    instrs: Vec<(Instr, Role)>,
    class: Option<Class>,
}

/// The translation of one thread, built instruction by instruction.
#[derive(Default)]
struct ThreadOut {
    code: Vec<Instr>,
    origins: Vec<Origin>,
    images: Vec<Image>,
}

impl ThreadOut {
    /// Append the translation of source instruction `source`.
    fn push(&mut self, source: usize, tr: Translation) {
        let start = self.code.len();
        let mut main = None;
        for (k, (instr, role)) in tr.instrs.into_iter().enumerate() {
            if role == Role::Main {
                main = Some(start + k);
            }
            self.code.push(instr);
            self.origins.push(Origin { source, role });
        }
        let len = self.code.len() - start;
        self.images.push(Image {
            start,
            len,
            main,
            class: tr.class,
        });
    }
}

impl Mapping {
    /// Compile a source test (C11 / OpenCL / CUDA-style `Litmus` with vocabulary tags) into the
    /// target test, instruction by instruction, with the map back to the source.
    pub fn compile_program(&self, source: &Litmus) -> diag::Result<Compiled> {
        self.compile_reporting(source, &|t, i, msg| {
            let thread = &source.threads[t].name;
            diag::Error::file(
                &source.name,
                format!("{thread}, instruction {}: {msg}", i + 1),
            )
        })
    }

    /// `compile_program`, an instruction that cannot be compiled reported at the line and
    /// column `positions` give it.
    pub fn compile_program_at(
        &self,
        source: &Litmus,
        positions: &Positions,
    ) -> diag::Result<Compiled> {
        self.compile_reporting(source, &|t, i, msg| {
            let thread = &source.threads[t].name;
            positions.error_at(t, i, &format!("{thread}: {msg}"))
        })
    }

    /// `compile_program`, with `error(thread, instruction, message)` for an instruction that
    /// cannot be compiled.
    fn compile_reporting(
        &self,
        source: &Litmus,
        error: &dyn Fn(usize, usize, &str) -> diag::Error,
    ) -> diag::Result<Compiled> {
        let mut threads = Vec::with_capacity(source.threads.len());
        let (mut origins, mut images) = (vec![], vec![]);
        for (t, thread) in source.threads.iter().enumerate() {
            let out = self
                .compile_thread(thread)
                .map_err(|(i, msg)| error(t, i, &msg))?;
            threads.push(Thread {
                name: thread.name.clone(),
                placement: thread.placement,
                code: out.code,
                // The compiler evaluates operands in one order, which C allows.
                unsequenced: vec![],
            });
            origins.push(out.origins);
            images.push(out.images);
        }
        let target = Litmus {
            arch: self.target_arch,
            threads,
            ..source.clone()
        };
        Ok(Compiled {
            target,
            origins,
            images,
        })
    }

    /// The thread compiled; the index of an instruction that cannot be, and why.
    fn compile_thread(&self, thread: &Thread) -> Result<ThreadOut, (usize, String)> {
        let mut out = ThreadOut::default();
        for (i, instr) in thread.code.iter().enumerate() {
            let tr = self.compile_instr(instr).map_err(|msg| (i, msg))?;
            out.push(i, tr);
        }
        Ok(out)
    }

    /// The target instructions (with roles) of one source instruction, and its class.
    fn compile_instr(&self, instr: &Instr) -> Result<Translation, String> {
        let Some((kind, tags)) = access_or_fence(instr) else {
            return Ok(Translation {
                instrs: vec![(self.copy_instr(instr)?, Role::Copied)],
                class: None,
            });
        };
        let class = self.classify(kind, tags)?;
        let rule = self.rule(&class).ok_or_else(|| undeclared(&class, self))?;
        let instrs = rule
            .ops
            .iter()
            .enumerate()
            .map(|(k, op)| {
                let role = if rule.main == Some(k) {
                    Role::Main
                } else {
                    Role::Added
                };
                (emit(instr, op), role)
            })
            .collect();
        Ok(Translation {
            instrs,
            class: Some(class),
        })
    }

    /// The class of a source operation; tags other than orders and scopes must be dropped ones.
    pub fn classify(&self, kind: ClassKind, tags: &[Tag]) -> Result<Class, String> {
        let split = class::split_tags(tags);
        if let Some(t) = split.others.iter().find(|t| !self.dropped.contains(t)) {
            return Err(format!(
                "tag `{t}` is not understood by mapping {} (add `drop {t}` to discard it)",
                self.path
            ));
        }
        Class::of(kind, tags)
    }

    /// Copy an instruction that has no class. A barrier becomes a PTX CTA barrier, tagged as the
    /// PTX front end tags `bar.cta.sync` / `bar.cta.arrive`: its flavour (`SYNC`, or `ARRIVE`;
    /// neither means a waiting barrier) then `CTA`. A source scope tag must map to `cta` (an
    /// OpenCL work-group barrier is `WG`); dropped tags (fence flags) go.
    fn copy_instr(&self, instr: &Instr) -> Result<Instr, String> {
        let Instr::Barrier { id, count, tags } = instr else {
            return Ok(instr.clone());
        };
        if self.target_arch != Arch::Ptx {
            return Ok(instr.clone());
        }
        let mut flavour = Tag::Sync;
        for &t in tags {
            match t {
                Tag::Arrive => flavour = Tag::Arrive,
                Tag::Sync => {}
                s if s.role() == vocab::Role::Scope => self.check_barrier_scope(s)?,
                s if self.dropped.contains(&s) => {}
                s => {
                    return Err(format!(
                        "barrier tag `{s}` is not understood by mapping {}",
                        self.path
                    ))
                }
            }
        }
        let tags = vec![flavour, Tag::Cta];
        Ok(Instr::Barrier {
            id: id.clone(),
            count: count.clone(),
            tags,
        })
    }

    /// PTX barriers synchronise one CTA: a barrier's source scope must correspond to `cta`.
    fn check_barrier_scope(&self, scope: Tag) -> Result<(), String> {
        match self.scopes.iter().find(|(s, _)| *s == scope) {
            Some((_, Tag::Cta)) => Ok(()),
            _ => Err(format!(
                "a barrier at scope {scope} has no PTX counterpart (PTX barriers are CTA-wide)"
            )),
        }
    }
}

/// The class kind and tags of a memory access or fence; `None` for every other instruction.
fn access_or_fence(instr: &Instr) -> Option<(ClassKind, &[Tag])> {
    match instr {
        Instr::Load { tags, .. } => Some((ClassKind::R, tags)),
        Instr::Store { tags, .. } => Some((ClassKind::W, tags)),
        Instr::Rmw { tags, .. } => Some((ClassKind::Rmw, tags)),
        Instr::Fence { tags } => Some((ClassKind::F, tags)),
        _ => None,
    }
}

fn undeclared(class: &Class, m: &Mapping) -> String {
    format!(
        "operation class {class} is not declared in mapping {}",
        m.path
    )
}

/// One target instruction for `source`, whose rule says `op`. The main access keeps the source
/// access's register, location, value and RMW operation (a CAS stays a CAS: PTX `atom.cas` has one
/// semantics, so the target read of a failed CAS has the RMW's tags — no separate failure order).
fn emit(source: &Instr, op: &TargetOp) -> Instr {
    let tags = op.tags.clone();
    match (op.kind, source) {
        (OpKind::Fence, _) => Instr::Fence { tags },
        (OpKind::Load, Instr::Load { dst, loc, .. }) => Instr::Load {
            dst: dst.clone(),
            loc: loc.clone(),
            tags,
        },
        (OpKind::Store, Instr::Store { loc, value, .. }) => Instr::Store {
            loc: loc.clone(),
            value: value.clone(),
            tags,
        },
        (
            OpKind::Rmw,
            Instr::Rmw {
                dst, loc, op: rmw, ..
            },
        ) => Instr::Rmw {
            dst: dst.clone(),
            loc: loc.clone(),
            op: rmw.clone(),
            tags,
            fail_tags: None,
        },
        // Lowering checks that a class's access has the class's kind (`main` reports a panic
        // as an internal error, status 70).
        (kind, _) => panic!("a `{}` rule applied to {source:?}", kind.mnemonic()),
    }
}
