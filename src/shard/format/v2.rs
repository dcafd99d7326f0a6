//! Version 2 of the shard files (`"format": "mapcheck-shards 2"`, no `version` field), read only:
//! the records as mapcheck wrote them until version 3 (commit 0a297d7), when they were the
//! search's own types by `derive(Serialize)`. Frozen here, field for field and in the same order,
//! so that a result's digest (the SHA-256 of the record as compact JSON with `digest` empty)
//! recomputes to what that mapcheck wrote; each record converts to its version-3 record.
//! tests/data/shard/v2/ is a directory that mapcheck wrote.
//!
//! Owns: `PlanFile`, `ShardResult` and the records under them. Uses: nothing beyond `format`.
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{
    sha256_json, AxiomRecord, CountingRecord, FilesRecord, OptionsRecord, PlanRecord,
    PlanUnitRecord, ResultFile, ScopeRecord, ShapeRecordV3, SolverRecord, StatisticsRecord,
    VerdictRecord, FORMAT, VERSION,
};

/// `plan.json` of version 2.
#[derive(Deserialize)]
pub(super) struct PlanFile {
    pub(super) plan: Plan,
}

#[derive(Clone, Serialize, Deserialize)]
pub(super) struct Plan {
    id: String,
    mapping: String,
    shards: usize,
    options: Options,
    axioms: Vec<String>,
    bounds: Vec<usize>,
    scope: Scope,
    cost_model: String,
    units: Vec<PlanUnit>,
}

#[derive(Clone, Serialize, Deserialize)]
struct Options {
    bound: usize,
    counting: Counting,
    axioms: Vec<String>,
    threads: Option<usize>,
    locations: Option<usize>,
    backend: Backend,
    first: bool,
    /// Absent in files written before the option existed: version 2's default then, 4 GiB.
    #[serde(default = "four")]
    max_memory_gib: u64,
}

fn four() -> u64 {
    4
}

#[derive(Clone, Copy, Serialize, Deserialize)]
enum Counting {
    Natural,
    Alloy,
}

#[derive(Clone, Copy, Serialize, Deserialize)]
enum Backend {
    BatSat,
    Cadical,
}

#[derive(Clone, Serialize, Deserialize)]
struct Scope {
    searched: Vec<String>,
    not_searched: Vec<String>,
    #[serde(default)]
    target: String,
}

#[derive(Clone, Serialize, Deserialize)]
struct PlanUnit {
    unit: ShapeUnit,
    axioms: Vec<String>,
    cost: f64,
    shard: usize,
}

#[derive(Clone, Serialize, Deserialize)]
struct ShapeUnit {
    bound: usize,
    index: usize,
    shape: Vec<usize>,
}

/// `shard-I-of-N.json` of version 2.
#[derive(Clone, Serialize, Deserialize)]
pub(super) struct ShardResult {
    format: String,
    plan: Plan,
    shard: usize,
    finished: bool,
    stopped_by: Option<String>,
    solver: String,
    seconds: f64,
    shapes: Vec<ShapeRecord>,
    build: String,
    pub(super) digest: String,
}

impl ShardResult {
    /// The SHA-256 of the record with an empty `digest`, as version 2 computed it.
    pub(super) fn content_digest(&self) -> String {
        sha256_json(&ShardResult {
            digest: String::new(),
            ..self.clone()
        })
    }
}

#[derive(Clone, Serialize, Deserialize)]
struct ShapeRecord {
    unit: ShapeUnit,
    build_seconds: f64,
    axioms: Vec<UnitRecord>,
}

#[derive(Clone, Serialize, Deserialize)]
struct UnitRecord {
    axiom: String,
    verdict: Verdict,
    statistics: Statistics,
}

#[derive(Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Verdict {
    Clean,
    Counterexample {
        failed: Vec<String>,
        text: String,
        files: Option<Files>,
    },
    Stopped,
    Skipped,
}

