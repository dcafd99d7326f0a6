//! No mapping text, however broken, makes mapcheck panic: random texts over the mapping
//! language's characters, and the real mapping files with random edits, only ever give `Ok` or a
//! diagnostic that points inside the text.
use std::path::Path;

use mapcheck::mapping;
use proptest::prelude::*;

const FILES: &[&str] = &[
    "mappings/rc11-ptx.map",
    "mappings/opencl-ptx.map",
    "mappings/cuda-ptx.map",
    "mappings/known-bugs/m4-release-acquire-gpu-narrowed.map",
];

/// Pieces a mutation may insert: tokens, keywords, tags, qualifiers and junk.
const PIECES: &[&str] = &[
    "->",
    ".",
    ";",
    ",",
    "{",
    "}",
    "_",
    "$s",
    "$t",
    "\"",
    "//",
    "\n",
    " ",
    "source",
    "target",
    "scope",
    "class",
    "drop",
    "skip",
    "R",
    "W",
    "RMW",
    "F",
    "NA",
    "SC",
    "ACQ",
    "GPU",
    "WG",
    "ld",
    "st",
    "atom",
    "fence",
    "membar",
    "acquire",
    "weak",
    "volatile",
    "gpu",
    "cta",
    "gl",
    "ptx",
    "é",
    "\u{0}",
    "{}",
    "R.SC.$s -> skip",
];

/// Load `text` as a mapping in `mappings/` (so model paths resolve); any error must be renderable.
fn load_never_panics(text: &str) {
    if let Err(e) = mapping::parse_table("fuzz.map", text) {
        let _ = e.render();
    }
    if let Err(e) = mapping::load_str("fuzz.map", text, Some(Path::new("mappings"))) {
        let _ = e.render();
        let _ = e.to_string();
    }
}

/// Apply one edit at a byte position (moved back to a character boundary).
fn mutate(text: &str, at: usize, len: usize, piece: usize, kind: u8) -> String {
    let mut at = at % (text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let mut end = (at + len).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let piece = PIECES[piece % PIECES.len()];
    match kind % 3 {
        0 => format!("{}{}", &text[..at], &text[end..]),
        1 => format!("{}{}{}", &text[..at], piece, &text[at..]),
        _ => format!("{}{}{}", &text[..at], piece, &text[end..]),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_texts_never_panic(text in "[A-Za-z_$.;,{}>\\-\" \n/é0-9]{0,160}") {
        load_never_panics(&text);
    }

    #[test]
    fn random_token_sequences_never_panic(tokens in prop::collection::vec(0usize..PIECES.len(), 0..60)) {
        let text: Vec<&str> = tokens.iter().map(|&i| PIECES[i]).collect();
        load_never_panics(&text.join(" "));
    }

    #[test]
    fn mutated_mapping_files_never_panic(
        file in 0usize..FILES.len(),
        edits in prop::collection::vec((any::<usize>(), 0usize..40, any::<usize>(), any::<u8>()), 1..4),
    ) {
        let mut text = std::fs::read_to_string(FILES[file]).unwrap();
        for (at, len, piece, kind) in edits {
            text = mutate(&text, at, len, piece, kind);
        }
        load_never_panics(&text);
    }
}
