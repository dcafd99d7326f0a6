//! What a source event may be: the operation menu, one entry per class of the mapping (or per
//! half of an RMW class), and a barrier where the mapping lets the search place one, with what the
//! mapping compiles it to (the main target event and the fences added before and after it), and
//! how the bound is counted.
//!
//! Owns: `Counting`, `Part`, `Op`, `operation_menu`. Uses: `mapping` (classes and rules), `exec`
//! (event kinds, scope levels).
use crate::exec::EventKind;
use crate::mapping::{Class, ClassKind, Mapping, OpKind, Tag, TargetOp};

/// How the bound is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Counting {
    /// At most N source events (an RMW is two), any number of target events.
    Natural,
    /// The Alloy artifact's counting (ASPLOS'19 Fig. 17): at most N source events, N target
    /// events and N scopes (threads + CTAs + GPUs + the system); one target event per source
    /// event, so classes whose rule adds fences (SC loads, stores and RMWs) are left out.
    Alloy,
}

/// Which half of an RMW an event is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    Whole,
    RmwRead,
    RmwWrite,
}

/// One thing a source event may be, with its compilation.
#[derive(Clone, Debug)]
pub(crate) struct Op {
    /// The operation class; `None` for a barrier, which has none (a mapping copies barriers,
    /// `Mapping::searched_barrier`).
    pub(crate) class: Option<Class>,
    pub(crate) part: Part,
    /// The source event's kind and tags.
    pub(crate) kind: EventKind,
    pub(crate) tags: Vec<Tag>,
    /// The target event standing for it (`None`: the rule has no main instruction, a fence
    /// compiled to `skip` or to several fences).
    pub(crate) main: Option<(EventKind, Vec<Tag>)>,
    /// Target fences the rule puts before and after the main event, as their tags.
    pub(crate) pre: Vec<Vec<Tag>>,
    pub(crate) post: Vec<Vec<Tag>>,
}

/// The operations a source event may be under `mapping`, in the mapping's class order.
pub(crate) fn operation_menu(mapping: &Mapping, counting: Counting) -> Result<Vec<Op>, String> {
    let mut ops = vec![];
    for class in mapping.classes() {
        let rule = mapping.rule(class).expect("loading checks coverage");
        if counting == Counting::Alloy && !(rule.ops.len() == 1 && rule.main == Some(0)) {
            continue;
        }
        let fences = |range: &[TargetOp]| -> Vec<Vec<Tag>> {
            range.iter().map(|op| op.tags.clone()).collect()
        };
        let (pre, main, post) = match rule.main {
            Some(m) => (
                fences(&rule.ops[..m]),
                Some(&rule.ops[m]),
                fences(&rule.ops[m + 1..]),
            ),
            None => (fences(&rule.ops), None, vec![]),
        };
        for op in rule.ops.iter().filter(|op| op.kind != OpKind::Fence) {
            if main != Some(op) {
                return Err(format!("{class}: only fences may surround the main access"));
            }
        }
        for tags in pre.iter().chain(&post).chain(main.map(|m| &m.tags)) {
            if tags.iter().filter(|t| t.level().is_some()).count() > 1 {
                return Err(format!("{class}: a target instruction with two scopes"));
            }
        }
        let tags = class.tags();
        let main_as = |kind: EventKind| main.map(|m| (kind, m.tags.clone()));
        let whole = |kind: EventKind| Op {
            class: Some(*class),
            part: Part::Whole,
            kind,
            tags: tags.clone(),
            main: main_as(kind),
            pre: pre.clone(),
            post: post.clone(),
        };
        match class.kind {
            ClassKind::R => ops.push(whole(EventKind::Read)),
            ClassKind::W => ops.push(whole(EventKind::Write)),
            ClassKind::F => ops.push(whole(EventKind::Fence)),
            ClassKind::Rmw => {
                ops.push(Op {
                    part: Part::RmwRead,
                    post: vec![],
                    ..whole(EventKind::Read)
                });
                ops.push(Op {
                    part: Part::RmwWrite,
                    pre: vec![],
                    ..whole(EventKind::Write)
                });
            }
        }
    }
    if let Some(tags) = &mapping.searched_barrier {
        ops.push(barrier(tags));
    }
    Ok(ops)
}

/// A barrier (`bar.sync b`: its id is the event's location label), compiled to itself.
fn barrier(tags: &[Tag]) -> Op {
    Op {
        class: None,
        part: Part::Whole,
        kind: EventKind::Barrier,
        tags: tags.to_vec(),
        main: Some((EventKind::Barrier, tags.to_vec())),
        pre: vec![],
        post: vec![],
    }
}
