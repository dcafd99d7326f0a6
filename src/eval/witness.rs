//! Witness choices: the strict total orders of `linearisations(S, r)`.
//!
//! Owns: the depth-first search over linear extensions, element by element, which shows its
//! caller every prefix so that a whole subtree of orders can be skipped (the evaluator's pruning,
//! `eval::Evaluator::choose`). Uses: `rel`.
use std::ops::ControlFlow;

use crate::rel::{Rel, Set};

/// A node of the search: the elements placed so far, first to last, each before every element
/// of `rest`. A complete order has `rest` empty.
pub(crate) struct Prefix<'a> {
    pub(crate) order: &'a [usize],
    pub(crate) rest: Set,
}

impl Prefix<'_> {
    /// Pairs that every completion of this prefix orders: the placed elements in order, each
    /// before every element of `rest`, and `within` (the order required on the set; with it
    /// transitively closed, these are all such pairs). A complete order is just itself: it
    /// contains `within`.
    pub(crate) fn relation(&self, n: usize, within: &Rel) -> Rel {
        if self.rest.is_empty() {
            return total_order(n, self.order);
        }
        let placed = Set::from_iter(self.order.iter().copied());
        total_order(n, self.order)
            .union(&Rel::product(n, placed, self.rest))
            .union(within)
    }
}

/// What the search does below a prefix.
pub(crate) enum Visit {
    /// Go on to the orders that extend it.
    Descend,
    /// Skip them.
    Skip,
    /// End the search.
    Stop,
}

/// Go depth first through the strict total orders on `s` that contain `r` restricted to `s`,
/// placing one element at a time; `visit` sees every prefix but those with one element left (the
/// empty one first, complete orders last) and says what to do below it. None is complete when `r` is cyclic on `s`.
pub(crate) fn search_linearisations(
    n: usize,
    s: Set,
    r: &Rel,
    visit: &mut dyn FnMut(&Prefix) -> Visit,
) -> ControlFlow<()> {
    let preds: Vec<Set> = (0..n)
        .map(|e| {
            if s.contains(e) {
                predecessors(r, s, e)
            } else {
                Set::EMPTY
            }
        })
        .collect();
    let mut order = Vec::with_capacity(s.len());
    extend(s, &preds, Set::EMPTY, &mut order, visit)
}

/// The elements of `s` that `r` puts before `e`.
fn predecessors(r: &Rel, s: Set, e: usize) -> Set {
    Set::from_iter(s.iter().filter(|&a| r.contains(a, e)))
}

/// Show `visit` the prefix `order` (unless one element is left); below it, place each element
/// whose predecessors are all placed next, and recurse.
fn extend(
    remaining: Set,
    preds: &[Set],
    placed: Set,
    order: &mut Vec<usize>,
    visit: &mut dyn FnMut(&Prefix) -> Visit,
) -> ControlFlow<()> {
    // With one element left the prefix has one completion, shown next.
    if remaining.len() != 1 {
        let prefix = Prefix {
            order,
            rest: remaining,
        };
        match visit(&prefix) {
            Visit::Stop => return ControlFlow::Break(()),
            Visit::Skip => return ControlFlow::Continue(()),
            Visit::Descend => {}
        }
    }
    for e in remaining
        .iter()
        .filter(|&e| preds[e].diff(placed).is_empty())
    {
        order.push(e);
        let flow = extend(
            remaining.diff(Set::singleton(e)),
            preds,
            placed.union(Set::singleton(e)),
            order,
            visit,
        );
        order.pop();
        flow?;
    }
    ControlFlow::Continue(())
}

