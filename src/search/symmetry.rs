//! Symmetry breaking: locations, CTAs and GPUs are interchangeable labels, so each is used only
//! after the one before it; threads of one size are interchangeable, so their operation
//! sequences are in lexicographic menu order. With Alloy counting, the scope tree is bounded
//! too (at most `budget` scopes), over the placements listed here.
//!
//! Owns: `symmetry_breaking`, `placements`, `scope_nodes`. Uses: `program_variables`, `encode`,
//! `exec` (event kinds).
use super::program_variables::ProgramVariables;
use crate::encode::{Circuit, Node};
use crate::exec::EventKind;

/// The symmetry-breaking constraints on `p`, and with Alloy counting (`scope_budget`) the bound
/// on its scope tree.
pub(super) fn symmetry_breaking(
    c: &mut Circuit,
    p: &ProgramVariables,
    scope_budget: Option<usize>,
) -> Vec<Node> {
    let mut structure = vec![];
    canonical_labels(c, p, &mut structure);
    sorted_threads(c, p, &mut structure);
    if let Some(budget) = scope_budget {
        scope_count(c, p, budget, &mut structure);
    }
    structure
}

/// Locations, CTAs and GPUs are interchangeable: each label is used only after the one
/// before it (locations in event order, CTAs and GPUs in thread order). Fences sit at
/// location 0. Threads of one instance of a searched level are in one instance of the next.
fn canonical_labels(c: &mut Circuit, p: &ProgramVariables, structure: &mut Vec<Node>) {
    for e in 0..p.loc.len() {
        let fence = p.is(e, |o| o.kind == EventKind::Fence);
        let fence = c.or(fence);
        let at0 = c.implies(fence, p.loc[e][0]);
        structure.push(at0);
        for l in 1..p.loc[e].len() {
            let before: Vec<Node> = (0..e).map(|d| p.loc[d][l - 1]).collect();
            let before = c.or(before);
            let ok = c.implies(p.loc[e][l], before);
            structure.push(ok);
        }
    }
    for labels in &p.labels {
        for t in 0..labels.len() {
            for k in 1..labels[t].len() {
                let before: Vec<Node> = (0..t)
                    .filter(|&u| labels[u].len() > k - 1)
                    .map(|u| labels[u][k - 1])
                    .collect();
                let before = c.or(before);
                let ok = c.implies(labels[t][k], before);
                structure.push(ok);
            }
        }
    }
    for (inner, outer) in p.same.iter().zip(p.same.iter().skip(1)) {
        for t in 0..inner.len() {
            for u in 0..t {
                let ok = c.implies(inner[t][u], outer[t][u]);
                structure.push(ok);
            }
        }
    }
}

/// Threads of one size are interchangeable: their operation sequences are in lexicographic
/// menu order. Any program can be brought into this form by sorting its threads of one size
/// (stably) by their operations and then renaming its locations, CTAs and GPUs to the canonical
/// labels (`canonical_labels`), which changes no operation; so every program is searched up to
/// a renaming.
fn sorted_threads(c: &mut Circuit, p: &ProgramVariables, structure: &mut Vec<Node>) {
    let l = &p.layout;
    let events_of = |t: usize| -> Vec<usize> {
        (0..l.events.len())
            .filter(|&e| l.events[e].0 == t)
            .collect()
    };
    for t in 1..l.threads() {
        if l.sizes[t] != l.sizes[t - 1] {
            continue;
        }
        let mut equal_before = Node::TRUE;
        for (a, b) in events_of(t - 1).into_iter().zip(events_of(t)) {
            for i in 0..p.menu.len() {
                let later = c.or(p.op[b][i..].iter().copied());
                let in_order = c.implies(p.op[a][i], later);
                let ok = c.implies(equal_before, in_order);
                structure.push(ok);
            }
            let same: Vec<Node> = (0..p.menu.len())
                .map(|i| c.and2(p.op[a][i], p.op[b][i]))
                .collect();
            let same = c.or(same);
            equal_before = c.and2(equal_before, same);
        }
    }
}

