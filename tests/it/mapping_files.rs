//! The mapping files of `mappings/` load, and say what their headers say: rc11-ptx.map is
//! Figure 11 of ASPLOS'19, each known-buggy variant differs from it in exactly its bug's classes,
//! and the OpenCL and CUDA tables have the scopes and equivalences their headers give.
use std::collections::BTreeSet;
use std::path::Path;

use mapcheck::mapping::{self, Class, ClassKind, Mapping, OpKind, TargetOp};
use mapcheck::vocab::{Level, Tag};

fn load(path: &str) -> Mapping {
    mapping::load(Path::new(path)).unwrap_or_else(|e| panic!("{path}:\n{}", e.render()))
}

/// The tag a model names `name`.
fn tag(name: &str) -> Tag {
    Tag::from_name(name).unwrap_or_else(|| panic!("no tag {name}"))
}

fn class(kind: ClassKind, order: &str, scope: Option<&str>) -> Class {
    Class {
        kind,
        order: tag(order),
        scope: scope.map(tag),
    }
}

fn op(kind: OpKind, tags: &[&str]) -> TargetOp {
    TargetOp {
        kind,
        tags: tags.iter().map(|t| tag(t)).collect(),
    }
}

fn map_files(dir: &str) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "map"))
        .map(|p| p.display().to_string())
        .collect();
    files.sort();
    files
}

#[test]
fn every_mapping_file_loads_with_every_class_covered() {
    let files: Vec<String> = map_files("mappings")
        .into_iter()
        .chain(map_files("mappings/known-bugs"))
        .chain(map_files("mappings/shipped"))
        .collect();
    assert_eq!(files.len(), 15, "{files:?}");
    for f in files {
        let m = load(&f);
        assert!(!m.classes().is_empty(), "{f}");
        for c in m.classes() {
            assert!(m.rule(c).is_some(), "{f}: {c} has no rule");
        }
        assert!(
            !m.source.checks.is_empty() && !m.target.checks.is_empty(),
            "{f}: models without axioms"
        );
    }
}

/// Every shipped mapping searches CTAs and GPUs, as the search did before the levels came from
/// the mapping; a mapping with a `.cluster` row searches clusters too.
#[test]
fn the_search_places_threads_at_the_levels_a_mapping_names() {
    let files = map_files("mappings")
        .into_iter()
        .chain(map_files("mappings/known-bugs"));
    for f in files {
        assert_eq!(load(&f).searched_levels(), [Level::Cta, Level::Gpu], "{f}");
    }
    for f in map_files("mappings/shipped") {
        let want: &[Level] = match f.contains("sm90-ptx86") {
            true => &[Level::Cta, Level::Cluster, Level::Gpu],
            false => &[Level::Cta, Level::Gpu],
        };
        assert_eq!(load(&f).searched_levels(), want, "{f}");
    }
    let cluster = load("tests/data/mapping/cluster/rc11-ptx-cluster.map");
    assert_eq!(
        cluster.searched_levels(),
        [Level::Cta, Level::Cluster, Level::Gpu]
    );
}

/// `variant "NAME"` under the source line reads the source model with it (decision 018): the
/// searched source reading is then that variant's, and the source readings are every C++ model
/// beside it under both release-sequence readings.
#[test]
fn a_variant_under_the_source_line_reads_the_source_model_with_it() {
    let text = std::fs::read_to_string("mappings/rc11-ptx.map").unwrap();
    let with = text.replacen(
        "source \"../models/rc11-scoped.cat\"",
        "source \"../models/rc11-scoped.cat\" variant \"cxx20\"",
        1,
    );
    assert_ne!(
        with, text,
        "rc11-ptx.map names its source model as expected"
    );
    let m = mapping::load_str("cxx20.map", &with, Some(Path::new("mappings")))
        .unwrap_or_else(|e| panic!("{}", e.render()));
    assert!(m.source.variants_enabled.contains("cxx20"));
    let readings: Vec<String> = m
        .source_readings()
        .iter()
        .map(|(r, _)| format!("{r}{}", if r.searched { " (searched)" } else { "" }))
        .collect();
    assert_eq!(
        readings,
        [
            "c11.cat",
            "c11.cat --variant cxx20",
            "rc11-scoped.cat",
            "rc11-scoped.cat --variant cxx20 (searched)",
            "rc11.cat",
            "rc11.cat --variant cxx20",
        ]
    );
}

