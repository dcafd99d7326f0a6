//! A shard plan: a check's units — each (bound, thread shape) with its axioms — assigned to N
//! shards by longest-processing-time over `estimated_cost`, and the plan's identity (a hash of
//! the mapping's and its models' text, the options, N and the cost model). A pure function of
//! those, so that every task of an array computes the same plan.
//!
//! Owns: `Plan`, `PlanUnit`, `plan`, `estimated_cost` (the measured table), `COST_MODEL`.
//! Uses: `search` (`work`: the units), `mapping` (its files), `solver` (`Stop`), `diag`. The file
//! format's name and version, and the options as it writes them, are hashed into the identity
//! too: `mod.rs` hands them in (`Written`), so that the plan does not import the format that
//! writes it.
use std::path::Path;

use crate::diag::{Error, Result};
use crate::mapping::Mapping;
use crate::search::{self, Options, Scope, ShapeUnit};
use crate::solver::Stop;

/// How a unit's cost is estimated (part of the plan's identity: a new estimate is a new plan).
pub const COST_MODEL: &str =
    "cost-1: seconds per shape measured on rc11-ptx-artifact.map at bound 6, x12 per event beyond";

/// A check split into shards: its units, each assigned to one shard.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The plan's identity: a hash of the mapping's and its models' text, the options, the
    /// number of shards and the cost model (`plan_id`).
    pub id: String,
    /// The mapping file, as the shards were given it.
    pub mapping: String,
    /// The number of shards.
    pub shards: usize,
    /// The check's options as given (the solver included; `stop` is not part of it).
    pub options: Options,
    /// The axioms checked, in the source model's order.
    pub axioms: Vec<String>,
    /// The bounds a check finishes one after another (natural counting: 1 to N; Alloy: N).
    pub bounds: Vec<usize>,
    /// What is searched, in terms of the mapping's classes.
    pub scope: Scope,
    /// How costs were estimated (`COST_MODEL`).
    pub cost_model: String,
    /// Every unit, in the check's order (bound, then shape order).
    pub units: Vec<PlanUnit>,
}

/// One thread shape of one bound, with its axioms, assigned to a shard.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanUnit {
    /// The (bound, shape).
    pub unit: ShapeUnit,
    /// The axioms searched on it (all of the check's: one SAT problem per shape serves them all).
    pub axioms: Vec<String>,
    /// Estimated seconds (`estimated_cost`).
    pub cost: f64,
    /// The shard that searches it, 1 to `Plan::shards`.
    pub shard: usize,
}

/// Estimated seconds for one shape with all its axioms: `MEASURED` for a shape of at most 6
/// events; beyond, `GROWTH` times the estimate of the shape with one event fewer in its largest
/// thread. Only the ratios matter: they balance the shards.
pub fn estimated_cost(shape: &[usize]) -> f64 {
    let mut shape: Vec<usize> = shape.iter().copied().filter(|&k| k > 0).collect();
    shape.sort_unstable_by(|a, b| b.cmp(a));
    if shape.is_empty() {
        return 0.0;
    }
    if let Some((_, secs)) = MEASURED.iter().find(|(s, _)| *s == shape.as_slice()) {
        return *secs;
    }
    shape[0] -= 1;
    GROWTH * estimated_cost(&shape)
}

/// Seconds per thread shape (building its SAT problem and searching it for Coherence, Atomicity
/// and SC), measured with `mapcheck check mappings/rc11-ptx-artifact.map --bound 6 --solver
/// cadical --shard 1/1` on 2 cores (decision 012).
const MEASURED: [(&[usize], f64); 29] = [
    (&[1], 0.00347),
    (&[2], 0.0112),
    (&[1, 1], 0.0117),
    (&[3], 0.019),
    (&[2, 1], 0.0251),
    (&[1, 1, 1], 0.0241),
    (&[4], 0.0566),
    (&[3, 1], 0.0847),
    (&[2, 2], 0.198),
    (&[2, 1, 1], 0.168),
    (&[1, 1, 1, 1], 0.0684),
    (&[5], 0.187),
    (&[4, 1], 0.5),
    (&[3, 2], 1.07),
    (&[3, 1, 1], 0.864),
    (&[2, 2, 1], 1.21),
    (&[2, 1, 1, 1], 0.996),
    (&[1, 1, 1, 1, 1], 0.458),
    (&[6], 0.613),
    (&[5, 1], 1.94),
    (&[4, 2], 9.66),
    (&[4, 1, 1], 3.55),
    (&[3, 3], 18.5),
    (&[3, 2, 1], 12.0),
    (&[3, 1, 1, 1], 5.08),
    (&[2, 2, 2], 8.48),
    (&[2, 2, 1, 1], 11.2),
    (&[2, 1, 1, 1, 1], 5.86),
    (&[1, 1, 1, 1, 1, 1], 4.55),
];

/// How much one more event multiplies a shape's cost (the measured totals grew 9.2× from bound
/// 4 to 5 and 15.4× from 5 to 6; 12 is about their geometric mean).
const GROWTH: f64 = 12.0;

/// The most shards a check is split into (far more than any cluster array; a plan read from a
/// file naming more is not one mapcheck made, and merging it would go through every shard).
pub(crate) const MAX_SHARDS: usize = 100_000;

/// How the shard files write a plan, as far as its identity hashes it: the format's name and
/// version (`mapcheck-shards 3`), and the options as the format writes them.
pub(super) struct Written {
    pub(super) format: String,
    pub(super) options: fn(&Options) -> String,
}

