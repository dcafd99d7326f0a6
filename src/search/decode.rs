//! A solution read back and turned into tests: the program and the target execution as values
//! over the slots (`DecodedSolution`), the source litmus test they describe, its compilation
//! (`Mapping::compile_program`), and the execution in event keys on both sides
//! (`SolutionTests`). The target execution's events are the slots holding an executing target
//! event, numbered per thread; the source execution is the target one lifted back through
//! `Compiled::origins` (the lifting map): a target event of a main instruction stands for the
//! same-numbered event of the source instruction it came from.
//!
//! Owns: `DecodedSolution`, `SolutionTests`, `source_test`, `solution_tests`, `test_name`.
//! Uses: `candidate_variables`, `layout`, `operations`, `event_key`, `mapping` (compilation and
//! its origins), `litmus`, `encode` (reading the solver's model), `exec`, `rel`, `vocab`, `diag`.
use std::collections::{BTreeMap, BTreeSet};

use super::candidate_variables::CandidateVariables;
use super::event_key::{EventKey, KeyRel, LOCATIONS};
use super::layout::{Layout, Role, Slot};
use super::operations::{Op, Part};
use crate::diag::Internal;
use crate::encode::{Node, Sat};
use crate::exec::EventKind;
use crate::litmus::{
    first_events, Arch, CmpOp, Cond, Condition, Expr, Instr, Litmus, Placement, Prop, Quantifier,
    RmwOp, Target, Thread,
};
use crate::mapping::{self, Compiled, Mapping};
use crate::rel::Rel;
use crate::vocab::Tag;

/// A solution: the program and the target execution, over the layout's slots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct DecodedSolution {
    /// Menu index per event.
    pub(super) op: Vec<usize>,
    /// Location per event (0 for fences; a barrier's id).
    pub(super) loc: Vec<usize>,
    /// Guard per event: the slot of the write the thread must have read to go on.
    pub(super) guard: Vec<Option<usize>>,
    /// Does the event execute in the found execution?
    pub(super) alive: Vec<bool>,
    /// Per slot: it holds an event of the target execution (the target model reads one there,
    /// and it executes).
    pub(super) target_events: Vec<bool>,
    /// Per thread, its label at every searched level (`ProgramVariables::levels`).
    pub(super) place: Vec<Placement>,
    pub(super) rf: Rel,
    pub(super) co: Rel,
    pub(super) mo: Rel,
}

impl DecodedSolution {
    /// Read the solver's last model of `vars` back.
    pub(super) fn read(vars: &CandidateVariables, sat: &Sat) -> DecodedSolution {
        let p = &vars.program;
        let pick = |v: &[Node]| sat.read(v).iter().position(|b| *b).unwrap_or(0);
        let alive = sat.read(&vars.alive);
        let target_present = sat.read(&vars.target.present.0);
        let target_events = p
            .layout
            .slots
            .iter()
            .zip(target_present)
            .map(|(slot, present)| present && slot.event.is_none_or(|e| alive[e]))
            .collect();
        DecodedSolution {
            op: p.op.iter().map(|v| pick(v)).collect(),
            loc: p.loc.iter().map(|v| pick(v)).collect(),
            guard: p
                .guard
                .iter()
                .map(|v| pick(v).checked_sub(1).map(|k| p.guard_slots[k]))
                .collect(),
            alive,
            target_events,
            place: (0..p.layout.threads())
                .map(|t| {
                    let levels = p.levels.iter().zip(&p.labels);
                    levels.fold(Placement::default(), |placement, (&level, labels)| {
                        placement.with(level, pick(&labels[t]) as i64)
                    })
                })
                .collect(),
            rf: sat.read_rel(&vars.rf),
            co: sat.read_rel(&vars.co),
            mo: sat.read_rel(&vars.mo),
        }
    }
}