#[test]
fn rc11_ptx_declares_the_47_classes_of_figure_11() {
    let m = load("mappings/rc11-ptx.map");
    let count = |k: ClassKind| m.classes().iter().filter(|c| c.kind == k).count();
    // R: NA + {RLX, ACQ, SC} × 3 scopes; W likewise; RMW: 5 orders × 3; F: 4 orders × 3.
    assert_eq!(
        (
            count(ClassKind::R),
            count(ClassKind::W),
            count(ClassKind::Rmw),
            count(ClassKind::F)
        ),
        (10, 10, 15, 12)
    );
    assert!(m.source_path.ends_with("rc11-scoped.cat") && m.target_path.ends_with("ptx-v6.cat"));
    assert_eq!(
        m.scopes,
        vec![
            (Tag::Cta, Tag::Cta),
            (Tag::Gpu, Tag::Gpu),
            (Tag::Sys, Tag::Sys)
        ]
    );
}

#[test]
fn rc11_ptx_carries_the_scope_into_every_strong_instruction() {
    let m = load("mappings/rc11-ptx.map");
    for c in m.classes() {
        for o in m.compile(c) {
            let weak = o.tags == [Tag::Weak];
            assert_eq!(weak, c.order == Tag::Na, "{c} -> {o}");
            if let Some(s) = c.scope {
                assert_eq!(o.tags.last(), Some(&s), "{c} -> {o}: scope not carried");
            }
        }
    }
    let sc_rmw = class(ClassKind::Rmw, "SC", Some("CTA"));
    assert_eq!(
        m.compile(&sc_rmw),
        [
            op(OpKind::Fence, &["SC", "CTA"]),
            op(OpKind::Rmw, &["ACQ_REL", "CTA"])
        ]
    );
    assert_eq!(m.rule(&sc_rmw).unwrap().main, Some(1));
    let sc_fence = class(ClassKind::F, "SC", Some("SYS"));
    assert_eq!(m.rule(&sc_fence).unwrap().main, Some(0));
}

