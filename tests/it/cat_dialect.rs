//! Dialects (issue 13 item 2, decision 008): a model declares whose vocabulary it speaks
//! (`dialect mapcheck|herd|dat3m`) or is given it by `--dialect`; the two must agree. A model that
//! declares none is read as mapcheck's and warned about each name Dartagnan's or herd7's
//! models mean otherwise.
use std::path::Path;

use mapcheck::ir::{self, Dialect, LoadOptions, Model};

use crate::support::cli::mapcheck;

fn load(text: &str, dialect: Option<Dialect>) -> Result<Model, mapcheck::Error> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.cat");
    std::fs::write(&path, text).unwrap();
    let opts = LoadOptions {
        dialect,
        ..LoadOptions::default()
    };
    ir::load_with(&path, &opts)
}

const BODY: &str = "let x = sr & (REL * ACQ)\nacyclic po | rf | x as A\n";

/// The names Dartagnan's prelude redefines are warned about, once each, at their first use, with
/// Dartagnan's meaning; a name no prelude redefines (`po`, `rf`) is not.
#[test]
fn an_undeclared_model_is_warned_about_each_name_read_otherwise_elsewhere() {
    let m = load(&format!("PTX \"t\"\n{BODY}let y = sr\n"), None).unwrap();
    assert_eq!(m.warnings.len(), 3, "{:#?}", m.warnings);
    for (w, (name, at, meaning)) in m.warnings.iter().zip([
        ("sr", "m.cat:2:9", "let sr = incl"),
        (
            "REL",
            "m.cat:2:15",
            "let REL = REL | ((W | F | BAR) & ACQ_REL)",
        ),
        (
            "ACQ",
            "m.cat:2:21",
            "let ACQ = ACQ | ((R | F | BAR) & ACQ_REL)",
        ),
    ]) {
        assert!(w.contains(at), "{w}");
        assert!(
            w.contains(&format!("warning: `{name}` is mapcheck's built-in")),
            "{w}"
        );
        assert!(
            w.contains(&format!("Dartagnan's models mean `{meaning}`")),
            "{w}"
        );
    }
}

/// Declaring a dialect silences the warnings, and a declared dialect is the flag's: the same
/// model body lowers to the same definitions and checks either way.
#[test]
fn a_declaration_is_the_flag() {
    for d in Dialect::ALL {
        let declared = load(&format!("PTX \"t\"\ndialect {}\n{BODY}", d.name()), None).unwrap();
        // A blank line in place of the declaration, so that both bodies start on line 3.
        let flagged = load(&format!("PTX \"t\"\n\n{BODY}"), Some(d)).unwrap();
        assert!(declared.warnings.is_empty() && flagged.warnings.is_empty());
        // Definitions name the file they come from (a temporary one per load).
        let ir = |m: &Model| format!("{:?} {:?}", m.defs, m.checks).replace(&m.path, "m.cat");
        assert_eq!(ir(&declared), ir(&flagged), "{}", d.name());
        assert_eq!(declared.coherence, flagged.coherence, "{}", d.name());
    }
    // And the dialects do differ on this body: Dartagnan's `sr` and `REL` are other relations.
    let mapcheck_defs = load(&format!("PTX \"t\"\n{BODY}"), Some(Dialect::Mapcheck)).unwrap();
    let dat3m_defs = load(&format!("PTX \"t\"\n{BODY}"), Some(Dialect::Dat3m)).unwrap();
    assert_ne!(
        format!("{:?}", mapcheck_defs.defs),
        format!("{:?}", dat3m_defs.defs)
    );
}

