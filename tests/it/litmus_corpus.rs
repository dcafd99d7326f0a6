//! Every litmus test the external verdict lists name (`tests/data/oracle/dat3m/expected/`
//! PTXv6_0, PTXv7_5, RC11, C11, OPENCL) parses; so does every other PTX / C11 / OpenCL file of the
//! corpus, the PTX 7.5 mixed-proxy tests (aliases, proxy accesses and fences) included.
use std::path::{Path, PathBuf};

use mapcheck::litmus::{self, Arch, Expr, Instr, Litmus};
use mapcheck::vocab::{self, Tag};

use crate::support::litmus::{refusal_of, REFUSED};

/// The verdict lists whose tests must parse, with the architecture of their tests.
const SUITES: &[(&str, Arch)] = &[
    ("PTXv6_0", Arch::Ptx),
    ("PTXv7_5", Arch::Ptx),
    ("RC11", Arch::C11),
    ("C11", Arch::C11),
    ("OPENCL", Arch::OpenCl),
];

/// The test at `path` is refused with `reason`, at a position in it.
fn assert_refused(path: &Path, reason: &str) {
    let e = litmus::parse_file(path).expect_err("refused");
    assert!(e.message.contains(reason), "{}", e.render());
    assert!(e.to_string().contains(".litmus:"), "no position: {e}");
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/oracle/dat3m")
}

/// The test paths of one verdict list (relative to the corpus root), without duplicates.
fn listed(suite: &str) -> Vec<String> {
    let list = corpus().join("expected").join(format!("{suite}.tsv"));
    let text = std::fs::read_to_string(&list)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", list.display()));
    let mut paths: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split('\t').next())
        .map(str::to_string)
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

#[test]
fn every_listed_test_parses() {
    let mut failures = Vec::new();
    for (suite, arch) in SUITES {
        let paths = listed(suite);
        assert!(
            paths.len() >= 99,
            "{suite}: only {} tests listed",
            paths.len()
        );
        let mut parsed = 0;
        for p in &paths {
            let path = corpus().join(p);
            if let Some(reason) = refusal_of(&path) {
                assert_refused(&path, reason);
                continue;
            }
            match litmus::parse_file(&path) {
                Ok(t) if t.arch == *arch => match well_formed(&t) {
                    Ok(()) => parsed += 1,
                    Err(e) => failures.push(format!("{p}: {e}")),
                },
                Ok(t) => failures.push(format!("{p}: parsed as {:?}, expected {arch:?}", t.arch)),
                Err(e) => failures.push(e.render()),
            }
        }
        eprintln!("{suite}: {parsed} of {} listed tests parsed", paths.len());
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every tag is a vocabulary tag, and every jump lands on a label of its own thread.
fn well_formed(t: &Litmus) -> Result<(), String> {
    let loc_tags = t.loc_tags.iter().flat_map(|(_, tags)| tags);
    for th in &t.threads {
        let labels: Vec<&String> = th
            .code
            .iter()
            .filter_map(|i| {
                if let Instr::Label(l) = i {
                    Some(l)
                } else {
                    None
                }
            })
            .collect();
        for i in &th.code {
            let tags: Vec<&Tag> = match i {
                Instr::Load { tags, .. }
                | Instr::Store { tags, .. }
                | Instr::Fence { tags }
                | Instr::Barrier { tags, .. } => tags.iter().collect(),
                Instr::Rmw {
                    tags, fail_tags, ..
                } => tags.iter().chain(fail_tags.iter().flatten()).collect(),
                Instr::Goto(l) | Instr::BranchIf { target: l, .. } if !labels.contains(&l) => {
                    return Err(format!("{}: jump to missing label {l}", th.name));
                }
                _ => vec![],
            };
            if let Some(bad) = tags.iter().find(|t| !vocab::is_tag(t.name())) {
                return Err(format!("{}: tag {bad} is not in the vocabulary", th.name));
            }
        }
    }
    match loc_tags.clone().find(|t| !vocab::is_tag(t.name())) {
        Some(bad) => Err(format!("location tag {bad} is not in the vocabulary")),
        None => Ok(()),
    }
}

fn litmus_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.map(|e| e.path()).unwrap_or_default())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            litmus_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "litmus") {
            out.push(path);
        }
    }
}

#[test]
fn every_corpus_file_parses() {
    let mut files = Vec::new();
    for dir in ["PTX", "C11", "OPENCL"] {
        litmus_files(&corpus().join("litmus").join(dir), &mut files);
    }
    assert!(files.len() > 400, "only {} corpus files found", files.len());
    let proxy_tests = files
        .iter()
        .filter(|f| f.components().any(|c| c.as_os_str() == "proxy"))
        .count();
    assert_eq!(
        proxy_tests, 95,
        "the PTX 7.5 mixed-proxy tests are parsed too"
    );
    let (refused, accepted): (Vec<&PathBuf>, Vec<&PathBuf>) =
        files.iter().partition(|f| refusal_of(f).is_some());
    assert_eq!(refused.len(), REFUSED.len(), "{refused:?}");
    for f in refused {
        assert_refused(f, refusal_of(f).unwrap());
    }
    let failures: Vec<String> = accepted
        .iter()
        .filter_map(|f| litmus::parse_file(f).err().map(|e| e.render()))
        .collect();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A PTX 7.5 test's aliases and proxy accesses become `Litmus::aliases` and proxy tags: a generic
/// alias is another address of its target's location, a surface or texture alias the same
/// address through that proxy.
#[test]
fn proxy_test_reads_aliases_and_proxy_tags() {
    let path = corpus().join(
        "litmus/PTX/Nvidia/proxy/Proxy-MP-Alias+diffProxy-aliasFence+proxyFence-correctOrder.litmus",
    );
    let test = litmus::parse_file(&path).unwrap_or_else(|e| panic!("{}", e.render()));
    let aliases: Vec<(&str, Option<Tag>, &str)> = test
        .aliases
        .iter()
        .map(|a| (a.name.as_str(), a.proxy, a.target.as_str()))
        .collect();
    assert_eq!(
        aliases,
        [
            ("y", None, "x"),
            ("s", Some(Tag::Sur), "x"),
            ("s1", Some(Tag::Sur), "y"),
            ("t", Some(Tag::Tex), "y"),
        ]
    );
    assert_eq!(
        [
            test.location_of("s1"),
            test.location_of("t"),
            test.location_of("flag")
        ],
        ["x", "x", "flag"]
    );
    assert_eq!(
        [
            test.address_of("s"),
            test.address_of("s1"),
            test.address_of("y")
        ],
        ["x", "y", "y"]
    );
    assert_eq!(
        test.threads[0].code[..3],
        [
            Instr::Store {
                loc: "s".into(),
                value: Expr::Const(2),
                tags: vec![Tag::Weak, Tag::Sur],
            },
            Instr::Fence {
                tags: vec![Tag::Sur]
            },
            Instr::Fence {
                tags: vec![Tag::Alias]
            },
        ]
    );
}
