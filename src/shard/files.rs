//! A shard directory's files: `plan.json`, each shard's result `shard-I-of-N.json` (per unit
//! its verdict and statistics) and its counterexamples under `shard-I-of-N/`; taking a directory
//! for a plan (refusing one with another plan's files) and reading one back, every file checked
//! against its plan (a corrupt or foreign file is a diagnostic, never a panic). The types here are
//! what a shard holds in memory; `format` writes and reads them as the files' own records.
//!
//! Owns: `PLAN_FILE`, `ShardResult`, `ShapeRecord`, `UnitRecord`, `Verdict`, `Loaded`, `load`,
//! `result_path`, `claim`. Uses: `plan` (`Plan`), `format` (the files' text), `report`
//! (`Files`), `output` (every file written), `search` (units, statistics).
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::Digest as _;

use super::format::{self, Header, VERSION};
use super::plan::{Plan, PlanUnit, MAX_SHARDS};
use crate::diag::{Error, Result};
use crate::output;
use crate::report::Files;
use crate::search::{ShapeUnit, Statistics};

/// The plan's file in a shard directory (written by every shard before it runs).
pub const PLAN_FILE: &str = "plan.json";

/// One shard's result (its file `shard-I-of-N.json`, `format`'s record of it).
#[derive(Clone, Debug)]
pub struct ShardResult {
    /// The plan it is a shard of.
    pub plan: Plan,
    /// Its index, 1 to `plan.shards`.
    pub shard: usize,
    /// It searched every unit of its share (it was not stopped).
    pub finished: bool,
    /// What stopped it (a signal, `--timeout`), when it was stopped.
    pub stopped_by: Option<String>,
    /// The solver it ran.
    pub solver: String,
    /// Wall-clock seconds of its search.
    pub seconds: f64,
    /// Every shape of its share, in the check's order.
    pub shapes: Vec<ShapeRecord>,
    /// The mapcheck that wrote it (`build`).
    pub build: String,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// This mapcheck: its version and the SHA-256 of its executable (what a shard result names, so
/// that results of two builds are not merged unawares).
pub(super) fn build() -> String {
    static BUILD: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BUILD
        .get_or_init(|| {
            let binary = std::env::current_exe()
                .and_then(std::fs::read)
                .map(|bytes| hex(&sha2::Sha256::digest(&bytes))[..16].to_string())
                .unwrap_or_else(|e| format!("unknown ({e})"));
            format!("mapcheck {} binary {binary}", env!("CARGO_PKG_VERSION"))
        })
        .clone()
}

/// What a shard did with one of its shapes.
#[derive(Clone, Debug)]
pub struct ShapeRecord {
    /// The (bound, shape).
    pub unit: ShapeUnit,
    /// Seconds spent building its SAT problems.
    pub build_seconds: f64,
    /// One record per axiom of the unit.
    pub axioms: Vec<UnitRecord>,
}

/// What a shard did with one (bound, shape, axiom) unit.
#[derive(Clone, Debug)]
pub struct UnitRecord {
    /// The axiom.
    pub axiom: String,
    /// Its verdict.
    pub verdict: Verdict,
    /// The work spent.
    pub statistics: Statistics,
}

/// A unit's verdict.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Searched to the end: no counterexample.
    Clean,
    /// A counterexample the runner confirmed.
    Counterexample {
        /// The source axioms failing on the lifted execution.
        failed: Vec<String>,
        /// The counterexample as `check` prints it, without its files.
        text: String,
        /// Its files, relative to the shard directory: written for the shard's first
        /// counterexample to the axiom (the only one a merge can report), not for later ones.
        files: Option<Files>,
    },
    /// Not finished: the shard was stopped.
    Stopped,
    /// Not searched: the shard had a counterexample to the axiom at a smaller (bound, shape).
    Skipped,
}

/// The result file of shard `index` of `count` in `dir`.
pub fn result_path(dir: &Path, index: usize, count: usize) -> PathBuf {
    dir.join(format!("shard-{index}-of-{count}.json"))
}

/// The directory a shard writes its counterexamples into.
pub(super) fn counterexamples_dir(dir: &Path, index: usize, count: usize) -> PathBuf {
    dir.join(format!("shard-{index}-of-{count}"))
}

