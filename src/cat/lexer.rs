//! The cat lexer: source text to tokens with byte spans.
//!
//! Owns: herd's token rules (names may hold `.` and `-` after the first letter, `(* *)` comments
//! nest, `//` and `#` comment to the end of the line) and two context decisions an LR(1) parser
//! cannot make on its own, both taken with one token of lookahead here:
//! - `*` is the binary cartesian product when the next token can start an operand, else the
//!   postfix reflexive-transitive closure (herd's parser shifts `*` and decides the same way);
//! - `coherence` is a keyword only when a name follows it (`coherence total`), so models may keep
//!   using `coherence` as a check name.
//!
//! `++`, `||` and `->` are tokens of herd's `match`. Herd keywords that mapcheck does not support
//! are reported here, with a message naming them.
//! Uses: `ast::Span` only.
use super::ast::Span;

/// A token. Names and strings borrow from the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok<'src> {
    Ident(&'src str),
    Str(&'src str),
    Let,
    Rec,
    And,
    Acyclic,
    Irreflexive,
    Empty,
    Flag,
    As,
    Include,
    Show,
    Unshow,
    With,
    From,
    Coherence,
    Dialect,
    In,
    If,
    Then,
    Else,
    Match,
    Try,
    End,
    Subset,
    UndefinedUnless,
    Zero,
    LParen,
    RParen,
    LBrack,
    RBrack,
    LBrace,
    RBrace,
    /// `||`: separates the clauses of a `match`.
    DoubleBar,
    /// `->`: after a `match` pattern.
    Arrow,
    /// `++`: a `match` pattern's element and rest.
    PlusPlus,
    Comma,
    Equals,
    Bar,
    Amp,
    Backslash,
    Semi,
    /// `*` between two operands: cartesian product.
    StarProduct,
    /// `*` after an operand: reflexive-transitive closure.
    StarClosure,
    Tilde,
    Plus,
    Question,
    Hat,
    MinusOne,
}

/// A lexical or syntactic error, before it is attached to a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub(crate) span: Span,
    pub(crate) message: String,
    pub(crate) notes: Vec<String>,
}

impl SyntaxError {
    pub(crate) fn new(span: Span, message: impl Into<String>) -> SyntaxError {
        SyntaxError {
            span,
            message: message.into(),
            notes: vec![],
        }
    }
    pub(crate) fn with_note(mut self, note: impl Into<String>) -> SyntaxError {
        self.notes.push(note.into());
        self
    }
}

/// What the parser consumes: `(start, token, end)` or the error that stopped the lexer.
pub(crate) type Spanned<'src> = Result<(usize, Tok<'src>, usize), SyntaxError>;

/// A grammar action's error, in the parser's error type.
pub(crate) fn user<'src>(
    error: SyntaxError,
) -> lalrpop_util::ParseError<usize, Tok<'src>, SyntaxError> {
    lalrpop_util::ParseError::User { error }
}

/// Herd keywords for constructs mapcheck rejects on purpose, with what to do instead.
const UNSUPPORTED_KEYWORDS: &[(&str, &str)] = &[
    (
        "fun",
        "anonymous functions are not supported; use `let f(x) = …`",
    ),
    ("when", "conditional `let rec … when` is not supported"),
    ("begin", "`begin … end` is not supported; use parentheses"),
    (
        "procedure",
        "procedures are not supported; inline their checks",
    ),
    ("call", "procedures are not supported; inline their checks"),
    (
        "enum",
        "enumerations are not supported; tags come from the event vocabulary",
    ),
    ("debug", "`debug` is not supported"),
    ("forall", "`forall` is not supported"),
    ("do", "`forall … do` is not supported"),
    ("yield", "`yield` is not supported"),
    ("instructions", "bell files are not supported"),
    ("default", "bell files are not supported"),
    ("compat", "bell files are not supported"),
];

/// Tokenize all of `src`. Lexing stops at the first error, which ends the list.
pub(crate) fn tokenize(src: &str) -> Vec<Spanned<'_>> {
    let mut lexer = Lexer { src, pos: 0 };
    let mut out = Vec::new();
    loop {
        match lexer.next_token() {
            Ok(Some(tok)) => out.push(Ok(tok)),
            Ok(None) => break,
            Err(e) => {
                out.push(Err(e));
                break;
            }
        }
    }
    decide_in_context(&mut out);
    out
}

struct Lexer<'src> {
    src: &'src str,
    pos: usize,
}

