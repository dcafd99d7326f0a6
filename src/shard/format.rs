//! The shard files' format: the records `plan.json` and `shard-I-of-N.json` are written as, of
//! this module's own types (never the search's), converted to and from the in-memory `Plan` and
//! `ShardResult`, so that a change to the search's types cannot change the files unawares: it
//! fails to compile here until the conversion, and if need be the version, says what it means.
//!
//! A file opens with `"format": "mapcheck-shards"` and `"version": VERSION`. This mapcheck
//! writes version 3 and reads versions 2 (`v2`: `"format": "mapcheck-shards 2"`, no `version`,
//! the search's types as they serialised then) and 3; a file of any other version, or of another
//! format, is refused naming the file, what it is and what is read. A result's `digest` is the
//! SHA-256 of the file's record as compact JSON with `digest` empty, each version's own record.
//!
//! Owns: `FORMAT`, `VERSION`, `READ_VERSIONS`, the version-3 records, `Header`, `header`,
//! `read_plan`, `read_result`, `plan_text`, `result_text`, `options_json`, `serialize_plan`.
//! Uses: `search` (options, scope, units, statistics), `report` (`Files`), `solver`, `diag`.
//!
//! Files:
//! - `format/v2.rs`: version 2's records, a frozen copy of the search's types as they serialised
//!   until 0a297d7, read only and converted to version 3's.
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::Digest as _;

use super::files::{ShapeRecord, ShardResult, UnitRecord, Verdict};
use super::plan::{Plan, PlanUnit};
use crate::diag::{Error, Result};
use crate::report::Files;
use crate::search::{Counting, Options, Scope, ShapeUnit, Statistics};
use crate::solver::{Backend, Stop};

mod v2;

/// The `format` of every shard file this mapcheck writes.
pub const FORMAT: &str = "mapcheck-shards";

/// The `version` of every shard file this mapcheck writes.
pub const VERSION: u32 = 3;

/// The versions this mapcheck reads.
pub const READ_VERSIONS: [u32; 2] = [2, 3];

/// What identifies a shard file (any version this mapcheck reads has these).
#[derive(Clone, Debug)]
pub(super) struct Header {
    /// The file's format version.
    pub version: u32,
    /// Its plan's identity.
    pub id: String,
    /// Its plan's mapping.
    pub mapping: String,
    /// Its plan's number of shards.
    pub shards: usize,
}

/// `format` and `version` alone, as every version has them (version 2 in `format`).
#[derive(Deserialize)]
struct Head {
    format: String,
    #[serde(default)]
    version: Option<serde_json::Value>,
}

/// The plan's identity, as every version this mapcheck reads has it.
#[derive(Deserialize)]
struct Identity {
    plan: PlanIdentity,
}

#[derive(Deserialize)]
struct PlanIdentity {
    id: String,
    mapping: String,
    shards: usize,
}

/// The versions read, in words (`2 and 3`).
fn versions_read() -> String {
    let v: Vec<String> = READ_VERSIONS.iter().map(u32::to_string).collect();
    match v.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

fn refused(path: &Path, msg: String) -> Error {
    Error::file(path.display().to_string(), msg)
}

fn not_ours(path: &Path, e: &dyn std::fmt::Display) -> Error {
    refused(
        path,
        format!(
            "is not a mapcheck shard file (`\"format\": \"{FORMAT}\"`, version {}): {e}",
            versions_read()
        ),
    )
}

/// The format version and plan identity of shard file `path` (its text `text`); a file of another
/// format, or of a version this mapcheck does not read, is an error saying what was expected.
pub(super) fn header(path: &Path, text: &str) -> Result<Header> {
    let head: Head = serde_json::from_str(text).map_err(|e| not_ours(path, &e))?;
    let legacy = head
        .format
        .strip_prefix(FORMAT)
        .and_then(|rest| rest.strip_prefix(' '))
        .and_then(|n| n.parse::<u32>().ok());
    let read = versions_read();
    let version = match (head.format == FORMAT, legacy, &head.version) {
        (true, _, Some(v)) => v
            .as_u64()
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| {
                let msg =
                    format!("has `\"version\": {v}`, not a format version (a number: {read})");
                refused(path, msg)
            })?,
        (true, _, None) => {
            let msg = format!(
                "is of format `{FORMAT}` but has no `version` (this mapcheck reads versions {read})"
            );
            return Err(refused(path, msg));
        }
        (false, Some(n), None) => n,
        _ => {
            let msg = format!(
                "is of format `{}`, not `{FORMAT}` version {read}: not a shard file this \
                 mapcheck reads",
                head.format
            );
            return Err(refused(path, msg));
        }
    };
    if !READ_VERSIONS.contains(&version) {
        let (whose, what) = if version > VERSION {
            (
                "a newer mapcheck",
                "merge it with the mapcheck that wrote it (its `build`)",
            )
        } else {
            ("an older mapcheck", "run its shards again with this one")
        };
        return Err(refused(
            path,
            format!(
                "is of shard format version {version}, which {whose} wrote; this mapcheck \
                 reads versions {} and writes {VERSION}: {what}",
                versions_read()
            ),
        ));
    }
    let id: Identity = serde_json::from_str(text).map_err(|e| not_ours(path, &e))?;
    Ok(Header {
        version,
        id: id.plan.id,
        mapping: id.plan.mapping,
        shards: id.plan.shards,
    })
}

