//! One bound's thread shapes as they finish, in parallel: per open axiom, which shapes have
//! finished it and the counterexamples found so far. A counterexample is settled (and reported)
//! once every shape before it has finished the axiom, so the one reported is that of the first
//! shape in order, whichever worker finds it first; later shapes skip a settled axiom.
//!
//! Owns: `BoundProgress`. Uses: `outcome` (results and events), `shape_problem` (`ShapeAxiom`, `Ended`).
use std::collections::BTreeMap;

use super::outcome::{AxiomResult, Counterexample, Event, Observer, Statistics, Unfinished};
use super::shape_problem::{Ended, ShapeAxiom};
use crate::diag;

/// One bound's shapes as they finish, per open axiom (indexed `k`, in `open`'s order): which
/// shapes have finished it and the counterexamples found so far. A counterexample is settled
/// once every shape before it has finished the axiom, so the one reported is that of the first
/// shape in order, whichever worker finds it first; later shapes skip a settled axiom.
pub(super) struct BoundProgress {
    bound: usize,
    shapes: Vec<Vec<usize>>,
    done: usize,
    finished: Vec<Vec<bool>>,
    found: Vec<BTreeMap<usize, Counterexample>>,
    settled: Vec<bool>,
    totals: Vec<Statistics>,
    pub(super) error: Option<diag::Error>,
}

impl BoundProgress {
    pub(super) fn new(bound: usize, shapes: &[Vec<usize>], open: usize) -> BoundProgress {
        BoundProgress {
            bound,
            shapes: shapes.to_vec(),
            done: 0,
            finished: vec![vec![false; shapes.len()]; open],
            found: vec![BTreeMap::new(); open],
            settled: vec![false; open],
            totals: vec![Statistics::default(); open],
            error: None,
        }
    }

    /// Has a shape before `shape` a counterexample to axiom `k`? (Then `shape` need not look.)
    pub(super) fn settled_before(&self, k: usize, shape: usize) -> bool {
        self.found[k]
            .keys()
            .next()
            .is_some_and(|&first| first < shape)
    }

    pub(super) fn record(
        &mut self,
        shape: usize,
        k: usize,
        axiom: &str,
        outcome: diag::Result<ShapeAxiom>,
        observe: Observer,
    ) {
        let mut r = match outcome {
            Ok(r) => r,
            Err(e) => {
                self.error.get_or_insert(e);
                return;
            }
        };
        self.totals[k].add(&r.statistics);
        self.finished[k][shape] = r.ended == Ended::Finished;
        if let Some(cx) = r.take_counterexample(axiom, self.bound, &self.shapes[shape]) {
            self.found[k].insert(shape, cx);
        }
        self.settle(k, observe);
    }

    /// Report axiom `k`'s counterexample if every shape before it has finished.
    fn settle(&mut self, k: usize, observe: Observer) {
        let Some((&first, cx)) = self.found[k].iter().next() else {
            return;
        };
        if !self.settled[k] && self.finished[k][..first].iter().all(|&f| f) {
            self.settled[k] = true;
            observe(Event::Counterexample(cx));
        }
    }

    pub(super) fn shape_done(&mut self, observe: Observer) {
        self.done += 1;
        observe(Event::Shape {
            bound: self.bound,
            done: self.done,
            total: self.shapes.len(),
        });
    }

    /// Fold the bound into `results`; true if it was not finished (the check stopped). A
    /// counterexample found before a stop is reported even if shapes before it did not finish:
    /// the runner confirmed it, though a smaller shape of the bound might have given another.
    /// When the check stopped, an axiom that did finish this bound records the next one (of
    /// `next_shapes` shapes, if there is one) as unfinished with no shape done, never as if its
    /// search had ended here.
    pub(super) fn merge(
        mut self,
        open: &[usize],
        results: &mut [AxiomResult],
        next_shapes: Option<usize>,
        observe: Observer,
    ) -> bool {
        let mut stopped = false;
        let mut clean = vec![];
        for (k, &a) in open.iter().enumerate() {
            let res = &mut results[a];
            res.statistics.add(&self.totals[k]);
            if let Some((_, cx)) = std::mem::take(&mut self.found[k]).into_iter().next() {
                if !self.settled[k] {
                    observe(Event::Counterexample(&cx));
                }
                res.counterexample = Some(cx);
            } else if self.finished[k].iter().all(|&f| f) {
                res.clean_to = self.bound;
                clean.push(a);
            } else {
                stopped = true;
                res.unfinished = Some(Unfinished {
                    bound: self.bound,
                    shapes_done: self.finished[k].iter().filter(|&&f| f).count(),
                    shapes: self.shapes.len(),
                });
            }
        }
        if !clean.is_empty() {
            let names: Vec<String> = clean.iter().map(|&a| results[a].axiom.clone()).collect();
            observe(Event::Bound {
                bound: self.bound,
                clean: &names,
            });
        }
        if let (true, Some(shapes)) = (stopped, next_shapes) {
            for &a in &clean {
                results[a].unfinished = Some(Unfinished {
                    bound: self.bound + 1,
                    shapes_done: 0,
                    shapes,
                });
            }
        }
        stopped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(axiom: &str) -> AxiomResult {
        AxiomResult {
            axiom: axiom.into(),
            counterexample: None,
            clean_to: 4,
            statistics: Statistics::default(),
            unfinished: None,
        }
    }

    /// A timeout that falls after Coherence finished bound 5 but before Atomicity did (seen in
    /// CI): Coherence must say it stopped before bound 6, not read as a search that ended.
    #[test]
    fn an_axiom_that_finished_the_stopped_bound_records_the_next_as_not_started() {
        let shapes = vec![vec![5], vec![4, 1], vec![3, 2]];
        let mut level = BoundProgress::new(5, &shapes, 2);
        level.finished[0] = vec![true; 3];
        level.finished[1] = vec![true, false, true];
        let mut results = [result("Coherence"), result("Atomicity")];
        assert!(level.merge(&[0, 1], &mut results, Some(11), &|_| {}));
        assert_eq!(results[0].clean_to, 5);
        let not_started = Unfinished {
            bound: 6,
            shapes_done: 0,
            shapes: 11,
        };
        assert_eq!(results[0].unfinished, Some(not_started));
        assert_eq!(results[1].clean_to, 4);
        let during = Unfinished {
            bound: 5,
            shapes_done: 2,
            shapes: 3,
        };
        assert_eq!(results[1].unfinished, Some(during));
    }
}
