//! The text of a litmus file and its coarse layout: the title line, comments, the initial-state
//! block, the body and the final condition; and the translation of parser errors into
//! `diag::Error`s that point at file:line:column and say what was expected.
//!
//! Owns: `Source` (original text plus a copy with comments blanked, byte for byte the same length,
//! so that every span is valid in both), `Layout`, and `parse_error`. Uses `diag` for errors and
//! `ast` for spans; knows nothing of instructions.
use std::sync::Arc;

use lalrpop_util::ParseError;

use crate::diag::{Error, Internal, Result};
use crate::litmus::ast::{GrammarError, Span};

/// A litmus file being parsed.
pub(crate) struct Source {
    pub(crate) path: String,
    /// The text as read, for error rendering.
    pub(crate) text: Arc<str>,
    /// The text with every comment replaced by spaces (newlines kept); parsers read this.
    pub(crate) masked: String,
}

impl Source {
    /// An error at `span`.
    pub(crate) fn error(&self, span: Span, message: impl Into<String>) -> Error {
        Error::at(&self.path, &self.text, span.range(), message)
    }
    /// The masked text of `span`.
    pub(crate) fn slice(&self, span: Span) -> &str {
        &self.masked[span.range()]
    }
    /// `span` without leading and trailing whitespace (an empty span at its start if all blank).
    pub(crate) fn trim(&self, span: Span) -> Span {
        let s = self.slice(span);
        let lo = span.lo + (s.len() - s.trim_start().len());
        let hi = span.hi - (s.len() - s.trim_end().len());
        if lo >= hi {
            Span::new(span.lo, span.lo)
        } else {
            Span::new(lo, hi)
        }
    }
}

/// The architecture word of the title line, the test name, and where the rest begins.
pub(crate) struct Title {
    pub(crate) arch: String,
    pub(crate) arch_span: Span,
    pub(crate) name: String,
    pub(crate) body_start: usize,
}

/// Read the title line `ARCH name`.
pub(crate) fn title(path: &str, text: &Arc<str>) -> Result<Title> {
    let start = text.len()
        - text
            .trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n'])
            .len();
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let line = &text[start..line_end];
    let arch_len = line.find(char::is_whitespace).unwrap_or(line.len());
    let arch_span = Span::new(start, start + arch_len);
    let name = line[arch_len..].trim().to_string();
    if arch_len == 0 {
        return Err(Error::at(
            path,
            text,
            arch_span.range(),
            "empty file: expected a title line such as `PTX name`",
        ));
    }
    if name.is_empty() {
        let msg = format!(
            "expected a test name after `{}` on the title line",
            &line[..arch_len]
        );
        return Err(Error::at(path, text, arch_span.range(), msg));
    }
    Ok(Title {
        arch: line[..arch_len].to_string(),
        arch_span,
        name,
        body_start: line_end,
    })
}

