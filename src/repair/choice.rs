//! The cheapest choice of one rule per class that no refutation excludes, by dynamic programming
//! over the classes on the set of refutations still standing (`cheapest`).
//!
//! A refutation is a counterexample's verdict on the rules of its classes: the runner (or the
//! full search) saw it break a mapping with exactly those rules. It excludes every choice whose
//! rules for those classes are each at most as strong (`space::weaker_or_equal`), or, when
//! `exact`, equal to them: the target model is taken to be monotone — a stronger rule never lets
//! a compiled test show more (decision 013, and the test that checks it on the runner).
//!
//! Owns: `Refutation`, `cheapest`. Uses: `space` (the order between rules).
use super::space::weaker_or_equal;
use crate::mapping::TargetOp;

/// Choices excluded by one counterexample: those with each listed class's rule at most as
/// strong as the listed one (equal to it when `exact`).
#[derive(Clone, Debug)]
pub(crate) struct Refutation {
    /// (class index, rule) for each class of the counterexample.
    pub(crate) rules: Vec<(usize, Vec<TargetOp>)>,
    pub(crate) exact: bool,
}

/// The refutations a set of options leaves standing, one bit each.
type Standing = Vec<u64>;

/// The cheapest choice (one position per class into `options`, each list sorted by cost) that
/// no refutation excludes, with its cost; of several, the first when choices are ordered class by
/// class, each class's options in list order.
///
/// By dynamic programming over the classes: what is left to decide after the first `k` classes
/// is which refutations still stand (none of their chosen rules escapes them), so the least cost
/// of the rest is a function of `k` and that set, computed once each. A refutation standing after
/// its last class is chosen excludes the choice. Then each class takes the first option that
/// keeps the least total reachable.
pub(crate) fn cheapest(
    options: &[Vec<(u64, Vec<TargetOp>)>],
    refutations: &[Refutation],
) -> Option<(u64, Vec<usize>)> {
    let mut table = Table::new(options, refutations);
    let all: Standing = {
        let mut bits = vec![0u64; refutations.len().div_ceil(64)];
        (0..refutations.len()).for_each(|r| bits[r / 64] |= 1 << (r % 64));
        bits
    };
    let least = table.least(0, &all)?;
    let (mut standing, mut spent, mut chosen) = (all, 0, vec![]);
    for (k, class) in options.iter().enumerate() {
        let mut kept = None;
        for (i, (cost, _)) in class.iter().enumerate() {
            let left = table.after(k, i, &standing);
            if (table.least(k + 1, &left)).is_some_and(|rest| spent + cost + rest == least) {
                kept = Some((i, left));
                break;
            }
        }
        let (i, left) = kept.expect("some option keeps the least cost reachable");
        standing = left;
        spent += class[i].0;
        chosen.push(i);
    }
    Some((least, chosen))
}

/// The memo of `cheapest`, and which refutations each option escapes.
struct Table<'a> {
    options: &'a [Vec<(u64, Vec<TargetOp>)>],
    /// Per class and option: the refutations that rule escapes (a rule not at most as strong as
    /// the refutation's for that class; for an exact one, not equal to it).
    escapes: Vec<Vec<Standing>>,
    /// Per k: the refutations whose classes all come before class k (those must not stand).
    closed_before: Vec<Standing>,
    memo: std::collections::HashMap<(usize, Standing), Option<u64>>,
}

