//! Pictures of executions for people who read them: Graphviz DOT graphs of one execution or of
//! several side by side (a counterexample's source and target executions).
//!
//! Owns: `Scene` (one execution to draw, with its model and what to highlight), `Highlight`,
//! `digraph`. A picture nests each thread in the instances of the scope tree that hold it, as
//! the test's language names them (`gpu 0` ▸ `cta 1` for PTX, `dev` ▸ `wg` for OpenCL, `qf` ▸
//! `wg` ▸ `sg` for Vulkan), skipping a level between the outermost and the innermost that groups
//! the threads exactly as the level around it (PTX's cluster, mostly); labels reads with the
//! value read and writes with the value written; and draws `po`, `rmw`, `rf`, `co` and `fr`
//! (each as its immediate edges) and every relation the model
//! shows (`show`, herd's meaning: PTX's morally strong, observation, Fence-SC and causality
//! orders), dashed, between events of different threads (within a thread, `po` orders them),
//! each without the pairs that two others imply through `po` or itself.
//! Uses: `exec`, `eval` (`shown_values`), `ir`, `litmus` (`Arch`), `rel`, `vocab`.
use std::collections::BTreeSet;
use std::fmt::Write;

use crate::exec::{EventKind, Execution};
use crate::ir::Model;
use crate::litmus::Arch;
use crate::rel::Rel;
use crate::vocab::{self, Placement};

/// One execution to draw.
pub(crate) struct Scene<'a> {
    /// The scene's caption (`source: RC11`).
    pub(crate) title: String,
    /// The model whose shown relations are drawn (and whose witnesses they are evaluated under).
    pub(crate) model: &'a Model,
    pub(crate) execution: &'a Execution,
    /// The language of the test: how its scope levels are named.
    pub(crate) arch: Arch,
    pub(crate) highlight: Highlight,
}

/// What a scene draws in red: events, the drawn edges between some pairs of events, and edges
/// of its own (a violated axiom's cycle, each step labelled with the relation that makes it).
#[derive(Default)]
pub(crate) struct Highlight {
    pub(crate) events: BTreeSet<usize>,
    pub(crate) pairs: BTreeSet<(usize, usize)>,
    pub(crate) edges: Vec<(usize, String, usize)>,
}

/// Colours of the shown relations, in the model's `show` order (then again from the first).
const SHOWN_COLOURS: [&str; 6] = [
    "purple",
    "darkorange3",
    "deeppink3",
    "cyan4",
    "saddlebrown",
    "olivedrab",
];

/// The scenes as one DOT graph, each in a cluster of its own, left to right.
pub(crate) fn digraph(scenes: &[Scene]) -> String {
    let mut s = String::from(
        "digraph execution {\n  rankdir=TB; newrank=true; node [shape=box, fontname=monospace]; edge [fontname=monospace, fontsize=10];\n",
    );
    for (i, scene) in scenes.iter().enumerate() {
        let mut drawing = Drawing {
            scene,
            prefix: format!("s{i}_"),
            out: String::new(),
            clusters: 0,
        };
        drawing.draw();
        let _ = writeln!(
            s,
            "  subgraph cluster_scene{i} {{ label=\"{}\"; fontsize=16; style=bold;",
            escape(&scene.title)
        );
        s.push_str(&drawing.out);
        s.push_str("  }\n");
    }
    s.push_str("}\n");
    s
}

struct Drawing<'a> {
    scene: &'a Scene<'a>,
    prefix: String,
    out: String,
    clusters: usize,
}