/// Build a `Source`, blanking comments from `from` on: `(* … *)` (nested) outside braces,
/// `// …` and `/* … */` anywhere. Double-quoted strings outside braces are kept and skipped.
/// Inside braces `(*` is C (`if (*b)`), not a comment.
pub(crate) fn mask(path: &str, text: &Arc<str>, from: usize) -> Result<Source> {
    let bytes = text.as_bytes();
    let mut masked = bytes.to_vec();
    let mut depth = 0usize;
    let mut i = from;
    while i < bytes.len() {
        let next = bytes.get(i + 1).copied();
        let end = match (bytes[i], next) {
            (b'"', _) if depth == 0 => skip_string(path, text, i)?,
            (b'(', Some(b'*')) if depth == 0 => {
                blank(&mut masked, i, ocaml_comment_end(path, text, i)?)
            }
            (b'/', Some(b'/')) => blank(
                &mut masked,
                i,
                text[i..].find('\n').map_or(bytes.len(), |n| i + n),
            ),
            (b'/', Some(b'*')) => blank(&mut masked, i, c_comment_end(path, text, i)?),
            (c, _) => {
                match c {
                    b'{' => depth += 1,
                    b'}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                i + 1
            }
        };
        i = end;
    }
    // Only ASCII bytes of whole comments were replaced by ASCII spaces, so this cannot fail.
    let masked = String::from_utf8(masked)
        .map_err(|_| Error::internal(path, Internal("comment masking broke UTF-8".into())))?;
    Ok(Source {
        path: path.to_string(),
        text: text.clone(),
        masked,
    })
}

/// Replace `lo..hi` by spaces, keeping line breaks; returns `hi`.
fn blank(masked: &mut [u8], lo: usize, hi: usize) -> usize {
    for b in &mut masked[lo..hi] {
        if *b != b'\n' && *b != b'\r' {
            *b = b' ';
        }
    }
    hi
}

/// Skip the string opened at `lo`. It closes at the first `"` that ends its line: a quote with
/// more text after it on the line is part of the text (a description such as
/// `"… and is "enforced" by the"`, as the Khronos Vulkan tests write them); without such a
/// quote, at the first one.
fn skip_string(path: &str, text: &Arc<str>, lo: usize) -> Result<usize> {
    let rest = &text[lo + 1..];
    let ends_line = |n: &usize| {
        rest[n + 1..]
            .split('\n')
            .next()
            .is_none_or(|t| t.trim().is_empty())
    };
    let mut quotes = rest.match_indices('"').map(|(n, _)| n);
    let close = quotes.clone().find(ends_line).or_else(|| quotes.next());
    match close {
        Some(n) => Ok(lo + 1 + n + 1),
        None => Err(Error::at(
            path,
            text,
            lo..lo + 1,
            "unterminated string: expected a closing `\"`",
        )),
    }
}

fn ocaml_comment_end(path: &str, text: &Arc<str>, lo: usize) -> Result<usize> {
    let bytes = text.as_bytes();
    let (mut depth, mut i) = (0usize, lo);
    while i + 1 < bytes.len() {
        match (bytes[i], bytes[i + 1]) {
            (b'(', b'*') => {
                depth += 1;
                i += 2;
            }
            (b'*', b')') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return Ok(i);
                }
            }
            _ => i += 1,
        }
    }
    Err(Error::at(
        path,
        text,
        lo..lo + 2,
        "unterminated comment: expected `*)`",
    ))
}

fn c_comment_end(path: &str, text: &Arc<str>, lo: usize) -> Result<usize> {
    match text[lo + 2..].find("*/") {
        Some(n) => Ok(lo + 2 + n + 2),
        None => Err(Error::at(
            path,
            text,
            lo..lo + 2,
            "unterminated comment: expected `*/`",
        )),
    }
}

/// The regions of a litmus file after its title.
pub(crate) struct Layout {
    /// The initial-state block, braces included.
    pub(crate) init: Span,
    /// Between the initial state and the final condition: the PTX table or the C threads.
    pub(crate) body: Span,
    /// From the quantifier (or herd's `locations`) to the end of the file.
    pub(crate) condition: Span,
}

/// Find the initial-state block (after blanks and quoted descriptions) and the final condition
/// (the first `exists`, `forall` or `locations` word outside braces after it).
pub(crate) fn layout(src: &Source, from: usize) -> Result<Layout> {
    let init = init_block(src, from)?;
    let condition_start = condition_start(src, init.hi)?;
    Ok(Layout {
        init,
        body: Span::new(init.hi, condition_start),
        condition: Span::new(condition_start, src.masked.len()),
    })
}

/// The `Key=value` lines herd and the diy generators write between the title and the initial
/// state (herd's splitter keeps them as the test's "info"; `Hash`, `Variant`, `Stable`, `Align`,
/// `TTHM`, `MemoryType`/`MT`, `user`, `el0` are herd's own keys, the others diy's). Compared
/// without case, as herd does. None changes what a test means to mapcheck.
pub(super) const INFO_KEYS: &[&str] = &[
    "Generator",
    "Prefetch",
    "Com",
    "Orig",
    "Cycle",
    "Relax",
    "Safe",
    "Variant",
    "Hash",
    "Scopes",
    "Stable",
    "Align",
    "TTHM",
    "MemoryType",
    "MT",
    "user",
    "el0",
];