#[test]
fn a_declaration_against_the_flag_or_misplaced_or_unknown_is_an_error() {
    let e = load(
        &format!("PTX \"t\"\ndialect dat3m\n{BODY}"),
        Some(Dialect::Herd),
    )
    .unwrap_err();
    assert_eq!(e.line_col(), Some((2, 9)));
    let says = "declares `dialect dat3m`, the command line asks for `--dialect herd`";
    assert!(e.message.contains(says), "{}", e.message);
    let e = load("dialect hred\nacyclic po as A\n", None).unwrap_err();
    assert!(
        e.message.contains("unknown dialect `hred`"),
        "{}",
        e.message
    );
    let e = load("if \"v\" else dialect herd end\nacyclic po as A\n", None).unwrap_err();
    let says = "this file declares `dialect herd`, but the model is read as `mapcheck`";
    assert!(e.message.contains(says), "{}", e.message);
    // An included file may declare the dialect the model is read in, and no other.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("inc.cat"), "dialect dat3m\nlet x = po\n").unwrap();
    let top = dir.path().join("top.cat");
    std::fs::write(&top, "include \"inc.cat\"\nacyclic x as A\n").unwrap();
    let e = ir::load(&top).unwrap_err();
    assert!(e.path.ends_with("inc.cat"), "{}", e.render());
    let says = "this file declares `dialect dat3m`, but the model is read as `mapcheck`";
    assert!(e.message.contains(says), "{}", e.message);
    let opts = LoadOptions {
        dialect: Some(Dialect::Dat3m),
        ..LoadOptions::default()
    };
    assert!(ir::load_with(&top, &opts).is_ok());
}

/// mapcheck's own models say whose vocabulary they use: none of them is warned about.
#[test]
fn the_bundled_models_declare_their_dialect() {
    for entry in std::fs::read_dir("models").unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        // wf.cat is not a memory model; the `-base` files are only ever included.
        let top = name.ends_with(".cat") && name != "wf.cat" && !name.ends_with("-base.cat");
        if !top {
            continue;
        }
        let m = ir::load(Path::new(&path)).unwrap();
        assert!(
            m.warnings.is_empty(),
            "{}: {:#?}",
            path.display(),
            m.warnings
        );
        assert!(text.contains("\ndialect mapcheck\n"), "{}", path.display());
    }
}

/// The command line prints the warnings on stderr and still runs the model.
#[test]
fn run_prints_the_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.cat");
    std::fs::write(&model, format!("PTX \"t\"\n{BODY}")).unwrap();
    let (code, out, err) = mapcheck(&[
        "run",
        model.to_str().unwrap(),
        "tests/data/oracle/dat3m/litmus/PTX/Nvidia/Atom-SB.litmus",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("Test Atom-SB"), "{out}");
    assert_eq!(err.matches(": warning: ").count(), 3, "{err}");
}

/// Dartagnan's PTX front end splits an RMW's semantics between its halves (Tag.PTX.loadMO /
/// storeMO): an `atom.acquire` writes RLX and an `atom.release` reads RLX, so that both halves are
/// strong. In the dat3m dialect every RMW half is RLX, ACQ or REL accordingly: a model demanding
/// that of the read and the write of each RMW allows the test; read as mapcheck's, where both
/// halves carry the instruction's one semantics, it allows no execution.
#[test]
fn the_dat3m_dialect_tags_rmw_halves_as_dartagnan_does() {
    let model = "PTX \"halves\"\n\
                 empty domain(rmw) \\ (RLX | ACQ) as ReadsStrong\n\
                 empty range(rmw) \\ (RLX | REL) as WritesStrong\n";
    let test = mapcheck::litmus::parse_str(
        "halves.litmus",
        "PTX halves\n{ x=0; y=0; }\n P0@cta 0,gpu 0 ;\n \
         atom.acquire.gpu.add r0, x, 1 ;\n atom.release.gpu.add r1, y, 1 ;\n \
         atom.acq_rel.gpu.add r2, x, 1 ;\nexists (P0:r0 == 0)\n",
    )
    .unwrap();
    let verdict = |dialect| {
        let m = load(model, Some(dialect)).unwrap();
        mapcheck::runner::run(&m, &test, &Default::default())
            .unwrap()
            .validated
    };
    assert!(verdict(Dialect::Dat3m));
    assert!(!verdict(Dialect::Mapcheck));
}