impl Drawing<'_> {
    fn draw(&mut self) {
        self.threads();
        let x = self.scene.execution;
        for e in (0..x.n()).filter(|&e| x.events[e].thread.is_none()) {
            self.node(e, "    ");
        }
        self.base_edges();
        self.shown_edges();
        for (a, via, b) in &self.scene.highlight.edges {
            let (a, b) = (self.id(*a), self.id(*b));
            let _ = writeln!(
                self.out,
                "    {a} -> {b} [label=\"{}\", color=red, fontcolor=red, penwidth=2.5, constraint=false];",
                escape(via)
            );
        }
    }

    fn id(&self, e: usize) -> String {
        format!("{}e{e}", self.prefix)
    }

    /// Each thread's events in a cluster, nested in the clusters of its scope instances.
    fn threads(&mut self) {
        let x = self.scene.execution;
        let levels = drawn_levels(self.scene.arch, &x.placements);
        let path = |t: usize| -> Vec<(String, Placement)> {
            levels
                .iter()
                .map(|&(word, level)| {
                    let p = x.placements[t];
                    (format!("{word} {}", p.id(level)), p.instance(level))
                })
                .collect()
        };
        let mut threads: Vec<usize> = (0..x.placements.len()).collect();
        threads.sort_by_key(|&t| (path(t).into_iter().map(|(_, p)| p).collect::<Vec<_>>(), t));
        let mut open: Vec<Placement> = vec![];
        for t in threads {
            let here = path(t);
            let shared = open
                .iter()
                .zip(&here)
                .take_while(|(a, (_, b))| *a == b)
                .count();
            for depth in (shared..open.len()).rev() {
                self.close(depth);
            }
            open.truncate(shared);
            for (label, instance) in &here[shared..] {
                self.open(open.len(), label, "dashed");
                open.push(*instance);
            }
            let depth = open.len();
            self.open(depth, &format!("P{t}"), "solid");
            let indent = "  ".repeat(depth + 3);
            for e in thread_events(x, t) {
                self.node(e, &indent);
            }
            self.close(depth);
        }
        for depth in (0..open.len()).rev() {
            self.close(depth);
        }
    }

    fn open(&mut self, depth: usize, label: &str, style: &str) {
        self.clusters += 1;
        let indent = "  ".repeat(depth + 2);
        let _ = writeln!(
            self.out,
            "{indent}subgraph cluster_{}{} {{ label=\"{}\"; style={style};",
            self.prefix,
            self.clusters,
            escape(label)
        );
    }

    fn close(&mut self, depth: usize) {
        let _ = writeln!(self.out, "{}}}", "  ".repeat(depth + 2));
    }

    fn node(&mut self, e: usize, indent: &str) {
        let label = event_label(self.scene.execution, e);
        let style = if self.scene.highlight.events.contains(&e) {
            ", color=red, penwidth=2.5"
        } else {
            ""
        };
        let id = self.id(e);
        let _ = writeln!(
            self.out,
            "{indent}{id} [label=\"{}\"{style}];",
            escape(&label)
        );
    }

    /// `po`, `rmw`, `rf`, `co`, `fr`, each as its immediate edges.
    fn base_edges(&mut self) {
        let x = self.scene.execution;
        let fr = x.rf.inverse().seq(&x.co);
        let base: [(&str, &Rel, &str); 5] = [
            ("po", &x.po, "black"),
            ("rmw", &x.rmw, "black"),
            ("rf", &x.rf, "darkgreen"),
            ("co", &x.co, "blue"),
            ("fr", &fr, "orange3"),
        ];
        for (name, r, colour) in base {
            for (a, b) in immediate(r, r).pairs() {
                self.edge(a, b, name, colour, "");
            }
        }
    }

    /// The model's shown relations, evaluated on the execution, dashed, between events of
    /// different threads (or an initial write): a symmetric one as undirected edges, each pair
    /// once; another without the pairs two others imply, through `po` or itself.
    fn shown_edges(&mut self) {
        let x = self.scene.execution;
        let shown = crate::eval::shown_values(self.scene.model, &x.base()).unwrap_or_default();
        for (i, (label, r)) in shown.iter().enumerate() {
            let colour = SHOWN_COLOURS[i % SHOWN_COLOURS.len()];
            let symmetric = *r == r.inverse();
            let apart = |&(a, b): &(usize, usize)| {
                x.events[a].thread != x.events[b].thread || x.events[a].thread.is_none()
            };
            let drawn = if symmetric {
                Rel::from_pairs(x.n(), r.pairs().filter(|&(a, b)| a < b))
            } else {
                immediate(r, &r.union(&x.po))
            };
            for (a, b) in drawn.pairs().filter(apart) {
                let style = if symmetric {
                    "style=dashed, dir=none"
                } else {
                    "style=dashed"
                };
                self.edge(a, b, label, colour, style);
            }
        }
    }

    /// An edge, red when highlighted (either way round for an undirected one).
    fn edge(&mut self, a: usize, b: usize, label: &str, colour: &str, style: &str) {
        let pairs = &self.scene.highlight.pairs;
        let undirected = style.contains("dir=none");
        let red = pairs.contains(&(a, b)) || (undirected && pairs.contains(&(b, a)));
        let look = if red {
            "color=red, fontcolor=red, penwidth=2.5".to_string()
        } else {
            format!("color={colour}, fontcolor={colour}")
        };
        let style = if style.is_empty() {
            String::new()
        } else {
            format!(", {style}")
        };
        let (ia, ib) = (self.id(a), self.id(b));
        let _ = writeln!(
            self.out,
            "    {ia} -> {ib} [label=\"{}\", {look}{style}];",
            escape(label)
        );
    }
}

