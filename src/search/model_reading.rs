//! One model's reading of the operation at each slot of a program, before asking whether it
//! executes: is there an event, its kind, its tags, its scope level. The source model reads the
//! source event at a main slot; the target model reads the compiled code: the main target event
//! and the fences the rule adds around it.
//!
//! Owns: `ModelReading`. Uses: `program_variables`, `layout`, `operations`, `encode`,
//! `exec` (event kinds, scope levels).
use std::collections::BTreeMap;

use super::layout::Role;
use super::operations::Op;
use super::program_variables::ProgramVariables;
use crate::encode::{Circuit, Node, Vector};
use crate::exec::EventKind;
use crate::vocab::{Level, Tag};

/// One model's reading of the operation at each slot, before asking whether it executes: is
/// there an event, its kind, its tags, its scope level.
pub(super) struct ModelReading {
    pub(super) present: Vector,
    pub(super) reads: Vector,
    pub(super) writes: Vector,
    pub(super) fences: Vector,
    pub(super) barriers: Vector,
    pub(super) tags: BTreeMap<&'static str, Vector>,
    /// Per slot and scope level (`Level::ALL` order): the event's scope is at that level.
    pub(super) levels: Vec<[Node; Level::ALL.len()]>,
}

impl ModelReading {
    /// The source (`source == true`) or the target model's reading of the slots of `p`.
    pub(super) fn new(c: &mut Circuit, p: &ProgramVariables, source: bool) -> ModelReading {
        let n = p.layout.n();
        let mut side = ModelReading::empty(n);
        let mut tag_cells: BTreeMap<&'static str, Vec<Vec<Node>>> = BTreeMap::new();
        let mut kinds: [Vec<Vec<Node>>; 4] = Default::default();
        for (s, slot) in p.layout.slots.iter().enumerate() {
            // (kind, tags) of the event at this slot under each operation, with that operation's
            // variable.
            let mut options: Vec<(Node, EventKind, Vec<Tag>)> = vec![];
            match (slot.role, slot.event) {
                (Role::Init(_), _) => {
                    options.push((Node::TRUE, EventKind::Write, p.region.into_iter().collect()))
                }
                (role, Some(e)) => {
                    for (i, o) in p.menu.iter().enumerate() {
                        if let Some((kind, tags)) = event_at(p, o, role, source) {
                            options.push((p.op[e][i], kind, tags));
                        }
                    }
                }
                (_, None) => unreachable!("thread slots belong to an event"),
            }
            let present: Vec<Node> = options.iter().map(|x| x.0).collect();
            side.present.0[s] = c.or(present);
            for k in kinds.iter_mut() {
                k.push(vec![]);
            }
            for (var, kind, tags) in &options {
                let k = match kind {
                    EventKind::Read => 0,
                    EventKind::Write => 1,
                    EventKind::Fence => 2,
                    EventKind::Barrier => 3,
                };
                kinds[k][s].push(*var);
                for t in tags {
                    tag_cells.entry(t.name()).or_insert_with(|| vec![vec![]; n])[s].push(*var);
                }
            }
        }
        let or_all = |c: &mut Circuit, cells: &[Vec<Node>]| {
            Vector(cells.iter().map(|v| c.or(v.iter().copied())).collect())
        };
        side.reads = or_all(c, &kinds[0]);
        side.writes = or_all(c, &kinds[1]);
        side.fences = or_all(c, &kinds[2]);
        side.barriers = or_all(c, &kinds[3]);
        for (t, cells) in tag_cells {
            side.tags.insert(t, or_all(c, &cells));
        }
        side.levels = (0..n)
            .map(|s| {
                Level::ALL.map(|level| {
                    let at: Vec<Node> = side
                        .tags
                        .iter()
                        .filter(|(t, _)| Tag::from_name(t).and_then(Tag::level) == Some(level))
                        .map(|(_, v)| v.0[s])
                        .collect();
                    c.or(at)
                })
            })
            .collect();
        side
    }

    fn empty(n: usize) -> ModelReading {
        ModelReading {
            present: Vector(vec![Node::FALSE; n]),
            reads: Vector(vec![Node::FALSE; n]),
            writes: Vector(vec![Node::FALSE; n]),
            fences: Vector(vec![Node::FALSE; n]),
            barriers: Vector(vec![Node::FALSE; n]),
            tags: BTreeMap::new(),
            levels: vec![[Node::FALSE; Level::ALL.len()]; n],
        }
    }
}

/// The kind and tags of the event that operation `o` puts at a slot of `role`, if any.
fn event_at(
    p: &ProgramVariables,
    o: &Op,
    role: Role,
    source: bool,
) -> Option<(EventKind, Vec<Tag>)> {
    let with_region = |mut tags: Vec<Tag>| {
        tags.extend(p.region);
        tags
    };
    match (role, source) {
        (Role::Main, true) => Some((o.kind, with_region(o.tags.clone()))),
        (Role::Main, false) => o.main.clone().map(|(kind, tags)| match kind {
            EventKind::Fence => (kind, tags),
            _ => (kind, with_region(tags)),
        }),
        (Role::Pre(i), false) => {
            let pad = p.layout.pre - o.pre.len();
            (i >= pad).then(|| (EventKind::Fence, o.pre[i - pad].clone()))
        }
        (Role::Post(i), false) => o.post.get(i).map(|t| (EventKind::Fence, t.clone())),
        _ => None,
    }
}
