//! The readings a counterexample holds under: its compiled test run by the runner under every
//! reading of the target architecture (`Mapping::target_readings`), and for each whether some
//! consistent execution reaches the test's final condition. A finding names the readings that
//! allow it (README "Readings"; docs/decisions/014-ptx-rmw-dependency.md).
//!
//! Owns: `ReadingVerdict`, `judge_readings`. Uses: `runner` (the judge), `mapping` (the readings).
use crate::litmus::Litmus;
use crate::mapping::{Mapping, Reading};
use crate::runner;

/// What the runner says of the compiled test under one reading.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReadingVerdict {
    /// The reading.
    pub reading: Reading,
    /// `Some(true)`: some consistent execution reaches the test's final condition (herd's
    /// `Sometimes` or `Always`); `Some(false)`: none does (`Never`); `None`: not judged (`note`).
    pub allows: Option<bool>,
    /// Why it was not judged (the runner's error), empty otherwise.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

/// The runner's verdict on compiled test `target` under every reading of `mapping`'s target
/// architecture (`Mapping::target_readings`).
pub fn judge_readings(mapping: &Mapping, target: &Litmus) -> Vec<ReadingVerdict> {
    let opts = runner::Options::default();
    mapping
        .target_readings()
        .iter()
        .map(|(reading, model)| match runner::run(model, target, &opts) {
            Ok(outcome) => ReadingVerdict {
                reading: reading.clone(),
                allows: Some(outcome.positive > 0),
                note: String::new(),
            },
            Err(e) => ReadingVerdict {
                reading: reading.clone(),
                allows: None,
                note: e.message,
            },
        })
        .collect()
}