/// The classes whose compilation differs between two mappings, with the variant's instructions.
fn differences(base: &Mapping, variant: &Mapping) -> Vec<(String, String)> {
    let all: BTreeSet<Class> = base
        .classes()
        .iter()
        .chain(variant.classes())
        .copied()
        .collect();
    all.into_iter()
        .filter(|c| base.compile(c) != variant.compile(c))
        .map(|c| {
            (
                c.to_string(),
                variant
                    .compile(&c)
                    .iter()
                    .map(|o| o.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        })
        .collect()
}

fn at_every_scope(kind: &str, order: &str, ops: &[&str]) -> Vec<(String, String)> {
    [("CTA", "cta"), ("GPU", "gpu"), ("SYS", "sys")]
        .iter()
        .map(|(s, w)| {
            (
                format!("{kind}.{order}.{s}"),
                ops.iter()
                    .map(|o| format!("{o}.{w}"))
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        })
        .collect()
}

#[test]
fn each_known_bug_changes_exactly_its_classes() {
    let base = load("mappings/rc11-ptx.map");
    let cases: Vec<(&str, Vec<(String, String)>)> = vec![
        (
            "b1-rmw-sc-release-dropped",
            at_every_scope("RMW", "SC", &["fence.sc", "atom.acquire"]),
        ),
        (
            "m1-sc-load-fence-dropped",
            at_every_scope("R", "SC", &["ld.acquire"]),
        ),
        (
            "m2-release-store-relaxed",
            at_every_scope("W", "REL", &["st.relaxed"]),
        ),
        (
            "m3-acquire-load-relaxed",
            at_every_scope("R", "ACQ", &["ld.relaxed"]),
        ),
        (
            "m4-release-acquire-gpu-narrowed",
            vec![
                ("R.ACQ.GPU".into(), "ld.acquire.cta".into()),
                ("W.REL.GPU".into(), "st.release.cta".into()),
            ],
        ),
        (
            "m5-sc-fence-weakened",
            at_every_scope("F", "SC", &["fence.acq_rel"]),
        ),
    ];
    for (name, expected) in cases {
        let variant = load(&format!("mappings/known-bugs/{name}.map"));
        let mut expected = expected;
        expected.sort();
        assert_eq!(differences(&base, &variant), expected, "{name}");
    }
}

#[test]
fn opencl_scopes_and_dropped_fence_flags() {
    let m = load("mappings/opencl-ptx.map");
    let images: Vec<_> = ["WI", "SG", "WG", "DEV", "ALL"]
        .iter()
        .map(|s| m.scope_image(tag(s)).unwrap())
        .collect();
    assert_eq!(images, [Tag::Cta, Tag::Cta, Tag::Cta, Tag::Gpu, Tag::Sys]);
    assert_eq!(m.dropped, [Tag::Global, Tag::Local]);
    let acq_wg = class(ClassKind::R, "ACQ", Some("WG"));
    assert_eq!(m.compile(&acq_wg), [op(OpKind::Load, &["ACQ", "CTA"])]);
    let sc_dev = class(ClassKind::W, "SC", Some("DEV"));
    assert_eq!(
        m.compile(&sc_dev),
        [
            op(OpKind::Fence, &["SC", "GPU"]),
            op(OpKind::Store, &["REL", "GPU"])
        ]
    );
}

#[test]
fn cuda_legacy_primitives_compile_as_documented() {
    let m = load("mappings/cuda-ptx.map");
    // __threadfence_block / __threadfence / __threadfence_system = fence.sc.{cta,gpu,sys} (= membar).
    for (s, t) in [("CTA", "CTA"), ("GPU", "GPU"), ("SYS", "SYS")] {
        assert_eq!(
            m.compile(&class(ClassKind::F, "SC", Some(s))),
            [op(OpKind::Fence, &["SC", t])]
        );
    }
    // atomicAdd / atomicAdd_block / atomicAdd_system: relaxed atom at device / block / system scope.
    assert_eq!(
        m.compile(&class(ClassKind::Rmw, "RLX", Some("GPU"))),
        [op(OpKind::Rmw, &["RLX", "GPU"])]
    );
    assert_eq!(
        m.compile(&class(ClassKind::Rmw, "RLX", Some("CTA"))),
        [op(OpKind::Rmw, &["RLX", "CTA"])]
    );
    // volatile: ld.volatile / st.volatile, tagged as the PTX front end tags them.
    assert_eq!(
        m.compile(&class(ClassKind::R, "V", Some("SYS"))),
        [op(OpKind::Load, &["RLX", "SYS", "V"])]
    );
    assert_eq!(
        m.compile(&class(ClassKind::W, "V", Some("SYS"))),
        [op(OpKind::Store, &["RLX", "SYS", "V"])]
    );
    // thread_scope_thread widens to .cta; a relaxed fence compiles to nothing.
    assert_eq!(
        m.compile(&class(ClassKind::R, "CON", Some("WI"))),
        [op(OpKind::Load, &["ACQ", "CTA"])]
    );
    let relaxed_fence = class(ClassKind::F, "RLX", Some("GPU"));
    assert!(m.compile(&relaxed_fence).is_empty());
    assert_eq!(m.rule(&relaxed_fence).unwrap().main, None);
    assert!(m.source_path.ends_with("cuda.cat"));
    assert_eq!(m.source.title.as_deref(), Some("cuda"));
}

#[test]
fn the_readme_example_is_a_valid_table() {
    let readme = std::fs::read_to_string("mappings/README.md").unwrap();
    let example = readme
        .split("```")
        .nth(1)
        .expect("a code block in mappings/README.md");
    let table =
        mapping::parse_table("README.md", example).unwrap_or_else(|e| panic!("{}", e.render()));
    assert_eq!(table.classes.len(), 7);
    assert_eq!(table.dropped, [Tag::Global]);
}

/// OpenCL gives atomic objects atomic access only; scoped C++ and CUDA (`atomic_ref`) mix them.
#[test]
fn only_opencl_types_its_locations() {
    assert!(load("mappings/opencl-ptx.map").typed_locations);
    assert!(!load("mappings/rc11-ptx.map").typed_locations);
    assert!(!load("mappings/cuda-ptx.map").typed_locations);
}
