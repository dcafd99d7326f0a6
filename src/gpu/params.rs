//! Harness parameters: the outer parameters of Kirkham et al., "Foundations of Empirical Memory
//! Consistency Testing" (OOPSLA 2020), Table 3, plus the launch sizes and iteration counts every
//! harness needs. Read from a TOML file (`gpu/params.toml` holds the defaults, compiled in), or
//! drawn at random within the Table 3 ranges for tuning. The per-iteration parameters of that
//! paper (which work-groups test and which stress, stress-line offsets, x/y placement, occupancy,
//! work-group size) are not here: the harness draws them afresh each iteration from `seed`
//! (`gpu::layout::Launch`).
//!
//! Owns: `Params`, `Params::load` / `parse` / `defaults` / `to_toml` / `random`, and the ranges
//! every file is validated against (`validate`: each error names the file, the key and what was
//! expected).
use std::path::Path;
use std::sync::Arc;

use rand::seq::IndexedRandom;
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

use crate::diag::{self, Error};

/// Two stress instructions, each a load or a store (Table 3, ACCESSPATTERN).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AccessPattern {
    /// Store, then store.
    StSt,
    /// Store, then load.
    StLd,
    /// Load, then store.
    LdSt,
    /// Load, then load.
    LdLd,
}

impl AccessPattern {
    pub(crate) const ALL: [AccessPattern; 4] = [
        AccessPattern::StSt,
        AccessPattern::StLd,
        AccessPattern::LdSt,
        AccessPattern::LdLd,
    ];
    /// The pattern's number in the kernels' `stress` routine: bit 1 set = first access a load,
    /// bit 0 set = second access a load.
    pub(crate) fn code(self) -> u32 {
        match self {
            AccessPattern::StSt => 0,
            AccessPattern::StLd => 1,
            AccessPattern::LdSt => 2,
            AccessPattern::LdLd => 3,
        }
    }
}

/// How stressing work-groups are assigned to stress lines (Table 3, STRESSASSIGNMENT).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StressAssignment {
    /// Stressing work-group `s` stresses line `s mod TARGETNUMBER`.
    RoundRobin,
    /// Stressing work-groups are split into TARGETNUMBER consecutive chunks, one per line.
    Chunking,
}

/// Harness parameters: Table 3's outer parameters, launch sizes and iterations (see the module
/// doc).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Kernel launches (each launch is one iteration of the paper, running many test instances).
    pub iterations: u32,
    /// Upper bound on work-groups per launch (testing and stressing); each launch draws the
    /// number between the testing work-groups and this (random occupancy: the rest stress).
    pub max_workgroups: u32,
    /// Upper bound on threads per work-group; each launch draws the size up to this.
    pub max_workgroup_size: u32,
    /// Testing work-groups per launch; each runs as many test instances as it has threads.
    pub testing_workgroups: u32,
    /// 0: `max_workgroups` and `testing_workgroups` as written. k > 0: sized to the device at run
    /// time (`scaled_to`): up to k × its compute units (SMs) work-groups per launch, as OOPSLA
    /// 2020 §3.2 draws them, never more than can be resident at once, and one testing
    /// work-group per compute unit.
    #[serde(default)]
    pub workgroups_per_compute_unit: u32,
    /// THREADSHUFFLE: permute work-item ids within work-groups, and which instance each testing
    /// work-item serves (its partners in other work-groups), through shuffled tables. (Which
    /// work-groups test is shuffled every launch regardless.)
    pub thread_shuffle: bool,
    /// BARRIER: a spin barrier among a test instance's threads before the test.
    pub barrier: bool,
    /// Spins before a barrier gives up (a GPU-style 1024 never aligns two PoCL work-groups).
    pub barrier_timeout: u32,
    /// After the barrier, each test thread spins a number of times drawn from 0..=this (per
    /// instance and thread). Not in the paper: the last thread to reach a spin barrier leaves
    /// it first, by the time the others take to see it arrive, and then runs its whole test
    /// before they start; the shift lets some instances overlap. 0 turns it off.
    pub barrier_jitter: u32,
    /// MEMORYSTRESS: stressing work-groups hammer the stress lines while the test runs.
    pub mem_stress: bool,
    /// Times each stressing work-item runs the two accesses of `mem_stress_pattern`.
    pub mem_stress_iterations: u32,
    /// The access pair stressing work-groups repeat on their stress line.
    pub mem_stress_pattern: AccessPattern,
    /// PRETESTMEMORYSTRESS: testing threads stress memory right before the test.
    pub pre_stress: bool,
    /// Times each testing thread runs the two accesses of `pre_stress_pattern` before the test.
    pub pre_stress_iterations: u32,
    /// The access pair testing threads repeat before the test.
    pub pre_stress_pattern: AccessPattern,
    /// STRESSLINE SIZE, in 32-bit words: 2^x, x in 1..=10.
    pub stress_line_size: u32,
    /// TARGETNUMBER: stress lines stressed at once, 1..=16.
    pub stress_target_lines: u32,
    /// STRESSASSIGNMENT: how stressing work-groups are spread over the target stress lines.
    pub stress_assignment: StressAssignment,
    /// XYSTRIDE, in 32-bit words: the test's locations lie in distinct regions of this size,
    /// 2^x, x in 1..=9.
    pub mem_stride: u32,
    /// Seed of the host's generator for the per-iteration parameters.
    pub seed: u64,
}