/// The plan of plan file `path`, of format `version` (from `header`).
pub(super) fn read_plan(path: &Path, text: &str, version: u32) -> Result<Plan> {
    let record: PlanRecord = match version {
        2 => {
            let file: v2::PlanFile = parse(path, text, version)?;
            file.plan.into()
        }
        _ => {
            let file: PlanFile = parse(path, text, version)?;
            file.plan
        }
    };
    Ok(record.into_plan())
}

/// The result of result file `path`, of format `version` (from `header`): its digest checked.
pub(super) fn read_result(path: &Path, text: &str, version: u32) -> Result<ShardResult> {
    let (record, sealed) = match version {
        2 => {
            let file: v2::ShardResult = parse(path, text, version)?;
            let sealed = file.digest == file.content_digest();
            (ResultFile::from(file), sealed)
        }
        _ => {
            let file: ResultFile = parse(path, text, version)?;
            let sealed = file.digest == file.content_digest();
            (file, sealed)
        }
    };
    if !sealed {
        return Err(refused(
            path,
            "was changed after mapcheck wrote it (its digest does not match its content): run \
             its shard again"
                .into(),
        ));
    }
    Ok(record.into_result())
}

fn parse<'a, T: Deserialize<'a>>(path: &Path, text: &'a str, version: u32) -> Result<T> {
    serde_json::from_str(text).map_err(|e| {
        refused(
            path,
            format!("is not a well-formed shard file of format version {version}: {e}"),
        )
    })
}

/// `plan.json`'s text for `plan` (version `VERSION`).
pub(super) fn plan_text(plan: &Plan) -> String {
    let file = PlanFile {
        format: FORMAT.to_string(),
        version: VERSION,
        plan: PlanRecord::from(plan),
    };
    serde_json::to_string_pretty(&file).expect("plans serialise") + "\n"
}

/// `shard-I-of-N.json`'s text for `result` (version `VERSION`), sealed with its digest.
pub(super) fn result_text(result: &ShardResult) -> String {
    let mut file = ResultFile::from(result);
    file.digest = file.content_digest();
    serde_json::to_string_pretty(&file).expect("results serialise") + "\n"
}

/// The options as the plan file writes them, as compact JSON (what the plan's identity hashes).
pub(super) fn options_json(opts: &Options) -> String {
    serde_json::to_string(&OptionsRecord::from(opts)).expect("options serialise")
}

/// Serialise a plan as its record (`merge --json` shows the plan as `plan.json` holds it).
pub(super) fn serialize_plan<S: serde::Serializer>(
    plan: &Plan,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    PlanRecord::from(plan).serialize(s)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256, in hex, of `record` as compact JSON.
pub(super) fn sha256_json(record: &impl Serialize) -> String {
    let json = serde_json::to_string(record).expect("results serialise");
    hex(&sha2::Sha256::digest(json.as_bytes()))
}

// The version-3 records. Change them only with `VERSION`, and keep reading the version before
// (as `v2` reads version 2).

/// `plan.json`.
#[derive(Serialize, Deserialize)]
struct PlanFile {
    /// `FORMAT`.
    format: String,
    /// `VERSION`.
    version: u32,
    plan: PlanRecord,
}

/// A plan: the check's identity, options and scope, and every unit with its shard.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct PlanRecord {
    id: String,
    mapping: String,
    shards: usize,
    options: OptionsRecord,
    axioms: Vec<String>,
    bounds: Vec<usize>,
    scope: ScopeRecord,
    cost_model: String,
    units: Vec<PlanUnitRecord>,
}

