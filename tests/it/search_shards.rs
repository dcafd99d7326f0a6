//! A check split into shards (decision 012), without a cluster: the plan is a pure function of
//! the check and covers every unit once; shards merged give the single process's verdicts; a
//! missing shard is named and no "none up to N" is claimed for what it holds, and `merge
//! --run-missing` completes the check; a result of another plan, or a corrupt one, is refused;
//! files are written in format version 3 and a directory of version 2 (tests/data/shard/v2,
//! written by the mapcheck of that version) still merges to the verdicts that mapcheck printed.

use std::collections::BTreeSet;
use std::path::Path;

use crate::support::cli::mapcheck;
use mapcheck::encode::Backend;
use mapcheck::search::{self, Options};
use mapcheck::shard::{self, ShardSpec};
use mapcheck::{mapping, Mapping};

const M2: &str = "mappings/known-bugs/m2-release-store-relaxed.map";

fn load(map: &str) -> Mapping {
    mapping::load(Path::new(map)).expect("mapping loads")
}

/// Per axiom: `Err(bound)` for a counterexample at `bound`, `Ok(n)` for "none up to n".
type Verdicts = Vec<(String, Result<usize, usize>)>;

fn single_process(m: &Mapping, opts: &Options) -> Verdicts {
    let r = search::check(m, opts, &|_| {}).expect("the check runs");
    r.axioms
        .iter()
        .map(|a| {
            let v = match &a.counterexample {
                Some(cx) => Err(cx.bound),
                None => Ok(a.clean_to),
            };
            (a.axiom.clone(), v)
        })
        .collect()
}

fn merged_verdicts(m: &shard::Merged) -> Verdicts {
    m.axioms
        .iter()
        .map(|a| {
            let v = match &a.counterexample {
                Some(cx) => Err(cx.bound),
                None => Ok(a.clean_to),
            };
            (a.axiom.clone(), v)
        })
        .collect()
}

/// Run shard `index` of `count` into `dir` through the library, as `check --shard` does.
fn run_shard(m: &Mapping, opts: &Options, index: usize, count: usize, dir: &Path) {
    let spec = ShardSpec::Given { index, count };
    let no_env = |_: &str| None;
    shard::check_shard(m, opts, spec, None, &no_env, dir, true, &|| "asked".into())
        .expect("the shard runs");
}

#[test]
fn the_plan_is_deterministic_and_covers_every_unit_once() {
    let m = load("mappings/rc11-ptx-artifact.map");
    let opts = Options::natural(5, Backend::Cadical);
    let work = search::work(&m, &opts).unwrap();
    assert_eq!(work.bounds, vec![1, 2, 3, 4, 5]);
    assert_eq!(work.shapes.len(), 1 + 2 + 3 + 5 + 7);
    for n in [1, 2, 3, 4, 7, 18, 25] {
        let a = shard::plan(&m, &opts, n).unwrap();
        let b = shard::plan(&m, &opts, n).unwrap();
        assert_eq!(a.id, b.id);
        assert_eq!(a.units, b.units, "{n} shards: the same plan twice");
        let units: Vec<_> = a.units.iter().map(|u| u.unit.clone()).collect();
        assert_eq!(
            units, work.shapes,
            "{n} shards: every unit, once, in the check's order"
        );
        assert!(a.units.iter().all(|u| u.axioms == work.axioms));
        let used: BTreeSet<usize> = a.units.iter().map(|u| u.shard).collect();
        let expected: BTreeSet<usize> = (1..=n.min(units.len())).collect();
        assert_eq!(used, expected, "{n} shards: each shard in 1..=N, none idle");
    }
    // The identity changes with the options and the number of shards.
    let four = shard::plan(&m, &opts, 4).unwrap().id;
    assert_ne!(four, shard::plan(&m, &opts, 3).unwrap().id);
    let bound4 = Options::natural(4, Backend::Cadical);
    assert_ne!(four, shard::plan(&m, &bound4, 4).unwrap().id);
    let some = Options {
        axioms: vec!["SC".into()],
        ..opts.clone()
    };
    let p = shard::plan(&m, &some, 4).unwrap();
    assert_ne!(four, p.id);
    assert!(p.units.iter().all(|u| u.axioms == ["SC"]));
}