/// A solution as two tests with the execution in keys.
#[derive(Clone, Debug)]
pub struct SolutionTests {
    pub source: Litmus,
    pub target: Litmus,
    /// Target `rf` / `co` in target keys; the same lifted to source keys; the source's coherence.
    pub(crate) target_rf: KeyRel,
    pub(crate) target_co: KeyRel,
    pub source_rf: KeyRel,
    pub(crate) source_co: KeyRel,
    pub source_mo: KeyRel,
}

/// The source test a solution describes: threads of loads, stores, RMWs, fences and barriers
/// (`bar.sync b`, b the event's location label), each store
/// and RMW writing a value of its own, a guard `if (r == v) { … rest of the thread }` after a read where the
/// solution has one, and a final condition that pins the reads and final memory.
pub(super) fn source_test(
    arch: Arch,
    layout: &Layout,
    menu: &[Op],
    choice: &DecodedSolution,
    region: Option<Tag>,
    name: &str,
) -> Litmus {
    let mut threads: Vec<Thread> = layout
        .sizes
        .iter()
        .enumerate()
        .map(|(t, _)| Thread {
            name: format!("P{t}"),
            placement: choice.place[t],
            code: vec![],
            unsequenced: vec![],
        })
        .collect();
    let value = write_values(layout, menu, choice);
    // Each guard opens an `if` that closes at the end of the thread (the C front end's
    // lowering of `if (r == v) { … }`, with its label names).
    let mut open: Vec<Vec<String>> = vec![vec![]; layout.threads()];
    for (e, &(t, pos)) in layout.events.iter().enumerate() {
        let o = &menu[choice.op[e]];
        let loc = LOCATIONS[choice.loc[e]].to_string();
        let tags = o.tags.clone();
        let reg = format!("r{pos}");
        let instr = match (o.part, o.kind) {
            (Part::RmwWrite, _) => continue,
            (Part::RmwRead, _) => Instr::Rmw {
                dst: Some(reg),
                loc,
                op: RmwOp::Exch(Expr::Const(value[e + 1])),
                tags,
                fail_tags: None,
            },
            (_, EventKind::Read) => Instr::Load {
                dst: reg,
                loc,
                tags,
            },
            (_, EventKind::Write) => Instr::Store {
                loc,
                value: Expr::Const(value[e]),
                tags,
            },
            (_, EventKind::Barrier) => Instr::Barrier {
                id: Expr::Const(choice.loc[e] as i64),
                count: None,
                tags,
            },
            (_, EventKind::Fence) => Instr::Fence {
                tags: tags.into_iter().chain(region).collect(),
            },
        };
        threads[t].code.push(instr);
        if let Some(w) = choice.guard[e] {
            let expected = layout.slots[w].event.map_or(0, |d| value[d]);
            let label = format!("%L{}", open[t].len());
            threads[t].code.push(Instr::BranchIf {
                cond: Cond {
                    op: CmpOp::Ne,
                    lhs: Expr::Reg(format!("r{pos}")),
                    rhs: Expr::Const(expected),
                },
                target: label.clone(),
            });
            open[t].push(label);
        }
    }
    for (th, labels) in threads.iter_mut().zip(open) {
        th.code.extend(labels.into_iter().rev().map(Instr::Label));
    }
    let used: BTreeSet<usize> = (0..layout.events.len())
        .filter(|&e| matches!(menu[choice.op[e]].kind, EventKind::Read | EventKind::Write))
        .map(|e| choice.loc[e])
        .collect();
    Litmus {
        arch,
        name: name.to_string(),
        init_mem: used
            .iter()
            .map(|&l| (LOCATIONS[l].to_string(), 0))
            .collect(),
        init_regs: vec![],
        ssw: vec![],
        filter: None,
        loc_tags: match region {
            Some(r) => used
                .iter()
                .map(|&l| (LOCATIONS[l].to_string(), vec![r]))
                .collect(),
            None => vec![],
        },
        aliases: vec![],
        threads,
        condition: Condition {
            quantifier: Quantifier::Exists,
            prop: observation(layout, menu, choice, &value),
        },
        locations: vec![],
    }
}