/// The options of the check (the solver included).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct OptionsRecord {
    bound: usize,
    counting: CountingRecord,
    axioms: Vec<String>,
    threads: Option<usize>,
    locations: Option<usize>,
    solver: SolverRecord,
    first: bool,
    max_memory_gib: u64,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum CountingRecord {
    Natural,
    Alloy,
}

/// The solver, as `--solver` names it.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum SolverRecord {
    Batsat,
    Cadical,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct ScopeRecord {
    searched: Vec<String>,
    not_searched: Vec<String>,
    /// Absent in the shards of builds before the source readings: empty.
    #[serde(default)]
    source: String,
    target: String,
}

/// One (bound, shape) of the plan, with its axioms, estimate and shard.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct PlanUnitRecord {
    bound: usize,
    index: usize,
    shape: Vec<usize>,
    axioms: Vec<String>,
    cost: f64,
    shard: usize,
}

/// `shard-I-of-N.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct ResultFile {
    /// `FORMAT`.
    format: String,
    /// `VERSION`.
    version: u32,
    plan: PlanRecord,
    shard: usize,
    finished: bool,
    stopped_by: Option<String>,
    solver: String,
    seconds: f64,
    shapes: Vec<ShapeRecordV3>,
    build: String,
    /// The SHA-256 of the record with this field empty (`content_digest`).
    digest: String,
}