fn init_block(src: &Source, from: usize) -> Result<Span> {
    let bytes = src.masked.as_bytes();
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = skip_string(&src.path, &src.text, i)?,
            b'{' => return Ok(Span::new(i, matching_brace(src, i)?)),
            c if c.is_ascii_whitespace() => i += 1,
            _ => match info_key(src, i) {
                Some(key) => i = info_line(src, key)?,
                None => {
                    let end = next_char_end(&src.masked, i);
                    return Err(src.error(
                        Span::new(i, end),
                        "expected `{` opening the initial state (`{ x=0; }`)",
                    ));
                }
            },
        }
    }
    let end = src.masked.len();
    Err(src.error(
        Span::new(end, end),
        "unexpected end of file: expected the initial state `{ … }`",
    ))
}

/// The key of a `Key=value` line starting at `lo` (herd's key syntax: a letter, then letters,
/// digits, `_`, `/`, `.` or `-`), if the line has that shape.
fn info_key(src: &Source, lo: usize) -> Option<Span> {
    let rest = &src.masked[lo..];
    if !rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || "_/.-".contains(c)))
        .unwrap_or(rest.len());
    let after = rest[len..].trim_start_matches([' ', '\t']);
    after.starts_with('=').then(|| Span::new(lo, lo + len))
}

/// Skip the `Key=value` line whose key is `key` if the key is a known one; returns the end of
/// the line.
fn info_line(src: &Source, key: Span) -> Result<usize> {
    let word = src.slice(key);
    if !INFO_KEYS.iter().any(|k| k.eq_ignore_ascii_case(word)) {
        let msg = format!(
            "unknown header line `{word}=…`; the lines between the title and the initial state \
             may be `Key=value` with a key herd or diy writes: {}",
            INFO_KEYS.join(", ")
        );
        return Err(src.error(key, msg));
    }
    let rest = &src.masked[key.hi..];
    Ok(rest.find('\n').map_or(src.masked.len(), |n| key.hi + n))
}

/// The end (exclusive) of the `{ … }` block opening at `lo`.
pub(super) fn matching_brace(src: &Source, lo: usize) -> Result<usize> {
    let mut depth = 0usize;
    for (i, b) in src.masked.bytes().enumerate().skip(lo) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Ok(i + 1);
                }
            }
            _ => {}
        }
    }
    Err(src.error(
        Span::new(lo, lo + 1),
        "unclosed `{`: expected a matching `}`",
    ))
}

