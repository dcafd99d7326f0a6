//! The encodings of checks and of witness orders.
//!
//! Owns: `acyclic` (ordering encoding), `cyclic` (guessed cycle), `irreflexive`, `empty`, their
//! negations, and `linearisation`. `acyclic`, `cyclic` and `linearisation` introduce fresh
//! inputs that are chosen existentially: the node they return is exact when it is asserted
//! (assumed, or required by the query), never when it is negated. Every encoding first reads the
//! constants: a relation with no possible cycle, or with a certain one, folds to a constant.
//! Uses: `circuit`, `matrix`, `rel` (the reachability of the possible and the certain pairs).
use super::circuit::{Circuit, Node};
use super::matrix::{Matrix, Value, Vector};
use crate::rel::Rel;

/// `empty v`.
pub(crate) fn empty(c: &mut Circuit, v: &Value) -> Node {
    c.and(v.cells().iter().map(|&x| !x))
}

/// `~empty v`.
pub(crate) fn nonempty(c: &mut Circuit, v: &Value) -> Node {
    c.or(v.cells().iter().copied())
}

/// `irreflexive r`.
pub(crate) fn irreflexive(c: &mut Circuit, r: &Matrix) -> Node {
    !reflexive_somewhere(c, r)
}

/// `~irreflexive r`.
pub(crate) fn reflexive_somewhere(c: &mut Circuit, r: &Matrix) -> Node {
    c.or(r.diagonal().0)
}

/// What the constants of a relation say about its cycles.
enum Cycles {
    /// The possible pairs have no cycle.
    None,
    /// The certain pairs have a cycle.
    Certain,
    /// Undecided: the strongly connected components (of two or more slots) of the possible
    /// pairs, and the slots with a possible self-loop.
    Open {
        components: Vec<Vec<usize>>,
        loops: Vec<usize>,
    },
}

fn cycles(r: &Matrix) -> Cycles {
    let certain = Rel::from_pairs(
        r.n(),
        (0..r.n())
            .flat_map(|i| (0..r.n()).map(move |j| (i, j)))
            .filter(|&(i, j)| r.get(i, j) == Node::TRUE),
    );
    if !certain.is_acyclic() {
        return Cycles::Certain;
    }
    let reach = r.support().plus();
    if reach.is_irreflexive() {
        return Cycles::None;
    }
    let loops = (0..r.n()).filter(|&i| r.get(i, i) != Node::FALSE).collect();
    Cycles::Open {
        components: components(&reach),
        loops,
    }
}

/// The strongly connected components with at least two slots, given the reachability relation.
fn components(reach: &Rel) -> Vec<Vec<usize>> {
    let n = reach.size();
    let mut seen = vec![false; n];
    let mut out = vec![];
    for i in 0..n {
        if seen[i] || !reach.contains(i, i) {
            continue;
        }
        let comp: Vec<usize> = (0..n)
            .filter(|&j| reach.contains(i, j) && reach.contains(j, i))
            .collect();
        comp.iter().for_each(|&j| seen[j] = true);
        if comp.len() > 1 {
            out.push(comp);
        }
    }
    out
}

/// `acyclic r`, by the ordering encoding: r is acyclic iff some strict total order contains it.
/// Only the slots of one strongly connected component of the possible pairs can share a cycle,
/// so each such component gets its own order (a tournament without 3-cycles, see `tournament`);
/// self-loops must be absent. Fresh inputs: existential, exact when asserted.
pub(crate) fn acyclic(c: &mut Circuit, r: &Matrix) -> Node {
    let (components, loops) = match cycles(r) {
        Cycles::None => return Node::TRUE,
        Cycles::Certain => return Node::FALSE,
        Cycles::Open { components, loops } => (components, loops),
    };
    let mut parts: Vec<Node> = loops.iter().map(|&i| !r.get(i, i)).collect();
    for comp in &components {
        let (order, transitive) = tournament(c, r.n(), comp);
        parts.push(transitive);
        for &i in comp {
            for &j in comp {
                if i != j {
                    parts.push(c.implies(r.get(i, j), order.get(i, j)));
                }
            }
        }
    }
    c.and(parts)
}