impl ResultFile {
    fn content_digest(&self) -> String {
        sha256_json(&ResultFile {
            digest: String::new(),
            ..self.clone()
        })
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct ShapeRecordV3 {
    bound: usize,
    index: usize,
    shape: Vec<usize>,
    build_seconds: f64,
    axioms: Vec<AxiomRecord>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct AxiomRecord {
    axiom: String,
    verdict: VerdictRecord,
    statistics: StatisticsRecord,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum VerdictRecord {
    Clean,
    Counterexample {
        failed: Vec<String>,
        text: String,
        files: Option<FilesRecord>,
    },
    Stopped,
    Skipped,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct StatisticsRecord {
    queries: usize,
    solves: usize,
    racy: usize,
    racy_by_interleaving: usize,
    explained: usize,
    seconds: f64,
}

/// A counterexample's files, relative to the shard directory.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct FilesRecord {
    source: Option<PathBuf>,
    target: Option<PathBuf>,
    dot: Option<PathBuf>,
    svg: Option<PathBuf>,
    readings: Option<PathBuf>,
    coq: Option<PathBuf>,
}

// From the in-memory types to the records.

impl From<&Plan> for PlanRecord {
    fn from(p: &Plan) -> PlanRecord {
        PlanRecord {
            id: p.id.clone(),
            mapping: p.mapping.clone(),
            shards: p.shards,
            options: OptionsRecord::from(&p.options),
            axioms: p.axioms.clone(),
            bounds: p.bounds.clone(),
            scope: ScopeRecord {
                searched: p.scope.searched.clone(),
                not_searched: p.scope.not_searched.clone(),
                source: p.scope.source.clone(),
                target: p.scope.target.clone(),
            },
            cost_model: p.cost_model.clone(),
            units: p
                .units
                .iter()
                .map(|u| PlanUnitRecord {
                    bound: u.unit.bound,
                    index: u.unit.index,
                    shape: u.unit.shape.clone(),
                    axioms: u.axioms.clone(),
                    cost: u.cost,
                    shard: u.shard,
                })
                .collect(),
        }
    }
}

impl From<&Options> for OptionsRecord {
    fn from(o: &Options) -> OptionsRecord {
        // Every field named, so that a new option fails to compile here until it is written.
        let Options {
            bound,
            counting,
            axioms,
            threads,
            locations,
            backend,
            first,
            max_memory_gib,
            stop: _,
        } = o;
        OptionsRecord {
            bound: *bound,
            counting: match counting {
                Counting::Natural => CountingRecord::Natural,
                Counting::Alloy => CountingRecord::Alloy,
            },
            axioms: axioms.clone(),
            threads: *threads,
            locations: *locations,
            solver: match backend {
                Backend::BatSat => SolverRecord::Batsat,
                Backend::Cadical => SolverRecord::Cadical,
            },
            first: *first,
            max_memory_gib: *max_memory_gib,
        }
    }
}

impl From<&ShardResult> for ResultFile {
    fn from(r: &ShardResult) -> ResultFile {
        ResultFile {
            format: FORMAT.to_string(),
            version: VERSION,
            plan: PlanRecord::from(&r.plan),
            shard: r.shard,
            finished: r.finished,
            stopped_by: r.stopped_by.clone(),
            solver: r.solver.clone(),
            seconds: r.seconds,
            shapes: r.shapes.iter().map(ShapeRecordV3::from).collect(),
            build: r.build.clone(),
            digest: String::new(),
        }
    }
}

impl From<&ShapeRecord> for ShapeRecordV3 {
    fn from(s: &ShapeRecord) -> ShapeRecordV3 {
        ShapeRecordV3 {
            bound: s.unit.bound,
            index: s.unit.index,
            shape: s.unit.shape.clone(),
            build_seconds: s.build_seconds,
            axioms: s
                .axioms
                .iter()
                .map(|a| AxiomRecord {
                    axiom: a.axiom.clone(),
                    verdict: VerdictRecord::from(&a.verdict),
                    statistics: StatisticsRecord::from(&a.statistics),
                })
                .collect(),
        }
    }
}

impl From<&Verdict> for VerdictRecord {
    fn from(v: &Verdict) -> VerdictRecord {
        match v {
            Verdict::Clean => VerdictRecord::Clean,
            Verdict::Stopped => VerdictRecord::Stopped,
            Verdict::Skipped => VerdictRecord::Skipped,
            Verdict::Counterexample {
                failed,
                text,
                files,
            } => VerdictRecord::Counterexample {
                failed: failed.clone(),
                text: text.clone(),
                files: files.as_ref().map(FilesRecord::from),
            },
        }
    }
}

impl From<&Statistics> for StatisticsRecord {
    fn from(s: &Statistics) -> StatisticsRecord {
        let Statistics {
            queries,
            solves,
            racy,
            racy_by_interleaving,
            explained,
            seconds,
        } = *s;
        StatisticsRecord {
            queries,
            solves,
            racy,
            racy_by_interleaving,
            explained,
            seconds,
        }
    }
}

impl From<&Files> for FilesRecord {
    fn from(f: &Files) -> FilesRecord {
        let Files {
            source,
            target,
            dot,
            svg,
            readings,
            coq,
        } = f.clone();
        FilesRecord {
            source,
            target,
            dot,
            svg,
            readings,
            coq,
        }
    }
}

// From the records to the in-memory types.

impl PlanRecord {
    fn into_plan(self) -> Plan {
        let o = self.options;
        Plan {
            id: self.id,
            mapping: self.mapping,
            shards: self.shards,
            options: Options {
                bound: o.bound,
                counting: match o.counting {
                    CountingRecord::Natural => Counting::Natural,
                    CountingRecord::Alloy => Counting::Alloy,
                },
                axioms: o.axioms,
                threads: o.threads,
                locations: o.locations,
                backend: match o.solver {
                    SolverRecord::Batsat => Backend::BatSat,
                    SolverRecord::Cadical => Backend::Cadical,
                },
                first: o.first,
                max_memory_gib: o.max_memory_gib,
                stop: Stop::new(),
            },
            axioms: self.axioms,
            bounds: self.bounds,
            scope: Scope {
                searched: self.scope.searched,
                not_searched: self.scope.not_searched,
                source: self.scope.source,
                target: self.scope.target,
            },
            cost_model: self.cost_model,
            units: self
                .units
                .into_iter()
                .map(|u| PlanUnit {
                    unit: ShapeUnit {
                        bound: u.bound,
                        index: u.index,
                        shape: u.shape,
                    },
                    axioms: u.axioms,
                    cost: u.cost,
                    shard: u.shard,
                })
                .collect(),
        }
    }
}

impl ResultFile {
    fn into_result(self) -> ShardResult {
        ShardResult {
            plan: self.plan.into_plan(),
            shard: self.shard,
            finished: self.finished,
            stopped_by: self.stopped_by,
            solver: self.solver,
            seconds: self.seconds,
            shapes: self
                .shapes
                .into_iter()
                .map(|s| ShapeRecord {
                    unit: ShapeUnit {
                        bound: s.bound,
                        index: s.index,
                        shape: s.shape,
                    },
                    build_seconds: s.build_seconds,
                    axioms: s
                        .axioms
                        .into_iter()
                        .map(|a| UnitRecord {
                            axiom: a.axiom,
                            verdict: a.verdict.into(),
                            statistics: a.statistics.into(),
                        })
                        .collect(),
                })
                .collect(),
            build: self.build,
        }
    }
}

impl From<VerdictRecord> for Verdict {
    fn from(v: VerdictRecord) -> Verdict {
        match v {
            VerdictRecord::Clean => Verdict::Clean,
            VerdictRecord::Stopped => Verdict::Stopped,
            VerdictRecord::Skipped => Verdict::Skipped,
            VerdictRecord::Counterexample {
                failed,
                text,
                files,
            } => Verdict::Counterexample {
                failed,
                text,
                files: files.map(Files::from),
            },
        }
    }
}

impl From<StatisticsRecord> for Statistics {
    fn from(s: StatisticsRecord) -> Statistics {
        Statistics {
            queries: s.queries,
            solves: s.solves,
            racy: s.racy,
            racy_by_interleaving: s.racy_by_interleaving,
            explained: s.explained,
            seconds: s.seconds,
        }
    }
}

impl From<FilesRecord> for Files {
    fn from(f: FilesRecord) -> Files {
        Files {
            source: f.source,
            target: f.target,
            dot: f.dot,
            svg: f.svg,
            readings: f.readings,
            coq: f.coq,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header_error(text: &str) -> String {
        header(Path::new("f.json"), text).unwrap_err().to_string()
    }

    #[test]
    fn a_file_of_another_format_or_version_is_refused_saying_what_is_read() {
        let plan = r#""plan": {"id": "a", "mapping": "m.map", "shards": 2}"#;
        let v = |format: &str, version: &str| format!("{{\"format\": {format}, {version}{plan}}}");
        let e = header_error(&v("\"x\"", ""));
        assert!(
            e.contains("f.json") && e.contains("is of format `x`"),
            "{e}"
        );
        assert!(e.contains("`mapcheck-shards` version 2 and 3"), "{e}");
        let e = header_error(&v("\"mapcheck-shards 1\"", ""));
        assert!(
            e.contains("version 1, which an older mapcheck wrote"),
            "{e}"
        );
        assert!(e.contains("reads versions 2 and 3 and writes 3"), "{e}");
        let e = header_error(&v("\"mapcheck-shards\"", "\"version\": 4, "));
        assert!(e.contains("version 4, which a newer mapcheck wrote"), "{e}");
        let e = header_error(&v("\"mapcheck-shards\"", "\"version\": \"3\", "));
        assert!(e.contains("not a format version"), "{e}");
        let e = header_error(&v("\"mapcheck-shards\"", ""));
        assert!(e.contains("has no `version`"), "{e}");
        let e = header_error("{\"plan\": 1}");
        assert!(e.contains("is not a mapcheck shard file"), "{e}");
        let h = header(Path::new("f.json"), &v("\"mapcheck-shards 2\"", "")).unwrap();
        assert_eq!((h.version, h.id.as_str(), h.shards), (2, "a", 2));
        let h = header(
            Path::new("f.json"),
            &v("\"mapcheck-shards\"", "\"version\": 3, "),
        )
        .unwrap();
        assert_eq!(h.version, 3);
    }

    /// The solver and the counting are written as words of the format's own, whatever the
    /// search's enums are called.
    #[test]
    fn options_are_written_in_the_formats_own_words() {
        let mut o = Options::natural(4, Backend::Cadical);
        o.counting = Counting::Alloy;
        o.max_memory_gib = 7;
        let json = options_json(&o);
        assert_eq!(
            json,
            r#"{"bound":4,"counting":"alloy","axioms":[],"threads":null,"locations":null,"solver":"cadical","first":false,"max_memory_gib":7}"#
        );
    }
}