#[test]
fn three_shards_merged_give_the_single_process_verdicts() {
    let m = load(M2);
    let opts = Options::natural(4, Backend::BatSat);
    let single = single_process(&m, &opts);
    // m2 (mappings/EXPECTED.tsv): Coherence and SC at bound 4, Atomicity clean.
    assert_eq!(
        single,
        vec![
            ("Coherence".to_string(), Err(4)),
            ("Atomicity".to_string(), Ok(4)),
            ("SC".to_string(), Err(4)),
        ]
    );
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shards");
    for i in 1..=3 {
        run_shard(&m, &opts, i, 3, &dir);
    }
    let merged = shard::merge(&shard::load(&dir).unwrap());
    assert_eq!(merged.present, vec![1, 2, 3]);
    assert!(merged.missing.is_empty() && merged.stopped.is_empty());
    assert_eq!(merged_verdicts(&merged), single);
    assert!(merged.has_counterexample() && !merged.incomplete());
    // Each reported counterexample's files are there, under the merged directory.
    for a in merged
        .axioms
        .iter()
        .filter_map(|a| a.counterexample.as_ref())
    {
        let files = serde_json::to_value(&a.files).unwrap();
        let source = Path::new(
            files["source"]
                .as_str()
                .expect("its source test was written"),
        );
        assert!(source.starts_with(&dir), "{}", source.display());
        let text = std::fs::read_to_string(source).unwrap();
        assert!(text.contains("exists"), "{text}");
    }

    // The command line says the same, with check's summary lines and check's exit status.
    let (status, out, err) = mapcheck(&["merge", dir.to_str().unwrap()]);
    assert_eq!(status, 1, "{out}{err}");
    assert!(
        out.contains("  Coherence: COUNTEREXAMPLE at bound 4"),
        "{out}"
    );
    assert!(out.contains("  Atomicity: none up to bound 4 ("), "{out}");
    assert!(out.contains("  SC: COUNTEREXAMPLE at bound 4"), "{out}");
    assert!(out.contains("cycle that breaks SC"), "{out}");
    assert!(
        !out.contains("missing") && !out.contains("incomplete"),
        "{out}"
    );

    // A counterexample file removed since: named as missing, not printed as written.
    let coherence = merged
        .axioms
        .iter()
        .find(|a| a.axiom == "Coherence")
        .unwrap();
    let files = serde_json::to_value(&coherence.counterexample.as_ref().unwrap().files).unwrap();
    let dot = Path::new(files["dot"].as_str().expect("its graph was written"));
    std::fs::remove_file(dot).unwrap();
    let (status, out, err) = mapcheck(&["merge", dir.to_str().unwrap()]);
    assert_eq!(status, 1, "{out}{err}");
    assert!(!out.contains(&format!("graph: {}", dot.display())), "{out}");
    assert!(
        out.contains(&format!("missing: {} (removed", dot.display())),
        "{out}"
    );
}

