//! Errors as data, rendered in one place.
//!
//! Owns: `Span`, `Lines` (the line and column of an offset), `Error` (what went wrong, in which
//! file, at which byte range) and its rendering as a diagnostic with file, line, column and the
//! offending text (codespan-reporting), and `Internal`, a bug in mapcheck, with
//! `catching_panics`, which turns a panic into one. Every front end (cat,
//! litmus, mapping) reports through `Error`; `main` renders it and exits with its fault's
//! `exit_status`: 2 for bad input, 70 for an internal error.
use std::ops::Range;
use std::sync::Arc;

use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor::NoColor};

/// A byte range in one source file; every front end's syntax tree carries these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub(crate) struct Span {
    pub(crate) lo: usize,
    pub(crate) hi: usize,
}

impl Span {
    pub(crate) fn new(lo: usize, hi: usize) -> Span {
        Span { lo, hi }
    }
    pub(crate) fn range(self) -> Range<usize> {
        self.lo..self.hi
    }
    /// The text this span covers (empty if it does not fit `src`).
    pub(crate) fn text(self, src: &str) -> &str {
        src.get(self.range()).unwrap_or("")
    }
}

/// Whose an `Error` is to mend, which sets `mapcheck`'s exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Bad input, or a file that cannot be read or written: the user's to mend (status 2).
    Input,
    /// A bug in mapcheck (`Internal`): never the user's (status 70, sysexits' `EX_SOFTWARE`).
    Internal,
}

impl Fault {
    /// `mapcheck`'s exit status for an error of this fault.
    pub fn exit_status(self) -> u8 {
        match self {
            Fault::Input => 2,
            Fault::Internal => 70,
        }
    }
}

/// `command()`, a panic in it (a "cannot happen" that did, on any thread) turned into an
/// internal error: the panic's message and place are its diagnostic, not Rust's report. It sets
/// the process's panic hook and leaves it set: the process is about to end.
pub fn catching_panics<T>(command: impl FnOnce() -> T) -> std::result::Result<T, Error> {
    let panicked = Arc::new(std::sync::Mutex::new(None));
    let first = panicked.clone();
    std::panic::set_hook(Box::new(move |info| {
        let what = info.payload_as_str().unwrap_or("a panic");
        let at = info
            .location()
            .map(|l| format!(" ({l})"))
            .unwrap_or_default();
        let mut first = first.lock().unwrap_or_else(|e| e.into_inner());
        first.get_or_insert_with(|| format!("{what}{at}"));
    }));
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(command)).map_err(|_| {
        let what = panicked.lock().unwrap_or_else(|e| e.into_inner()).take();
        Error::internal(
            "mapcheck",
            Internal(what.unwrap_or_else(|| "a panic".into())),
        )
    })
}

/// A bug in mapcheck: two of its parts disagree (the encoder and the runner, the solver and the
/// evaluator, a written file and its reading back), or what cannot happen did. Stages whose
/// failures are never the user's return it; `Error::internal` carries it to `main`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Internal(pub String);

/// Where each line of a text starts, for the line and column of many offsets into it, each
/// found by a binary search rather than by counting from the start of the text.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    pub(crate) fn new(text: &str) -> Lines {
        let after_newlines = text.match_indices('\n').map(|(i, _)| i + 1);
        Lines {
            starts: std::iter::once(0).chain(after_newlines).collect(),
        }
    }

    /// 1-based line and column (in characters) of byte `offset` of `text`, the text indexed.
    pub(crate) fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self.starts[line - 1];
        (line, text[start..offset].chars().count() + 1)
    }
}

/// A user-facing error: bad input (`Fault::Input`) or a bug in mapcheck (`Fault::Internal`).
#[derive(Clone, Debug)]
pub struct Error {
    /// File the error is in (as given by the user).
    pub path: String,
    /// The file's text, when the error points into it.
    pub(crate) source: Option<Arc<str>>,
    /// Byte range of the offending text.
    pub(crate) span: Option<Range<usize>>,
    /// What is wrong (the diagnostic's headline).
    pub message: String,
    /// Further lines printed under the message (hints, context); empty when there are none.
    pub notes: Vec<String>,
    /// Whether the rendering may echo the whole source line around the span (`span_only_if`).
    echo_line: bool,
    /// Bad input or a bug in mapcheck.
    fault: Fault,
}

