//! Syntax of herd's cat language: model text to an `ast::File` with byte spans.
//!
//! Owns: the lexer, the lalrpop grammar (`grammar/cat_grammar.lalrpop`, whose header lists what is
//! accepted and what is rejected on purpose) and the translation of parse errors into `diag::Error`.
//! Entry point: `parse`. Uses: `diag`. Knows nothing of names, kinds or includes (that is `ir`).
//!
//! Files:
//! - `lexer.rs`: herd's token rules, and the `*` and `coherence` decisions.
//! - `ast.rs`: `File`, `Stmt`, `Expr` with byte spans; the nesting limit.
pub(crate) mod ast;
pub(crate) mod lexer;

use std::sync::Arc;

use lalrpop_util::ParseError;

use crate::diag;
use lexer::{SyntaxError, Tok};

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused_parens, unreachable_pub, missing_docs)]
    grammar,
    "/cat_grammar.rs"
);

/// Parse one model file. `path` is only used to label errors.
pub(crate) fn parse(path: &str, src: &Arc<str>) -> diag::Result<ast::File> {
    diag::check_input_limits(path, src, src)?;
    grammar::FileParser::new()
        .parse(lexer::tokenize(src))
        .map_err(|e| to_diag(path, src, syntax_error(src, e)))
}

fn to_diag(path: &str, src: &Arc<str>, e: SyntaxError) -> diag::Error {
    let err = diag::Error::at(path, src, e.span.range(), e.message);
    e.notes.into_iter().fold(err, diag::Error::with_note)
}

fn syntax_error(src: &str, e: ParseError<usize, Tok<'_>, SyntaxError>) -> SyntaxError {
    match e {
        ParseError::User { error } => error,
        ParseError::InvalidToken { location } => {
            SyntaxError::new(ast::Span::new(location, location), "invalid token")
        }
        ParseError::UnrecognizedEof { location, expected } => {
            SyntaxError::new(ast::Span::new(location, location), "unexpected end of file")
                .with_note(expected_note(&expected))
        }
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => {
            let span = ast::Span::new(l, r);
            SyntaxError::new(
                span,
                format!("unexpected {}", describe(&tok, span.text(src))),
            )
            .with_note(expected_note(&expected))
        }
        ParseError::ExtraToken { token: (l, tok, r) } => {
            let span = ast::Span::new(l, r);
            SyntaxError::new(
                span,
                format!("unexpected {}", describe(&tok, span.text(src))),
            )
        }
    }
}

fn describe(tok: &Tok, text: &str) -> String {
    let shown: String = text.chars().take(40).collect();
    match tok {
        Tok::Ident(_) => format!("name `{shown}`"),
        Tok::Str(_) => format!("string {shown}"),
        _ => format!("`{shown}`"),
    }
}

/// Terminals that can start an operand; when all are expected we say "an expression".
const OPERAND_START: &[&str] = &["Name", "\"0\"", "\"(\"", "\"[\"", "\"~\"", "\"{\""];
/// Terminals that start only a whole expression (a binding's body, a check's), not an operand.
const EXPR_ONLY_START: &[&str] = &["\"let\"", "\"if\"", "\"match\"", "\"try\""];
/// Terminals that can start a statement; when all are expected we say "a statement".
const STMT_START: &[&str] = &[
    "\"let\"",
    "\"acyclic\"",
    "\"irreflexive\"",
    "\"empty\"",
    "\"flag\"",
    "\"include\"",
    "\"show\"",
    "\"unshow\"",
    "\"with\"",
    "\"coherence\"",
    "\"if\"",
    "\"undefined_unless\"",
];

/// "expected …" in words: whole groups of terminals are named by what they start.
fn expected_note(expected: &[String]) -> String {
    let mut rest: Vec<&str> = expected.iter().map(String::as_str).collect();
    let mut words = Vec::new();
    let groups = [
        (OPERAND_START, "an expression"),
        (EXPR_ONLY_START, "an expression"),
        (STMT_START, "a statement"),
    ];
    for (group, word) in groups {
        if group.iter().all(|t| expected.iter().any(|e| e == t)) {
            rest.retain(|t| !group.contains(t));
            if !words.iter().any(|w| w == word) {
                words.push(word.to_string());
            }
        }
    }
    words.extend(rest.iter().map(|t| terminal_in_words(t)));
    match words.len() {
        0 => "expected nothing more here".to_string(),
        1 => format!("expected {}", words[0]),
        _ => format!("expected one of: {}", words.join(", ")),
    }
}

fn terminal_in_words(t: &str) -> String {
    match t {
        "Name" => "a name".to_string(),
        "String" => "a quoted file name or title".to_string(),
        "\"*product\"" => "`*`".to_string(),
        _ => format!("`{}`", t.trim_matches('"').replace("\\\\", "\\")),
    }
}

#[cfg(test)]
mod tests {
    use super::ast::{ExprKind, StmtKind};
    use super::*;

    fn parse_str(src: &str) -> diag::Result<ast::File> {
        parse("t.cat", &Arc::from(src))
    }

    #[test]
    fn title_then_statements() {
        let f = parse_str("PTX \"the PTX model\"\nlet a = po acyclic a as hb").unwrap();
        assert_eq!(f.title.unwrap().text, "the PTX model");
        assert_eq!(f.stmts.len(), 2);
    }

    #[test]
    fn let_binding_span_starts_at_its_keyword() {
        let src = "let rec a = po and b = a;a";
        let f = parse_str(src).unwrap();
        let StmtKind::Let {
            rec: true,
            bindings,
        } = &f.stmts[0].kind
        else {
            panic!("not a let rec")
        };
        assert_eq!(bindings[0].span.text(src), "let rec a = po");
        assert_eq!(bindings[1].span.text(src), "and b = a;a");
    }

    #[test]
    fn missing_expression_is_reported_with_what_was_expected() {
        let e = parse_str("let a = \nacyclic a").unwrap_err();
        assert_eq!(e.line_col(), Some((2, 1)));
        assert!(e.message.contains("unexpected `acyclic`"), "{}", e.message);
        assert!(e.notes[0].contains("an expression"), "{:?}", e.notes);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let src = format!("let a = {}po", "~".repeat(5000));
        let e = parse_str(&src).unwrap_err();
        assert!(e.message.contains("nested too deeply"), "{}", e.message);
    }

    /// A flat chain of an associative operator is not nesting: 100,000 terms parse, and the
    /// chain is a balanced tree of them in order.
    #[test]
    fn a_long_flat_union_is_not_nested_too_deeply() {
        for op in ["|", "&", ";"] {
            let terms: Vec<String> = (0..100_000).map(|i| format!("r{i}")).collect();
            let src = format!("let a = {}", terms.join(&format!(" {op} ")));
            let f = parse_str(&src).unwrap_or_else(|e| panic!("{op}: {}", e.message));
            let StmtKind::Let { bindings, .. } = &f.stmts[0].kind else {
                panic!("not a let")
            };
            let body = &bindings[0].body;
            assert!(body.depth <= 18, "{op}: depth {}", body.depth);
            let mut leaves = vec![];
            let mut pending = vec![body];
            while let Some(e) = pending.pop() {
                match &e.kind {
                    ExprKind::Binary(_, a, b) => pending.extend([b.as_ref(), a.as_ref()]),
                    _ => leaves.push(e.span.text(&src)),
                }
            }
            assert_eq!(leaves, terms, "{op}: the terms in order");
        }
    }
}