impl<'src> Lexer<'src> {
    fn rest(&self) -> &'src str {
        &self.src[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn next_token(&mut self) -> Result<Option<(usize, Tok<'src>, usize)>, SyntaxError> {
        self.skip_trivia()?;
        let start = self.pos;
        let Some(c) = self.peek() else {
            return Ok(None);
        };
        let tok = if c == '"' {
            self.string()?
        } else if is_name_start(self.rest()) {
            self.word()?
        } else if c == '_' {
            self.pos += 1;
            Tok::Ident("_")
        } else {
            self.symbol(c)?
        };
        Ok(Some((start, tok, self.pos)))
    }

    fn skip_trivia(&mut self) -> Result<(), SyntaxError> {
        loop {
            let rest = self.rest();
            if let Some(c) = rest.chars().next().filter(|c| c.is_whitespace()) {
                self.pos += c.len_utf8();
            } else if rest.starts_with("//") || rest.starts_with('#') {
                self.pos += rest.find('\n').unwrap_or(rest.len());
            } else if rest.starts_with("(*") {
                self.block_comment()?;
            } else {
                return Ok(());
            }
        }
    }

    /// A `(* … *)` comment; comments nest, as in herd and OCaml.
    fn block_comment(&mut self) -> Result<(), SyntaxError> {
        let start = self.pos;
        let mut depth = 0usize;
        while self.pos < self.src.len() {
            let rest = self.rest();
            if rest.starts_with("(*") {
                depth += 1;
                self.pos += 2;
            } else if rest.starts_with("*)") {
                depth -= 1;
                self.pos += 2;
                if depth == 0 {
                    return Ok(());
                }
            } else {
                self.pos += rest.chars().next().map_or(1, char::len_utf8);
            }
        }
        Err(
            SyntaxError::new(Span::new(start, start + 2), "unterminated comment")
                .with_note("`(*` comments nest: every `(*` needs its own `*)`"),
        )
    }

    fn string(&mut self) -> Result<Tok<'src>, SyntaxError> {
        let start = self.pos;
        let body = &self.src[start + 1..];
        match body.find('"') {
            Some(len) => {
                self.pos = start + 1 + len + 1;
                Ok(Tok::Str(&body[..len]))
            }
            None => Err(SyntaxError::new(
                Span::new(start, start + 1),
                "unterminated string",
            )),
        }
    }

    /// A name or keyword: `_`? letter (letter | digit | `_` | `.` | `-`)* `'`?  (herd's rule).
    fn word(&mut self) -> Result<Tok<'src>, SyntaxError> {
        let start = self.pos;
        let rest = self.rest();
        let mut len = rest.strip_prefix('_').map_or(0, |_| 1);
        len += rest[len..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
            .unwrap_or(rest.len() - len);
        if rest[len..].starts_with('\'') {
            len += 1;
        }
        self.pos += len;
        let word = &rest[..len];
        keyword(word).map_or_else(
            || unsupported(word, Span::new(start, self.pos)).map(|_| Tok::Ident(word)),
            Ok,
        )
    }

    fn symbol(&mut self, c: char) -> Result<Tok<'src>, SyntaxError> {
        let start = self.pos;
        let rest = self.rest();
        let two = |s: &str| rest.starts_with(s);
        if two("-1") {
            self.pos += 2;
            return Ok(Tok::MinusOne);
        }
        let pair = [
            ("++", Tok::PlusPlus),
            ("||", Tok::DoubleBar),
            ("->", Tok::Arrow),
        ]
        .into_iter()
        .find(|(s, _)| two(s));
        if let Some((_, tok)) = pair {
            self.pos += 2;
            return Ok(tok);
        }
        self.pos += c.len_utf8();
        let tok = match c {
            '0' => Tok::Zero,
            '(' => Tok::LParen,
            ')' => Tok::RParen,
            '[' => Tok::LBrack,
            ']' => Tok::RBrack,
            '{' => Tok::LBrace,
            '}' => Tok::RBrace,
            ',' => Tok::Comma,
            '=' => Tok::Equals,
            '|' => Tok::Bar,
            '&' => Tok::Amp,
            '\\' => Tok::Backslash,
            ';' => Tok::Semi,
            '*' => Tok::StarClosure,
            '~' => Tok::Tilde,
            '+' => Tok::Plus,
            '?' => Tok::Question,
            '^' => Tok::Hat,
            _ => return Err(unexpected_char(c, Span::new(start, self.pos))),
        };
        Ok(tok)
    }
}

fn unexpected_char(c: char, span: Span) -> SyntaxError {
    let e = SyntaxError::new(span, format!("unexpected character `{c}`"));
    match c {
        '\'' => e.with_note(
            "herd's tags `'name` are not supported; tags are sets named in the vocabulary",
        ),
        _ => e,
    }
}

fn is_name_start(rest: &str) -> bool {
    let mut chars = rest.chars();
    match chars.next() {
        Some('_') => chars.next().is_some_and(|c| c.is_ascii_alphabetic()),
        Some(c) => c.is_ascii_alphabetic(),
        None => false,
    }
}

