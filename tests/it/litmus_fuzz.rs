//! `parse_str` never panics: on random text, on random sequences of litmus tokens, and on real
//! corpus files with random characters deleted, inserted or replaced. Whatever it returns, an
//! error must also render without panicking.
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use mapcheck::litmus;
use proptest::prelude::*;

/// A sample of real tests of every dialect (read once).
fn seeds() -> &'static Vec<String> {
    static SEEDS: OnceLock<Vec<String>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/oracle/dat3m/litmus");
        let files: Vec<PathBuf> = [
            "PTX/Manual/Ticketlock-acq2rlx-1.litmus",
            "PTX/Manual/MICRO24-Fig4b.litmus",
            "PTX/Barrier/quorum3-pass.litmus",
            "PTX/Memalloy/IRRWIW1.litmus",
            "PTX/Manual/SB+named-bar-reg-const-diff.litmus",
            "C11/auto/c_pq.litmus",
            "C11/manual/imm-E3.5.litmus",
            "C11/auto/linearisation2.litmus",
            "C11/manual/cppmem_iriw_relacq.litmus",
            "OPENCL/herd/global_barrier_mo.litmus",
            "OPENCL/overhauling/example6.litmus",
            "OPENCL/herd/CT_wsq1.litmus",
        ]
        .iter()
        .map(|f| root.join(f))
        .collect();
        files
            .iter()
            .map(|f| {
                std::fs::read_to_string(f)
                    .unwrap_or_else(|e| panic!("cannot read {}: {e}", f.display()))
            })
            .collect()
    })
}

fn check(text: &str) {
    if let Err(e) = litmus::parse_str("fuzz.litmus", text) {
        let _ = e.render();
        let _ = e.to_string();
    }
}

/// One edit of a file, as character positions taken modulo its length.
#[derive(Clone, Debug)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, char),
    Replace(usize, char),
}

fn edit() -> impl Strategy<Value = Edit> {
    let interesting = prop::sample::select(vec![
        '{', '}', '(', ')', '[', ']', ';', '|', ':', ',', '.', '*', '~', '/', '\\', '"', '=', '!',
        '&', '@', '%', '-', '0', '9', 'r', 'x', 'P', '\n', ' ', 'é', '\u{0}',
    ]);
    let ch = prop_oneof![interesting, any::<char>()];
    prop_oneof![
        (any::<usize>(), 1usize..40).prop_map(|(p, n)| Edit::Delete(p, n)),
        (any::<usize>(), ch.clone()).prop_map(|(p, c)| Edit::Insert(p, c)),
        (any::<usize>(), ch).prop_map(|(p, c)| Edit::Replace(p, c)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        let n = chars.len().max(1);
        match *e {
            Edit::Delete(p, len) => {
                let start = p % n;
                let end = (start + len).min(chars.len());
                if start < end {
                    chars.drain(start..end);
                }
            }
            Edit::Insert(p, c) => chars.insert(p % (chars.len() + 1), c),
            Edit::Replace(p, c) => {
                if !chars.is_empty() {
                    let i = p % chars.len();
                    chars[i] = c;
                }
            }
        }
    }
    chars.into_iter().collect()
}

/// Tokens of all three dialects, to build inputs that get past the lexers.
const TOKENS: &[&str] = &[
    "PTX t\n", "C t\n", "OPENCL t\n", "{", "}", "(", ")", "[", "]", ";", "|", ",", ":", "x=0;", "[x] = 0;", "P0:r0=1;",
    "int y[2] = {0, 1};", "P0@cta 0,gpu 0", "P1@cta 1,gpu 0", "P0@wg 0, dev 0", "P0 (atomic_int* x)", "ld.weak r0, x",
    "st.relaxed.gpu x, 1", "atom.acq_rel.sys.cas r1, x, 0, 1", "red.add x, r1", "bar.cta.sync 1, r2, 2",
    "fence.sc.cta", "membar.gl", "beq r0, 1, L", "L:", "goto L", "int r0 = ", "atomic_load_explicit(x, memory_order_acquire)",
    "atomic_store(x, 1)", "atomic_compare_exchange_strong_explicit(x, one, 2, memory_order_acquire, memory_order_relaxed)",
    "atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device)", "B1: barrier(CLK_LOCAL_MEM_FENCE)",
    "if", "else", "while", "*x = 1", "y+r0", "r0", "1", "-1", "99999999999999999999", "exists", "~exists", "forall",
    "/\\", "\\/", "=>", "~", "==", "!=", "=", "0:r0", "P1:r1", "true", "(*", "*)", "//", "\n", " ", "\"desc\"",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}", arch in prop::sample::select(vec!["", "PTX x\n", "C x\n", "OPENCL x\n"])) {
        check(&format!("{arch}{text}"));
    }

    #[test]
    fn random_token_soup_never_panics(tokens in prop::collection::vec(prop::sample::select(TOKENS), 0..60)) {
        check(&tokens.join(" "));
    }

    #[test]
    fn mutated_corpus_files_never_panic(seed in 0usize..12, edits in prop::collection::vec(edit(), 1..6)) {
        let seeds = seeds();
        check(&apply(&seeds[seed % seeds.len()], &edits));
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep_prop = format!(
        "PTX t\n{{ x=0; }}\n P0 ;\n ld r0, x ;\nexists ({}x=0)",
        "~".repeat(100_000)
    );
    let deep_chain = format!(
        "PTX t\n{{ x=0; }}\n P0 ;\n ld r0, x ;\nexists (x=0{})",
        " /\\ x=0".repeat(50_000)
    );
    let deep_expr = format!(
        "C t\n{{ x=0; }}\nP0 (int* x) {{ int r = {}1; }}\nexists (x=0)",
        "-".repeat(100_000)
    );
    let deep_stmt = format!(
        "C t\n{{ x=0; }}\nP0 (int* x) {{ {} *x = 1; }}\nexists (x=0)",
        "if (1) ".repeat(20_000)
    );
    let parens = |n: usize| {
        format!(
            "C t\n{{ x=0; }}\nP0 (int* x) {{ int r = {}1{}; }}\nexists (x=0)",
            "(".repeat(n),
            ")".repeat(n)
        )
    };
    for text in [deep_prop, deep_chain, deep_expr, deep_stmt] {
        let err = litmus::parse_str("deep.litmus", &text)
            .err()
            .unwrap_or_else(|| panic!("deep input accepted"));
        assert!(err.message.contains("nested more than"), "{}", err.message);
    }
    // Parentheses alone add no depth to the tree, but the parser's stack holds them: up to
    // 1000 brackets deep (the thread's `{` one of them) parse, more are refused before parsing,
    // at the bracket that passes the limit.
    assert!(litmus::parse_str("parens.litmus", &parens(999)).is_ok());
    let err = litmus::parse_str("parens.litmus", &parens(300_000)).unwrap_err();
    assert!(
        err.message.contains("brackets nested more than 1000 deep"),
        "{}",
        err.message
    );
    // `P0 (int* x) { int r = ` is 22 columns; its `{` and 1000 parentheses are 1001 deep.
    assert_eq!(err.line_col(), Some((3, 22 + 1000)));
}