/// `~acyclic r`, by guessing the slots of a cycle: a finite relation has a cycle iff some
/// non-empty set C of slots gives each slot of C an r-successor in C (follow successors until
/// one repeats; conversely a cycle's slots are such a C). C is chosen inside one component of
/// the possible pairs. Fresh inputs: existential, exact when asserted. No closure is computed.
pub(crate) fn cyclic(c: &mut Circuit, r: &Matrix) -> Node {
    let (components, loops) = match cycles(r) {
        Cycles::None => return Node::FALSE,
        Cycles::Certain => return Node::TRUE,
        Cycles::Open { components, loops } => (components, loops),
    };
    let mut options: Vec<Node> = loops.iter().map(|&i| r.get(i, i)).collect();
    for comp in &components {
        let chosen: Vec<Node> = comp.iter().map(|_| c.input()).collect();
        let mut parts = vec![c.or(chosen.iter().copied())];
        for (a, &i) in comp.iter().enumerate() {
            let succ: Vec<Node> = comp
                .iter()
                .enumerate()
                .map(|(b, &j)| c.and2(chosen[b], r.get(i, j)))
                .collect();
            let has_successor = c.or(succ);
            parts.push(c.implies(chosen[a], has_successor));
        }
        options.push(c.and(parts));
    }
    c.or(options)
}

/// A strict total order on `slots` as a tournament: one fresh input per pair `i < j` says
/// "i before j", its negation "j before i". A tournament is transitive iff it has no 3-cycle;
/// the returned node forbids both orientations of every triple's cycle. Other slots are
/// unrelated. Returns the order and that node.
fn tournament(c: &mut Circuit, n: usize, slots: &[usize]) -> (Matrix, Node) {
    let mut before = Matrix::empty(n).cells().to_vec();
    for (a, &i) in slots.iter().enumerate() {
        for &j in &slots[a + 1..] {
            let x = c.input();
            before[i * n + j] = x;
            before[j * n + i] = !x;
        }
    }
    let order = Matrix::from_fn(n, |i, j| before[i * n + j]);
    let mut no_cycle = vec![];
    for (a, &i) in slots.iter().enumerate() {
        for (b, &j) in slots.iter().enumerate().skip(a + 1) {
            for &k in &slots[b + 1..] {
                let (ij, jk, ki) = (order.get(i, j), order.get(j, k), order.get(k, i));
                no_cycle.push(c.or([!ij, !jk, !ki]));
                no_cycle.push(c.or([ij, jk, ki]));
            }
        }
    }
    let transitive = c.and(no_cycle);
    (order, transitive)
}

/// `with x from linearisations(set, r)`: a fresh strict total order on `set` containing `r`
/// restricted to `set`. Returns the order and the node "the choice is legal" (a self-loop of r on
/// `set`, or a cycle, makes it false for every choice). Any acyclic tournament on the slots that
/// may be in `set` restricts to a total order on `set`, and every total order on `set` extends
/// to one, so the choices are exactly herd's. Fresh inputs: existential, exact when asserted.
pub(crate) fn linearisation(c: &mut Circuit, set: &Vector, r: &Matrix) -> (Matrix, Node) {
    let n = set.len();
    let slots: Vec<usize> = (0..n).filter(|&i| set.get(i) != Node::FALSE).collect();
    let (tour, transitive) = tournament(c, n, &slots);
    restricted_order(c, set, r, &tour, &slots, transitive)
}

/// The one choice of `with x from linearisations(set, r)` that a given strict total order on all
/// slots makes: that order restricted to `set` (always a total order on `set`), and the node "it
/// contains `r` on `set`".
pub(crate) fn fixed_linearisation(
    c: &mut Circuit,
    set: &Vector,
    r: &Matrix,
    total: &Rel,
) -> (Matrix, Node) {
    let n = set.len();
    let slots: Vec<usize> = (0..n).filter(|&i| set.get(i) != Node::FALSE).collect();
    let tour = Matrix::constant(total);
    restricted_order(c, set, r, &tour, &slots, Node::TRUE)
}