fn keyword(word: &str) -> Option<Tok<'static>> {
    Some(match word {
        "let" => Tok::Let,
        "rec" => Tok::Rec,
        "and" => Tok::And,
        "acyclic" => Tok::Acyclic,
        "irreflexive" => Tok::Irreflexive,
        "empty" => Tok::Empty,
        "flag" => Tok::Flag,
        "as" => Tok::As,
        "include" => Tok::Include,
        "show" => Tok::Show,
        "unshow" => Tok::Unshow,
        "with" => Tok::With,
        "from" => Tok::From,
        "in" => Tok::In,
        "if" => Tok::If,
        "then" => Tok::Then,
        "else" => Tok::Else,
        "match" => Tok::Match,
        "try" => Tok::Try,
        "end" => Tok::End,
        "subset" => Tok::Subset,
        "undefined_unless" => Tok::UndefinedUnless,
        _ => return None,
    })
}

fn unsupported(word: &str, span: Span) -> Result<(), SyntaxError> {
    match UNSUPPORTED_KEYWORDS.iter().find(|(k, _)| *k == word) {
        Some((_, why)) => Err(SyntaxError::new(
            span,
            format!("`{word}` is herd syntax that mapcheck does not support"),
        )
        .with_note(*why)),
        None => Ok(()),
    }
}

/// Can this token start an operand (so that a `*` before it is a product)?
fn starts_operand(tok: &Tok) -> bool {
    matches!(
        tok,
        Tok::Ident(_) | Tok::Zero | Tok::LParen | Tok::LBrack | Tok::LBrace | Tok::Tilde
    )
}

/// The decisions that need the next token: product vs closure `*`, keywords `coherence` and
/// `dialect` (keywords only before a name, so herd models may still use them as names).
fn decide_in_context(toks: &mut [Spanned<'_>]) {
    for i in 0..toks.len() {
        let next_is =
            |p: &dyn Fn(&Tok) -> bool| matches!(toks.get(i + 1), Some(Ok((_, t, _))) if p(t));
        let star_product = next_is(&starts_operand);
        let keyword = next_is(&|t| matches!(t, Tok::Ident(_)));
        if let Ok((_, tok, _)) = &mut toks[i] {
            match tok {
                Tok::StarClosure if star_product => *tok = Tok::StarProduct,
                Tok::Ident("coherence") if keyword => *tok = Tok::Coherence,
                Tok::Ident("dialect") if keyword => *tok = Tok::Dialect,
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok<'_>> {
        tokenize(src)
            .into_iter()
            .map(|t| t.expect("lexes").1)
            .collect()
    }

    #[test]
    fn names_hold_dots_dashes_and_a_final_quote() {
        assert_eq!(
            toks("po-loc a.b x' _y _"),
            vec![
                Tok::Ident("po-loc"),
                Tok::Ident("a.b"),
                Tok::Ident("x'"),
                Tok::Ident("_y"),
                Tok::Ident("_")
            ]
        );
    }

    #[test]
    fn inverse_is_hat_then_minus_one() {
        assert_eq!(
            toks("rf^-1"),
            vec![Tok::Ident("rf"), Tok::Hat, Tok::MinusOne]
        );
    }

    #[test]
    fn star_is_a_product_only_before_an_operand() {
        assert_eq!(
            toks("W * R"),
            vec![Tok::Ident("W"), Tok::StarProduct, Tok::Ident("R")]
        );
        assert_eq!(
            toks("po* ; rf"),
            vec![
                Tok::Ident("po"),
                Tok::StarClosure,
                Tok::Semi,
                Tok::Ident("rf")
            ]
        );
        assert_eq!(
            toks("po* let"),
            vec![Tok::Ident("po"), Tok::StarClosure, Tok::Let]
        );
    }

    #[test]
    fn comments_nest_and_line_comments_end_at_newline() {
        assert_eq!(
            toks("(* a (* b *) c *) x // y\n# z\nw"),
            vec![Tok::Ident("x"), Tok::Ident("w")]
        );
    }

    #[test]
    fn unterminated_comment_points_at_its_start() {
        let last = tokenize("x (* (* *)").pop().unwrap();
        assert_eq!(last.unwrap_err().span, Span::new(2, 4));
    }

    #[test]
    fn coherence_is_a_keyword_only_before_a_name() {
        assert_eq!(
            toks("coherence partial"),
            vec![Tok::Coherence, Tok::Ident("partial")]
        );
        assert_eq!(
            toks("as coherence let"),
            vec![Tok::As, Tok::Ident("coherence"), Tok::Let]
        );
        assert_eq!(
            toks("dialect dat3m let dialect = 0"),
            vec![
                Tok::Dialect,
                Tok::Ident("dat3m"),
                Tok::Let,
                Tok::Ident("dialect"),
                Tok::Equals,
                Tok::Zero
            ]
        );
    }

    #[test]
    fn unsupported_herd_keywords_are_named() {
        let last = tokenize("procedure p").pop().unwrap();
        assert!(last.unwrap_err().message.contains("`procedure`"));
    }
}
