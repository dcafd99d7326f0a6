//! The orders the runner enumerates, one at a time, and how many there are: coherence (total or
//! partial) and barrier generations. Nothing here holds more than the order being visited.
use crate::ir::CoKind;
use crate::rel::Set;

/// A strict order on `0..k` as its pairs `(a, b)`: `a` comes before `b`.
pub(crate) type Pairs = [(usize, usize)];

/// Call `f` on every coherence order of `kind` on `k` elements.
pub(crate) fn for_each_order(kind: CoKind, k: usize, f: &mut dyn FnMut(&Pairs)) {
    match kind {
        CoKind::Total => extend_sequence(k, &mut vec![], f),
        CoKind::Partial => extend_poset(k, &mut vec![], f),
    }
}

/// How many orders `for_each_order` visits (saturating at `u128::MAX`).
pub(crate) fn order_count(kind: CoKind, k: usize) -> u128 {
    match kind {
        CoKind::Total => (1..=k as u128).fold(1, u128::saturating_mul),
        CoKind::Partial => POSETS.get(k).copied().unwrap_or(u128::MAX),
    }
}

/// Labelled partial orders on `k` elements for `k = 0..=18` (OEIS A001035; no more are known).
const POSETS: [u128; 19] = [
    1,
    1,
    3,
    19,
    219,
    4231,
    130023,
    6129859,
    431723379,
    44511042511,
    6611065248783,
    1396281677105899,
    414864951055853499,
    171850728381587059351,
    98484324257128207032183,
    77567171020440688353049939,
    83480529785490157813844256579,
    122152541250295322862941281269151,
    241939392597201176602897820148085023,
];

/// Total orders: every way to continue the sequence `seq` with the elements not yet in it.
fn extend_sequence(k: usize, seq: &mut Vec<usize>, f: &mut dyn FnMut(&Pairs)) {
    if seq.len() == k {
        let pairs: Vec<(usize, usize)> = seq
            .iter()
            .enumerate()
            .flat_map(|(i, &a)| seq[i + 1..].iter().map(move |&b| (a, b)))
            .collect();
        f(&pairs);
        return;
    }
    for e in 0..k {
        if !seq.contains(&e) {
            seq.push(e);
            extend_sequence(k, seq, f);
            seq.pop();
        }
    }
}

/// Partial orders, given one on `0..m` (`above[x]`: the elements after `x`): every way to add
/// element `m` after a down-closed set and before an up-closed set, with each element of the first
/// already before each element of the second. Every partial order on `0..k` arises exactly once.
fn extend_poset(k: usize, above: &mut Vec<Set>, f: &mut dyn FnMut(&Pairs)) {
    let m = above.len();
    if m == k {
        let pairs: Vec<(usize, usize)> = above
            .iter()
            .enumerate()
            .flat_map(|(a, after)| after.iter().map(move |b| (a, b)))
            .collect();
        f(&pairs);
        return;
    }
    let all = Set::full(m);
    for_each_subset_of(all, &mut |down| {
        if !down_closed(above, down) {
            return;
        }
        let after_down = down.iter().fold(all.diff(down), |s, d| s.inter(above[d]));
        for_each_subset_of(after_down, &mut |up| {
            if !up_closed(above, up) {
                return;
            }
            down.iter().for_each(|d| above[d].insert(m));
            above.push(up);
            extend_poset(k, above, f);
            above.pop();
            down.iter()
                .for_each(|d| above[d] = above[d].diff(Set::singleton(m)));
        });
    });
}

/// Everything before a member of `s` is in `s`.
fn down_closed(above: &[Set], s: Set) -> bool {
    (0..above.len()).all(|y| s.contains(y) || above[y].inter(s).is_empty())
}

/// Everything after a member of `s` is in `s`.
fn up_closed(above: &[Set], s: Set) -> bool {
    s.iter().all(|u| above[u].diff(s).is_empty())
}

/// Every subset of `mask`.
fn for_each_subset_of(mask: Set, f: &mut dyn FnMut(Set)) {
    let mut sub = mask.0;
    loop {
        f(Set(sub));
        if sub == 0 {
            return;
        }
        sub = (sub - 1) & mask.0;
    }
}

/// Call `f` on every way to split `k` arrivals at a barrier that needs `count` threads into
/// generations.
///
/// Each way gives the generation number of each arrival (`None`: the arrival is left over and its
/// thread blocks). Generations are unordered sets of exactly `count` arrivals; fewer than `count`
/// arrivals are left over only when no further generation can form.
pub(crate) fn for_each_generation(k: usize, count: usize, f: &mut dyn FnMut(&[Option<usize>])) {
    let count = count.max(1);
    assign(&mut vec![None; k], 0, k / count, count, f);
}

