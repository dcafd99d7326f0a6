//! The shard scripts on a real Slurm (decision 012): a single-node cluster on localhost
//! (`scripts/slurm/local-cluster.sh`, Debian's slurm-wlm and munge, which
//! `scripts/install-deps.sh` installs), a 4-shard check of `rc11-ptx-artifact.map` at bound 5
//! submitted as a job array with a dependent merge job (`scripts/slurm/submit.sh`), and the
//! merged verdicts held to a single-process `mapcheck check` of the same options.
//!
//! Needs Slurm (`support::tools`): in CI (`CI=true`) a machine without it fails this test;
//! elsewhere it is skipped, saying why.
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::tools::{self, Tool};

const MAP: &str = "mappings/rc11-ptx-artifact.map";
const SHARDS: usize = 4;

/// The single-node cluster, stopped when dropped (also when the test fails).
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
}

impl Cluster {
    fn start(dir: &Path) -> Cluster {
        // Two ports free now (both held until both are known), so that a Slurm already on
        // this machine is left alone.
        let bind = || std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        let (a, b) = (bind(), bind());
        let port = |l: &std::net::TcpListener| l.local_addr().unwrap().port().to_string();
        let (ctld, slurmd) = (port(&a), port(&b));
        drop((a, b));
        let out = Command::new("scripts/slurm/local-cluster.sh")
            .arg("start")
            .arg(dir)
            .env("SLURMCTLD_PORT", ctld)
            .env("SLURMD_PORT", slurmd)
            .output()
            .expect("the cluster script runs");
        let cluster = Cluster {
            dir: dir.to_path_buf(),
            conf: dir.join("etc/slurm.conf"),
        };
        assert!(
            out.status.success(),
            "the local cluster did not start:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        cluster
    }

    /// A Slurm client command on this cluster.
    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", &self.conf);
        c
    }

    fn run(&self, program: &str, args: &[&str]) -> String {
        let out = self
            .command(program)
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("{program} runs: {e}"));
        assert!(
            out.status.success(),
            "{program} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("scripts/slurm/local-cluster.sh")
            .arg("stop")
            .arg(&self.dir)
            .status();
    }
}

/// Per axiom: "counterexample at N" or "none up to N", from `check --json` or `merge --json`.
fn verdicts(json: &serde_json::Value) -> Vec<(String, String)> {
    json["axioms"]
        .as_array()
        .expect("axioms")
        .iter()
        .map(|a| {
            let name = a["axiom"].as_str().unwrap().to_string();
            let v = match a["counterexample"]["bound"].as_u64() {
                Some(b) => format!("counterexample at {b}"),
                None => format!("none up to {}", a["clean_to"]),
            };
            (name, v)
        })
        .collect()
}

fn mapcheck(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mapcheck"))
        .args(args)
        .output()
        .expect("mapcheck runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
#[ignore = "CI tier (scripts/test)"]
fn a_four_shard_job_array_and_its_merge_give_the_single_process_verdicts() {
    if tools::absent(Tool::Slurm) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cluster = Cluster::start(&tmp.path().join("cluster"));
    let results = tmp.path().join("results");
    let results_s = results.to_str().unwrap();

    let submitted = cluster
        .command("scripts/slurm/submit.sh")
        .args([
            MAP,
            "5",
            &SHARDS.to_string(),
            results_s,
            "--solver",
            "cadical",
        ])
        .env("MAPCHECK", env!("CARGO_BIN_EXE_mapcheck"))
        .output()
        .expect("submit.sh runs");
    let ids = String::from_utf8_lossy(&submitted.stdout).into_owned();
    assert!(
        submitted.status.success(),
        "submit: {ids}{}",
        String::from_utf8_lossy(&submitted.stderr)
    );
    let ids: Vec<&str> = ids.split_whitespace().collect();
    assert_eq!(ids.len(), 2, "the array and the merge job: {ids:?}");
    let (array, merge) = (ids[0], ids[1]);

    // Wait until neither job is queued or running.
    let deadline = Instant::now() + Duration::from_secs(900);
    loop {
        let queued = cluster.run(
            "squeue",
            &["-h", "-j", &format!("{array},{merge}"), "-o", "%i %T"],
        );
        if queued.trim().is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the jobs did not finish in 15 minutes:\n{queued}"
        );
        std::thread::sleep(Duration::from_secs(2));
    }

    // Every array task and the merge ended; the merge job printed check's summary.
    let shown = cluster.run("scontrol", &["show", "job", array]);
    let tasks = shown.matches("ArrayTaskId=").count();
    assert_eq!(tasks, SHARDS, "{shown}");
    assert_eq!(
        shown.matches("JobState=COMPLETED").count(),
        SHARDS,
        "{shown}"
    );
    for i in 1..=SHARDS {
        assert!(results
            .join(format!("shard-{i}-of-{SHARDS}.json"))
            .is_file());
    }
    let merge_shown = cluster.run("scontrol", &["show", "job", merge]);
    let merge_log = std::fs::read_to_string(results.join(format!("logs/merge-{merge}.out")))
        .expect("the merge job's output");
    assert!(
        merge_shown.contains("JobState=COMPLETED"),
        "{merge_shown}\nthe merge job printed:\n{merge_log}"
    );
    assert!(
        merge_log.contains(&format!("summary ({SHARDS} of {SHARDS} shards")),
        "{merge_log}"
    );
    assert!(!merge_log.contains("missing"), "{merge_log}");

    // The merged verdicts are the single process's.
    let (status, merged) = mapcheck(&["merge", results_s, "--json"]);
    let merged: serde_json::Value = serde_json::from_str(&merged).expect("merge --json");
    let out = tmp.path().join("single");
    let (single_status, single) = mapcheck(&[
        "check",
        MAP,
        "--bound",
        "5",
        "--solver",
        "cadical",
        "--json",
        "-o",
        out.to_str().unwrap(),
    ]);
    let single: serde_json::Value = serde_json::from_str(&single).expect("check --json");
    assert_eq!(verdicts(&merged), verdicts(&single));
    assert_eq!(verdicts(&merged).len(), 3, "Coherence, Atomicity, SC");
    assert_eq!(status, single_status);
    assert!(merged["missing"].as_array().unwrap().is_empty());
}
