//! Every kind of file mapcheck reads, fuzzed through the command line for a fixed budget
//! (issue 41). A case mutates one seed file of a kind (bytes cut, repeated or replaced, a piece
//! of the kind's text or a hostile byte inserted, a number made extreme), writes it beside the
//! files it needs, and runs the subcommand that reads it. The promise checked is the one the
//! README makes: an answer (status 0, 1, or 4 for a `merge` with a shard missing) or a
//! diagnostic (status 2, on stderr, beginning `error:`), never a panic, a signal, another status
//! or a run past `CASE_LIMIT`.
//!
//! `MAPCHECK_FUZZ_CASES` sets the cases per kind (default `DEFAULT_CASES`, what CI runs) and
//! `MAPCHECK_FUZZ_SEED` the random seed (default 0, so CI runs the same cases every time); the
//! test prints each kind's counts (`cargo test --release --test it fuzz_inputs:: -- --nocapture`).
//! The parsers' own in-process fuzz targets are `cat_fuzz`, `litmus_fuzz` and `mapping_fuzz`.
use crate::support;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

const DEFAULT_CASES: u32 = 200;
/// Longer than any case takes on a loaded 2-core machine (the slowest, `check --bound 2` and
/// `repair --bound 2`, take a tenth of a second); a case past it is a hang, a failure.
const CASE_LIMIT: Duration = Duration::from_secs(60);
const BIN: &str = env!("CARGO_BIN_EXE_mapcheck");

/// One seed: the file mutated (its path inside the case directory and its text), the files it
/// needs beside it, and the command's arguments (`{DIR}`: the case directory; `{FILE}`: the
/// mutated file).
struct Seed {
    name: String,
    text: Vec<u8>,
    beside: Vec<(String, Vec<u8>)>,
    args: Vec<String>,
}

/// An input kind: its seeds and the pieces of its text a mutation inserts.
struct Kind {
    name: &'static str,
    seeds: Vec<Seed>,
    pieces: &'static [&'static str],
}

/// Pieces every kind's mutations insert: structure, hostile bytes, deep nesting, extreme numbers.
const COMMON_PIECES: &[&str] = &[
    "\n",
    " ",
    "\t",
    "\"",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "=",
    ";",
    ",",
    ":",
    "|",
    "\u{0}",
    "\u{e9}",
    "((((((((((((((((",
    "}}}}",
    "0",
    "-1",
    "7",
    "4294967296",
    "99999999999999999999",
    "1e999",
];

fn read(path: impl AsRef<Path>) -> Vec<u8> {
    let path = path.as_ref();
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn files_in(dir: &str, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == extension))
        .collect();
    files.sort();
    files
}

/// `n` of the `.litmus` files under `dir`, spread evenly over their sorted order.
fn litmus_spread(dir: &str, n: usize) -> Vec<PathBuf> {
    let all = support::litmus::litmus_files(Path::new(dir));
    assert!(all.len() >= n, "{dir} has {} tests", all.len());
    (0..n).map(|i| all[i * all.len() / n].clone()).collect()
}

/// The shipped models, as `models/NAME` files a case directory holds beside a mutated file.
fn models_beside() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = files_in("models", "cat")
        .into_iter()
        .map(|p| {
            (
                format!("models/{}", p.file_name().unwrap().to_str().unwrap()),
                read(&p),
            )
        })
        .collect();
    files.push(("models/suites.tsv".into(), read("models/suites.tsv")));
    files
}

