//! The cheapest choice of one rule per class that no refutation excludes, by branch and bound:
//! classes in order, each class's rules cheapest first, a branch cut as soon as a refutation
//! whose classes are all chosen excludes it, or when it cannot beat the best choice found.
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

impl Refutation {
    fn excludes(&self, options: &[Vec<(u64, Vec<TargetOp>)>], chosen: &[usize]) -> bool {
        self.rules.iter().all(|(k, rule)| {
            let mine = &options[*k][chosen[*k]].1;
            match self.exact {
                true => mine == rule,
                false => weaker_or_equal(mine, rule),
            }
        })
    }
}

/// The cheapest choice (one position per class into `options`, each list sorted by cost, the
/// first of each the input's rule or cheaper) that no refutation excludes, with its cost.
pub(crate) fn cheapest(
    options: &[Vec<(u64, Vec<TargetOp>)>],
    refutations: &[Refutation],
) -> Option<(u64, Vec<usize>)> {
    let n = options.len();
    // Refutations are checked once their last class is chosen.
    let mut closing: Vec<Vec<&Refutation>> = vec![vec![]; n];
    for r in refutations {
        if let Some(last) = r.rules.iter().map(|(k, _)| *k).max() {
            closing[last].push(r);
        }
    }
    // The least the classes from k on can add.
    let mut rest = vec![0u64; n + 1];
    for k in (0..n).rev() {
        rest[k] = rest[k + 1] + options[k][0].0;
    }
    let mut search = Search {
        options,
        closing,
        rest,
        chosen: vec![],
        best: None,
    };
    search.branch(0, 0);
    search.best
}

struct Search<'a> {
    options: &'a [Vec<(u64, Vec<TargetOp>)>],
    closing: Vec<Vec<&'a Refutation>>,
    rest: Vec<u64>,
    chosen: Vec<usize>,
    best: Option<(u64, Vec<usize>)>,
}

impl Search<'_> {
    fn branch(&mut self, k: usize, cost: u64) {
        if k == self.options.len() {
            self.best = Some((cost, self.chosen.clone()));
            return;
        }
        for (i, (c, _)) in self.options[k].iter().enumerate() {
            if self
                .best
                .as_ref()
                .is_some_and(|(b, _)| cost + c + self.rest[k + 1] >= *b)
            {
                break;
            }
            self.chosen.push(i);
            let excluded = self.closing[k]
                .iter()
                .any(|r| r.excludes(self.options, &self.chosen));
            if !excluded {
                self.branch(k + 1, cost + c);
            }
            self.chosen.pop();
        }
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
        assert_eq!(cheapest(&options, &[r.clone()]), Some((6, vec![2, 0])));
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
}