/// The defaults: `gpu/params.toml` (chosen for PoCL), compiled into the binary.
const DEFAULTS: &str = include_str!("../../gpu/params.toml");
const DEFAULTS_PATH: &str = "gpu/params.toml";
/// The GPU preset: `gpu/params-gpu.toml` (OOPSLA 2020 Table 3 and §3.2, sized to the device).
const GPU_PRESET: &str = include_str!("../../gpu/params-gpu.toml");
const GPU_PRESET_PATH: &str = "gpu/params-gpu.toml";

/// What a device offers a launch, for `Params::scaled_to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DeviceLimits {
    /// Compute units (CUDA: streaming multiprocessors).
    pub compute_units: u32,
    /// Work-groups of the largest size that can be resident at once on the whole device
    /// (CUDA: the occupancy calculator's blocks per SM × SMs; OpenCL has no such query: `None`).
    pub resident_workgroups: Option<u32>,
}

/// Table 3's exponent ranges, and the bounds this harness puts on the sizes it adds.
const STRESS_LINE_EXPONENTS: std::ops::RangeInclusive<u32> = 1..=10;
const TARGET_LINES: std::ops::RangeInclusive<u32> = 1..=16;
const STRIDE_EXPONENTS: std::ops::RangeInclusive<u32> = 1..=9;
/// The tuned ranges of the barrier timeout and jitter (exponents of 2; jitter may also be 0).
const TIMEOUT_EXPONENTS: std::ops::RangeInclusive<u32> = 4..=17;
const JITTER_EXPONENTS: std::ops::RangeInclusive<u32> = 0..=10;
/// More would not fit the device buffers the host allocates per work-group.
const MAX_WORKGROUP_SIZE: u32 = 4096;
const MAX_WORKGROUPS: u32 = 4096;
/// Spins of jitter after the barrier: far beyond any cross-core latency.
const MAX_JITTER: u32 = 1 << 20;

/// One key's value outside its range.
struct Invalid {
    key: &'static str,
    expected: String,
}

impl Params {
    /// The defaults of `gpu/params.toml`.
    pub fn defaults() -> Params {
        Params::parse(DEFAULTS_PATH, DEFAULTS).expect("gpu/params.toml is valid (tested)")
    }

    /// The GPU preset of `gpu/params-gpu.toml` (memory stress on, work-groups sized to the
    /// device at run time).
    pub fn gpu_preset() -> Params {
        Params::parse(GPU_PRESET_PATH, GPU_PRESET).expect("gpu/params-gpu.toml is valid (tested)")
    }

    /// The parameters for a device: unchanged when `workgroups_per_compute_unit` is 0; else
    /// `max_workgroups` = k × compute units, cut to the resident limit where the device gives
    /// one (a work-group that is not resident cannot meet the others at the barrier, and a
    /// stressing one that waits stresses nothing), and `testing_workgroups` = compute units (at
    /// most half of that, so that stressing work-groups remain), each within the file's ranges.
    /// The second value says what was cut, for the report.
    pub(crate) fn scaled_to(&self, device: DeviceLimits) -> (Params, Option<String>) {
        let k = self.workgroups_per_compute_unit;
        if k == 0 {
            return (self.clone(), None);
        }
        let wanted = k
            .saturating_mul(device.compute_units)
            .clamp(1, MAX_WORKGROUPS);
        let max = device
            .resident_workgroups
            .map_or(wanted, |r| wanted.min(r.max(1)));
        let testing = device.compute_units.min(max.div_ceil(2)).clamp(1, max);
        let cut = (max < wanted).then(|| {
            format!(
                "{wanted} work-groups wanted ({k} per compute unit), {max} can be resident at once: launches use at most {max}"
            )
        });
        let scaled = Params {
            max_workgroups: max,
            testing_workgroups: testing,
            ..self.clone()
        };
        (scaled, cut)
    }

