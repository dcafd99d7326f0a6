//! Witness choices: the strict total orders of `linearisations(S, r)`.
//!
//! Owns: the enumeration of linear extensions, with early stop. Uses: `rel`.
use std::ops::ControlFlow;

use crate::rel::{Rel, Set};

/// Call `f` with every strict total order on `s` that contains `r` restricted to `s` (as herd's
/// `linearisations` does), until `f` breaks. None exist when `r` is cyclic on `s`.
pub(crate) fn for_each_linearisation(
    n: usize,
    s: Set,
    r: &Rel,
    f: &mut dyn FnMut(Rel) -> ControlFlow<()>,
) -> ControlFlow<()> {
    if s.len() <= 1 {
        let looped = s.iter().any(|e| r.contains(e, e));
        return if looped {
            ControlFlow::Continue(())
        } else {
            f(Rel::empty(n))
        };
    }
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
    extend(n, s, &preds, Set::EMPTY, &mut order, f)
}

/// The elements of `s` that `r` puts before `e`.
fn predecessors(r: &Rel, s: Set, e: usize) -> Set {
    Set::from_iter(s.iter().filter(|&a| r.contains(a, e)))
}

/// Place each element whose predecessors are all placed next, and recurse.
fn extend(
    n: usize,
    remaining: Set,
    preds: &[Set],
    placed: Set,
    order: &mut Vec<usize>,
    f: &mut dyn FnMut(Rel) -> ControlFlow<()>,
) -> ControlFlow<()> {
    if remaining.is_empty() {
        return f(total_order(n, order));
    }
    for e in remaining
        .iter()
        .filter(|&e| preds[e].diff(placed).is_empty())
    {
        order.push(e);
        let flow = extend(
            n,
            remaining.diff(Set::singleton(e)),
            preds,
            placed.union(Set::singleton(e)),
            order,
            f,
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

    fn all(n: usize, s: Set, r: &Rel) -> Vec<Rel> {
        let mut out = vec![];
        let _ = for_each_linearisation(n, s, r, &mut |o| {
            out.push(o);
            ControlFlow::Continue(())
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
    fn enumeration_stops_when_asked() {
        let mut seen = 0;
        let _ = for_each_linearisation(5, Set::full(5), &Rel::empty(5), &mut |_| {
            seen += 1;
            ControlFlow::Break(())
        });
        assert_eq!(seen, 1);
    }
}