#[test]
fn a_missing_shard_is_named_and_run_missing_completes_the_check() {
    let m = load(M2);
    let opts = Options::natural(4, Backend::BatSat);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shards");
    run_shard(&m, &opts, 1, 3, &dir);
    run_shard(&m, &opts, 3, 3, &dir);
    let plan = shard::load(&dir).unwrap().plan;
    let merged = shard::merge(&shard::load(&dir).unwrap());
    assert_eq!(merged.missing, vec![2]);
    assert!(merged.incomplete());
    // Shard 2 holds some of bound 4's shapes (and maybe smaller ones): for each axiom, nothing
    // at or after the first of its units is claimed clean.
    let first_missing = plan.units.iter().find(|u| u.shard == 2).unwrap().unit.bound;
    for a in &merged.axioms {
        assert!(
            a.clean_to < first_missing,
            "{}: clean to {}",
            a.axiom,
            a.clean_to
        );
        if let Some(cx) = &a.counterexample {
            // Reported only if every unit before it was covered: none of shard 2's is before it.
            let at = plan
                .units
                .iter()
                .position(|u| u.unit.bound == cx.bound && u.unit.shape == cx.shape)
                .unwrap();
            assert!(plan.units[..at].iter().all(|u| u.shard != 2), "{}", a.axiom);
        } else {
            assert!(a.unfinished.is_some(), "{}: not covered yet", a.axiom);
        }
    }
    let atomicity = merged
        .axioms
        .iter()
        .find(|a| a.axiom == "Atomicity")
        .unwrap();
    assert!(atomicity.counterexample.is_none() && atomicity.clean_to < 4);

    let (status, out, err) = mapcheck(&["merge", dir.to_str().unwrap()]);
    assert_eq!(status, 4, "{out}{err}");
    assert!(out.contains("missing: shard 2 of 3"), "{out}");
    assert!(out.contains("--shard 2/3"), "{out}");
    assert!(!out.contains("Atomicity: none up to bound 4 ("), "{out}");
    assert!(out.contains("incomplete:"), "{out}");
    assert!(
        out.contains("it is not a signature: whoever can write the directory can edit a result and recompute it)"),
        "{out}"
    );

    // Resume: the missing shard runs in the merging process, then the verdicts are whole
    // (shards 1 and 3 ran in this test's binary, shard 2 runs in mapcheck's: two builds).
    let (status, out, err) = mapcheck(&[
        "merge",
        dir.to_str().unwrap(),
        "--run-missing",
        "--mixed-builds",
    ]);
    assert_eq!(status, 1, "{out}{err}");
    assert!(err.contains("running shard 2 of 3"), "{err}");
    assert!(dir.join("shard-2-of-3.json").exists());
    let merged = shard::merge(&shard::load(&dir).unwrap());
    assert!(merged.missing.is_empty() && !merged.incomplete());
    assert_eq!(merged_verdicts(&merged), single_process(&m, &opts));
}

/// The mapping path in `plan.json` is data from the shard directory: `merge --run-missing` loads
/// only a `.map` file under the current directory, and names, never reads, any other (issue 60:
/// an edited plan made it print the first line of `/etc/shadow`).
#[test]
fn run_missing_reads_no_file_outside_the_current_directory() {
    let m = load(M2);
    let opts = Options::natural(2, Backend::BatSat);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shards");
    run_shard(&m, &opts, 1, 2, &dir);
    let plan_file = dir.join("plan.json");
    let plan = std::fs::read_to_string(&plan_file).unwrap();
    let secret = tmp.path().join("secret.map");
    std::fs::write(&secret, "top secret first line\n").unwrap();
    for named in ["/etc/passwd", secret.to_str().unwrap()] {
        let edited = plan.replace(&format!("\"{M2}\""), &format!("{:?}", named));
        assert_ne!(edited, plan, "the plan names {M2}");
        std::fs::write(&plan_file, edited).unwrap();
        let (status, out, err) = mapcheck(&["merge", dir.to_str().unwrap(), "--run-missing"]);
        assert_eq!(status, 2, "{out}{err}");
        assert!(
            err.contains("not a `.map` file under the current directory"),
            "{err}"
        );
        assert!(
            !err.contains("top secret") && !err.contains("root:"),
            "{err}"
        );
    }
}