pub(crate) type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error about a whole file (unreadable, unsupported, …).
    pub(crate) fn file(path: impl Into<String>, message: impl Into<String>) -> Error {
        Error {
            path: path.into(),
            source: None,
            span: None,
            message: message.into(),
            notes: vec![],
            echo_line: true,
            fault: Fault::Input,
        }
    }
    /// A bug in mapcheck met while working on `path` (the input it was working on).
    pub fn internal(path: impl Into<String>, bug: Internal) -> Error {
        Error {
            fault: Fault::Internal,
            ..Error::file(path, format!("internal error: {}", bug.0))
        }
        .with_note("this is a bug in mapcheck, not in the input: please report it with the command and its input files")
    }
    /// This error met where only a bug in mapcheck can cause it (a program mapcheck made, or
    /// one it has already accepted, that it cannot print): an internal error saying `what`,
    /// then the error's own message, with its notes. An internal error stays one.
    pub(crate) fn into_internal(self, what: &str) -> Error {
        let own = self
            .message
            .strip_prefix("internal error: ")
            .unwrap_or(&self.message);
        let mut bug = Error::internal(self.path.clone(), Internal(format!("{what}: {own}")));
        let notes = self.notes.into_iter().filter(|n| !bug.notes.contains(n));
        bug.notes = notes.chain(bug.notes.clone()).collect();
        bug
    }
    /// An error at `span` of `source`.
    pub(crate) fn at(
        path: &str,
        source: &Arc<str>,
        span: Range<usize>,
        message: impl Into<String>,
    ) -> Error {
        let end = span.end.min(source.len());
        let start = span.start.min(end);
        Error {
            path: path.to_string(),
            source: Some(source.clone()),
            span: Some(start..end),
            message: message.into(),
            notes: vec![],
            echo_line: true,
            fault: Fault::Input,
        }
    }
    /// Bad input or a bug in mapcheck.
    pub fn fault(&self) -> Fault {
        self.fault
    }
    pub(crate) fn with_note(mut self, note: impl Into<String>) -> Error {
        self.notes.push(note.into());
        self
    }
    /// The same error, rendered with no more of its file than the span it points at when
    /// `outside` (a file outside the places the user named, whose other text is not the
    /// user's to see).
    pub(crate) fn span_only_if(mut self, outside: bool) -> Error {
        self.echo_line &= !outside;
        self
    }
    /// 1-based line and column of the start of the span.
    pub fn line_col(&self) -> Option<(usize, usize)> {
        let (src, span) = (self.source.as_ref()?, self.span.as_ref()?);
        Some(Lines::new(src).line_col(src, span.start))
    }
    /// The diagnostic as JSON, for `--json` runs: `{"error": {path, line, column, message, notes}}`.
    pub fn json(&self) -> serde_json::Value {
        let (line, column) = self.line_col().unzip();
        serde_json::json!({ "error": {
            "path": self.path,
            "line": line,
            "column": column,
            "message": self.message,
            "notes": self.notes,
        }})
    }
    /// The diagnostic as plain text: `error: …` with `path:line:col` and the source line.
    pub fn render(&self) -> String {
        let mut out = NoColor::new(Vec::new());
        let config = term::Config::default();
        match (&self.source, &self.span) {
            (Some(src), Some(span)) if self.echo_line && !long_line(src, span) => {
                let file = SimpleFile::new(self.path.clone(), src.clone());
                let d = Diagnostic::error()
                    .with_message(&self.message)
                    .with_labels(vec![Label::primary((), span.clone())])
                    .with_notes(self.notes.clone());
                // Rendering into memory cannot fail for a span clamped to the source.
                let _ = term::emit(&mut out, &config, &file, &d);
                String::from_utf8_lossy(&out.into_inner()).into_owned()
            }
            _ => {
                let mut s = format!("error: {self}\n");
                if let (Some(src), Some(span)) = (&self.source, &self.span) {
                    s.push_str(&format!("  = at `{}`\n", clipped(&src[span.clone()])));
                }
                for n in &self.notes {
                    s.push_str(&format!("  = {n}\n"));
                }
                s
            }
        }
    }
}