    /// Read and validate a parameter file.
    pub(crate) fn load(path: &Path) -> diag::Result<Params> {
        let text = diag::read_source(path)?;
        Params::parse(&path.display().to_string(), &text)
    }

    /// Parse and validate parameter text; `path` names it in errors.
    pub(crate) fn parse(path: &str, text: &str) -> diag::Result<Params> {
        let source: Arc<str> = Arc::from(text);
        let params: Params = toml::from_str(text).map_err(|e| {
            let err = match e.span() {
                Some(span) => Error::at(path, &source, span, e.message().to_string()),
                None => Error::file(path, e.message().to_string()),
            };
            err.with_note(format!(
                "a parameter file sets every key of {DEFAULTS_PATH}; start from that file"
            ))
        })?;
        params
            .validate()
            .map_err(|bad| invalid_error(path, &source, &bad))?;
        Ok(params)
    }

    /// The parameters as a TOML file that `parse` reads back.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("parameters serialise")
    }

    /// Table 3's parameters drawn at random within their ranges, and this harness's barrier
    /// timeout (2^4 to 2^17 spins) and jitter (0, or 2^0 to 2^10 spins); the launch sizes and
    /// iteration counts taken from `base` (they depend on the device and the time budget, not on
    /// what provokes weak behaviour); a fresh seed.
    pub(crate) fn random<R: Rng + ?Sized>(rng: &mut R, base: &Params) -> Params {
        Params {
            thread_shuffle: rng.random_bool(0.5),
            barrier: rng.random_bool(0.5),
            mem_stress: rng.random_bool(0.5),
            mem_stress_pattern: random_pattern(rng),
            pre_stress: rng.random_bool(0.5),
            pre_stress_pattern: random_pattern(rng),
            stress_line_size: 1 << rng.random_range(STRESS_LINE_EXPONENTS),
            stress_target_lines: rng.random_range(TARGET_LINES),
            stress_assignment: if rng.random_bool(0.5) {
                StressAssignment::RoundRobin
            } else {
                StressAssignment::Chunking
            },
            mem_stride: 1 << rng.random_range(STRIDE_EXPONENTS),
            barrier_timeout: 1 << rng.random_range(TIMEOUT_EXPONENTS),
            barrier_jitter: match rng.random_range(0..=JITTER_EXPONENTS.end() + 1) {
                0 => 0,
                e => 1 << (e - 1),
            },
            seed: rng.random(),
            ..base.clone()
        }
    }

    /// Every key within its range; the first one that is not.
    fn validate(&self) -> Result<(), Invalid> {
        let power = |key, v: u32, exps: std::ops::RangeInclusive<u32>| {
            let ok = v.is_power_of_two() && exps.contains(&v.trailing_zeros());
            check(
                ok,
                key,
                format!(
                    "a power of two 2^x with x in {}..={} ({}..={})",
                    exps.start(),
                    exps.end(),
                    1u32 << exps.start(),
                    1u32 << exps.end()
                ),
            )
        };
        let within = |key, v: u32, lo: u32, hi: u32| {
            check(
                (lo..=hi).contains(&v),
                key,
                format!("an integer in {lo}..={hi}"),
            )
        };
        within("iterations", self.iterations, 1, u32::MAX)?;
        within(
            "max_workgroup_size",
            self.max_workgroup_size,
            1,
            MAX_WORKGROUP_SIZE,
        )?;
        within(
            "testing_workgroups",
            self.testing_workgroups,
            1,
            MAX_WORKGROUPS,
        )?;
        within(
            "max_workgroups",
            self.max_workgroups,
            self.testing_workgroups,
            MAX_WORKGROUPS,
        )?;
        within("barrier_timeout", self.barrier_timeout, 1, u32::MAX)?;
        within("barrier_jitter", self.barrier_jitter, 0, MAX_JITTER)?;
        power(
            "stress_line_size",
            self.stress_line_size,
            STRESS_LINE_EXPONENTS,
        )?;
        within(
            "stress_target_lines",
            self.stress_target_lines,
            *TARGET_LINES.start(),
            *TARGET_LINES.end(),
        )?;
        power("mem_stride", self.mem_stride, STRIDE_EXPONENTS)
    }
}