/// At most `budget` scopes, counted as the Alloy artifact's scope tree does: the threads
/// plus one node per distinct set of threads among the CTAs, the GPUs and the system (a CTA
/// alone in its GPU is the same node as the GPU). Placements are few: the allowed ones are
/// listed and one of them asserted.
fn scope_count(c: &mut Circuit, p: &ProgramVariables, budget: usize, structure: &mut Vec<Node>) {
    let mut allowed = vec![];
    let threads = p.layout.threads();
    for placement in placements(threads, p.labels.len()) {
        if threads + scope_nodes(threads, &placement) > budget {
            continue;
        }
        let fixed: Vec<Node> = (0..threads)
            .flat_map(|t| (0..placement.len()).map(move |i| (t, i)))
            .map(|(t, i)| p.labels[i][t][placement[i][t]])
            .collect();
        allowed.push(c.and(fixed));
    }
    let one = c.or(allowed);
    structure.push(one);
}

/// Every canonical placement of `threads` threads over `levels` nested levels: per level a
/// label per thread, labels numbered in order of first use, threads of one instance in one
/// instance of every level outside it.
fn placements(threads: usize, levels: usize) -> Vec<Vec<Vec<usize>>> {
    let mut out = vec![vec![vec![]; levels]];
    for _ in 0..threads {
        let mut next = vec![];
        for placement in out {
            for labels in next_thread(&placement, 0) {
                let mut extended = placement.clone();
                for (level, label) in labels.into_iter().enumerate() {
                    extended[level].push(label);
                }
                next.push(extended);
            }
        }
        out = next;
    }
    out
}

/// The labels, at levels `level..`, that one more thread may take next to `placement`: at each
/// level a label in use (and then, outwards, that instance's labels) or the next fresh one.
fn next_thread(placement: &[Vec<usize>], level: usize) -> Vec<Vec<usize>> {
    let Some(labels) = placement.get(level) else {
        return vec![vec![]];
    };
    let fresh = labels.iter().max().map_or(0, |m| m + 1);
    let mut out = vec![];
    for k in 0..=fresh {
        match labels.iter().position(|&x| x == k) {
            Some(u) => out.push(placement[level..].iter().map(|l| l[u]).collect()),
            None => out.extend(next_thread(placement, level + 1).into_iter().map(|outer| {
                let mut labels = vec![k];
                labels.extend(outer);
                labels
            })),
        }
    }
    out
}

/// The non-thread nodes of the scope tree a placement needs: distinct thread sets among the
/// instances of every level and the whole system.
fn scope_nodes(threads: usize, placement: &[Vec<usize>]) -> usize {
    let group = |labels: &[usize], k: usize| -> Vec<usize> {
        (0..labels.len()).filter(|&t| labels[t] == k).collect()
    };
    let mut sets: Vec<Vec<usize>> = vec![(0..threads).collect()];
    for labels in placement {
        for k in 0..=labels.iter().copied().max().unwrap_or(0) {
            let g = group(labels, k);
            if !g.is_empty() && !sets.contains(&g) {
                sets.push(g);
            }
        }
    }
    sets.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placements_are_nested_partitions() {
        // Two threads: same CTA; two CTAs of one GPU; two GPUs, in that order.
        let two = placements(2, 2);
        let expected = [
            vec![vec![0, 0], vec![0, 0]],
            vec![vec![0, 1], vec![0, 0]],
            vec![vec![0, 1], vec![0, 1]],
        ];
        assert_eq!(two, expected);
        // Scope trees of 2 threads: {01} → 1 node; CTAs {0},{1} in GPU {01} → 3; GPUs → 3.
        let nodes: Vec<usize> = two.iter().map(|p| scope_nodes(2, p)).collect();
        assert_eq!(nodes, vec![1, 3, 3]);
        assert_eq!(scope_nodes(3, &[vec![0, 0, 1], vec![0, 0, 0]]), 3);
        // Set partitions of 3 threads nested in set partitions: 1 + 3·2 + 5 = 12 (and a third
        // level nests once more).
        assert_eq!(placements(3, 2).len(), 12);
        assert!(placements(3, 3).iter().all(|p| nested(p)));
        assert!(placements(3, 2).iter().all(|p| nested(p)));
    }

    /// Do threads of one instance share the instance of every level outside it?
    fn nested(placement: &[Vec<usize>]) -> bool {
        let threads = placement[0].len();
        placement.windows(2).all(|w| {
            (0..threads).all(|t| (0..threads).all(|u| w[0][t] != w[0][u] || w[1][t] == w[1][u]))
        })
    }
}