fn args(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

const ORACLE: &str = "tests/data/oracle/dat3m";

fn litmus_kind(name: &'static str, suite: &str, model: &str) -> Kind {
    let seeds = litmus_spread(&format!("{ORACLE}/litmus/{suite}"), 8)
        .into_iter()
        .map(|p| Seed {
            name: "test.litmus".into(),
            text: read(&p),
            beside: vec![],
            args: args(&["run", model, "{FILE}"]),
        })
        .collect();
    Kind {
        name,
        seeds,
        pieces: &[
            "P0",
            "P1",
            "r0",
            "exists",
            "forall",
            "~",
            "/\\",
            "\\/",
            "x",
            "0:r0=1",
            "ld",
            "st",
            ".relaxed",
            ".gpu",
            "atomic_load_explicit(",
            "memory_order_seq_cst",
            "*x",
            "int*",
            "locations",
            "filter",
        ],
    }
}

/// The oracle suite `PTXv6_0` cut down to four tests: its verdict table and the tests it names.
fn small_oracle() -> (Vec<u8>, Vec<(String, Vec<u8>)>) {
    let table = String::from_utf8(read(format!("{ORACLE}/expected/PTXv6_0.tsv"))).unwrap();
    let rows: Vec<&str> = table
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(4)
        .collect();
    let tests = rows
        .iter()
        .map(|r| {
            let test = r.split('\t').next().unwrap();
            (test.to_string(), read(format!("{ORACLE}/{test}")))
        })
        .collect();
    (format!("{}\n", rows.join("\n")).into_bytes(), tests)
}

fn kinds(shard_dir: &Path) -> Vec<Kind> {
    let models = models_beside();
    let model_pairs = [
        ("ptx-v6.cat", "PTX"),
        ("ptx-v7.5.cat", "PTX"),
        ("rc11.cat", "C11"),
        ("c11.cat", "C11"),
        ("opencl.cat", "OPENCL"),
        ("vulkan.cat", "VULKAN"),
        ("cuda.cat", "C11"),
    ];
    let cat_seeds = model_pairs
        .iter()
        .map(|(model, suite)| {
            let test = &litmus_spread(&format!("{ORACLE}/litmus/{suite}"), 1)[0];
            Seed {
                name: "models/fuzz.cat".into(),
                text: read(format!("models/{model}")),
                beside: models.clone(),
                args: vec!["run".into(), "{FILE}".into(), test.display().to_string()],
            }
        })
        .collect();
    let mapping_seeds = files_in("mappings", "map")
        .into_iter()
        .map(|p| Seed {
            name: "mappings/fuzz.map".into(),
            text: read(&p),
            beside: models.clone(),
            args: args(&["check", "{FILE}", "--bound", "2"]),
        })
        .collect();
    let costs = "[instructions]\n\"fence.sc.gpu\" = 45\n\"fence.acq_rel.sys\" = 30\n\"ld.acquire.gpu\" = 6\n[weights]\nNA = 10\nRLX = 3\n";
    let (oracle_table, oracle_tests) = small_oracle();
    let mut suite_beside = models.clone();
    suite_beside.retain(|(name, _)| name != "models/suites.tsv");
    suite_beside.push(("oracle/expected/PTXv6_0.tsv".into(), oracle_table.clone()));
    let under_oracle =
        |(name, bytes): &(String, Vec<u8>)| (format!("oracle/{name}"), bytes.clone());
    suite_beside.extend(oracle_tests.iter().map(under_oracle));
    let gpu = Path::new("tests/data/fuzz/gpu-result");
    let shard = |name: &str, other: &str| Seed {
        name: name.into(),
        text: read(shard_dir.join(name)),
        beside: vec![(other.into(), read(shard_dir.join(other)))],
        args: args(&["merge", "{DIR}"]),
    };
    let gpu_seed = |name: &str, other: &str| Seed {
        name: name.into(),
        text: read(gpu.join(name)),
        beside: vec![(other.into(), read(gpu.join(other)))],
        args: args(&["gpu", "summary", "{DIR}"]),
    };
    const JSON: &[&str] = &[
        "null",
        "true",
        "[]",
        "{}",
        "\"a\":",
        "1.5",
        "\"\\u0000\"",
        "-0",
    ];
    vec![
        Kind {
            name: "cat model",
            seeds: cat_seeds,
            pieces: &[
                "let",
                "rec",
                "and",
                "in",
                "acyclic",
                "irreflexive",
                "empty",
                "as",
                "include \"",
                "flag",
                "~",
                "^-1",
                "+",
                "*",
                "?",
                ";",
                "&",
                "\\",
                "po",
                "rf",
                "[W]",
                "fun x ->",
                "if \"v\" then",
                "with s from linearisations(",
                "(*",
                "*)",
            ],
        },
        litmus_kind("PTX litmus", "PTX", "models/ptx-v6.cat"),
        litmus_kind("C litmus", "C11", "models/rc11.cat"),
        litmus_kind("OpenCL litmus", "OPENCL", "models/opencl.cat"),
        litmus_kind("Vulkan litmus", "VULKAN", "models/vulkan.cat"),
        Kind {
            name: "mapping",
            seeds: mapping_seeds,
            pieces: &[
                "->",
                "scope",
                "class",
                "source",
                "target",
                "ptx",
                "variant",
                "R.ACQ",
                "W.SC",
                "fence.sc",
                "ld.acquire",
                "st.release",
                "atom",
                ".gpu",
                ".cta",
                ".sys",
                "//",
                "drop",
            ],
        },
        Kind {
            name: "cost file",
            seeds: vec![Seed {
                name: "costs.toml".into(),
                text: costs.as_bytes().to_vec(),
                beside: vec![],
                args: args(&[
                    "repair",
                    "mappings/rc11-ptx.map",
                    "--bound",
                    "2",
                    "--costs",
                    "{FILE}",
                ]),
            }],
            pieces: &[
                "[instructions]",
                "[weights]",
                "\"fence.sc.sys\"",
                "= 1000000001",
                "= 9223372036854775807",
                "NA",
                "SC",
                "[[a]]",
                "x.y = 1",
            ],
        },
        Kind {
            name: "shard file",
            seeds: vec![
                shard("shard-1-of-2.json", "plan.json"),
                shard("plan.json", "shard-1-of-2.json"),
            ],
            pieces: JSON,
        },
        Kind {
            name: "GPU result",
            seeds: vec![
                gpu_seed("result.json", "judgement.json"),
                gpu_seed("judgement.json", "result.json"),
            ],
            pieces: JSON,
        },
        Kind {
            name: "oracle table",
            seeds: vec![Seed {
                name: "expected/PTXv6_0.tsv".into(),
                text: oracle_table,
                beside: oracle_tests,
                args: args(&["oracle", "{DIR}", "--suite", "PTXv6_0"]),
            }],
            pieces: &[
                "litmus/PTX/Manual/CoWW_.litmus",
                "\t1",
                "\t0",
                "\t2",
                "#",
                "../",
                "/etc/passwd",
            ],
        },
        Kind {
            name: "suites table",
            seeds: vec![Seed {
                name: "models/suites.tsv".into(),
                text: read("models/suites.tsv"),
                beside: suite_beside,
                args: args(&[
                    "oracle",
                    "{DIR}/oracle",
                    "--suites",
                    "{FILE}",
                    "--suite",
                    "PTXv6_0",
                ]),
            }],
            pieces: &[
                "PTXv6_0",
                "ptx-v6.cat",
                "clause",
                "no-race",
                "\t",
                "#",
                "../",
                "/etc/passwd",
            ],
        },
    ]
}

/// One mutation: which operation, where (a fraction of the text), how long, which piece.
#[derive(Clone, Debug)]
struct Edit {
    op: u8,
    at: u32,
    len: u8,
    piece: usize,
}

fn edit() -> impl Strategy<Value = Edit> {
    // Operations weighted so that most cases keep the file's structure and reach past the lexer.
    let op = prop_oneof![3 => Just(0u8), 2 => Just(1), 4 => Just(2), 3 => Just(3), 1 => Just(4), 3 => Just(5)];
    (op, any::<u32>(), 0u8..24, any::<usize>()).prop_map(|(op, at, len, piece)| Edit {
        op,
        at,
        len,
        piece,
    })
}

fn apply(text: &mut Vec<u8>, e: &Edit, pieces: &[&str]) {
    let at = (e.at as usize) % (text.len() + 1);
    let end = (at + e.len as usize).min(text.len());
    let all = pieces.len() + COMMON_PIECES.len();
    let piece = match e.piece % all {
        i if i < pieces.len() => pieces[i],
        i => COMMON_PIECES[i - pieces.len()],
    };
    match e.op {
        0 => {
            text.drain(at..end);
        }
        1 => {
            let copy = text[at..end].to_vec();
            text.splice(at..at, copy);
        }
        2 => {
            text.splice(at..at, piece.bytes());
        }
        3 => {
            text.splice(at..end, piece.bytes());
        }
        4 => text.insert(at, 0x80 | (e.len & 0x7f)), // a byte that is never valid UTF-8 alone
        _ => {
            // The first number at or after `at` made extreme or zero.
            if let Some(start) = (at..text.len()).find(|&i| text[i].is_ascii_digit()) {
                let stop = (start..text.len())
                    .find(|&i| !text[i].is_ascii_digit())
                    .unwrap_or(text.len());
                let number = ["0", "4294967297", "18446744073709551616", "999999999"][e.piece % 4];
                text.splice(start..stop, number.bytes());
            }
        }
    }
}

/// What a case ended as.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Outcome {
    Answered,
    /// A diagnostic that shows the file with a line and column.
    Located,
    /// A diagnostic without a position: its first line.
    Unlocated(String),
}

