//! Parsing a mapping file: the lalrpop parser of `grammar/mapping.lalrpop` and the translation of
//! its errors into `diag::Error`s that point at file:line:column and say what was expected.
//!
//! Owns: `parse`. Uses: `diag`, `ast`.
use std::sync::Arc;

use lalrpop_util::lexer::Token;
use lalrpop_util::ParseError;

use crate::diag;
use crate::mapping::ast::File;

lalrpop_util::lalrpop_mod!(
    #[allow(
        clippy::all,
        unused_parens,
        unused_imports,
        dead_code,
        non_snake_case,
        non_camel_case_types,
        unreachable_pub,
        missing_docs
    )]
    grammar,
    "/mapping.rs"
);

/// Parse the text of a mapping file. `path` only labels errors.
pub(crate) fn parse(path: &str, src: &Arc<str>) -> diag::Result<File> {
    grammar::FileParser::new()
        .parse(src)
        .map_err(|e| syntax_error(path, src, e))
}

fn syntax_error(path: &str, src: &Arc<str>, e: ParseError<usize, Token<'_>, &str>) -> diag::Error {
    match e {
        ParseError::InvalidToken { location } => invalid_token(path, src, location),
        ParseError::UnrecognizedEof { location, expected } => {
            diag::Error::at(path, src, location..location, "unexpected end of file")
                .with_note(expected_note(&expected))
        }
        ParseError::UnrecognizedToken {
            token: (l, _, r),
            expected,
        } => diag::Error::at(
            path,
            src,
            l..r,
            format!("unexpected `{}`", shown(&src[l..r])),
        )
        .with_note(expected_note(&expected)),
        ParseError::ExtraToken { token: (l, _, r) } => diag::Error::at(
            path,
            src,
            l..r,
            format!("unexpected `{}`", shown(&src[l..r])),
        ),
        ParseError::User { error } => diag::Error::file(path, error),
    }
}

fn invalid_token(path: &str, src: &Arc<str>, at: usize) -> diag::Error {
    let end = next_char_end(src, at);
    if &src[at..end] == "\"" {
        return diag::Error::at(
            path,
            src,
            at..end,
            "unterminated string: expected a closing `\"` on the same line",
        );
    }
    diag::Error::at(
        path,
        src,
        at..end,
        format!("unexpected character `{}`", &src[at..end]),
    )
    .with_note(
        "names are letters, digits and `_`; variables are `$name`; strings are \"…\" on one line",
    )
}

/// End of the character starting at `at` (or `at` at the end of the text).
fn next_char_end(src: &str, at: usize) -> usize {
    src[at..].chars().next().map_or(at, |c| at + c.len_utf8())
}

/// At most 40 characters of the offending text.
fn shown(text: &str) -> String {
    text.chars().take(40).collect()
}

/// "expected one of …", with the token classes in words.
fn expected_note(expected: &[String]) -> String {
    let words: Vec<String> = expected.iter().map(|t| terminal_in_words(t)).collect();
    match words.as_slice() {
        [] => "expected nothing more here".to_string(),
        [one] => format!("expected {one}"),
        _ => format!("expected one of {}", words.join(", ")),
    }
}

fn terminal_in_words(terminal: &str) -> String {
    match terminal {
        "IDENT" => "a name".to_string(),
        "VAR" => "a variable such as `$s`".to_string(),
        "STRING" => "a \"quoted path\"".to_string(),
        t => format!("`{}`", t.trim_matches('"')),
    }
}
