//! Pictures of executions (`src/picture.rs`): a counterexample's source and target executions,
//! and `run -o DIR`'s executions, read back from the DOT text as a person would read them: which
//! scope instance holds each thread, the value each read reads, which edges are drawn and which
//! are red.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::support::cli::mapcheck;

/// One node of a DOT picture: its scene's caption, the labels of the clusters around it
/// (outermost first, the scene's own left out) and its label.
#[derive(Debug)]
struct Node {
    scene: String,
    clusters: Vec<String>,
    label: String,
}

/// One edge: its two nodes' ids, label, and whether it is drawn red.
#[derive(Debug)]
struct Edge {
    from: String,
    to: String,
    label: String,
    red: bool,
}

/// The nodes (by id) and edges of a picture that `picture::digraph` wrote.
struct Picture {
    nodes: BTreeMap<String, Node>,
    edges: Vec<Edge>,
}

/// The text between `key="` and the next unescaped `"`.
fn quoted(line: &str, key: &str) -> Option<String> {
    let start = line.find(&format!("{key}=\""))? + key.len() + 2;
    let rest = &line[start..];
    let mut out = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next()?),
            '"' => return Some(out),
            c => out.push(c),
        }
    }
    None
}

fn read_picture(path: &Path) -> Picture {
    let text = std::fs::read_to_string(path).unwrap();
    let mut open: Vec<String> = vec![];
    let mut nodes = BTreeMap::new();
    let mut edges = vec![];
    for line in text.lines().map(str::trim) {
        if line.starts_with("subgraph cluster_") {
            open.push(quoted(line, "label").unwrap());
        } else if line == "}" {
            open.pop();
        } else if let Some((ends, attrs)) = line.split_once(" [") {
            let Some(label) = quoted(attrs, "label") else {
                continue;
            };
            if let Some((from, to)) = ends.split_once(" -> ") {
                edges.push(Edge {
                    from: from.to_string(),
                    to: to.to_string(),
                    label,
                    red: attrs.contains("color=red"),
                });
            } else if !ends.contains('=') && !ends.contains(' ') {
                let node = Node {
                    scene: open.first().cloned().unwrap_or_default(),
                    clusters: open.iter().skip(1).cloned().collect(),
                    label,
                };
                nodes.insert(ends.to_string(), node);
            }
        }
    }
    Picture { nodes, edges }
}

impl Picture {
    fn scene_of(&self, id: &str) -> &str {
        &self.nodes[id].scene
    }

    /// The edges labelled `label` in the scene whose caption starts with `scene`.
    fn edges_in<'a>(&'a self, scene: &'a str, label: &'a str) -> impl Iterator<Item = &'a Edge> {
        self.edges
            .iter()
            .filter(move |e| e.label == label && self.scene_of(&e.from).starts_with(scene))
    }

    fn label(&self, id: &str) -> &str {
        &self.nodes[id].label
    }
}

/// `P1@cta 1, gpu 0 (…` lines of a C test: each thread's scope instances, outermost first
/// (`["gpu 0", "cta 1"]`).
fn placements(source: &str) -> BTreeMap<String, Vec<String>> {
    source
        .lines()
        .filter_map(|l| {
            let (thread, rest) = l.split_once('@')?;
            let words = rest.split(" (").next()?;
            let mut outermost_first: Vec<String> = words.split(", ").map(str::to_string).collect();
            outermost_first.reverse();
            Some((thread.trim().to_string(), outermost_first))
        })
        .collect()
}

/// `P0:r0 == 3` in a condition: each thread with the value its register must hold.
fn condition_values(source: &str) -> BTreeMap<String, i64> {
    let condition = source.lines().find(|l| l.starts_with("exists")).unwrap();
    (condition.trim_start_matches("exists"))
        .split("/\\")
        .filter_map(|part| {
            let (lhs, v) = part.split_once(" == ")?;
            let (thread, _) = lhs.trim_start_matches(['(', ' ']).split_once(':')?;
            Some((
                thread.to_string(),
                v.trim_end_matches([')', ' ']).parse().ok()?,
            ))
        })
        .collect()
}