#[test]
fn results_of_another_plan_or_a_corrupt_file_are_refused() {
    let m = load(M2);
    let opts = Options::natural(3, Backend::BatSat);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shards");
    run_shard(&m, &opts, 1, 2, &dir);

    // A shard of another check (another bound) into the same directory: refused, nothing
    // written.
    let (status, out, err) = mapcheck(&[
        "check",
        M2,
        "--bound",
        "2",
        "--shard",
        "2/2",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(status, 2, "{out}{err}");
    assert!(err.contains("holds results of another check"), "{err}");
    assert!(!dir.join("shard-2-of-2.json").exists());
    // The same check in another number of shards is another plan too.
    let (status, _, err) = mapcheck(&[
        "check",
        M2,
        "--bound",
        "3",
        "--shard",
        "1/3",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(status, 2, "{err}");

    // A result file of another plan copied in: the merge refuses the directory.
    let other = tmp.path().join("other");
    run_shard(&m, &Options::natural(2, Backend::BatSat), 2, 2, &other);
    std::fs::copy(
        other.join("shard-2-of-2.json"),
        dir.join("shard-2-of-2.json"),
    )
    .unwrap();
    let (status, out, err) = mapcheck(&["merge", dir.to_str().unwrap()]);
    assert_eq!(status, 2, "{out}{err}");
    assert!(err.contains("is of another check"), "{err}");

    // A corrupt file, a foreign JSON file, a result under another shard's name: diagnostics.
    let cases: [(&str, &str); 3] = [
        ("{ \"format\": ", "is not a mapcheck shard file"),
        (
            "{\"format\": \"x\", \"plan\": {\"id\": \"a\", \"mapping\": \"m\", \"shards\": 2}}",
            "is of format `x`, not `mapcheck-shards` version 2 and 3",
        ),
        ("", "is not a mapcheck shard file"),
    ];
    for (text, says) in cases {
        std::fs::write(dir.join("shard-2-of-2.json"), text).unwrap();
        let (status, out, err) = mapcheck(&["merge", dir.to_str().unwrap()]);
        assert_eq!(status, 2, "{text}: {out}{err}");
        assert!(err.contains(says), "{text}: {err}");
    }
    let first = std::fs::read_to_string(dir.join("shard-1-of-2.json")).unwrap();
    std::fs::write(dir.join("shard-2-of-2.json"), &first).unwrap();
    let (status, _, err) = mapcheck(&["merge", dir.to_str().unwrap()]);
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("does not match its plan"), "{err}");

    // An empty directory holds no results.
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let (status, _, err) = mapcheck(&["merge", empty.to_str().unwrap()]);
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("holds no shard results"), "{err}");
}

/// A result file names the build that wrote it and carries a digest of its content: a verdict
/// edited by hand is refused, and so are results of two builds unless `--mixed-builds` says so.
#[test]
fn an_edited_result_or_a_mix_of_builds_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shards");
    let d = dir.to_str().unwrap();
    for shard in ["1/2", "2/2"] {
        let (status, _, err) = mapcheck(&["check", M2, "--bound", "3", "--shard", shard, "-o", d]);
        assert_eq!(status, 0, "{err}");
    }
    let second = dir.join("shard-2-of-2.json");
    let written = std::fs::read_to_string(&second).unwrap();
    assert!(written.contains("\"build\": \"mapcheck "), "{written}");
    for (from, to) in [
        ("\"kind\": \"clean\"", "\"kind\": \"stopped\""),
        ("\"finished\": true", "\"finished\": false"),
    ] {
        assert!(written.contains(from), "{from}");
        std::fs::write(&second, written.replacen(from, to, 1)).unwrap();
        let (status, out, err) = mapcheck(&["merge", d]);
        assert_eq!(status, 2, "{from}: {out}{err}");
        assert!(err.contains("digest does not match"), "{from}: {err}");
    }
    std::fs::write(&second, &written).unwrap();
    let (status, _, err) = mapcheck(&["merge", d]);
    assert_eq!(status, 0, "{err}");

    // Shard 2 again by this test's own build of mapcheck (the library in the test binary).
    run_shard(&load(M2), &Options::natural(3, Backend::BatSat), 2, 2, &dir);
    let (status, out, err) = mapcheck(&["merge", d]);
    assert_eq!(status, 2, "{out}{err}");
    assert!(err.contains("holds results of 2 builds"), "{err}");
    let (status, out, err) = mapcheck(&["merge", "--mixed-builds", d]);
    assert_eq!(status, 0, "{out}{err}");
}

#[test]
fn shard_env_reads_the_array_index_of_slurm_and_kubernetes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shards");
    let d = dir.to_str().unwrap();
    let run = |vars: &[(&str, &str)], extra: &[&str]| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_mapcheck"));
        c.args(["check", M2, "--bound", "2", "--shard", "env", "-o", d]);
        c.args(extra);
        for k in [
            "SLURM_ARRAY_TASK_ID",
            "SLURM_ARRAY_TASK_MIN",
            "SLURM_ARRAY_TASK_STEP",
            "SLURM_ARRAY_TASK_COUNT",
            "JOB_COMPLETION_INDEX",
        ] {
            c.env_remove(k);
        }
        c.envs(vars.iter().copied());
        let out = c.output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // Slurm, --array=5-6: task 6 is shard 2 of 2.
    let slurm = [
        ("SLURM_ARRAY_TASK_ID", "6"),
        ("SLURM_ARRAY_TASK_MIN", "5"),
        ("SLURM_ARRAY_TASK_COUNT", "2"),
    ];
    let (status, err) = run(&slurm, &[]);
    assert_eq!(status, 0, "{err}");
    assert!(dir.join("shard-2-of-2.json").exists());
    // Kubernetes: index 0 is shard 1, with --shards.
    let (status, err) = run(&[("JOB_COMPLETION_INDEX", "0")], &["--shards", "2"]);
    assert_eq!(status, 0, "{err}");
    assert!(dir.join("shard-1-of-2.json").exists());
    let (status, err) = run(&[("JOB_COMPLETION_INDEX", "0")], &[]);
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("--shards"), "{err}");
    let (status, err) = run(&[], &[]);
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("neither SLURM_ARRAY_TASK_ID"), "{err}");
    let (status, out, _) = mapcheck(&["merge", d]);
    assert_eq!(status, 0, "{out}");
    assert!(out.contains("none up to bound 2"), "{out}");
}