/// Dartagnan gives an OpenCL barrier an entry fence (`EF`) and an exit fence (`XF`), and Dat3M's
/// `opencl.cat` synchronises one work-item's entry with the other's exit. A model that names
/// either gets two events per barrier, entry `po`-before exit, with `syncbar` between the parts
/// of synchronising barriers: message passing through a barrier is then ordered, and a
/// happens-before built on `EF * XF` is acyclic. Both are fences (`F`), as Dartagnan tags them. With one event per barrier (`BAR` for both)
/// the same happens-before relates the two barriers both ways and no execution is consistent.
#[test]
fn a_model_that_names_ef_or_xf_gets_an_entry_and_an_exit_fence_per_barrier() {
    let model = "OpenCL \"halves\"\n\
                 let bar_sw = (EF * XF) & syncbar & ~int\n\
                 let hb = (po | bar_sw)+\n\
                 acyclic hb as Causality\n\
                 irreflexive fr; hb as Observed\n\
                 empty EF & XF as TwoEvents\n\
                 ~empty [EF]; po; [XF] as EntryThenExit\n\
                 empty (EF | XF) \\ F as Fences\n";
    let test = mapcheck::litmus::parse_str(
        "bar.litmus",
        "OPENCL bar\n{ [x]=0; }\n\
         P0@wg 0, dev 0 (global int* x) {\n  *x = 1;\n  barrier(CLK_GLOBAL_MEM_FENCE);\n}\n\
         P1@wg 0, dev 0 (global int* x) {\n  barrier(CLK_GLOBAL_MEM_FENCE);\n  int r0 = *x;\n}\n\
         exists (1:r0=0)\n",
    )
    .unwrap();
    let states = |model: &str| {
        let m = load(model, Some(Dialect::Dat3m)).unwrap();
        assert!(m.warnings.is_empty(), "{:#?}", m.warnings);
        let run = mapcheck::runner::run(&m, &test, &Default::default()).unwrap();
        run.states.into_keys().collect::<Vec<_>>()
    };
    assert_eq!(states(model), ["1:r0=1;"]);
    let one_event = model
        .replace("EF", "BAR")
        .replace("XF", "BAR")
        .replace("empty BAR & BAR as TwoEvents\n", "");
    assert_eq!(states(&one_event), Vec::<String>::new());
}

/// Newer Dartagnan PTX models name barrier synchronisation `sync_barrier`, a built-in: in the
/// dat3m dialect it relates barriers of two threads with one id, so message passing through
/// `bar.sync` is ordered by a model that asks `sync_barrier` to order it (and not through two
/// barriers with different ids).
#[test]
fn the_dat3m_dialect_defines_sync_barrier() {
    let model = "PTX \"bar\"\nirreflexive fr; po; sync_barrier; po as Ordered\n";
    let m = load(model, Some(Dialect::Dat3m)).unwrap();
    let states = |id: u32| {
        let test = mapcheck::litmus::parse_str(
            "bar.litmus",
            &format!(
                "PTX bar\n{{ x=0; }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.weak x, 1 | bar.sync 0 ;\n \
                 bar.sync {id} | ld.weak r0, x ;\nexists (P1:r0 == 0)\n"
            ),
        )
        .unwrap();
        let run = mapcheck::runner::run(&m, &test, &Default::default()).unwrap();
        run.states.len()
    };
    assert_eq!(states(0), 1, "only r0 = 1 after the shared barrier");
    assert_eq!(states(1), 2, "barriers 0 and 1 do not synchronise");
}

/// Does some execution of `test` pass every check of `model` read in `dialect`?
fn some_consistent(model: &str, dialect: Dialect, test: &str) -> bool {
    let m = load(model, Some(dialect)).unwrap();
    let test = mapcheck::litmus::parse_str("t.litmus", test).unwrap();
    let run = mapcheck::runner::run(&m, &test, &Default::default()).unwrap();
    run.positive + run.negative > 0
}

