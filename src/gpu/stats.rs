//! What a harness run counted, and the statistics of Kirkham et al., "Foundations of Empirical
//! Memory Consistency Testing" (OOPSLA 2020), §1.1, over it.
//!
//! Owns: `Tally` (per-bin counts, the counted outcome, instances, launches, time), the
//! statistics (`rate`, `reproducibility`, `upper_bound_95`, `instances_for_reproducibility`) and
//! `render`, the printed report.
//!
//! Definitions. N is the number of test instances run (the paper's iterations: one test
//! execution each), n the number of them that showed the counted outcome. The rate is n/N.
//! P_rep, the probability that running N instances again shows the outcome at least once when
//! its true rate is the observed one, is 1 − (1 − n/N)^N ≈ 1 − e^−n (paper, eq. 1–2); we print
//! 1 − e^−n, which depends on n alone. When n = 0, the rate's one-sided 95 % upper bound is the
//! p with (1 − p)^N = 0.05, i.e. 1 − 0.05^(1/N) (≈ 3/N, the rule of three). Instances within one
//! launch are not independent draws; the statistics treat them as if they were, as the paper
//! does, and the report also gives the number of launches that showed the outcome.
use std::fmt::Write as _;

use super::outcome::Space;
use crate::litmus::Condition;

/// Counts over a run's launches.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    /// Per bin of the space, then the bin outside the domains.
    pub bins: Vec<u64>,
    /// Instances that showed the counted outcome.
    pub counted: u64,
    /// Test instances run over all launches.
    pub instances: u64,
    /// Launches run.
    pub launches: u64,
    /// Launches in which at least one instance showed the counted outcome.
    pub(crate) launches_with_counted: u64,
    /// Wall-clock seconds of the launches (tables, kernels and read-back).
    pub(crate) seconds: f64,
}

impl Tally {
    pub(crate) fn new(space: &Space) -> Tally {
        Tally {
            bins: vec![0; space.bins() + 1],
            ..Tally::default()
        }
    }

    /// Add one launch: its device histogram (bins, outside bin, counted) and its size.
    pub(crate) fn add_launch(&mut self, histogram: &[u32], instances: u32, seconds: f64) {
        let (bins, counted) = histogram.split_at(self.bins.len());
        for (total, n) in self.bins.iter_mut().zip(bins) {
            *total += u64::from(*n);
        }
        let counted = counted.first().copied().map_or(0, u64::from);
        self.counted += counted;
        self.launches_with_counted += u64::from(counted > 0);
        self.instances += u64::from(instances);
        self.launches += 1;
        self.seconds += seconds;
    }

    /// Counted outcomes per second of launches.
    pub(crate) fn per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.counted as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// n / N.
pub(crate) fn rate(n: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        n as f64 / total as f64
    }
}

/// P_rep = 1 − e^−n.
pub(crate) fn reproducibility(n: u64) -> f64 {
    1.0 - (-(n as f64)).exp()
}

/// The 95 % upper bound on the rate of an outcome not seen in `total` instances: 1 − 0.05^(1/N).
pub(crate) fn upper_bound_95(total: u64) -> f64 {
    if total == 0 {
        1.0
    } else {
        1.0 - 0.05f64.powf(1.0 / total as f64)
    }
}

/// Instances that reach P_rep = `p_rep` at `rate` (paper §1.1: N = log(1 − P_rep) / log(1 − p)).
pub(crate) fn instances_for_reproducibility(p_rep: f64, rate: f64) -> Option<f64> {
    (rate > 0.0 && rate < 1.0).then(|| (1.0 - p_rep).ln() / (1.0 - rate).ln())
}

/// The report of a run: the histogram (counted outcomes marked `*`), then the statistics.
pub(crate) fn render(
    space: &Space,
    condition: &Condition,
    condition_text: &str,
    t: &Tally,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} launches, {} instances, {:.2} s",
        t.launches, t.instances, t.seconds
    );
    s.push_str(&histogram(space, condition, t));
    let _ = writeln!(s, "counted outcome: {condition_text}");
    if t.counted == 0 {
        let _ = writeln!(
            s,
            "  not observed in {} instances ({} launches)\n  95 % upper bound on its rate: {:.3e} (1 - 0.05^(1/N); rule of three 3/N = {:.3e})",
            t.instances,
            t.launches,
            upper_bound_95(t.instances),
            3.0 / t.instances.max(1) as f64
        );
        return s;
    }
    let p = rate(t.counted, t.instances);
    let _ = writeln!(
        s,
        "  observed {} times in {} instances: rate {:.3e}; in {} of {} launches; {:.1} per second",
        t.counted,
        t.instances,
        p,
        t.launches_with_counted,
        t.launches,
        t.per_second()
    );
    let _ = writeln!(
        s,
        "  reproducibility P_rep = 1 - e^-n = {:.4} (n = {})",
        reproducibility(t.counted),
        t.counted
    );
    if let Some(n) = instances_for_reproducibility(0.95, p) {
        let _ = writeln!(s, "  instances for P_rep = 0.95 at this rate: {}", n.ceil());
    }
    s
}

/// One line per bin that occurred.
fn histogram(space: &Space, condition: &Condition, t: &Tally) -> String {
    let counted = super::outcome::counted(condition);
    let rows: Vec<(String, bool, u64)> = t
        .bins
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 0)
        .map(|(bin, n)| match space.values_of(bin) {
            Some(v) => (space.render(&v), space.satisfies(&counted, &v), *n),
            None => (
                "(a value outside every candidate execution)".to_string(),
                false,
                *n,
            ),
        })
        .collect();
    let width = rows.iter().map(|(r, _, _)| r.len()).max().unwrap_or(0);
    let mut s = String::new();
    for (row, hit, n) in rows {
        let mark = if hit { '*' } else { ' ' };
        let _ = writeln!(
            s,
            "  {mark} {row:<width$}  {n:>10}  {:>7.3} %",
            100.0 * rate(n, t.instances)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproducibility_matches_the_paper() {
        // §1.1: n = 1, 2, 3 give 63.21 %, 86.47 %, 95.02 %.
        let p: Vec<f64> = (1..=3).map(reproducibility).collect();
        assert!((p[0] - 0.6321).abs() < 1e-4 && (p[1] - 0.8647).abs() < 1e-4);
        assert!((p[2] - 0.9502).abs() < 1e-4);
    }

    #[test]
    fn the_upper_bound_is_near_the_rule_of_three() {
        let b = upper_bound_95(10_000);
        assert!((b - 2.9953e-4).abs() < 1e-7, "{b}");
        assert!(((1.0 - b).powi(10_000) - 0.05).abs() < 1e-9);
    }

    #[test]
    fn a_launch_adds_its_bins_and_counted_outcomes() {
        let mut t = Tally {
            bins: vec![0; 3],
            ..Tally::default()
        };
        t.add_launch(&[5, 1, 0, 1], 6, 0.5);
        t.add_launch(&[6, 0, 0, 0], 6, 0.5);
        assert_eq!(t.bins, [11, 1, 0]);
        assert_eq!(
            (t.counted, t.instances, t.launches, t.launches_with_counted),
            (1, 12, 2, 1)
        );
        assert_eq!(t.per_second(), 1.0);
    }
}