/// `files` with each path relative to `base` (paths outside it are kept as they are).
pub(super) fn relative(files: &Files, base: &Path) -> Files {
    files.map_paths(|p| {
        p.strip_prefix(base)
            .map(Path::to_path_buf)
            .unwrap_or(p.to_path_buf())
    })
}

/// `files` (relative to a shard directory) as paths under `dir`.
pub(super) fn rerooted(files: &Files, dir: &Path) -> Files {
    files.map_paths(|p| dir.join(p))
}

/// Take `dir` for shards of `plan`: create it, refuse it when it holds the plan or a result of
/// another plan, and write the plan (the same text by every shard: concurrent writers agree).
pub(super) fn claim(dir: &Path, plan: &Plan) -> Result<()> {
    output::check_directory(dir)?;
    std::fs::create_dir_all(dir).map_err(|e| {
        Error::file(
            dir.display().to_string(),
            format!("cannot create directory: {e}"),
        )
    })?;
    for (path, _) in shard_files(dir)? {
        let other = format::header(&path, &crate::diag::read_source(&path)?)?;
        if other.version != VERSION {
            return Err(Error::file(
                path.display().to_string(),
                format!(
                    "{} holds shard files of format version {} (an older mapcheck wrote them), \
                     and this mapcheck writes version {VERSION}: give another -o directory, or \
                     remove them (`mapcheck merge {}` still reads them)",
                    dir.display(),
                    other.version,
                    dir.display()
                ),
            ));
        }
        if other.id != plan.id {
            return Err(Error::file(
                path.display().to_string(),
                format!(
                    "{} holds results of another check (plan {} of {}, {} shards), not of this \
                     one (plan {} of {}, {} shards): give another -o directory, or remove them",
                    dir.display(),
                    other.id,
                    other.mapping,
                    other.shards,
                    plan.id,
                    plan.mapping,
                    plan.shards
                ),
            ));
        }
    }
    output::write_file(&dir.join(PLAN_FILE), format::plan_text(plan))
}

/// A file of a shard directory: its path, and (index, count) for a result (`None`: the plan).
type ShardFile = (PathBuf, Option<(usize, usize)>);

/// The plan file and the result files in `dir`, sorted by name.
fn shard_files(dir: &Path) -> Result<Vec<ShardFile>> {
    let mut out = vec![];
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Error::file(dir.display().to_string(), format!("cannot read: {e}")))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == PLAN_FILE {
            out.push((entry.path(), None));
        } else if let Some(n) = parse_result_name(&name) {
            out.push((entry.path(), Some(n)));
        }
    }
    out.sort();
    Ok(out)
}

/// `shard-I-of-N.json` → (I, N).
fn parse_result_name(name: &str) -> Option<(usize, usize)> {
    let rest = name.strip_prefix("shard-")?.strip_suffix(".json")?;
    let (i, n) = rest.split_once("-of-")?;
    Some((i.parse().ok()?, n.parse().ok()?))
}

/// A shard directory as read: its plan and the results present.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The directory.
    pub dir: PathBuf,
    /// The format version of its files (all of one version; `format::READ_VERSIONS`).
    pub version: u32,
    /// The plan (from `plan.json`, or from a result file).
    pub plan: Plan,
    /// The results present, by shard index.
    pub results: BTreeMap<usize, ShardResult>,
}

/// Read a shard directory: the plan and every result file, all of one plan. A file of another
/// plan or format, a corrupt file, or a result that does not match its plan is an error.
pub fn load(dir: &Path) -> Result<Loaded> {
    let err = |msg: String| Error::file(dir.display().to_string(), msg);
    if !dir.is_dir() {
        return Err(err("is not a directory of shard results".into()));
    }
    let mut plan: Option<(Plan, Header)> = None;
    let mut results = BTreeMap::new();
    for (path, named) in shard_files(dir)? {
        let text = crate::diag::read_source(&path)?;
        let header = format::header(&path, &text)?;
        if let Some((p, first)) = &plan {
            if first.version != header.version {
                return Err(Error::file(
                    path.display().to_string(),
                    format!(
                        "is of shard format version {}, and the other files in {} are of \
                         version {}: two mapchecks wrote them; run the shards again with one",
                        header.version,
                        dir.display(),
                        first.version
                    ),
                ));
            }
            if p.id != header.id {
                return Err(Error::file(
                    path.display().to_string(),
                    format!(
                        "is of another check (plan {} of {}, {} shards) than the other files \
                         in {} (plan {} of {}, {} shards)",
                        header.id,
                        header.mapping,
                        header.shards,
                        dir.display(),
                        p.id,
                        p.mapping,
                        p.shards
                    ),
                ));
            }
        }
        match named {
            None => {
                let p = format::read_plan(&path, &text, header.version)?;
                check_plan(&path, &p)?;
                plan.get_or_insert((p, header));
            }
            Some((i, n)) => {
                let r = format::read_result(&path, &text, header.version)?;
                check_plan(&path, &r.plan)?;
                check_result(&path, &r, i, n)?;
                plan.get_or_insert_with(|| (r.plan.clone(), header));
                results.insert(i, r);
            }
        }
    }
    let (plan, header) = plan.ok_or_else(|| {
        err(format!(
            "holds no shard results (no {PLAN_FILE}, no shard-I-of-N.json): run `mapcheck \
             check MAP … --shard I/N -o {}` first",
            dir.display()
        ))
    })?;
    Ok(Loaded {
        dir: dir.to_path_buf(),
        version: header.version,
        plan,
        results,
    })
}

