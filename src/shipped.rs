//! The shipped models and mappings by name, from any directory: `mapcheck run ptx-v6 TEST`,
//! `mapcheck check rc11-ptx`. The files of `models/` and `mappings/` are compiled into the binary
//! (`build.rs` lists them); a name with no directory part that is not a file here is looked up
//! among them (with or without its `.cat` or `.map`), and they are written, once per build, into a cache directory with the
//! checkout's layout (`$XDG_CACHE_HOME/mapcheck/<version>-<digest>/`, else `~/.cache/…`), so a
//! model's includes and a mapping's `../models/…` resolve there as in a checkout.
//!
//! Owns: `model`, `mapping`, `names`. Uses: `diag` (errors), `output` (files written whole).
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use crate::diag::{Error, Result};
use crate::output;

include!(concat!(env!("OUT_DIR"), "/shipped_files.rs"));

/// What a name may stand for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A model of `models/` (`ptx-v6` for `models/ptx-v6.cat`).
    Model,
    /// A mapping of `mappings/` or a folder of it (`llvm-nvptx-sm70-ptx60`).
    Mapping,
}

impl Kind {
    fn files(self) -> impl Iterator<Item = &'static str> {
        let (dir, ext) = (self.dir(), self.ext());
        (FILES.iter().map(|(path, _)| *path))
            .filter(move |p| p.starts_with(dir) && p.ends_with(ext))
    }
    fn dir(self) -> &'static str {
        match self {
            Kind::Model => "models/",
            Kind::Mapping => "mappings/",
        }
    }
    fn ext(self) -> &'static str {
        match self {
            Kind::Model => ".cat",
            Kind::Mapping => ".map",
        }
    }
    fn word(self) -> &'static str {
        match self {
            Kind::Model => "model",
            Kind::Mapping => "mapping",
        }
    }
}

/// The shipped names of `kind`, sorted.
pub fn names(kind: Kind) -> Vec<&'static str> {
    let mut names: Vec<&str> = kind.files().map(stem).collect();
    names.sort_unstable();
    names
}

/// `arg` itself where it exists or has a directory part; otherwise the shipped model it names
/// (`ptx-v6` or `ptx-v6.cat`).
pub fn model(arg: &Path) -> Result<PathBuf> {
    resolve(arg, Kind::Model)
}

/// `arg` itself where it exists or has a directory part; otherwise the shipped mapping it names
/// (`rc11-ptx` or `rc11-ptx.map`).
pub fn mapping(arg: &Path) -> Result<PathBuf> {
    resolve(arg, Kind::Mapping)
}

fn resolve(arg: &Path, kind: Kind) -> Result<PathBuf> {
    let bare = arg.components().count() == 1 && !arg.exists();
    let Some(name) = arg.to_str().filter(|_| bare) else {
        return Ok(arg.to_path_buf());
    };
    let name = name.strip_suffix(kind.ext()).unwrap_or(name);
    match kind.files().find(|p| stem(p) == name) {
        Some(file) => Ok(written()?.join(file)),
        None => Err(Error::file(
            &arg.display().to_string(),
            format!(
                "no such file, and no shipped {} of that name; the shipped ones: {}",
                kind.word(),
                names(kind).join(", ")
            ),
        )),
    }
}

/// `models/ptx-v7.5.cat` → `ptx-v7.5`.
fn stem(path: &str) -> &str {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.rsplit_once('.').map_or(file, |(stem, _)| stem)
}

/// The cache directory holding every shipped file, written there first where missing or
/// different.
fn written() -> Result<PathBuf> {
    let dir = cache_dir()?;
    for (path, bytes) in FILES {
        let dest = dir.join(path);
        if std::fs::read(&dest).is_ok_and(|old| old == *bytes) {
            continue;
        }
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent).map_err(|e| {
                Error::file(&parent.display().to_string(), format!("cannot create: {e}"))
            })?;
        }
        output::write_file(&dest, bytes)?;
    }
    Ok(dir)
}

/// `$XDG_CACHE_HOME/mapcheck/<version>-<digest>` (else under `$HOME/.cache`), the digest that of
/// the shipped files, so that two builds never share one.
fn cache_dir() -> Result<PathBuf> {
    let var = |name| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = var("XDG_CACHE_HOME")
        .or_else(|| var("HOME").map(|home| home.join(".cache")))
        .ok_or_else(|| {
            Error::file(
                "<shipped files>",
                "neither XDG_CACHE_HOME nor HOME is set: nowhere to write the shipped files to; name the file by its path",
            )
        })?;
    let mut digest = Sha256::new();
    for (path, bytes) in FILES {
        digest.update(path.as_bytes());
        digest.update((bytes.len() as u64).to_le_bytes());
        digest.update(bytes);
    }
    let hex: String = digest.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let version = env!("CARGO_PKG_VERSION");
    Ok(base.join("mapcheck").join(format!("{version}-{hex}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_name_is_unique_and_names_its_file() {
        for kind in [Kind::Model, Kind::Mapping] {
            let names = names(kind);
            let mut unique = names.clone();
            unique.dedup();
            assert_eq!(names, unique, "{kind:?}");
            assert!(names.len() >= 10, "{kind:?}: {names:?}");
        }
        assert!(names(Kind::Model).contains(&"ptx-v6"));
        assert!(names(Kind::Mapping).contains(&"llvm-nvptx-sm70-ptx60"));
        for (path, bytes) in FILES {
            let on_disk = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
            assert_eq!(on_disk, *bytes, "{path}");
        }
    }
}
