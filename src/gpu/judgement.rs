//! What the models say about every observable state of a harness: decided once by `gpu emit`
//! with the runner (`outcome::select`), kept in the harness directory as `judgement.json`, and
//! read by `gpu run`, which marks each observed outcome allowed or forbidden without loading a
//! model.
//!
//! Owns: `Judgement` (per state: allowed by the test's model; for a counterexample, allowed by
//! the source model too; reachable under sequential consistency; reachable by running whole
//! threads one after another), `Verdict`,
//! `Judgement::load` (from `harness::JUDGEMENT_FILE`).
//!
//! Why "whole threads one after another": an instance whose threads did not overlap in time
//! behaves as the threads run in some order, each to its end, under sequential consistency. When
//! the model allows a state that sequential consistency reaches only with the threads interleaved,
//! a run that shows only whole-thread states tested nothing about the memory model (on PoCL,
//! threads of one work-group always run so, and work-groups often do on a loaded machine). When
//! it allows none (an RMW's atomicity; B1, whose only other state is a weak one), the states
//! cannot tell whether threads overlapped (`Judgement::can_show_overlap`).
use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::harness::{JUDGEMENT_FILE, TEST_FILE};
use super::outcome::{Space, Values};
use crate::diag::{self, Error, Result};

/// The models' verdicts on the states of a harness's outcome space.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Judgement {
    /// The observed targets, as the harness's `Space` names them (checked on load).
    pub names: Vec<String>,
    /// The test's model (the title, else the path); `None`: no model judged the states.
    pub model: Option<String>,
    /// States of the test's consistent executions under `model`.
    pub allowed: BTreeSet<Values>,
    /// For a counterexample: the source model's verdicts on the source program.
    pub source: Option<SourceJudgement>,
    /// States of sequentially consistent executions (threads interleaved at any point).
    pub interleaved: BTreeSet<Values>,
    /// States of executions that run whole threads one after another (sequentially consistent,
    /// no thread interleaved with another).
    pub sequential: BTreeSet<Values>,
}

/// A counterexample's source model and the states of the source program's consistent executions
/// under it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SourceJudgement {
    /// The source model (the title, else the path).
    pub model: String,
    /// The states it allows.
    pub allowed: BTreeSet<Values>,
}

/// A state's verdict under the test's model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Some consistent execution has it.
    Allowed,
    /// No consistent execution has it: observing it is a bug in the model, the compiler or the
    /// hardware.
    Forbidden,
    /// No model was given.
    Unjudged,
}

impl Verdict {
    pub(crate) fn word(self) -> &'static str {
        match self {
            Verdict::Allowed => "allowed",
            Verdict::Forbidden => "FORBIDDEN",
            Verdict::Unjudged => "unjudged",
        }
    }
}

impl Judgement {
    /// The verdict of the test's model on a state (`None`: outside the space's domains, which no
    /// candidate execution has, so forbidden when a model judges).
    pub fn verdict(&self, state: Option<&Values>) -> Verdict {
        match (&self.model, state) {
            (None, _) => Verdict::Unjudged,
            (Some(_), Some(v)) if self.allowed.contains(v) => Verdict::Allowed,
            (Some(_), _) => Verdict::Forbidden,
        }
    }

    /// For a counterexample: does the state show it (the target allows it, the source forbids
    /// it)? `None` without a source.
    pub fn shows_counterexample(&self, state: &Values) -> Option<bool> {
        let source = self.source.as_ref()?;
        Some(self.allowed.contains(state) && !source.allowed.contains(state))
    }

    /// Can running whole threads one after another give the state?
    pub fn is_sequential(&self, state: &Values) -> bool {
        self.sequential.contains(state)
    }

    /// Can a device that keeps the model show, by its states alone, that some instance's
    /// threads overlapped? Only if the model allows (or, unjudged, the test has) a state that
    /// sequential consistency reaches with threads interleaved and not with whole threads in
    /// turn. A weak state also shows overlap when seen, but its absence says nothing about it.
    pub fn can_show_overlap(&self) -> bool {
        self.interleaved.iter().any(|v| {
            !self.sequential.contains(v) && (self.model.is_none() || self.allowed.contains(v))
        })
    }

    /// The judgement in `dir` (`None` when the directory has none: emitted before judgements
    /// were kept), checked against the harness's space.
    pub(crate) fn load(dir: &Path, space: &Space) -> Result<Option<Judgement>> {
        let path = dir.join(JUDGEMENT_FILE);
        if !path.exists() {
            return Ok(None);
        }
        let j = Judgement::read(&path)?;
        let shown = path.display().to_string();
        let in_space = |v: &Values| space.contains(v);
        let fits = j.names == space.names
            && j.allowed.iter().all(in_space)
            && j.interleaved.iter().all(in_space)
            && j.sequential.iter().all(in_space);
        if !fits {
            return Err(Error::file(
                &shown,
                format!("does not judge the states of {} (stale or edited); run `mapcheck gpu emit` again", TEST_FILE),
            ));
        }
        Ok(Some(j))
    }

    /// The judgement file at `path`, parsed, not yet checked against a harness (`load` does).
    /// One of an older mapcheck lacks a field (`interleaved`): the error says to emit again.
    pub(crate) fn read(path: &Path) -> Result<Judgement> {
        let text = diag::read_source(path)?;
        serde_json::from_str(&text).map_err(|e| {
            Error::file(
                path.display().to_string(),
                format!(
                    "not a judgement file: {e} (written by an older mapcheck? run `mapcheck gpu \
                     emit` again)"
                ),
            )
        })
    }

    pub(crate) fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a judgement serialises")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A judgement file written for other observed targets (a stale or edited directory) is
    /// refused; one for these targets loads.
    #[test]
    fn a_judgement_of_other_states_is_refused() {
        let test = crate::litmus::parse_str("sb.litmus", crate::gpu::outcome::tests::SB).unwrap();
        let space = Space::of(&test).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let write = |j: &Judgement| std::fs::write(dir.path().join(JUDGEMENT_FILE), j.to_json());
        let fitting = Judgement {
            names: space.names.clone(),
            model: Some("m".into()),
            allowed: [vec![0, 0, 1, 1]].into_iter().collect(),
            ..Judgement::default()
        };
        write(&fitting).unwrap();
        assert_eq!(
            Judgement::load(dir.path(), &space).unwrap(),
            Some(fitting.clone())
        );
        let renamed = Judgement {
            names: vec!["0:r0".into(), "1:r1".into()],
            ..fitting.clone()
        };
        write(&renamed).unwrap();
        let e = Judgement::load(dir.path(), &space).unwrap_err();
        assert!(e.message.contains("stale or edited"), "{e}");
        let out_of_domain = Judgement {
            allowed: [vec![7, 0, 1, 1]].into_iter().collect(),
            ..fitting.clone()
        };
        write(&out_of_domain).unwrap();
        assert!(Judgement::load(dir.path(), &space).is_err());
        // One written before judgements kept the interleaved states: re-emit, says the error.
        let mut older: serde_json::Value = serde_json::from_str(&fitting.to_json()).unwrap();
        older.as_object_mut().unwrap().remove("interleaved");
        std::fs::write(dir.path().join(JUDGEMENT_FILE), older.to_string()).unwrap();
        let e = Judgement::load(dir.path(), &space).unwrap_err();
        assert!(e.message.contains("run `mapcheck gpu emit` again"), "{e}");
        assert_eq!(
            Judgement::load(&dir.path().join("none"), &space).unwrap(),
            None
        );
    }
}