impl<'a> Table<'a> {
    fn new(options: &'a [Vec<(u64, Vec<TargetOp>)>], refutations: &[Refutation]) -> Table<'a> {
        let words = refutations.len().div_ceil(64);
        let mut escapes: Vec<Vec<Standing>> = options
            .iter()
            .map(|o| vec![vec![0u64; words]; o.len()])
            .collect();
        let mut closed_before = vec![vec![0u64; words]; options.len() + 1];
        for (r, refutation) in refutations.iter().enumerate() {
            for (k, rule) in &refutation.rules {
                for (i, (_, mine)) in options[*k].iter().enumerate() {
                    let excluded = match refutation.exact {
                        true => mine == rule,
                        false => weaker_or_equal(mine, rule),
                    };
                    if !excluded {
                        escapes[*k][i][r / 64] |= 1 << (r % 64);
                    }
                }
            }
            let after_last = refutation
                .rules
                .iter()
                .map(|(k, _)| k + 1)
                .max()
                .unwrap_or(0);
            for closed in &mut closed_before[after_last..] {
                closed[r / 64] |= 1 << (r % 64);
            }
        }
        Table {
            options,
            escapes,
            closed_before,
            memo: Default::default(),
        }
    }

    /// The refutations still standing once class `k` takes option `i`.
    fn after(&self, k: usize, i: usize, standing: &Standing) -> Standing {
        let escaped = &self.escapes[k][i];
        standing.iter().zip(escaped).map(|(s, e)| s & !e).collect()
    }

    /// The least cost of choosing classes `k..` so that no refutation stands at the end, given
    /// those `standing` after the first `k`; `None` when there is no such choice.
    fn least(&mut self, k: usize, standing: &Standing) -> Option<u64> {
        let closed = &self.closed_before[k];
        if standing.iter().zip(closed).any(|(s, c)| s & c != 0) {
            return None;
        }
        if k == self.options.len() {
            return Some(0);
        }
        let key = (k, standing.clone());
        if let Some(&known) = self.memo.get(&key) {
            return known;
        }
        let mut best: Option<u64> = None;
        for i in 0..self.options[k].len() {
            let cost = self.options[k][i].0;
            if best.is_some_and(|b| cost >= b) {
                break;
            }
            let left = self.after(k, i, standing);
            if let Some(rest) = self.least(k + 1, &left) {
                best = Some(best.map_or(cost + rest, |b| b.min(cost + rest)));
            }
        }
        self.memo.insert(key, best);
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::OpKind;
    use crate::vocab::Tag;

    fn load(sem: Tag, scope: Tag) -> Vec<TargetOp> {
        vec![TargetOp::new(OpKind::Load, sem, Some(scope))]
    }

    #[test]
    fn the_cheapest_choice_no_refutation_excludes() {
        let options = vec![
            vec![
                (2, load(Tag::Rlx, Tag::Cta)),
                (3, load(Tag::Rlx, Tag::Gpu)),
                (4, load(Tag::Acq, Tag::Cta)),
            ],
            vec![(2, load(Tag::Rlx, Tag::Cta)), (5, load(Tag::Acq, Tag::Sys))],
        ];
        assert_eq!(cheapest(&options, &[]), Some((4, vec![0, 0])));
        // Class 0 at most relaxed.gpu, with class 1 at most relaxed.cta, is refuted: class 0 must
        // become acquire (4 + 2), cheaper than class 1 becoming acquire.sys (2 + 5).
        let r = Refutation {
            rules: vec![(0, load(Tag::Rlx, Tag::Gpu)), (1, load(Tag::Rlx, Tag::Cta))],
            exact: false,
        };
        assert_eq!(
            cheapest(&options, std::slice::from_ref(&r)),
            Some((6, vec![2, 0]))
        );
        let exact = Refutation {
            rules: vec![(0, load(Tag::Acq, Tag::Cta)), (1, load(Tag::Rlx, Tag::Cta))],
            exact: true,
        };
        assert_eq!(
            cheapest(&options, &[r.clone(), exact.clone()]),
            Some((7, vec![0, 1]))
        );
        let all = Refutation {
            rules: vec![(1, load(Tag::Acq, Tag::Sys))],
            exact: false,
        };
        assert_eq!(cheapest(&options, &[r, exact, all]), None);
    }

    /// Every choice in the search's order (classes in order, each list in order).
    fn all_choices(sizes: &[usize]) -> Vec<Vec<usize>> {
        sizes.iter().fold(vec![vec![]], |acc, &m| {
            acc.into_iter()
                .flat_map(|c| {
                    (0..m).map(move |i| {
                        let mut c = c.clone();
                        c.push(i);
                        c
                    })
                })
                .collect()
        })
    }

    #[test]
    fn the_first_cheapest_choice_of_the_full_enumeration() {
        let pool = [
            load(Tag::Rlx, Tag::Cta),
            load(Tag::Rlx, Tag::Gpu),
            load(Tag::Acq, Tag::Cta),
            load(Tag::Rlx, Tag::Sys),
            load(Tag::Acq, Tag::Gpu),
            load(Tag::Acq, Tag::Sys),
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for _ in 0..2_000 {
            let classes = 1 + next(4) as usize;
            let options: Vec<Vec<(u64, Vec<TargetOp>)>> = (0..classes)
                .map(|_| {
                    let mut o: Vec<(u64, Vec<TargetOp>)> = (0..1 + next(4))
                        .map(|_| (next(6), pool[next(6) as usize].clone()))
                        .collect();
                    o.sort_by_key(|(c, _)| *c);
                    o
                })
                .collect();
            let refutations: Vec<Refutation> = (0..next(5))
                .map(|_| {
                    let mut ks: Vec<usize> = (0..classes).filter(|_| next(2) == 0).collect();
                    if ks.is_empty() {
                        ks.push(next(classes as u64) as usize);
                    }
                    Refutation {
                        rules: ks
                            .iter()
                            .map(|&k| (k, pool[next(6) as usize].clone()))
                            .collect(),
                        exact: next(3) == 0,
                    }
                })
                .collect();
            let excluded = |choice: &[usize]| {
                refutations.iter().any(|r| {
                    r.rules.iter().all(|(k, rule)| {
                        let mine = &options[*k][choice[*k]].1;
                        if r.exact {
                            mine == rule
                        } else {
                            weaker_or_equal(mine, rule)
                        }
                    })
                })
            };
            let sizes: Vec<usize> = options.iter().map(Vec::len).collect();
            let mut expected: Option<(u64, Vec<usize>)> = None;
            for choice in all_choices(&sizes).into_iter().filter(|c| !excluded(c)) {
                let cost = choice
                    .iter()
                    .enumerate()
                    .map(|(k, &i)| options[k][i].0)
                    .sum();
                if expected.as_ref().is_none_or(|(b, _)| cost < *b) {
                    expected = Some((cost, choice));
                }
            }
            assert_eq!(
                cheapest(&options, &refutations),
                expected,
                "{options:?} {refutations:?}"
            );
        }
    }
}
