//! The readings a counterexample holds under: its source test run by the runner under every
//! reading of the source language (`Mapping::source_readings`: the C++ versions), its compiled
//! test under every reading of the target architecture (`Mapping::target_readings`: the PTX
//! models and their variants), and for each whether some consistent execution reaches the test's
//! final condition, and for a source test whether one races. A finding names the readings that
//! allow it (README "Readings"; docs/decisions/014-ptx-rmw-dependency.md, 018-cxx-versions.md).
//!
//! Owns: `ReadingVerdict`, `judge_readings`, `judge_source_readings`.
//! Uses: `runner` (the judge), `mapping` (the readings), `ir`, `litmus`.
use crate::ir::Model;
use crate::litmus::Litmus;
use crate::mapping::{Mapping, Reading};
use crate::runner;

/// What the runner says of a test under one reading.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReadingVerdict {
    /// The reading.
    pub reading: Reading,
    /// `Some(true)`: some consistent execution reaches the test's final condition (herd's
    /// `Sometimes` or `Always`); `Some(false)`: none does (`Never`); `None`: not judged (`note`).
    pub allows: Option<bool>,
    /// For a source test: does some consistent execution raise a flag of the model (a data
    /// race)? A racy program is no counterexample under that reading. `None` for a target test,
    /// or when not judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub racy: Option<bool>,
    /// Why it was not judged (the runner's error), empty otherwise.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

/// The runner's verdict on compiled test `target` under every reading of `mapping`'s target
/// architecture (`Mapping::target_readings`).
pub fn judge_readings(mapping: &Mapping, target: &Litmus) -> Vec<ReadingVerdict> {
    judge(mapping.target_readings(), target, false)
}

/// The runner's verdict on source test `source` under every reading of `mapping`'s source
/// language (`Mapping::source_readings`), races included.
pub fn judge_source_readings(mapping: &Mapping, source: &Litmus) -> Vec<ReadingVerdict> {
    judge(mapping.source_readings(), source, true)
}

fn judge(readings: &[(Reading, Model)], test: &Litmus, races: bool) -> Vec<ReadingVerdict> {
    let opts = runner::Options::default();
    readings
        .iter()
        .map(|(reading, model)| match runner::run(model, test, &opts) {
            Ok(outcome) => ReadingVerdict {
                reading: reading.clone(),
                allows: Some(outcome.positive > 0),
                racy: races.then(|| !outcome.flags.is_empty()),
                note: String::new(),
            },
            Err(e) => ReadingVerdict {
                reading: reading.clone(),
                allows: None,
                racy: None,
                note: e.message,
            },
        })
        .collect()
}
