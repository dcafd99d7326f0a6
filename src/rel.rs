//! Concrete sets and relations over the events of one execution, as bit matrices.
//!
//! Owns: `Set`, `Rel` and the relational algebra of cat (union, composition, closure, …) on them.
//! Uses nothing else in the crate. Executions have at most `MAX_EVENTS` events; the litmus runner
//! refuses larger tests with a clear error rather than truncating.

/// The most events one concrete execution may have (one bit per event in a `u128`).
pub(crate) const MAX_EVENTS: usize = 128;

/// A set of events, one bit per event index.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Set(pub u128);

/// The set of the given event indices.
impl FromIterator<usize> for Set {
    fn from_iter<I: IntoIterator<Item = usize>>(it: I) -> Set {
        it.into_iter()
            .fold(Set::EMPTY, |s, e| s.union(Set::singleton(e)))
    }
}

impl Set {
    /// The set with no event.
    pub const EMPTY: Set = Set(0);

    /// All events `0..n`.
    pub fn full(n: usize) -> Set {
        if n >= 128 {
            Set(u128::MAX)
        } else {
            Set((1u128 << n) - 1)
        }
    }
    /// The set holding event `e` alone.
    pub fn singleton(e: usize) -> Set {
        Set(1u128 << e)
    }
    /// Whether event `e` is in the set.
    pub fn contains(self, e: usize) -> bool {
        self.0 >> e & 1 == 1
    }
    /// Add event `e` to the set.
    pub fn insert(&mut self, e: usize) {
        self.0 |= 1u128 << e;
    }
    /// Events in either set (`|` in cat).
    pub fn union(self, o: Set) -> Set {
        Set(self.0 | o.0)
    }
    /// Events in both sets (`&` in cat).
    pub fn inter(self, o: Set) -> Set {
        Set(self.0 & o.0)
    }
    /// Events of `self` not in `o` (`\` in cat).
    pub fn diff(self, o: Set) -> Set {
        Set(self.0 & !o.0)
    }
    pub(crate) fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub(crate) fn len(self) -> usize {
        self.0.count_ones() as usize
    }
    /// The set's events in increasing index order.
    pub fn iter(self) -> impl Iterator<Item = usize> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let e = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(e)
        })
    }
}

/// A binary relation over events `0..n`: `rows[a]` is the set of `b` with `(a, b)` in the relation.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Rel {
    rows: Vec<Set>,
}

impl Rel {
    /// The relation over events `0..n` with no pair.
    pub fn empty(n: usize) -> Rel {
        Rel {
            rows: vec![Set::EMPTY; n],
        }
    }
    /// The number of events it is over.
    pub(crate) fn n(&self) -> usize {
        self.rows.len()
    }