/// Dartagnan's current PTX and Vulkan models (Dat3M 3064012) name `GEN`, `CON` and `CBAR` as
/// Dartagnan's front ends tag events: `GEN` every generic-proxy access and physical fence, not
/// a proxy fence, a non-generic access, a barrier or an initial write; `CON` both C's consume
/// and PTX's constant proxy (mapcheck's `CONST`); `CBAR` a Vulkan control barrier. Each check
/// below fails if one of those sets is wrong; mapcheck's own dialect has no `GEN` at all.
#[test]
fn the_dat3m_dialect_names_proxies_and_control_barriers_as_dartagnan_does() {
    let ptx_model = "PTX \"proxies\"\n\
                     empty (W \\ IW) \\ GEN as StoresGeneric\n\
                     empty (F & SC) \\ GEN as FenceScGeneric\n\
                     empty GEN & (IW | BAR | CONST) as OthersNot\n\
                     empty CONST \\ CON as ConstantIsCon\n\
                     ~empty R & CONST as SomeConstantRead\n\
                     ~empty F & CONST as SomeProxyFence\n";
    let ptx_test = "PTX proxies\n{ rd1=0; rd2 @ constant aliases rd1; P0:r0=0; }\n \
                    P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.weak rd1, 42 | bar.sync 0 ;\n \
                    fence.sc.gpu | fence.proxy.constant ;\n bar.sync 0 | cold.weak r1, rd2 ;\n \
                    cold.weak r0, rd2 | ;\nexists (P0:r0 == 42 \\/ P0:r0 == 0)\n";
    assert!(some_consistent(ptx_model, Dialect::Dat3m, ptx_test));
    let err = load(ptx_model, Some(Dialect::Mapcheck)).unwrap_err();
    assert!(
        err.message.contains("unknown name `GEN`"),
        "{}",
        err.message
    );
    let c_model = "C \"consume\"\nempty R \\ CON as AllConsume\n~empty R as SomeRead\n";
    let c_test = "C consume\n{ [x] = 0; }\nP0 (atomic_int* x) {\n  \
                  int r0 = atomic_load_explicit(x, memory_order_consume);\n}\nexists (0:r0=0)\n";
    assert!(some_consistent(c_model, Dialect::Dat3m, c_test));
    let vulkan_model = "Vulkan \"cbar\"\nempty CBAR \\ BAR as OnlyBarriers\n\
                        empty BAR \\ CBAR as EveryBarrier\n~empty CBAR as SomeBarrier\n";
    let vulkan_test =
        "VULKAN cbar\n{ a=0; P1:r0=0; }\n P0@sg 0,wg 0, qf 0 | P1@sg 1,wg 0, qf 0 ;\n \
                       st.av.dv.sc0 a, 1 | cbar.acq_rel.wg.semsc0 0 ;\n \
                       cbar.acq_rel.wg.semsc0 0 | ld.vis.dv.sc0 r0, a ;\nexists (P1:r0 == 1)\n";
    assert!(some_consistent(vulkan_model, Dialect::Dat3m, vulkan_test));
}

/// herd's own `cos.cat` generates coherence orders with herd's procedures, and its `stdlib.cat`
/// is written with constructs mapcheck does not read: with `--dialect herd` the bundled files
/// are read in their place even where the include path has herd's (a warning names each), as
/// herd's `rc11.cat` with `-I herd/libdir` needs. In mapcheck's dialect the file on the path is
/// read, as any include.
#[test]
fn the_herd_dialect_reads_the_bundled_cos_and_stdlib_in_place_of_herds() {
    let dir = tempfile::tempdir().unwrap();
    let herds = "procedure unreadable(A) = empty A end\n";
    std::fs::write(dir.path().join("cos.cat"), herds).unwrap();
    std::fs::write(dir.path().join("stdlib.cat"), herds).unwrap();
    let model_dir = tempfile::tempdir().unwrap();
    let model = model_dir.path().join("m.cat");
    std::fs::write(
        &model,
        "\"m\"\ninclude \"cos.cat\"\nacyclic po | rf | co | fr as SC\n",
    )
    .unwrap();
    let opts = |dialect| LoadOptions {
        dialect: Some(dialect),
        include_dirs: vec![dir.path().to_path_buf()],
        include_anywhere: true,
        ..LoadOptions::default()
    };
    let m = ir::load_with(&model, &opts(Dialect::Herd)).unwrap();
    assert_eq!(m.warnings.len(), 2, "{:#?}", m.warnings);
    assert!(m.warnings[0].contains("herd's `cos.cat`") && m.warnings[0].contains("generates"));
    assert!(
        m.warnings[1].contains("herd's `stdlib.cat`"),
        "{:#?}",
        m.warnings
    );
    assert!(
        m.def_named("fre").is_some(),
        "the bundled stdlib's names are defined"
    );
    let err = ir::load_with(&model, &opts(Dialect::Mapcheck)).unwrap_err();
    assert!(err.message.contains("procedure"), "{}", err.message);
}
