//! What a harness run counted, and the statistics of Kirkham et al., "Foundations of Empirical
//! Memory Consistency Testing" (OOPSLA 2020), §1.1, over it.
//!
//! Owns: `Tally` (per-bin counts, the counted outcome, instances, launches, time), the
//! statistics of one outcome (`OutcomeStats`: `rate`, `reproducibility`, a 95 % interval —
//! `upper_bound_95` when it was not seen, the Wilson score interval when it was —,
//! `instances_for_reproducibility`) and `render_counted`, the report's lines on the counted
//! outcome (`results` prints the rest).
//!
//! Definitions. N is the number of test instances run (the paper's iterations: one test
//! execution each), n the number of them that showed the counted outcome. The rate is n/N.
//! P_rep, the probability that running N instances again shows the outcome at least once when
//! its true rate is the observed one, is 1 − (1 − n/N)^N ≈ 1 − e^−n (paper, eq. 1–2); we print
//! 1 − e^−n, which depends on n alone. When n = 0, the rate's one-sided 95 % upper bound is the
//! p with (1 − p)^N = 0.05, i.e. 1 − 0.05^(1/N) (≈ 3/N, the rule of three). Instances within one
//! launch are not independent draws; the statistics treat them as if they were, as the paper
//! does, and the report also gives the number of launches that showed the outcome. For an outcome
//! seen n > 0 times the 95 % interval is Wilson's score interval (Wilson 1927), which unlike the
//! normal approximation stays inside [0, 1] and is not degenerate at small n.
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::outcome::Space;

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
    /// Per launch: instances run, instances that showed the counted outcome.
    pub per_launch: Vec<(u32, u32)>,
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
        let counted = counted.first().copied().unwrap_or(0);
        self.counted += u64::from(counted);
        self.per_launch.push((instances, counted));
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

/// An outcome's count over a run, and its statistics.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutcomeStats {
    /// Instances that showed the outcome.
    pub n: u64,
    /// n / N.
    pub rate: f64,
    /// 1 − e^−n.
    pub p_rep: f64,
    /// 95 % interval on the rate: for n = 0, [0, 1 − 0.05^(1/N)] (exact, one-sided); for n > 0,
    /// the Wilson score interval.
    pub interval_95: (f64, f64),
}

impl OutcomeStats {
    /// The statistics of `n` of `total` instances.
    pub fn of(n: u64, total: u64) -> OutcomeStats {
        let interval_95 = if n == 0 {
            (0.0, upper_bound_95(total))
        } else {
            wilson_95(n, total)
        };
        OutcomeStats {
            n,
            rate: rate(n, total),
            p_rep: reproducibility(n),
            interval_95,
        }
    }
}

/// The Wilson score interval at 95 % (z = 1.96) for n of `total`.
fn wilson_95(n: u64, total: u64) -> (f64, f64) {
    const Z: f64 = 1.959964;
    let total = total.max(1) as f64;
    let p = n as f64 / total;
    let z2 = Z * Z;
    let centre = (p + z2 / (2.0 * total)) / (1.0 + z2 / total);
    let half = Z / (1.0 + z2 / total) * (p * (1.0 - p) / total + z2 / (4.0 * total * total)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The lines on the counted outcome: not observed (with its bound) or observed (rate, launches,
/// P_rep, instances needed for P_rep = 0.95).
pub(crate) fn render_counted(
    c: &OutcomeStats,
    total: u64,
    launches_with: u64,
    launches: u64,
) -> String {
    let mut s = String::new();
    if c.n == 0 {
        let _ = writeln!(
            s,
            "  not observed in {total} instances ({launches} launches)\n  95 % upper bound on its rate: {:.3e} (1 - 0.05^(1/N))",
            c.interval_95.1
        );
        return s;
    }
    let _ = writeln!(
        s,
        "  observed {} times in {total} instances: rate {:.3e} (95 % interval {:.3e} to {:.3e}); in {launches_with} of {launches} launches",
        c.n, c.rate, c.interval_95.0, c.interval_95.1
    );
    let _ = writeln!(
        s,
        "  reproducibility P_rep = 1 - e^-n = {:.4} (n = {})",
        c.p_rep, c.n
    );
    if let Some(n) = instances_for_reproducibility(0.95, c.rate) {
        let _ = writeln!(s, "  instances for P_rep = 0.95 at this rate: {}", n.ceil());
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
        assert_eq!((t.counted, t.instances, t.launches), (1, 12, 2));
        assert_eq!(t.per_launch, [(6, 1), (6, 0)]);
        assert_eq!(t.per_second(), 1.0);
    }
}

#[cfg(test)]
mod interval_tests {
    use super::*;

    #[test]
    fn the_wilson_interval_holds_the_rate_and_narrows_with_instances() {
        // Agresti & Coull (1998), Table 1 setting: 1 of 10 gives Wilson [0.0179, 0.4042].
        let (lo, hi) = wilson_95(1, 10);
        assert!(
            (lo - 0.0179).abs() < 1e-3 && (hi - 0.4042).abs() < 1e-3,
            "{lo} {hi}"
        );
        let wide = wilson_95(10, 1000);
        let narrow = wilson_95(1000, 100_000);
        assert!(wide.0 < 0.01 && 0.01 < wide.1);
        assert!(narrow.1 - narrow.0 < wide.1 - wide.0);
        assert_eq!(
            OutcomeStats::of(0, 1000).interval_95.1,
            upper_bound_95(1000)
        );
    }
}