/// The value each write event stores: 1, 2, 3, … in event order (0 for other events).
fn write_values(layout: &Layout, menu: &[Op], choice: &DecodedSolution) -> Vec<i64> {
    let mut next = 0;
    (0..layout.events.len())
        .map(|e| match menu[choice.op[e]].kind {
            EventKind::Write => {
                next += 1;
                next
            }
            _ => 0,
        })
        .collect()
}

/// "Each read returned what its `rf` source wrote, and each location ends with the value of its
/// last write in the source coherence order."
fn observation(layout: &Layout, menu: &[Op], choice: &DecodedSolution, value: &[i64]) -> Prop {
    let slot_value = |s: usize| layout.slots[s].event.map_or(0, |e| value[e]);
    let mut atoms = vec![];
    for (e, &(t, pos)) in layout.events.iter().enumerate() {
        if menu[choice.op[e]].kind != EventKind::Read || !choice.alive[e] {
            continue;
        }
        let m = layout.main[e];
        if let Some(w) = (0..layout.n()).find(|&w| choice.rf.contains(w, m)) {
            atoms.push(Prop::Eq(
                Target::Reg {
                    thread: t,
                    reg: format!("r{pos}"),
                },
                slot_value(w),
            ));
        }
    }
    for (l, location) in LOCATIONS.iter().enumerate().take(layout.locations) {
        let writes: Vec<usize> = (0..layout.n())
            .filter(|&s| choice.mo.contains(l, s) || s == l)
            .collect();
        let last: Vec<usize> = writes
            .iter()
            .copied()
            .filter(|&a| writes.iter().all(|&b| !choice.mo.contains(a, b)))
            .collect();
        if let ([w], true) = (last.as_slice(), writes.len() > 1) {
            atoms.push(Prop::Eq(Target::Mem(location.to_string()), slot_value(*w)));
        }
    }
    atoms
        .into_iter()
        .reduce(|a, b| Prop::And(Box::new(a), Box::new(b)))
        .unwrap_or(Prop::True)
}

/// The target execution's key of each slot: its events are the slots that hold one, numbered
/// per thread in slot order (program order; a failed guard only cuts a thread short).
fn target_keys(layout: &Layout, choice: &DecodedSolution) -> Vec<Option<EventKey>> {
    let mut next = vec![0; layout.threads()];
    let key = |(s, slot): (usize, &Slot)| match (slot.role, slot.thread) {
        (Role::Init(l), _) => Some(EventKey::Init(LOCATIONS[l].to_string())),
        (_, Some(t)) if choice.target_events[s] => {
            next[t] += 1;
            Some(EventKey::Event(t, next[t] - 1))
        }
        _ => None,
    };
    layout.slots.iter().enumerate().map(key).collect()
}

fn key_rel(r: &Rel, keys: &[Option<EventKey>]) -> KeyRel {
    r.pairs()
        .filter_map(|(a, b)| Some((keys[a].clone()?, keys[b].clone()?)))
        .collect()
}

/// The lifting map of a compiled test: each target event of a main instruction (see
/// `Compiled::origins`) with the source event it stands for, the same-numbered event (an RMW's
/// read or write) of the source instruction it came from. Added fences stand for none.
fn lifting_map(source: &Litmus, compiled: &Compiled) -> BTreeMap<EventKey, EventKey> {
    let mut map = BTreeMap::new();
    for (t, thread) in compiled.target.threads.iter().enumerate() {
        let source_first = first_events(&source.threads[t].code);
        let target_first = first_events(&thread.code);
        for (i, instr) in thread.code.iter().enumerate() {
            let origin = compiled.origins[t][i];
            if origin.role != mapping::Role::Main {
                continue;
            }
            for part in 0..instr.event_count() {
                map.insert(
                    EventKey::Event(t, target_first[i] + part),
                    EventKey::Event(t, source_first[origin.source] + part),
                );
            }
        }
    }
    map
}