/// Run one case: write the seed's files with the mutated one into `dir`, run the command.
fn run_case(dir: &Path, seed: &Seed, text: &[u8]) -> Result<Outcome, String> {
    let _ = std::fs::remove_dir_all(dir);
    for (name, bytes) in seed
        .beside
        .iter()
        .chain([(seed.name.clone(), text.to_vec())].iter())
    {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
    }
    let file = dir.join(&seed.name).display().to_string();
    let words: Vec<String> = seed
        .args
        .iter()
        .map(|a| {
            a.replace("{FILE}", &file)
                .replace("{DIR}", &dir.display().to_string())
        })
        .collect();
    let mut child = Command::new(BIN)
        .args(&words)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > CASE_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "ran past {CASE_LIMIT:?}: mapcheck {}",
                words.join(" ")
            ));
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    let shown = || format!("mapcheck {} → {status}\n{stderr}", words.join(" "));
    match status.code() {
        Some(0 | 1 | 4) if !stderr.contains("panicked") => Ok(Outcome::Answered),
        Some(2) if stderr.contains("error:") && !stderr.contains("panicked") => {
            match located(&stderr) {
                true => Ok(Outcome::Located),
                false => Ok(Outcome::Unlocated(first_error_line(&stderr, dir))),
            }
        }
        _ => Err(shown()),
    }
}