/// Whether the line `span` starts on is too long to echo whole (`MAX_LINE` bytes): the
/// diagnostic then shows the span's text, cut, instead of the line.
fn long_line(src: &str, span: &Range<usize>) -> bool {
    const MAX_LINE: usize = 240;
    let start = src[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let end = src[span.start..]
        .find('\n')
        .map_or(src.len(), |i| span.start + i);
    end - start > MAX_LINE
}

/// At most `MAX_ECHO` characters of `text`, an ellipsis marking any cut.
fn clipped(text: &str) -> String {
    const MAX_ECHO: usize = 80;
    match text.char_indices().nth(MAX_ECHO) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line_col() {
            Some((l, c)) => write!(f, "{}:{}:{}: {}", self.path, l, c, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

impl std::error::Error for Error {}

/// Read a file, turning an I/O failure into an `Error`.
/// At most `MAX_INPUT_BYTES` are read: a larger file (or an endless one, `/dev/zero`) is refused
/// after one byte more, never read whole.
pub(crate) fn read_source(path: &std::path::Path) -> Result<Arc<str>> {
    use std::io::Read as _;
    let shown = path.display().to_string();
    let cannot = |e: std::io::Error| Error::file(&shown, format!("cannot read file: {e}"));
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut bytes = vec![];
    file.take(MAX_INPUT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(Error::file(
            &shown,
            format!("the file has more than the {MAX_INPUT_BYTES} bytes a file may have"),
        ));
    }
    source_text(&shown, bytes)
}

/// The most bytes a model, litmus test or mapping file may have (the largest shipped one has
/// 10 KB): the parsers' memory grows with their input (some 220 bytes per byte for deep
/// nesting, measured in issue 41).
pub(crate) const MAX_INPUT_BYTES: usize = 1 << 20;

/// The deepest nesting of brackets (`(`, `[`, `{`) a file may have, checked before a parser
/// pushes them (real files stay below 20).
pub(crate) const MAX_BRACKETS: usize = 1_000;

/// Refuse, before parsing, a file `text` larger than `MAX_INPUT_BYTES` or whose brackets nest
/// deeper than `MAX_BRACKETS`, at the position the limit is passed. `brackets` is the text the
/// brackets are counted in (`text`, or `text` with its comments blanked, position for
/// position).
pub(crate) fn check_input_limits(path: &str, text: &Arc<str>, brackets: &str) -> Result<()> {
    if text.len() > MAX_INPUT_BYTES {
        let mut at = MAX_INPUT_BYTES;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        return Err(Error::at(
            path,
            text,
            at..at,
            format!(
                "the file has {} bytes, more than the {MAX_INPUT_BYTES} a file may have",
                text.len()
            ),
        ));
    }
    let mut depth = 0usize;
    for (at, byte) in brackets.bytes().enumerate() {
        match byte {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => continue,
        }
        if depth > MAX_BRACKETS {
            return Err(Error::at(
                path,
                text,
                at..at + 1,
                format!("brackets nested more than {MAX_BRACKETS} deep"),
            ));
        }
    }
    Ok(())
}

/// `bytes`, the contents of file `path`, as text; bytes that are not UTF-8 an error at the first
/// bad one (the text before it is valid, so its lines and columns are the file's).
pub(crate) fn source_text(path: &str, bytes: Vec<u8>) -> Result<Arc<str>> {
    let e = match String::from_utf8(bytes) {
        Ok(text) => return Ok(Arc::from(text)),
        Err(e) => e,
    };
    let (bytes, at) = (e.as_bytes(), e.utf8_error().valid_up_to());
    let shown: Arc<str> = Arc::from(String::from_utf8_lossy(bytes).as_ref());
    Err(Error::at(
        path,
        &shown,
        at..at + 1,
        format!("not valid UTF-8: byte 0x{:02x} at offset {at}", bytes[at]),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failed print where only mapcheck is to blame (issue 61) becomes an internal error,
    /// exit 70, keeping what the printer said; an internal error is not wrapped twice.
    #[test]
    fn an_error_where_only_a_bug_can_cause_it_becomes_internal() {
        let e = Error::file("t", "cannot be written in C").with_note("hint");
        let bug = e.into_internal("a counterexample cannot be printed");
        assert_eq!(bug.fault(), Fault::Internal);
        assert_eq!(bug.fault().exit_status(), 70);
        assert_eq!(
            bug.message,
            "internal error: a counterexample cannot be printed: cannot be written in C"
        );
        assert_eq!(bug.notes.first().map(String::as_str), Some("hint"));
        let again = bug.clone().into_internal("outer");
        assert_eq!(
            again.message,
            "internal error: outer: a counterexample cannot be printed: cannot be written in C"
        );
        assert_eq!(again.notes, bug.notes);
    }

    #[test]
    fn a_file_too_large_or_nested_too_deeply_is_refused_before_parsing() {
        let deep: Arc<str> = Arc::from(format!("let a = {}po", "(".repeat(3_000_000)));
        let e = check_input_limits("deep.cat", &deep, &deep).unwrap_err();
        assert!(e.message.contains("more than the"), "{}", e.message);
        let deep: Arc<str> = Arc::from(format!("let a =\n {}po", "(*(".repeat(600)));
        let e = check_input_limits("deep.cat", &deep, &deep).unwrap_err();
        assert!(e.message.contains("nested more than 1000"), "{}", e.message);
        // At the 1001st bracket: the first of the 501st `(*(`, after a space on line 2.
        assert_eq!(e.line_col(), Some((2, 2 + 3 * 500)));
        let flat: Arc<str> = Arc::from("(po) ".repeat(10_000));
        assert!(check_input_limits("flat.cat", &flat, &flat).is_ok());
    }

    /// Issue 60: a file over the limit is read only one byte past it (`/dev/zero` ends at
    /// once), and a diagnostic on a very long line shows the span, cut, not the line.
    #[test]
    fn inputs_are_read_to_the_limit_and_long_lines_are_not_echoed() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.cat");
        std::fs::write(&big, vec![b' '; MAX_INPUT_BYTES + 1]).unwrap();
        let e = read_source(&big).unwrap_err();
        assert!(e.message.contains("more than the"), "{}", e.message);
        #[cfg(unix)]
        {
            let e = read_source(std::path::Path::new("/dev/zero")).unwrap_err();
            assert!(e.message.contains("more than the"), "{}", e.message);
        }
        let line: Arc<str> = Arc::from(format!("let a = {}x", "po | ".repeat(100_000)));
        let at = line.len() - 1;
        let shown = Error::at("long.cat", &line, at..at + 1, "unknown name `x`").render();
        assert!(shown.len() < 1_000, "{} bytes", shown.len());
        assert!(
            shown.contains("long.cat:1:") && shown.contains("`x`"),
            "{shown}"
        );
    }

    #[test]
    fn a_file_that_is_not_utf8_is_refused_at_its_first_bad_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.litmus");
        std::fs::write(&path, b"PTX t\n{ x=0; }\n ab\xffcd\n").unwrap();
        let e = read_source(&path).unwrap_err();
        assert_eq!(e.line_col(), Some((3, 4)), "{}", e.render());
        assert!(
            e.message.contains("byte 0xff at offset 18"),
            "{}",
            e.message
        );
    }

    #[test]
    fn line_and_column_of_a_span() {
        let src: Arc<str> = Arc::from("let a = po\nlet b = ;\n");
        let e = Error::at("m.cat", &src, 19..20, "expected an expression");
        assert_eq!(e.line_col(), Some((2, 9)));
        assert_eq!(e.to_string(), "m.cat:2:9: expected an expression");
        assert!(e.render().contains("m.cat:2:9"));
        let j = e.json();
        assert_eq!(
            (j["error"]["line"].as_u64(), j["error"]["column"].as_u64()),
            (Some(2), Some(9))
        );
        assert_eq!(j["error"]["message"], "expected an expression");
    }
}