#[test]
fn a_change_to_a_file_a_model_includes_is_a_new_plan() {
    // The plan's identity covers what the models say, included files too: shards of a check
    // whose rc11-base.cat (included by the source model) has changed are another check's. A
    // comment is not a change.
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for dir in ["models", "mappings"] {
        std::fs::create_dir(root.join(dir)).unwrap();
    }
    for file in [
        "rc11-scoped.cat",
        "rc11-base.cat",
        "ptx-v6.cat",
        "ptx-v6-base.cat",
    ] {
        std::fs::copy(
            Path::new("models").join(file),
            root.join("models").join(file),
        )
        .unwrap();
    }
    let map = root.join("mappings/rc11-ptx-artifact.map");
    std::fs::copy("mappings/rc11-ptx-artifact.map", &map).unwrap();
    let opts = Options::natural(3, Backend::BatSat);
    let id = || {
        let m = mapping::load(&map).expect("mapping loads");
        shard::plan(&m, &opts, 2).expect("plan").id
    };
    let base = root.join("models/rc11-base.cat");
    let text = std::fs::read_to_string(&base).unwrap();
    let before = id();
    std::fs::write(&base, format!("{text}\n(* a comment *)\n")).unwrap();
    assert_eq!(id(), before, "a comment changed the plan");
    std::fs::write(&base, text.replace("let mo = co", "let mo = co | 0")).unwrap();
    assert_ne!(id(), before, "a changed definition kept the plan");
}

/// The shard directory of format version 2 that mapcheck wrote before version 3 (see
/// tests/data/shard/README.md).
const V2: &str = "tests/data/shard/v2";