    /// `id` restricted to `s`, written `[s]` in cat.
    pub(crate) fn id_on(n: usize, s: Set) -> Rel {
        let mut r = Rel::empty(n);
        for e in s.iter() {
            r.rows[e].insert(e);
        }
        r
    }
    /// The cartesian product `a * b`.
    pub fn product(n: usize, a: Set, b: Set) -> Rel {
        let mut r = Rel::empty(n);
        for e in a.iter() {
            r.rows[e] = b;
        }
        r
    }
    /// The relation over events `0..n` holding exactly the given `(a, b)` pairs.
    pub fn from_pairs(n: usize, pairs: impl IntoIterator<Item = (usize, usize)>) -> Rel {
        let mut r = Rel::empty(n);
        for (a, b) in pairs {
            r.insert(a, b);
        }
        r
    }
    pub(crate) fn size(&self) -> usize {
        self.rows.len()
    }
    /// Add the pair `(a, b)`.
    pub fn insert(&mut self, a: usize, b: usize) {
        self.rows[a].insert(b);
    }
    /// Whether `(a, b)` is in the relation.
    pub fn contains(&self, a: usize, b: usize) -> bool {
        self.rows[a].contains(b)
    }
    pub(crate) fn row(&self, a: usize) -> Set {
        self.rows[a]
    }
    /// The relation's pairs, ordered by first then second event.
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.rows
            .iter()
            .enumerate()
            .flat_map(|(a, row)| row.iter().map(move |b| (a, b)))
    }
    /// Whether the relation holds no pair.
    pub fn is_empty(&self) -> bool {
        self.rows.iter().all(|r| r.is_empty())
    }
    fn zip(&self, o: &Rel, f: impl Fn(Set, Set) -> Set) -> Rel {
        Rel {
            rows: self
                .rows
                .iter()
                .zip(&o.rows)
                .map(|(&a, &b)| f(a, b))
                .collect(),
        }
    }
    pub(crate) fn union(&self, o: &Rel) -> Rel {
        self.zip(o, Set::union)
    }
    pub(crate) fn inter(&self, o: &Rel) -> Rel {
        self.zip(o, Set::inter)
    }
    /// Pairs of `self` not in `o` (`\` in cat); both must be over the same `n` events.
    pub fn diff(&self, o: &Rel) -> Rel {
        self.zip(o, Set::diff)
    }
    /// Complement with respect to all pairs of the `n` events.
    pub(crate) fn complement(&self) -> Rel {
        let full = Set::full(self.size());
        Rel {
            rows: self.rows.iter().map(|&r| full.diff(r)).collect(),
        }
    }
    /// Relational composition `self ; o`.
    pub fn seq(&self, o: &Rel) -> Rel {
        let rows = self
            .rows
            .iter()
            .map(|row| row.iter().fold(Set::EMPTY, |acc, m| acc.union(o.rows[m])))
            .collect();
        Rel { rows }
    }
    /// The converse relation `self^-1`: `(b, a)` for each pair `(a, b)`.
    pub fn inverse(&self) -> Rel {
        Rel::from_pairs(self.size(), self.pairs().map(|(a, b)| (b, a)))
    }
    /// Transitive closure `self^+` (Warshall's algorithm on rows).
    pub fn plus(&self) -> Rel {
        let mut rows = self.rows.clone();
        for k in 0..rows.len() {
            let rk = rows[k];
            for row in rows.iter_mut() {
                if row.contains(k) {
                    *row = row.union(rk);
                }
            }
        }
        Rel { rows }
    }
    /// Reflexive closure `self?` over all `n` events.
    pub(crate) fn opt(&self) -> Rel {
        self.union(&Rel::id_on(self.size(), Set::full(self.size())))
    }
    /// Reflexive-transitive closure `self^*` over all `n` events.
    pub(crate) fn star(&self) -> Rel {
        self.plus().opt()
    }
    pub(crate) fn domain(&self) -> Set {
        Set::from_iter(
            self.rows
                .iter()
                .enumerate()
                .filter(|(_, r)| !r.is_empty())
                .map(|(a, _)| a),
        )
    }
    pub(crate) fn range(&self) -> Set {
        self.rows.iter().fold(Set::EMPTY, |acc, &r| acc.union(r))
    }
    pub(crate) fn is_irreflexive(&self) -> bool {
        self.rows.iter().enumerate().all(|(a, r)| !r.contains(a))
    }
    pub(crate) fn is_acyclic(&self) -> bool {
        self.plus().is_irreflexive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closure_of_a_chain_is_transitive_and_acyclic() {
        let r = Rel::from_pairs(4, [(0, 1), (1, 2), (2, 3)]);
        let p = r.plus();
        assert!(p.contains(0, 3) && p.contains(1, 3) && !p.contains(3, 0));
        assert!(r.is_acyclic());
        assert!(!r.union(&Rel::from_pairs(4, [(3, 0)])).is_acyclic());
    }

    #[test]
    fn composition_and_inverse() {
        let r = Rel::from_pairs(3, [(0, 1)]);
        let s = Rel::from_pairs(3, [(1, 2), (0, 2)]);
        assert_eq!(r.seq(&s), Rel::from_pairs(3, [(0, 2)]));
        assert_eq!(s.inverse(), Rel::from_pairs(3, [(2, 1), (2, 0)]));
        assert_eq!(s.domain(), Set::from_iter([0, 1]));
        assert_eq!(s.range(), Set::singleton(2));
    }

    #[test]
    fn full_set_of_128_events() {
        assert_eq!(Set::full(128).len(), 128);
        assert_eq!(Set::full(3), Set::from_iter([0, 1, 2]));
    }
}