/// Each thread event of the compiled test of `source` with the events of the source instruction
/// it was compiled from: for an instruction a row adds (a fence before a store), the events of
/// the instruction whose row added it. What a picture of both executions highlights together.
pub(crate) fn compiled_from(
    mapping: &Mapping,
    source: &Litmus,
) -> crate::diag::Result<BTreeMap<EventKey, Vec<EventKey>>> {
    let compiled = mapping.compile_program(source)?;
    let mut map = BTreeMap::new();
    for (t, thread) in compiled.target.threads.iter().enumerate() {
        let source_code = &source.threads[t].code;
        let (source_first, target_first) = (first_events(source_code), first_events(&thread.code));
        for (i, instr) in thread.code.iter().enumerate() {
            let from = compiled.origins[t][i].source;
            let events: Vec<EventKey> = (0..source_code[from].event_count())
                .map(|part| EventKey::Event(t, source_first[from] + part))
                .collect();
            for part in 0..instr.event_count() {
                map.insert(EventKey::Event(t, target_first[i] + part), events.clone());
            }
        }
    }
    Ok(map)
}

/// A relation over target events lifted to the source events they stand for (initial writes
/// stand for themselves).
fn lift(r: &KeyRel, map: &BTreeMap<EventKey, EventKey>) -> KeyRel {
    let source = |k: &EventKey| match k {
        EventKey::Init(_) => Some(k.clone()),
        EventKey::Event(..) => map.get(k).cloned(),
    };
    r.iter()
        .filter_map(|(a, b)| Some((source(a)?, source(b)?)))
        .collect()
}

/// A solution as tests and key relations: the target execution in target keys, lifted to the
/// source. (`mo`, the source's coherence over the same slots, is named through the target keys
/// and lifted the same way.)
pub(super) fn solution_tests(
    mapping: &Mapping,
    layout: &Layout,
    menu: &[Op],
    choice: &DecodedSolution,
    region: Option<Tag>,
    name: &str,
) -> Result<SolutionTests, Internal> {
    let source = source_test(mapping.source_arch, layout, menu, choice, region, name);
    let compiled = mapping
        .compile_program(&source)
        .map_err(|e| Internal(format!("compiling the solution: {}", e.message)))?;
    let keys = target_keys(layout, choice);
    let (target_rf, target_co) = (key_rel(&choice.rf, &keys), key_rel(&choice.co, &keys));
    let source_mo = lift(
        &key_rel(&choice.mo, &keys),
        &lifting_map(&source, &compiled),
    );
    Ok(SolutionTests {
        source_mo,
        ..lift_solution(&source, &compiled, target_rf, target_co)
    })
}

/// A target execution of `compiled` (its `rf` and `co` in target keys) and its lift to `source`,
/// as tests and key relations; `source_mo` is the lifted coherence itself (a check of a given
/// test extends it, `confirm`; the search replaces it with the solution's own).
pub(super) fn lift_solution(
    source: &Litmus,
    compiled: &Compiled,
    target_rf: KeyRel,
    target_co: KeyRel,
) -> SolutionTests {
    let lifting = lifting_map(source, compiled);
    let source_co = lift(&target_co, &lifting);
    SolutionTests {
        source_rf: lift(&target_rf, &lifting),
        source_mo: source_co.clone(),
        source_co,
        target_rf,
        target_co,
        source: source.clone(),
        target: compiled.target.clone(),
    }
}

/// The name of a counterexample test (and of the directory it is written into).
pub(crate) fn test_name(mapping: &Mapping, axiom: &str) -> String {
    let stem = std::path::Path::new(&mapping.path)
        .file_stem()
        .map_or("mapping".into(), |s| s.to_string_lossy().into_owned());
    format!("{stem}-{axiom}")
}