/// The scope levels a picture nests threads in, outermost first, with their words in `arch`'s
/// tests: the outermost and innermost levels the language places threads at, and each level
/// between them whose instances do not hold the same threads as the drawn level around it.
fn drawn_levels(arch: Arch, placements: &[Placement]) -> Vec<(&'static str, vocab::Level)> {
    let groups = |level| -> BTreeSet<Vec<usize>> {
        let mut by: std::collections::BTreeMap<Placement, Vec<usize>> = Default::default();
        for (t, p) in placements.iter().enumerate() {
            by.entry(p.instance(level)).or_default().push(t);
        }
        by.into_values().collect()
    };
    let words = arch.placement();
    let mut drawn: Vec<(&str, vocab::Level)> = vec![];
    for (i, &(word, level)) in words.iter().enumerate().rev() {
        let end = i == 0 || i + 1 == words.len();
        if end
            || drawn
                .last()
                .is_none_or(|&(_, outer)| groups(outer) != groups(level))
        {
            drawn.push((word, level));
        }
    }
    drawn
}

/// A thread's events in program order.
fn thread_events(x: &Execution, t: usize) -> Vec<usize> {
    let mut events: Vec<usize> = (0..x.n())
        .filter(|&e| x.events[e].thread == Some(t))
        .collect();
    events.sort_by_key(|&e| (0..x.n()).filter(|&d| x.po.contains(d, e)).count());
    events
}

/// `P1.0 R.SC.CTA x=3` (a read with the value read), `init x=0`, `P0.2 F.SC.GPU`, `P2.1 B.CTA
/// id=0`.
fn event_label(x: &Execution, e: usize) -> String {
    let ev = &x.events[e];
    let loc = ev.loc.map(|l| x.locations[l].as_str()).unwrap_or_default();
    let Some(t) = ev.thread else {
        return format!("init {loc}={}", ev.value);
    };
    let k = (0..x.n()).filter(|&d| x.po.contains(d, e)).count();
    let kind = match ev.kind {
        EventKind::Read => "R",
        EventKind::Write => "W",
        EventKind::Fence => "F",
        EventKind::Barrier => "B",
    };
    let tags: String = ev.tags.iter().map(|tag| format!(".{tag}")).collect();
    let what = match (ev.kind, ev.barrier) {
        (EventKind::Read | EventKind::Write, _) => format!(" {loc}={}", ev.value),
        (_, Some((id, _))) => format!(" id={id}"),
        _ => String::new(),
    };
    format!("P{t}.{k} {kind}{tags}{what}")
}

/// The pairs of `r` that no two pairs of `through` imply by way of a third event (for
/// `through` = `r` transitive, its covering pairs: a drawing's usual reduction). Reflexive pairs
/// are left out.
fn immediate(r: &Rel, through: &Rel) -> Rel {
    let n = r.n();
    let implied = |a: usize, b: usize| {
        (0..n).any(|c| c != a && c != b && through.contains(a, c) && through.contains(c, b))
    };
    Rel::from_pairs(n, r.pairs().filter(|&(a, b)| a != b && !implied(a, b)))
}

/// A DOT string's text.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn immediate_keeps_the_covering_pairs_of_an_order() {
        let order = Rel::from_pairs(4, [(0, 1), (1, 2), (0, 2), (2, 3), (0, 3), (1, 3)]);
        let kept: Vec<_> = immediate(&order, &order).pairs().collect();
        assert_eq!(kept, vec![(0, 1), (1, 2), (2, 3)]);
    }

    #[test]
    fn immediate_keeps_a_pair_no_third_event_implies() {
        let r = Rel::from_pairs(3, [(0, 1), (1, 0), (0, 0)]);
        let kept: Vec<_> = immediate(&r, &r).pairs().collect();
        assert_eq!(kept, vec![(0, 1), (1, 0)]);
    }
}
