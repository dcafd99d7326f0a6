//! The readings a counterexample holds under: every model file shipped beside the mapping's
//! target model for the same architecture (its title's first word, `PTX`), each read as it is and
//! under each herd variant it tests (`--variant dep-without-rmw`), and for each whether the
//! runner lets the compiled test reach its final condition. A finding names the readings that
//! allow it (README "Readings"; docs/decisions/014-ptx-rmw-dependency.md).
//!
//! Owns: `Reading`, `ReadingVerdict`, `target_readings`, `judge_readings`.
//! Uses: `ir` (to load the models), `runner` (the judge), `mapping` (where the target model is).
use std::path::{Path, PathBuf};

use crate::ir::{self, Model};
use crate::litmus::Litmus;
use crate::mapping::Mapping;
use crate::runner;

/// One reading of the target architecture: a model file and the variant it is read with.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Reading {
    /// The model file, as found beside the mapping's target model.
    pub model: PathBuf,
    /// The herd variant enabled; `None`: the file's default reading.
    pub variant: Option<String>,
    /// Is this the reading the mapping's search uses (its target model and variants)?
    pub searched: bool,
}

impl std::fmt::Display for Reading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let file = self.model.file_name().unwrap_or(self.model.as_os_str());
        write!(f, "{}", file.to_string_lossy())?;
        match &self.variant {
            Some(v) => write!(f, " --variant {v}"),
            None => Ok(()),
        }
    }
}

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

/// The readings of `mapping`'s target architecture, each with its loaded model: the model files
/// in the target model's directory whose title names the target model's architecture, sorted by
/// file name, each as it is and then under each variant it tests (one at a time). A file that
/// does not load, or has no title, is no reading. The searched reading is the target model file
/// with exactly the mapping's variants.
pub fn target_readings(mapping: &Mapping) -> Vec<(Reading, Model)> {
    let target = &mapping.target;
    let Some(arch) = target.arch.as_deref() else {
        return vec![];
    };
    let dir = mapping.target_path.parent().unwrap_or(Path::new("."));
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "cat"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let same_file = |p: &Path| same_path(p, &mapping.target_path);
    let mut out = vec![];
    for file in files {
        let Ok(plain) = ir::load(&file) else { continue };
        if plain.arch.as_deref() != Some(arch) {
            continue;
        }
        let variants: Vec<String> = plain.variants_tested.iter().cloned().collect();
        let searched_plain = same_file(&file) && target.variants_enabled.is_empty();
        out.push((reading(&file, None, searched_plain), plain));
        for v in variants {
            let opts = ir::LoadOptions {
                variants: vec![v.clone()],
                ..ir::LoadOptions::default()
            };
            let Ok(model) = ir::load_with(&file, &opts) else {
                continue;
            };
            let searched = same_file(&file)
                && target.variants_enabled.len() == 1
                && target.variants_enabled.contains(&v);
            out.push((reading(&file, Some(v), searched), model));
        }
    }
    out
}

fn reading(file: &Path, variant: Option<String>, searched: bool) -> Reading {
    Reading {
        model: file.to_path_buf(),
        variant,
        searched,
    }
}

fn same_path(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The runner's verdict on compiled test `target` under every reading of `mapping`'s target
/// architecture (`target_readings`).
pub fn judge_readings(mapping: &Mapping, target: &Litmus) -> Vec<ReadingVerdict> {
    let opts = runner::Options::default();
    target_readings(mapping)
        .into_iter()
        .map(
            |(reading, model)| match runner::run(&model, target, &opts) {
                Ok(outcome) => ReadingVerdict {
                    reading,
                    allows: Some(outcome.positive > 0),
                    note: String::new(),
                },
                Err(e) => ReadingVerdict {
                    reading,
                    allows: None,
                    note: e.message,
                },
            },
        )
        .collect()
}