fn check(ok: bool, key: &'static str, expected: String) -> Result<(), Invalid> {
    if ok {
        Ok(())
    } else {
        Err(Invalid { key, expected })
    }
}

fn random_pattern<R: Rng + ?Sized>(rng: &mut R) -> AccessPattern {
    *AccessPattern::ALL
        .choose(rng)
        .expect("four access patterns")
}

/// An error at the line that sets `bad.key` (or about the file, if no line does).
fn invalid_error(path: &str, source: &Arc<str>, bad: &Invalid) -> Error {
    let message = format!("`{}` must be {}", bad.key, bad.expected);
    match key_span(source, bad.key) {
        Some(span) => Error::at(path, source, span, message),
        None => Error::file(path, message),
    }
}

/// The byte range of the line `key = …` in a flat TOML file.
fn key_span(text: &str, key: &str) -> Option<std::ops::Range<usize>> {
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let is_key = trimmed
            .strip_prefix(key)
            .is_some_and(|rest| rest.trim_start().starts_with('='));
        if is_key {
            let lo = start + (line.len() - trimmed.len());
            return Some(lo..start + line.trim_end().len());
        }
        start += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn the_defaults_file_is_valid_and_round_trips() {
        for p in [Params::defaults(), Params::gpu_preset()] {
            assert_eq!(Params::parse("again.toml", &p.to_toml()).unwrap(), p);
        }
    }

    #[test]
    fn the_gpu_preset_scales_with_the_compute_units() {
        let preset = Params::gpu_preset();
        assert!(preset.mem_stress && preset.workgroups_per_compute_unit == 2);
        let on = |compute_units, resident_workgroups| {
            let (p, cut) = preset.scaled_to(DeviceLimits {
                compute_units,
                resident_workgroups,
            });
            assert!(p.validate().is_ok(), "{p:?}");
            (p.testing_workgroups, p.max_workgroups, cut.is_some())
        };
        // An H100 SXM has 132 SMs, two 1024-thread blocks resident on each.
        assert_eq!(on(132, Some(264)), (132, 264, false));
        assert_eq!(on(8, None), (8, 16, false));
        // Where fewer can be resident, the launch stays within them.
        assert_eq!(on(132, Some(132)), (66, 132, true));
        // The PoCL defaults are not scaled.
        let pocl = Params::defaults();
        let (same, cut) = pocl.scaled_to(DeviceLimits {
            compute_units: 132,
            resident_workgroups: None,
        });
        assert_eq!((same, cut), (pocl, None));
    }

    #[test]
    fn an_out_of_range_key_is_reported_at_its_line() {
        let text = DEFAULTS.replace(
            &format!("mem_stride = {}", Params::defaults().mem_stride),
            "mem_stride = 3",
        );
        let e = Params::parse("p.toml", &text).unwrap_err();
        assert!(
            e.message.contains("`mem_stride` must be a power of two"),
            "{e}"
        );
        let (line, _) = e.line_col().expect("points at the line");
        assert_eq!(text.lines().nth(line - 1).unwrap().trim(), "mem_stride = 3");
    }

    #[test]
    fn a_missing_or_unknown_key_names_it() {
        let e = Params::parse("p.toml", "iterations = 3\n").unwrap_err();
        assert!(e.message.contains("missing field"), "{e}");
        let e = Params::parse("p.toml", &format!("{DEFAULTS}\ncolour = 1\n")).unwrap_err();
        assert!(e.message.contains("colour"), "{e}");
    }

    #[test]
    fn random_parameters_are_valid_and_keep_the_sizes() {
        let base = Params::defaults();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let drawn: Vec<Params> = (0..200).map(|_| Params::random(&mut rng, &base)).collect();
        for p in &drawn {
            assert!(p.validate().is_ok(), "{p:?}");
            assert_eq!(
                (p.iterations, p.max_workgroup_size, p.max_workgroups),
                (
                    base.iterations,
                    base.max_workgroup_size,
                    base.max_workgroups
                )
            );
        }
        let barriers = drawn.iter().filter(|p| p.barrier).count();
        assert!(
            (50..150).contains(&barriers),
            "{barriers} of 200 with a barrier"
        );
    }
}