fn condition_start(src: &Source, from: usize) -> Result<usize> {
    let bytes = src.masked.as_bytes();
    let (mut depth, mut i) = (0usize, from);
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_alphabetic() || c == b'_' {
            let end = i + src.masked[i..]
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                .unwrap_or(bytes.len() - i);
            let word = &src.masked[i..end];
            if depth == 0 && matches!(word, "exists" | "forall" | "locations" | "filter") {
                return Ok(tilde_before(src, from, i));
            }
            i = end;
            continue;
        }
        match c {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    // No final condition: herd reads the test as `forall (true)` (its `constr_true`).
    Ok(src.masked.len())
}

/// Include a `~` written before `exists` (possibly with blanks in between).
fn tilde_before(src: &Source, from: usize, word: usize) -> usize {
    let before = src.masked[from..word].trim_end();
    if before.ends_with('~') {
        from + before.len() - 1
    } else {
        word
    }
}

/// End of the character starting at byte `i`.
pub(crate) fn next_char_end(s: &str, i: usize) -> usize {
    s[i..].chars().next().map_or(i, |c| i + c.len_utf8())
}

/// How parser tokens are described in "expected …" lists, by terminal name.
pub(crate) type TokenNames = &'static [(&'static str, &'static str)];

/// Turn a parser error on the slice starting at `base` into a located, readable error.
/// `what` names the thing being parsed ("instruction", "final condition", …).
pub(crate) fn parse_error(
    src: &Source,
    base: usize,
    what: &str,
    names: TokenNames,
    err: GrammarError<'_>,
) -> Error {
    match err {
        ParseError::InvalidToken { location } => {
            let at = base + location;
            let end = next_char_end(&src.masked, at);
            src.error(
                Span::new(at, end),
                format!("unexpected character `{}` in {what}", &src.masked[at..end]),
            )
        }
        ParseError::UnrecognizedEof { location, expected } => {
            let at = base + location;
            let msg = format!(
                "unexpected end of {what}{}",
                expected_list(&expected, names)
            );
            src.error(Span::new(at, at), msg)
        }
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => {
            let wanted = match expected.is_empty() {
                true => format!("; expected the end of the {what}"),
                false => expected_list(&expected, names),
            };
            let msg = format!("unexpected `{}` in {what}{wanted}", tok.1);
            src.error(Span::new(base + l, base + r), msg)
        }
        ParseError::ExtraToken { token: (l, tok, r) } => src.error(
            Span::new(base + l, base + r),
            format!("unexpected `{}` after the end of the {what}", tok.1),
        ),
        ParseError::User { error } => src.error(error.span, error.message),
    }
}

/// `; expected `a`, `b` or an integer` (empty when nothing is known).
fn expected_list(expected: &[String], names: TokenNames) -> String {
    let mut items: Vec<String> = Vec::new();
    for e in expected {
        let item = describe_terminal(e, names);
        if !items.contains(&item) {
            items.push(item);
        }
    }
    const SHOWN: usize = 10;
    let more = items.len() > SHOWN;
    items.truncate(SHOWN);
    match items.len() {
        0 => String::new(),
        1 => format!("; expected {}", items[0]),
        n => {
            let head = items[..n - 1].join(", ");
            let tail = if more {
                format!("{}, …", items[n - 1])
            } else {
                items[n - 1].clone()
            };
            format!("; expected {head} or {tail}")
        }
    }
}

/// Binary operators, listed together as "an operator" rather than one by one.
const OPERATORS: &[&str] = &[
    "+", "-", "*", "&", "|", "^", "&&", "||", "==", "!=", "<", "<=", ">", ">=",
];

fn describe_terminal(terminal: &str, names: TokenNames) -> String {
    if let Some((_, desc)) = names.iter().find(|(n, _)| *n == terminal) {
        return desc.to_string();
    }
    if OPERATORS.iter().any(|op| terminal == format!("\"{op}\"")) {
        return "an operator".to_string();
    }
    // Literal terminals are rendered by lalrpop as Rust string literals: "\"ld\"".
    match terminal.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        Some(lit) => format!("`{}`", lit.replace("\\\\", "\\").replace("\\\"", "\"")),
        None => terminal.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &str) -> Source {
        let text: Arc<str> = Arc::from(text);
        mask("t.litmus", &text, 0).unwrap()
    }

    #[test]
    fn comments_are_blanked_but_c_derefs_are_not() {
        let s = source("(* a (* nested *) b *) x\n{ if (*b) } // c\n/* d */");
        assert_eq!(s.masked.len(), s.text.len());
        let expected = format!(
            "{} x\n{{ if (*b) }} {}\n{}",
            " ".repeat(22),
            " ".repeat(4),
            " ".repeat(7)
        );
        assert_eq!(s.masked, expected);
    }

    #[test]
    fn layout_finds_init_and_condition() {
        let s = source("\"desc\" { x=0; }\n P0 ;\n ld r0, x ;\n~exists (x=1)");
        let l = layout(&s, 0).unwrap();
        assert_eq!(s.slice(l.init), "{ x=0; }");
        assert_eq!(s.slice(l.condition), "~exists (x=1)");
        assert!(s.slice(l.body).contains("ld r0, x"));
    }

    #[test]
    fn unterminated_comment_is_an_error() {
        let text: Arc<str> = Arc::from("(* never closed");
        let e = mask("t.litmus", &text, 0).err().unwrap();
        assert_eq!(
            e.to_string(),
            "t.litmus:1:1: unterminated comment: expected `*)`"
        );
    }

    #[test]
    fn title_needs_a_name() {
        let text: Arc<str> = Arc::from("PTX\n{}");
        assert!(title("t", &text).is_err());
        let t = title("t", &Arc::from("\nPTX  SB+x \n{}")).unwrap();
        assert_eq!((t.arch.as_str(), t.name.as_str()), ("PTX", "SB+x"));
    }
}