/// The strict total order listing `order` first to last.
pub(crate) fn total_order(n: usize, order: &[usize]) -> Rel {
    let pairs = order
        .iter()
        .enumerate()
        .flat_map(|(i, &a)| order[i + 1..].iter().map(move |&b| (a, b)));
    Rel::from_pairs(n, pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every complete order, in the search's order.
    fn all(n: usize, s: Set, r: &Rel) -> Vec<Rel> {
        let mut out = vec![];
        let _ = search_linearisations(n, s, r, &mut |p| {
            if p.rest.is_empty() {
                out.push(total_order(n, p.order));
            }
            Visit::Descend
        });
        out
    }

    #[test]
    fn three_free_elements_have_six_orders() {
        let orders = all(4, Set::from_iter([0, 1, 2]), &Rel::empty(4));
        assert_eq!(orders.len(), 6);
        for o in &orders {
            assert!(o.is_acyclic());
            assert_eq!(o.pairs().count(), 3);
            assert!(o.pairs().all(|(a, b)| a < 3 && b < 3));
        }
    }

    #[test]
    fn constraints_are_kept_and_pairs_outside_the_set_ignored() {
        let r = Rel::from_pairs(4, [(2, 0), (3, 1)]);
        let orders = all(4, Set::from_iter([0, 1, 2]), &r);
        assert_eq!(orders.len(), 3);
        assert!(orders.iter().all(|o| o.contains(2, 0)));
    }

    #[test]
    fn a_cycle_has_no_linearisation() {
        let r = Rel::from_pairs(3, [(0, 1), (1, 0)]);
        assert!(all(3, Set::from_iter([0, 1]), &r).is_empty());
        assert!(all(3, Set::singleton(2), &Rel::from_pairs(3, [(2, 2)])).is_empty());
    }

    #[test]
    fn small_sets_have_exactly_the_empty_order() {
        assert_eq!(all(3, Set::EMPTY, &Rel::empty(3)), vec![Rel::empty(3)]);
        assert_eq!(
            all(3, Set::singleton(1), &Rel::empty(3)),
            vec![Rel::empty(3)]
        );
    }

    #[test]
    fn search_stops_when_asked() {
        let mut complete = 0;
        let _ = search_linearisations(5, Set::full(5), &Rel::empty(5), &mut |p| {
            if p.rest.is_empty() {
                complete += 1;
                Visit::Stop
            } else {
                Visit::Descend
            }
        });
        assert_eq!(complete, 1);
    }

    #[test]
    fn a_skipped_prefix_hides_exactly_its_completions() {
        let (n, s, r) = (3, Set::full(3), Rel::empty(3));
        let mut kept = vec![];
        let _ = search_linearisations(n, s, &r, &mut |p| {
            if p.order.first() == Some(&1) {
                return Visit::Skip;
            }
            if p.rest.is_empty() {
                kept.push(p.order.to_vec());
            }
            Visit::Descend
        });
        assert_eq!(
            kept,
            [vec![0, 1, 2], vec![0, 2, 1], vec![2, 0, 1], vec![2, 1, 0]]
        );
    }

    #[test]
    fn a_prefix_relation_is_what_every_completion_holds() {
        // `r` on the set is transitively closed, so the prefix relation is exactly what every
        // completion holds.
        let (n, s) = (4, Set::from_iter([0, 1, 2]));
        let r = Rel::from_pairs(n, [(2, 1), (3, 0)]);
        let within = r.inter(&Rel::product(n, s, s));
        let completions = all(n, s, &r);
        let _ = search_linearisations(n, s, &r, &mut |p| {
            let rel = p.relation(n, &within);
            let extending: Vec<&Rel> = (completions.iter())
                .filter(|c| {
                    p.order.iter().enumerate().all(|(i, &a)| {
                        p.order[i + 1..].iter().all(|&b| c.contains(a, b))
                            && p.rest.iter().all(|b| c.contains(a, b))
                    })
                })
                .collect();
            assert!(
                !extending.is_empty(),
                "prefix {:?} has no completion",
                p.order
            );
            let common = Rel::from_pairs(
                n,
                (0..n)
                    .flat_map(|a| (0..n).map(move |b| (a, b)))
                    .filter(|&(a, b)| extending.iter().all(|c| c.contains(a, b))),
            );
            assert_eq!(rel, common, "prefix {:?}", p.order);
            Visit::Descend
        });
    }
}