/// `tour` restricted to `set`, and its legality: `legal` and `r` on `set` inside `tour`.
fn restricted_order(
    c: &mut Circuit,
    set: &Vector,
    r: &Matrix,
    tour: &Matrix,
    slots: &[usize],
    legal: Node,
) -> (Matrix, Node) {
    let n = set.len();
    let order = Matrix::from_fn(n, |i, j| {
        if i == j {
            Node::FALSE
        } else {
            c.and([set.get(i), set.get(j), tour.get(i, j)])
        }
    });
    let mut legal = vec![legal];
    for &i in slots {
        for &j in slots {
            let both = c.and([set.get(i), set.get(j), r.get(i, j)]);
            legal.push(if i == j {
                !both
            } else {
                c.implies(both, tour.get(i, j))
            });
        }
    }
    (order, c.and(legal))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rel::Set;

    /// With the inputs of `free` set to `value`, can the other inputs make `node` true? (Brute
    /// force over them.)
    fn satisfiable_for(c: &Circuit, node: Node, free: &[Node], value: &[bool]) -> bool {
        let inputs: Vec<usize> = (1..c.len())
            .filter(|&g| matches!(c.gate(g), super::super::circuit::Gate::Input(_)))
            .collect();
        let fixed: Vec<(usize, bool)> = free
            .iter()
            .zip(value)
            .map(|(x, &v)| (x.gate(), v))
            .collect();
        let open: Vec<usize> = inputs
            .iter()
            .copied()
            .filter(|g| !fixed.iter().any(|(f, _)| f == g))
            .collect();
        (0u64..1 << open.len()).any(|bits| {
            let v = |g: usize| {
                fixed
                    .iter()
                    .find(|(f, _)| *f == g)
                    .map(|(_, b)| *b)
                    .unwrap_or_else(|| {
                        let k = open.iter().position(|&o| o == g).unwrap();
                        bits >> k & 1 == 1
                    })
            };
            c.eval_many(&[node], &v)[0]
        })
    }

    #[test]
    fn acyclic_and_cyclic_are_exact_on_every_relation_over_three_slots() {
        let mut c = Circuit::new();
        let m = Matrix::from_fn(3, |_, _| c.input());
        let acyc = acyclic(&mut c, &m);
        let cyc = cyclic(&mut c, &m);
        for bits in 0u32..1 << 9 {
            let value: Vec<bool> = (0..9).map(|k| bits >> k & 1 == 1).collect();
            let r = Rel::from_pairs(3, (0..9).filter(|&k| value[k]).map(|k| (k / 3, k % 3)));
            assert_eq!(
                satisfiable_for(&c, acyc, m.cells(), &value),
                r.is_acyclic(),
                "acyclic {r:?}"
            );
            assert_eq!(
                satisfiable_for(&c, cyc, m.cells(), &value),
                !r.is_acyclic(),
                "cyclic {r:?}"
            );
        }
    }

    #[test]
    fn constant_relations_fold() {
        let mut c = Circuit::new();
        let chain = Matrix::constant(&Rel::from_pairs(3, [(0, 1), (1, 2)]));
        let ring = Matrix::constant(&Rel::from_pairs(3, [(0, 1), (1, 2), (2, 0)]));
        assert_eq!(acyclic(&mut c, &chain), Node::TRUE);
        assert_eq!(cyclic(&mut c, &ring), Node::TRUE);
        assert_eq!(acyclic(&mut c, &ring), Node::FALSE);
        assert_eq!(c.inputs(), 0);
    }

    #[test]
    fn linearisations_of_three_free_slots_are_six() {
        let mut c = Circuit::new();
        let set = Vector::constant(4, Set::from_iter([0, 1, 3]));
        let (order, legal) = linearisation(
            &mut c,
            &set,
            &Matrix::constant(&Rel::from_pairs(4, [(3, 0)])),
        );
        let tour: Vec<usize> = (1..c.len())
            .filter(|&g| matches!(c.gate(g), super::super::circuit::Gate::Input(_)))
            .collect();
        let mut orders = std::collections::BTreeSet::new();
        for bits in 0u32..1 << tour.len() {
            let v = |g: usize| bits >> tour.iter().position(|&t| t == g).unwrap() & 1 == 1;
            if c.eval_many(&[legal], &v)[0] {
                let cells = c.eval_many(order.cells(), &v);
                orders.insert(cells);
            }
        }
        assert_eq!(
            orders.len(),
            3,
            "3 of the 6 orders of {{0, 1, 3}} put 3 before 0"
        );
    }
}