#[derive(Clone, Serialize, Deserialize)]
struct Statistics {
    queries: usize,
    solves: usize,
    racy: usize,
    #[serde(default)]
    racy_by_interleaving: usize,
    explained: usize,
    seconds: f64,
}

#[derive(Clone, Serialize, Deserialize)]
struct Files {
    source: Option<PathBuf>,
    target: Option<PathBuf>,
    dot: Option<PathBuf>,
    svg: Option<PathBuf>,
    #[serde(default)]
    readings: Option<PathBuf>,
    coq: Option<PathBuf>,
}

impl From<Plan> for PlanRecord {
    fn from(p: Plan) -> PlanRecord {
        let o = p.options;
        PlanRecord {
            id: p.id,
            mapping: p.mapping,
            shards: p.shards,
            options: OptionsRecord {
                bound: o.bound,
                counting: match o.counting {
                    Counting::Natural => CountingRecord::Natural,
                    Counting::Alloy => CountingRecord::Alloy,
                },
                axioms: o.axioms,
                threads: o.threads,
                locations: o.locations,
                solver: match o.backend {
                    Backend::BatSat => SolverRecord::Batsat,
                    Backend::Cadical => SolverRecord::Cadical,
                },
                first: o.first,
                max_memory_gib: o.max_memory_gib,
            },
            axioms: p.axioms,
            bounds: p.bounds,
            scope: ScopeRecord {
                searched: p.scope.searched,
                not_searched: p.scope.not_searched,
                source: String::new(),
                target: p.scope.target,
            },
            cost_model: p.cost_model,
            units: p
                .units
                .into_iter()
                .map(|u| PlanUnitRecord {
                    bound: u.unit.bound,
                    index: u.unit.index,
                    shape: u.unit.shape,
                    axioms: u.axioms,
                    cost: u.cost,
                    shard: u.shard,
                })
                .collect(),
        }
    }
}

/// The version-3 record of a version-2 result (its digest left empty: it was checked as
/// version 2's).
impl From<ShardResult> for ResultFile {
    fn from(r: ShardResult) -> ResultFile {
        ResultFile {
            format: FORMAT.to_string(),
            version: VERSION,
            plan: r.plan.into(),
            shard: r.shard,
            finished: r.finished,
            stopped_by: r.stopped_by,
            solver: r.solver,
            seconds: r.seconds,
            shapes: r
                .shapes
                .into_iter()
                .map(|s| ShapeRecordV3 {
                    bound: s.unit.bound,
                    index: s.unit.index,
                    shape: s.unit.shape,
                    build_seconds: s.build_seconds,
                    axioms: s
                        .axioms
                        .into_iter()
                        .map(|a| AxiomRecord {
                            axiom: a.axiom,
                            verdict: a.verdict.into(),
                            statistics: a.statistics.into(),
                        })
                        .collect(),
                })
                .collect(),
            build: r.build,
            digest: String::new(),
        }
    }
}

impl From<Verdict> for VerdictRecord {
    fn from(v: Verdict) -> VerdictRecord {
        match v {
            Verdict::Clean => VerdictRecord::Clean,
            Verdict::Stopped => VerdictRecord::Stopped,
            Verdict::Skipped => VerdictRecord::Skipped,
            Verdict::Counterexample {
                failed,
                text,
                files,
            } => VerdictRecord::Counterexample {
                failed,
                text,
                files: files.map(|f| FilesRecord {
                    source: f.source,
                    target: f.target,
                    dot: f.dot,
                    svg: f.svg,
                    readings: f.readings,
                    coq: f.coq,
                }),
            },
        }
    }
}

impl From<Statistics> for StatisticsRecord {
    fn from(s: Statistics) -> StatisticsRecord {
        StatisticsRecord {
            queries: s.queries,
            solves: s.solves,
            racy: s.racy,
            racy_by_interleaving: s.racy_by_interleaving,
            explained: s.explained,
            seconds: s.seconds,
        }
    }
}
