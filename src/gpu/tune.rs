//! Tuning (`gpu run --tune`), for either target: parameter sets drawn at random around the
//! harness's own (`Params::random`), each run, and the one that shows the counted outcome most
//! often per second picked.
//!
//! Owns: `Trial`, `tune`, `render_trials`.
use std::fmt::Write as _;

use rand::rngs::StdRng;
use rand::SeedableRng;

use super::params::Params;
use super::stats::Tally;
use crate::diag::Result;

/// One parameter set tried by `tune`.
#[derive(Clone, Debug)]
pub(crate) struct Trial {
    pub(crate) params: Params,
    pub(crate) tally: Tally,
}

/// `k` parameter sets drawn at random around `base` (`Params::random`, generator seeded with
/// `base.seed`), each run by `run` for `base.iterations` launches; the trials, and the index of
/// the one with the most counted outcomes per second (`None` if none saw the outcome).
pub(crate) fn tune(
    base: &Params,
    k: usize,
    run: &mut dyn FnMut(&Params) -> Result<Tally>,
) -> Result<(Vec<Trial>, Option<usize>)> {
    let mut rng = StdRng::seed_from_u64(base.seed);
    let mut trials = Vec::with_capacity(k);
    for _ in 0..k {
        let params = Params::random(&mut rng, base);
        let tally = run(&params)?;
        trials.push(Trial { params, tally });
    }
    let best = trials
        .iter()
        .enumerate()
        .filter(|(_, t)| t.tally.counted > 0)
        .max_by(|(i, a), (j, b)| {
            a.tally
                .per_second()
                .total_cmp(&b.tally.per_second())
                .then(j.cmp(i))
        })
        .map(|(i, _)| i);
    Ok((trials, best))
}

/// One line per trial: its Table 3 parameters and its counted outcomes per second.
pub(crate) fn render_trials(trials: &[Trial], best: Option<usize>) -> String {
    let mut s = format!(
        "  {:<5} {:<7} {:<7} {:>7} {:>6} {:<12} {:<12} {:>5} {:>7} {:<11} {:>6} {:>8} {:>9} {:>10}\n",
        "trial",
        "shuffle",
        "barrier",
        "timeout",
        "jitter",
        "stress",
        "pre-stress",
        "line",
        "targets",
        "assignment",
        "stride",
        "counted",
        "instances",
        "per second"
    );
    for (i, t) in trials.iter().enumerate() {
        let p = &t.params;
        let stress = |on: bool, pattern| {
            if on {
                kebab(pattern)
            } else {
                "off".to_string()
            }
        };
        let _ = writeln!(
            s,
            "{} {i:<5} {:<7} {:<7} {:>7} {:>6} {:<12} {:<12} {:>5} {:>7} {:<11} {:>6} {:>8} {:>9} {:>10.1}",
            if Some(i) == best { '*' } else { ' ' },
            on_off(p.thread_shuffle),
            on_off(p.barrier),
            p.barrier_timeout,
            p.barrier_jitter,
            stress(p.mem_stress, p.mem_stress_pattern),
            stress(p.pre_stress, p.pre_stress_pattern),
            p.stress_line_size,
            p.stress_target_lines,
            kebab(p.stress_assignment),
            p.mem_stride,
            t.tally.counted,
            t.tally.instances,
            t.tally.per_second()
        );
    }
    s
}

fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

/// A parameter value as the parameter file spells it (`st-ld`, `round-robin`).
fn kebab<T: serde::Serialize>(v: T) -> String {
    let text = toml::Value::try_from(v)
        .map(|v| v.to_string())
        .unwrap_or_default();
    text.trim_matches('"').to_string()
}