/// A copy of `from` (a directory tree) at `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Today's mapcheck merges a directory of version 2 to the verdicts the mapcheck that wrote it
/// printed (`v2.merge.json`): the same counterexamples (bound, shape, shard, text, files), the
/// same "none up to" bounds, statistics and shards; only the plan is shown as version 3 writes it.
#[test]
fn a_version_2_directory_merges_to_the_verdicts_its_mapcheck_printed() {
    let loaded = shard::load(Path::new(V2)).expect("version 2 is read");
    assert_eq!(loaded.version, 2);
    assert_eq!(loaded.results.len(), 2);
    let merged = shard::merge(&loaded);
    assert_eq!(
        merged_verdicts(&merged),
        vec![
            ("Coherence".to_string(), Err(3)),
            ("Atomicity".to_string(), Err(3)),
            ("SC".to_string(), Err(3)),
        ]
    );

    let (status, out, err) = mapcheck(&["merge", "--json", V2]);
    assert_eq!(status, 1, "{out}{err}");
    let now: serde_json::Value = serde_json::from_str(&out).unwrap();
    let then: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("tests/data/shard/v2.merge.json").unwrap())
            .unwrap();
    for field in ["dir", "present", "missing", "stopped", "axioms", "seconds"] {
        assert_eq!(now[field], then[field], "{field}");
    }
    for field in ["id", "mapping", "shards", "axioms", "bounds", "cost_model"] {
        assert_eq!(now["plan"][field], then["plan"][field], "plan.{field}");
    }
    assert_eq!(now["plan"]["options"]["solver"], "batsat");
    assert_eq!(now["plan"]["options"]["counting"], "natural");

    let (status, out, err) = mapcheck(&["merge", V2]);
    assert_eq!(status, 1, "{out}{err}");
    let then = std::fs::read_to_string("tests/data/shard/v2.merge.txt").unwrap();
    let summary = |text: &str| -> String {
        let at = text.find("\nsummary (").expect("a summary");
        text[at..].to_string()
    };
    assert_eq!(summary(&out), summary(&then), "{out}");
}

/// A version-2 result is checked against the digest that version wrote: an edited verdict is
/// refused. A directory of version 2 takes no shard of version 3, and `--run-missing` says why it
/// cannot complete it.
#[test]
fn a_version_2_directory_is_checked_and_not_added_to() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("v2");
    copy_tree(Path::new(V2), &dir);
    let d = dir.to_str().unwrap();
    let second = dir.join("shard-2-of-2.json");
    let written = std::fs::read_to_string(&second).unwrap();
    assert!(written.contains("\"format\": \"mapcheck-shards 2\""));
    std::fs::write(
        &second,
        written.replacen("\"finished\": true", "\"finished\": false", 1),
    )
    .unwrap();
    let (status, out, err) = mapcheck(&["merge", d]);
    assert_eq!(status, 2, "{out}{err}");
    assert!(err.contains("digest does not match"), "{err}");

    std::fs::remove_file(&second).unwrap();
    let (status, out, err) = mapcheck(&["merge", d, "--run-missing"]);
    assert_eq!(status, 2, "{out}{err}");
    assert!(
        err.contains("holds shard files of format version 2")
            && err.contains("merge them without --run-missing"),
        "{err}"
    );
    assert!(!second.exists());

    let map = "mappings/known-bugs/m4-release-acquire-gpu-narrowed.map";
    let (status, out, err) = mapcheck(&["check", map, "--bound", "3", "--shard", "2/2", "-o", d]);
    assert_eq!(status, 2, "{out}{err}");
    assert!(
        err.contains("holds shard files of format version 2"),
        "{err}"
    );
    assert!(!second.exists());
}

/// New files are of format `mapcheck-shards`, version 3; a file of version 3 beside files of
/// version 2 is refused as the work of another mapcheck.
#[test]
fn new_files_are_version_3_and_are_not_mixed_with_version_2() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shards");
    let d = dir.to_str().unwrap();
    let map = "mappings/known-bugs/m4-release-acquire-gpu-narrowed.map";
    let (status, out, err) = mapcheck(&["check", map, "--bound", "3", "--shard", "2/2", "-o", d]);
    assert_eq!(status, 0, "{out}{err}");
    for file in ["plan.json", "shard-2-of-2.json"] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["format"], shard::FORMAT, "{file}");
        assert_eq!(v["version"], shard::VERSION, "{file}");
        assert_eq!(shard::VERSION, 3);
    }
    assert_eq!(shard::load(&dir).unwrap().version, 3);
    std::fs::copy(
        Path::new(V2).join("shard-1-of-2.json"),
        dir.join("shard-1-of-2.json"),
    )
    .unwrap();
    let (status, out, err) = mapcheck(&["merge", d]);
    assert_eq!(status, 2, "{out}{err}");
    assert!(
        err.contains("shard-1-of-2.json: is of shard format version 2, and the other files")
            && err.contains("are of version 3"),
        "{err}"
    );
}