/// Does a diagnostic give a position: the text shown at its line and column, a `file:line:`
/// before its message (a row of a table), or a JSON reader's `at line L column C`?
fn located(stderr: &str) -> bool {
    let error = stderr
        .lines()
        .find(|l| l.contains("error:"))
        .unwrap_or_default();
    let after = error.split_once("error: ").map_or("", |(_, rest)| rest);
    let path_line = after.split_once(": ").is_some_and(|(place, _)| {
        place
            .rsplit(':')
            .next()
            .is_some_and(|n| n.parse::<usize>().is_ok())
            || place
                .split(':')
                .nth(1)
                .is_some_and(|n| n.parse::<usize>().is_ok())
    });
    let json = after.contains(" at line ") && after.contains(" column ");
    stderr.contains("┌─ ") || path_line || json
}

/// The first `error:` line of `stderr`, with the case directory and numbers blanked so that
/// cases of one message count together.
fn first_error_line(stderr: &str, dir: &Path) -> String {
    let line = stderr
        .lines()
        .find(|l| l.contains("error:"))
        .unwrap_or_default();
    let line = line.replace(&dir.display().to_string(), "DIR");
    let mut out = String::new();
    for c in line.chars().take(110) {
        if !(c.is_ascii_digit() && out.ends_with('#')) {
            out.push(if c.is_ascii_digit() { '#' } else { c });
        }
    }
    out
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name}={v} is not a number"))
        })
        .unwrap_or(default)
}

