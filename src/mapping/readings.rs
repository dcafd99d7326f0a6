//! The readings of a mapping's source language and target architecture: every model file
//! shipped beside the model whose title names the same language (its first word, `C`, `PTX`),
//! each read as it is and under each herd variant it tests (`--variant dep-without-rmw` of the
//! PTX models, `--variant cxx20` of the C++ ones). Found once per mapping
//! (`Mapping::source_readings`, `Mapping::target_readings`); which of them allow a test is the
//! runner's to say (`search::judge_readings`; docs/decisions/014-ptx-rmw-dependency.md, 018).
//!
//! Owns: `Reading`, `find`. Uses: `ir` (to load the models).
use std::path::{Path, PathBuf};

use crate::ir::{self, Model};

/// One reading of a language or architecture: a model file and the variant it is read with.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Reading {
    /// The model file, as found beside the mapping's target model.
    pub model: PathBuf,
    /// The herd variant enabled; `None`: the file's default reading.
    pub variant: Option<String>,
    /// Is this the reading the mapping's search uses (its model and variants)?
    pub searched: bool,
}

impl Reading {
    /// The model file's name (`ptx-v6.cat`).
    pub fn file_name(&self) -> String {
        let file = self.model.file_name().unwrap_or(self.model.as_os_str());
        file.to_string_lossy().into_owned()
    }
}

impl std::fmt::Display for Reading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file_name())?;
        match &self.variant {
            Some(v) => write!(f, " --variant {v}"),
            None => Ok(()),
        }
    }
}

/// The readings of the language of `target` (loaded from `target_path`), each with its loaded
/// model: the model files in its directory whose title names the same language, sorted by file
/// name, each as it is and then under each variant it tests (one at a time). A file that does
/// not load, or has no title, is no reading. The searched reading is `target`'s file with
/// exactly the variants it was loaded with.
pub(super) fn find(target_path: &Path, target: &Model) -> Vec<(Reading, Model)> {
    let Some(arch) = target.arch.as_deref() else {
        return vec![];
    };
    let dir = target_path.parent().unwrap_or(Path::new("."));
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "cat"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let same_file = |p: &Path| same_path(p, target_path);
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
