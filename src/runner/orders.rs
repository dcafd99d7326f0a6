//! The orders the runner enumerates: coherence (total or partial) and barrier generations.
use crate::rel::Rel;

/// Every strict total order on `k` elements, as lists of element indices in order.
pub fn permutations(k: usize) -> Vec<Vec<usize>> {
    if k == 0 {
        return vec![vec![]];
    }
    let mut out = vec![];
    for p in permutations(k - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, k - 1);
            out.push(q);
        }
    }
    out
}

/// Every strict partial order on `k` elements, as `Rel`s over `0..k`.
pub fn partial_orders(k: usize) -> Vec<Rel> {
    let pairs: Vec<(usize, usize)> = (0..k)
        .flat_map(|a| (a + 1..k).map(move |b| (a, b)))
        .collect();
    let mut out = vec![];
    let choices = 3usize.pow(pairs.len() as u32);
    for mut code in 0..choices {
        let mut r = Rel::empty(k);
        for &(a, b) in &pairs {
            match code % 3 {
                1 => r.insert(a, b),
                2 => r.insert(b, a),
                _ => {}
            }
            code /= 3;
        }
        if r.plus() == r {
            out.push(r);
        }
    }
    out
}

/// Ways to split `k` arrivals at a barrier that needs `count` threads into generations.
///
/// Returns, for each way, the generation number of each arrival (`None`: the arrival is left over
/// and its thread blocks). Generations are unordered sets of exactly `count` arrivals; fewer than
/// `count` arrivals are left over only when no further generation can form.
pub fn generations(k: usize, count: usize) -> Vec<Vec<Option<usize>>> {
    let count = count.max(1);
    let full = k / count;
    let mut out = vec![];
    assign(&mut vec![None; k], 0, full, count, &mut out);
    out
}

fn assign(
    cur: &mut Vec<Option<usize>>,
    g: usize,
    full: usize,
    count: usize,
    out: &mut Vec<Vec<Option<usize>>>,
) {
    if g == full {
        out.push(cur.clone());
        return;
    }
    let free: Vec<usize> = (0..cur.len()).filter(|&i| cur[i].is_none()).collect();
    for subset in subsets(&free, count) {
        if !canonical(cur, &subset, g) {
            continue;
        }
        for &i in &subset {
            cur[i] = Some(g);
        }
        assign(cur, g + 1, full, count, out);
        for &i in &subset {
            cur[i] = None;
        }
    }
}

/// Generations are unordered: require each generation's smallest member to exceed the previous one's.
fn canonical(cur: &[Option<usize>], subset: &[usize], g: usize) -> bool {
    if g == 0 {
        return true;
    }
    let prev_min = (0..cur.len()).find(|&i| cur[i] == Some(g - 1));
    prev_min.is_none_or(|m| subset[0] > m)
}

fn subsets(items: &[usize], size: usize) -> Vec<Vec<usize>> {
    if size == 0 {
        return vec![vec![]];
    }
    if items.len() < size {
        return vec![];
    }
    let mut out = vec![];
    for (i, &first) in items.iter().enumerate() {
        for mut rest in subsets(&items[i + 1..], size - 1) {
            rest.insert(0, first);
            out.push(rest);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_of_orders() {
        assert_eq!(permutations(3).len(), 6);
        // Number of labelled posets: 1, 1, 3, 19, 219.
        let counts: Vec<usize> = (0..5).map(|k| partial_orders(k).len()).collect();
        assert_eq!(counts, vec![1, 1, 3, 19, 219]);
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
}