fn assign(
    cur: &mut Vec<Option<usize>>,
    g: usize,
    full: usize,
    count: usize,
    f: &mut dyn FnMut(&[Option<usize>]),
) {
    if g == full {
        f(cur);
        return;
    }
    let free: Vec<usize> = (0..cur.len()).filter(|&i| cur[i].is_none()).collect();
    for_each_subset(&free, count, &mut vec![], &mut |subset| {
        if !canonical(cur, subset, g) {
            return;
        }
        for &i in subset {
            cur[i] = Some(g);
        }
        assign(cur, g + 1, full, count, f);
        for &i in subset {
            cur[i] = None;
        }
    });
}

/// Generations are unordered: require each generation's smallest member to exceed the previous one's.
fn canonical(cur: &[Option<usize>], subset: &[usize], g: usize) -> bool {
    if g == 0 {
        return true;
    }
    let prev_min = (0..cur.len()).find(|&i| cur[i] == Some(g - 1));
    prev_min.is_none_or(|m| subset[0] > m)
}

/// Every `size`-element subset of `items` extending `chosen`, in increasing order.
fn for_each_subset(
    items: &[usize],
    size: usize,
    chosen: &mut Vec<usize>,
    f: &mut dyn FnMut(&[usize]),
) {
    if chosen.len() == size {
        f(chosen);
        return;
    }
    for (i, &first) in items.iter().enumerate() {
        if items.len() - i < size - chosen.len() {
            return;
        }
        chosen.push(first);
        for_each_subset(&items[i + 1..], size, chosen, f);
        chosen.pop();
    }
}

/// Ways to split `k` elements into unordered blocks (the Bell number, saturating): more than the
/// barrier generations of any barrier instances with `k` arrivals in all.
pub(crate) fn partition_count(k: usize) -> u128 {
    // The Bell triangle: each row starts with the previous row's last entry.
    let mut row = vec![1u128];
    for _ in 0..k {
        let mut next = vec![*row.last().expect("rows are not empty")];
        for &x in &row {
            let last = *next.last().expect("rows are not empty");
            next.push(last.saturating_add(x));
        }
        row = next;
    }
    row[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn visited(kind: CoKind, k: usize) -> Vec<Vec<(usize, usize)>> {
        let mut out = vec![];
        for_each_order(kind, k, &mut |p| out.push(p.to_vec()));
        out
    }

    fn generations(k: usize, count: usize) -> Vec<Vec<Option<usize>>> {
        let mut out = vec![];
        for_each_generation(k, count, &mut |g| out.push(g.to_vec()));
        out
    }

    #[test]
    fn total_orders_are_the_permutations() {
        let orders = visited(CoKind::Total, 3);
        assert_eq!(orders.len(), 6);
        assert!(orders.contains(&vec![(2, 0), (2, 1), (0, 1)]));
        assert_eq!(order_count(CoKind::Total, 3), 6);
        assert_eq!(order_count(CoKind::Total, 40), u128::MAX);
    }

    #[test]
    fn partial_orders_are_every_transitive_irreflexive_relation_once() {
        for k in 0..=5 {
            let orders = visited(CoKind::Partial, k);
            assert_eq!(
                orders.len() as u128,
                order_count(CoKind::Partial, k),
                "k = {k}"
            );
            let mut distinct = orders.clone();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), orders.len(), "k = {k}");
            for o in &orders {
                let r = crate::rel::Rel::from_pairs(k, o.iter().copied());
                assert!(r.plus() == r && r.is_irreflexive(), "{o:?}");
            }
        }
        let mut six = 0u128;
        for_each_order(CoKind::Partial, 6, &mut |_| six += 1);
        assert_eq!(six, order_count(CoKind::Partial, 6));
        assert_eq!(order_count(CoKind::Partial, 19), u128::MAX);
    }

    #[test]
    fn barrier_generations() {
        // 3 arrivals, quorum 2: choose which pair synchronises; the third blocks.
        assert_eq!(generations(3, 2).len(), 3);
        // 4 arrivals, quorum 2: the 3 pairings into two generations.
        assert_eq!(generations(4, 2).len(), 3);
        // Quorum larger than arrivals: everyone blocks.
        assert_eq!(generations(3, 4), vec![vec![None, None, None]]);
        assert_eq!(generations(2, 2), vec![vec![Some(0), Some(0)]]);
    }

    #[test]
    fn partitions_bound_generations() {
        let bell: Vec<u128> = (0..7).map(partition_count).collect();
        assert_eq!(bell, vec![1, 1, 2, 5, 15, 52, 203]);
        for k in 0..7 {
            for count in 1..=k {
                assert!(generations(k, count).len() as u128 <= partition_count(k));
            }
        }
        assert_eq!(partition_count(200), u128::MAX);
    }
}