/// A plan read from a file is one `plan` could have made: each unit once, in order, on a
/// shard of the plan, with the plan's axioms.
fn check_plan(path: &Path, plan: &Plan) -> Result<()> {
    let bad = |what: String| {
        Err(Error::file(
            path.display().to_string(),
            format!("holds a plan that no mapcheck made ({what})"),
        ))
    };
    if plan.shards == 0 || plan.shards > MAX_SHARDS {
        return bad(format!("{} shards", plan.shards));
    }
    for w in plan.units.windows(2) {
        if w[0].unit >= w[1].unit {
            return bad(format!("units out of order at bound {}", w[1].unit.bound));
        }
    }
    for u in &plan.units {
        if u.shard == 0 || u.shard > plan.shards {
            return bad(format!("a unit on shard {} of {}", u.shard, plan.shards));
        }
        if !plan.bounds.contains(&u.unit.bound) {
            return bad(format!(
                "a unit of bound {}, not one of its bounds",
                u.unit.bound
            ));
        }
        if let Some(a) = u.axioms.iter().find(|a| !plan.axioms.contains(a)) {
            return bad(format!("a unit of axiom `{a}`, not one of its axioms"));
        }
    }
    Ok(())
}

/// A result file holds what its name says, and exactly the units its plan gives its shard.
fn check_result(path: &Path, r: &ShardResult, index: usize, count: usize) -> Result<()> {
    let bad = |what: String| {
        Err(Error::file(
            path.display().to_string(),
            format!("does not match its plan: {what}"),
        ))
    };
    if r.shard != index || r.plan.shards != count {
        return bad(format!(
            "its name says shard {index} of {count}, it holds shard {} of {}",
            r.shard, r.plan.shards
        ));
    }
    let mine: Vec<&PlanUnit> = r.plan.units.iter().filter(|u| u.shard == index).collect();
    if mine.len() != r.shapes.len() {
        return bad(format!(
            "{} thread shapes, its share is {}",
            r.shapes.len(),
            mine.len()
        ));
    }
    for (u, s) in mine.iter().zip(&r.shapes) {
        let axioms: Vec<&String> = s.axioms.iter().map(|a| &a.axiom).collect();
        if u.unit != s.unit || axioms != u.axioms.iter().collect::<Vec<_>>() {
            return bad(format!(
                "bound {} shape {:?} is not its share's next unit",
                s.unit.bound, s.unit.shape
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_names_read_back() {
        assert_eq!(parse_result_name("shard-2-of-4.json"), Some((2, 4)));
        assert_eq!(parse_result_name("shard-2-of-4"), None);
        assert_eq!(parse_result_name("plan.json"), None);
    }

    /// The digest is of the result re-serialised after reading, so every `f64` a result holds
    /// (wall-clock seconds) must read back bit for bit: serde_json's default parser does not
    /// promise that (it read 47.063839140273004 back as 47.06383914027301 and a merge refused a
    /// shard as edited), its `float_roundtrip` feature does.
    #[test]
    fn the_seconds_a_result_holds_read_back_exactly() {
        for seconds in [47.063839140273004, 15.571993119594001, 93.25451189428901] {
            let text = serde_json::to_string(&seconds).unwrap();
            let read: f64 = serde_json::from_str(&text).unwrap();
            assert_eq!(read.to_bits(), f64::to_bits(seconds), "{text}");
        }
    }
}