/// The value a read or write label shows: `P1.1 R.SC.CTA x=0` → ("x", 0).
fn value(label: &str) -> Option<(String, i64)> {
    let (loc, v) = label.rsplit_once(' ')?.1.split_once('=')?;
    Some((loc.to_string(), v.parse().ok()?))
}

fn scratch(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mapcheck-pictures-{what}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    dir
}

/// The acceptance test of issue 45, item 2: Fig. 11's SC counterexample (rc11-ptx, bound 5)
/// drawn as its two executions. Both nest each thread in the GPU and CTA the source test places
/// it in (the failure depends on which threads share an instance); every read shows the value
/// it reads, the value its `rf` edge's write writes and the final condition's; the target shows
/// PTX's Fence-SC, morally-strong and causality edges, which the source (RC11) does not have;
/// and the cycle is red in both.
#[test]
fn rc11_ptx_sc_counterexample_is_drawn_as_both_executions() {
    let dir = scratch("sc");
    let out = dir.to_str().unwrap();
    let (code, stdout, stderr) = mapcheck(&["mappings/rc11-ptx.map", "--bound", "5", "-o", out]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let case = dir.join("rc11-ptx-SC");
    let source = std::fs::read_to_string(case.join("source.litmus")).unwrap();
    let placements = placements(&source);
    assert_eq!(placements.len(), 3, "{source}");
    let picture = read_picture(&case.join("graph.dot"));
    let scenes: std::collections::BTreeSet<&str> =
        picture.nodes.values().map(|n| n.scene.as_str()).collect();
    assert_eq!(scenes.len(), 2, "{scenes:?}");
    for scene in ["source", "target"] {
        let nodes: Vec<&Node> = (picture.nodes.values())
            .filter(|n| n.scene.starts_with(scene))
            .collect();
        // Every thread event sits in its thread's cluster, inside the GPU and CTA of its
        // thread's line in the source test.
        for node in nodes.iter().filter(|n| n.label.starts_with('P')) {
            let thread = node.label.split('.').next().unwrap();
            let mut path = placements[thread].clone();
            path.push(thread.to_string());
            assert_eq!(node.clusters, path, "{node:?}");
        }
        // Every read shows a value, the one its rf edge's write writes.
        let reads: Vec<&String> = (picture.nodes.iter())
            .filter(|(_, n)| n.scene.starts_with(scene) && n.label.contains(" R."))
            .map(|(id, _)| id)
            .collect();
        assert!(!reads.is_empty());
        for read in reads {
            let rf: Vec<&Edge> = picture
                .edges_in(scene, "rf")
                .filter(|e| &e.to == read)
                .collect();
            assert_eq!(rf.len(), 1, "{read}");
            let read_value = value(picture.label(read));
            assert!(read_value.is_some(), "{}", picture.label(read));
            assert_eq!(read_value, value(picture.label(&rf[0].from)));
        }
        assert!(
            picture
                .edges
                .iter()
                .any(|e| e.red && picture.scene_of(&e.from).starts_with(scene)),
            "no red edge in the {scene}"
        );
    }
    // The final condition's read values are the ones drawn (one read per thread here).
    let wanted = condition_values(&source);
    assert!(!wanted.is_empty(), "{source}");
    for (thread, v) in wanted {
        let drawn: Vec<i64> = (picture.nodes.values())
            .filter(|n| n.label.starts_with(&format!("{thread}.")) && n.label.contains(" R."))
            .filter_map(|n| value(&n.label).map(|(_, v)| v))
            .collect();
        assert_eq!(drawn, vec![v, v], "{thread}");
    }
    // The target's PTX edges: Fence-SC between fence.sc events, morally strong between
    // same-location accesses; neither in the source.
    let fence_sc: Vec<&Edge> = picture.edges_in("target", "Fence-SC").collect();
    assert!(!fence_sc.is_empty());
    for e in &fence_sc {
        assert!(picture.label(&e.from).contains("F.SC") && picture.label(&e.to).contains("F.SC"));
    }
    let strong: Vec<&Edge> = picture.edges_in("target", "morally_strong & loc").collect();
    assert!(!strong.is_empty());
    for e in &strong {
        let (a, b) = (value(picture.label(&e.from)), value(picture.label(&e.to)));
        assert_eq!(a.map(|v| v.0), b.map(|v| v.0), "{e:?}");
    }
    assert!(picture.edges_in("target", "causality").next().is_some());
    assert!(picture.edges_in("source", "Fence-SC").next().is_none());
    std::fs::remove_dir_all(&dir).ok();
}

/// `run -o DIR` draws one graph per test with a scene per execution `--show` selects (herd's
/// `-o`, `-show`): all three of SB-cta's consistent executions, or only those that satisfy
/// the proposition (here the same three: the condition is `forall`), or none that falsify it
/// (then no file). Both threads sit in one CTA cluster.
#[test]
fn run_draws_the_executions_show_selects() {
    let test = "tests/data/oracle/dat3m/litmus/PTX/Nvidia/SB-cta.litmus";
    let scenes = |show: &str| -> Option<usize> {
        let dir = scratch(&format!("run-{show}"));
        let args = [
            "run",
            "ptx-v6",
            test,
            "-o",
            dir.to_str().unwrap(),
            "--show",
            show,
        ];
        let (code, stdout, stderr) = mapcheck(&args);
        assert_eq!(code, 0, "{stdout}{stderr}");
        let dot = dir.join("SB-cta.dot");
        let count = dot.exists().then(|| {
            let picture = read_picture(&dot);
            for node in picture.nodes.values().filter(|n| n.label.starts_with('P')) {
                assert_eq!(
                    node.clusters[..2],
                    ["gpu 0".to_string(), "cta 0".to_string()]
                );
            }
            let scenes: std::collections::BTreeSet<&String> =
                picture.nodes.values().map(|n| &n.scene).collect();
            scenes.len()
        });
        std::fs::remove_dir_all(&dir).ok();
        count
    };
    assert_eq!(scenes("all"), Some(3));
    assert_eq!(scenes("prop"), Some(3));
    assert_eq!(scenes("neg"), None);
}

/// A model's `show` statements choose the dashed edges (herd's meaning): `show e as name`
/// labels the relation, `unshow` drops one, and an item with no drawing (a set) is a warning,
/// not an error.
#[test]
fn show_statements_choose_the_drawn_relations() {
    let dir = scratch("show");
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("shown.cat");
    std::fs::write(
        &model,
        "\"shown\"\nshow rf & ext as external-reads\nshow co, W\nunshow co\nacyclic po | rf | co | fr as sc\n",
    )
    .unwrap();
    let test = "tests/data/oracle/dat3m/litmus/PTX/Nvidia/SB-cta.litmus";
    let out = dir.join("out");
    let args = [
        "run",
        model.to_str().unwrap(),
        test,
        "-o",
        out.to_str().unwrap(),
    ];
    let (code, stdout, stderr) = mapcheck(&args);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stderr.contains("shown.cat:3:10: warning: `show W` is not drawn"),
        "{stderr}"
    );
    let picture = read_picture(&out.join("SB-cta.dot"));
    let external: Vec<&Edge> = picture
        .edges
        .iter()
        .filter(|e| e.label == "external-reads")
        .collect();
    // Initial writes are external to every thread.
    let rf_apart = (picture.edges.iter())
        .filter(|e| e.label == "rf" && picture.label(&e.from)[..2] != picture.label(&e.to)[..2])
        .count();
    assert!(rf_apart > 0);
    assert_eq!(external.len(), rf_apart);
    let dashed_co = std::fs::read_to_string(out.join("SB-cta.dot"))
        .unwrap()
        .lines()
        .any(|l| l.contains("label=\"co\"") && l.contains("dashed"));
    assert!(!dashed_co, "unshow co still draws it");
    std::fs::remove_dir_all(&dir).ok();
}