/// The plan of a check of `mapping` with `opts` in `shards` shards, its files written as `written`.
pub(super) fn plan(
    mapping: &Mapping,
    opts: &Options,
    shards: usize,
    written: &Written,
) -> Result<Plan> {
    if shards == 0 || shards > MAX_SHARDS {
        return Err(Error::file(
            "--shard",
            format!("the number of shards must be from 1 to {MAX_SHARDS}"),
        ));
    }
    if opts.first {
        return Err(Error::file(
            "--shard",
            "--first cannot be split into shards (each shard would stop at its own first bound)",
        ));
    }
    let work = search::work(mapping, opts)?;
    let mut units: Vec<PlanUnit> = work
        .shapes
        .iter()
        .map(|u| PlanUnit {
            unit: u.clone(),
            axioms: work.axioms.clone(),
            cost: estimated_cost(&u.shape),
            shard: 0,
        })
        .collect();
    assign(&mut units, shards);
    Ok(Plan {
        id: plan_id(mapping, opts, &work.axioms, shards, written)?,
        mapping: mapping.path.clone(),
        shards,
        options: Options {
            stop: Stop::new(),
            ..opts.clone()
        },
        axioms: work.axioms,
        bounds: work.bounds,
        scope: work.scope,
        cost_model: COST_MODEL.to_string(),
        units,
    })
}

/// Longest processing time first: units by decreasing cost (ties in the check's order), each
/// to the shard with the least estimated load so far (ties: the lowest shard).
fn assign(units: &mut [PlanUnit], shards: usize) {
    let mut order: Vec<usize> = (0..units.len()).collect();
    order.sort_by(|&a, &b| units[b].cost.total_cmp(&units[a].cost).then(a.cmp(&b)));
    let mut load = vec![0.0f64; shards];
    for i in order {
        let s = (0..shards)
            .min_by(|&a, &b| load[a].total_cmp(&load[b]).then(a.cmp(&b)))
            .expect("at least one shard");
        load[s] += units[i].cost;
        units[i].shard = s + 1;
    }
}

/// The options that make a check what it is (no stop request; the axioms resolved).
fn identity_options(opts: &Options, axioms: &[String]) -> Options {
    Options {
        axioms: axioms.to_vec(),
        stop: Stop::new(),
        ..opts.clone()
    }
}

/// FNV-1a, 64 bits: a hash that is the same in every build (unlike `std`'s `DefaultHasher`).
fn fnv1a(bytes: &[u8], mut h: u64) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The plan's identity: the mapping file's and both model files' text, the text of every
/// statement of both models as loaded (so a change to a file a model includes is a new plan
/// too; a comment there is not), the options, the number of shards, the file format and the
/// cost model (two FNV-1a hashes with different seeds, 128 bits in hex).
fn plan_id(
    mapping: &Mapping,
    opts: &Options,
    axioms: &[String],
    shards: usize,
    written: &Written,
) -> Result<String> {
    let mut bytes: Vec<u8> = vec![];
    for part in [written.format.as_str(), COST_MODEL] {
        bytes.extend_from_slice(part.as_bytes());
        bytes.push(0);
    }
    for path in [
        Path::new(&mapping.path),
        mapping.source_path.as_path(),
        mapping.target_path.as_path(),
    ] {
        let text = std::fs::read(path).map_err(|e| {
            Error::file(path.display().to_string(), format!("cannot read file: {e}"))
        })?;
        push_text(&mut bytes, &text);
    }
    for model in [&mapping.source, &mapping.target] {
        let statements = (model.defs.iter().map(|d| &d.source_text))
            .chain(model.checks.iter().map(|c| &c.source_text))
            .chain(model.witnesses.iter().map(|w| &w.source_text));
        for text in statements {
            push_text(&mut bytes, text.as_bytes());
        }
    }
    let options = (written.options)(&identity_options(opts, axioms));
    bytes.extend_from_slice(options.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(&(shards as u64).to_le_bytes());
    let a = fnv1a(&bytes, 0xcbf2_9ce4_8422_2325);
    let b = fnv1a(&bytes, 0x6c62_272e_07bb_0142);
    Ok(format!("{a:016x}{b:016x}"))
}

/// Append `text` with its length before it, so that no two sequences of texts hash alike.
fn push_text(bytes: &mut Vec<u8>, text: &[u8]) {
    bytes.extend_from_slice(&(text.len() as u64).to_le_bytes());
    bytes.extend_from_slice(text);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_processing_time_balances_and_is_deterministic() {
        let unit = |i: usize, cost: f64| PlanUnit {
            unit: ShapeUnit {
                bound: 1,
                index: i,
                shape: vec![1],
            },
            axioms: vec![],
            cost,
            shard: 0,
        };
        let mut units: Vec<PlanUnit> = [5.0, 4.0, 3.0, 3.0, 2.0, 2.0, 1.0]
            .iter()
            .enumerate()
            .map(|(i, &c)| unit(i, c))
            .collect();
        assign(&mut units, 2);
        let load =
            |s: usize| -> f64 { units.iter().filter(|u| u.shard == s).map(|u| u.cost).sum() };
        assert_eq!((load(1), load(2)), (10.0, 10.0));
        let shards: Vec<usize> = units.iter().map(|u| u.shard).collect();
        assert_eq!(shards, vec![1, 2, 2, 1, 2, 1, 2]);
    }

    #[test]
    fn a_shape_beyond_the_table_costs_growth_times_its_smaller_neighbour() {
        assert_eq!(estimated_cost(&[3, 3]), 18.5);
        assert_eq!(estimated_cost(&[4, 3]), GROWTH * estimated_cost(&[3, 3]));
        assert_eq!(
            estimated_cost(&[1; 8]),
            GROWTH * GROWTH * estimated_cost(&[1; 6])
        );
        assert!(MEASURED
            .iter()
            .all(|(s, c)| *c > 0.0 && s.windows(2).all(|w| w[0] >= w[1])));
    }
}
