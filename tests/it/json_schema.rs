//! Every JSON document the commands print against `docs/json-schema.json` (issue 45, item 4):
//! each command with `--json` (or `--json-lines`, or a failure under `--json`) is run once, and
//! each document it prints must carry its `format` and `version` and match that format's schema
//! (JSON Schema draft 2020-12, validated by `boon`). The formats printed are exactly
//! `output::JSON_FORMATS`, and the schema knows each of them and no other. (`gpu run --json`
//! needs an OpenCL device: `gpu_opencl.rs` holds its document to the schema, in the CI tier.)
use std::collections::BTreeSet;

use serde_json::Value;

use crate::support::cli::mapcheck;

const SCHEMA: &str = "docs/json-schema.json";
const TEST: &str = "tests/data/oracle/dat3m/litmus/PTX/Nvidia/SB-cta.litmus";

/// The schema, compiled.
fn compiled() -> (boon::Schemas, boon::SchemaIndex) {
    let text = std::fs::read_to_string(SCHEMA).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler
        .add_resource("mapcheck.schema.json", schema)
        .unwrap();
    let index = compiler
        .compile("mapcheck.schema.json", &mut schemas)
        .unwrap();
    (schemas, index)
}

/// Panic unless `document` matches the schema.
pub fn assert_matches_schema(document: &Value) {
    let (schemas, index) = compiled();
    if let Err(e) = schemas.validate(document, index) {
        panic!("{e:#}\n{document:#}");
    }
}

/// The documents `mapcheck args` prints (one per line for `--json-lines`, else one).
fn documents(args: &[&str]) -> Vec<Value> {
    let (code, out, err) = mapcheck(args);
    assert!(code != 70, "{args:?}: internal error\n{err}");
    if args.contains(&"--json-lines") {
        out.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    } else {
        vec![serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}\n{out}{err}"))]
    }
}

/// Each `const` of the schema's `format` properties.
fn schema_formats(schema: &Value) -> BTreeSet<String> {
    let defs = schema["$defs"].as_object().unwrap();
    defs.values()
        .filter_map(|d| d["properties"]["format"]["const"].as_str())
        .map(str::to_string)
        .collect()
}

#[test]
fn every_json_document_matches_the_schema() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = |name: &str| scratch.path().join(name).to_str().unwrap().to_string();
    let (check_dir, shard_dir, confirm_dir) = (dir("check"), dir("shard"), dir("confirm"));
    let repaired = dir("repaired.map");
    let (code, _, err) = mapcheck(&[
        "check", "rc11-ptx", "--bound", "2", "--shard", "1/1", "-o", &shard_dir,
    ]);
    assert_eq!(code, 0, "{err}");
    let runs: Vec<Vec<&str>> = vec![
        vec!["run", "ptx-v6", TEST, "--json"],
        vec!["run", "ptx-v6", TEST, "missing.litmus", "--json-lines"],
        vec!["run", "ptx-v6", TEST, "--json-lines", "--timeout", "1"],
        vec![
            "check", "rc11-ptx", "--bound", "5", "--json", "-o", &check_dir,
        ],
        vec![
            "check", "rc11-ptx", "--bound", "2", "--shard", "1/1", "--json", "-o", &shard_dir,
        ],
        vec!["merge", &shard_dir, "--json"],
        vec!["compare", "rc11", "c11", "--bound", "3", "--json"],
        vec![
            "repair", "rc11-ptx", "--bound", "3", "-o", &repaired, "--json",
        ],
        vec!["repair", "rc11-ptx", "--weaken", "--bound", "2", "--json"],
        vec!["oracle", "--suite", "OPENCL-DR", "--json"],
        vec![
            "bench",
            "--bounds",
            "2",
            "--natural-bounds",
            "2",
            "--b1-bound",
            "2",
            "--json",
        ],
        vec!["check", "no-such-mapping.map", "--json"],
    ];
    // `check --test` needs the counterexample the check above wrote.
    let source = format!("{check_dir}/rc11-ptx-SC/source.litmus");
    let confirm = [
        "check",
        "rc11-ptx",
        "--test",
        &source,
        "--json",
        "-o",
        &confirm_dir,
    ];
    let mut printed = BTreeSet::new();
    for args in runs.iter().map(Vec::as_slice).chain([&confirm[..]]) {
        for document in documents(args) {
            assert_matches_schema(&document);
            printed.insert(document["format"].as_str().unwrap().to_string());
        }
    }
    let mut declared: BTreeSet<String> = mapcheck::output::JSON_FORMATS
        .iter()
        .map(|(f, _)| f.to_string())
        .collect();
    declared.insert("mapcheck-shards".into());
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(SCHEMA).unwrap()).unwrap();
    assert_eq!(schema_formats(&schema), declared);
    declared.remove("mapcheck-gpu-runs");
    assert_eq!(
        printed, declared,
        "a declared format no command printed, or the other way"
    );
}

/// The schema tells documents apart by format and version: a run document without its format,
/// with another version, or in the array shape `run --json` printed before it had one, fails.
#[test]
fn a_document_without_its_format_or_version_fails_the_schema() {
    let (schemas, index) = compiled();
    let (_, out, _) = mapcheck(&["run", "ptx-v6", TEST, "--json"]);
    let good: Value = serde_json::from_str(&out).unwrap();
    assert!(schemas.validate(&good, index).is_ok());
    let mut no_format = good.clone();
    no_format.as_object_mut().unwrap().remove("format");
    let mut other_version = good.clone();
    other_version["version"] = 2.into();
    let array = good["outcomes"].clone();
    for bad in [no_format, other_version, array] {
        assert!(schemas.validate(&bad, index).is_err(), "{bad:#}");
    }
}