/// A shard directory of a real check: the `shard file` kind's seeds.
fn shard_seed_dir(root: &Path) -> PathBuf {
    let dir = root.join("shard-seed");
    let out = Command::new(BIN)
        .args([
            "check",
            "mappings/rc11-ptx.map",
            "--bound",
            "3",
            "--shard",
            "1/2",
            "-o",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

#[test]
#[ignore = "CI tier (scripts/test)"]
fn every_input_kind_gets_an_answer_or_a_diagnostic_never_a_crash() {
    let cases = env_number("MAPCHECK_FUZZ_CASES", DEFAULT_CASES as u64) as u32;
    fuzz_every_kind(cases, env_number("MAPCHECK_FUZZ_SEED", 0));
}

/// The same with 1,000 other cases per kind (seed 1).
#[test]
#[ignore = "exhaustive tier (scripts/test --exhaustive)"]
fn exhaustive_every_input_kind_gets_an_answer_or_a_diagnostic_never_a_crash() {
    fuzz_every_kind(1000, 1);
}

/// `cases` mutated inputs of every kind from random seed `seed`; prints per kind the inputs,
/// those answered, those refused with a position and without, and each message of the last.
fn fuzz_every_kind(cases: u32, seed: u64) {
    let root = std::env::temp_dir().join(format!("mapcheck-fuzz-inputs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let kinds = kinds(&shard_seed_dir(&root));
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    println!(
        "{:<14} {:>6} {:>9} {:>13} {:>15}",
        "input kind", "inputs", "answered", "refused at", "refused, no"
    );
    println!(
        "{:<14} {:>6} {:>9} {:>13} {:>15}",
        "", "", "", "line:column", "position"
    );
    let mut failures = vec![];
    let unlocated = std::cell::RefCell::new(std::collections::BTreeMap::new());
    for kind in &kinds {
        let config = Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        };
        let mut runner =
            TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &key));
        let counts = std::cell::RefCell::new([0u64; 3]);
        let dir = root.join("case");
        let strategy = (0..kind.seeds.len(), prop::collection::vec(edit(), 1..4));
        let result = runner.run(&strategy, |(s, edits)| {
            let seed = &kind.seeds[s];
            let mut text = seed.text.clone();
            edits.iter().for_each(|e| apply(&mut text, e, kind.pieces));
            let outcome = run_case(&dir, seed, &text).map_err(TestCaseError::fail)?;
            let slot = match outcome {
                Outcome::Answered => 0,
                Outcome::Located => 1,
                Outcome::Unlocated(line) => {
                    *unlocated
                        .borrow_mut()
                        .entry((kind.name, line))
                        .or_insert(0u64) += 1;
                    2
                }
            };
            counts.borrow_mut()[slot] += 1;
            Ok(())
        });
        let [answered, located, not_located] = *counts.borrow();
        println!(
            "{:<14} {:>6} {answered:>9} {located:>13} {not_located:>15}",
            kind.name,
            answered + located + not_located
        );
        if let Err(e) = result {
            failures.push(format!("{}: {e}", kind.name));
        }
    }
    println!("diagnostics without a position:");
    for ((kind, line), n) in unlocated.borrow().iter() {
        println!("{n:>6} {kind}: {line}");
    }
    std::fs::remove_dir_all(&root).unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
