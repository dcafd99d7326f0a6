//! Whose vocabulary a model speaks (decision 008): the dialect the command line asks for
//! (`LoadOptions::dialect`) or the model's top file declares (`dialect mapcheck|herd|dat3m`), the
//! two agreeing; and, for a model that declares none, a warning at the first use of each
//! vocabulary name that herd7's or Dartagnan's prelude gives another meaning.
use super::prelude::binding_in;
use super::*;
use crate::ir::library;

/// The dialects whose preludes may redefine a vocabulary name, with how a warning names them.
const OTHER_DIALECTS: [(Dialect, &str); 2] =
    [(Dialect::Herd, "herd7's"), (Dialect::Dat3m, "Dartagnan's")];

impl Lowerer {
    /// Settle the dialect from `opts` and the `dialect` statement of the top file `file`.
    pub(super) fn settle_dialect(
        &mut self,
        file: FileId,
        stmts: &[ast::Stmt],
        asked: Option<Dialect>,
    ) -> diag::Result<()> {
        let declared = stmts.iter().find_map(|s| match &s.kind {
            ast::StmtKind::Dialect(word) => Some(word),
            _ => None,
        });
        let in_file = match declared {
            Some(word) => Some((self.dialect_word(file, word)?, word)),
            None => None,
        };
        self.dialect = match (asked, in_file) {
            (Some(a), Some((d, word))) if a != d => {
                return Err(self
                    .err(
                        file,
                        word.span,
                        format!(
                        "the model declares `dialect {}`, the command line asks for `--dialect {}`",
                        d.name(),
                        a.name()
                    ),
                    )
                    .with_note("drop the flag, or run the model in the dialect it declares"))
            }
            (Some(d), _) | (None, Some((d, _))) => Some(d),
            (None, None) => None,
        };
        self.dialect_statement = declared.map(|w| (file, w.span));
        Ok(())
    }

    /// The dialect a model is read in (mapcheck's when it declares none).
    pub(super) fn dialect(&self) -> Dialect {
        self.dialect.unwrap_or_default()
    }

    /// A `dialect` statement: the top file's was read by `settle_dialect`; any other (in an
    /// included file, in an `if` branch) must name the dialect the model is read in.
    pub(super) fn dialect_statement(&self, file: FileId, word: &ast::Name) -> diag::Result<()> {
        if self.dialect_statement == Some((file, word.span)) {
            return Ok(());
        }
        let here = self.dialect_word(file, word)?;
        if here == self.dialect() {
            return Ok(());
        }
        Err(self
            .err(
                file,
                word.span,
                format!(
                    "this file declares `dialect {}`, but the model is read as `{}`",
                    here.name(),
                    self.dialect().name()
                ),
            )
            .with_note("the dialect is the command line's (`--dialect`) or the declaration at the top level of the model's own file (mapcheck's when neither says); an included file must agree"))
    }

    fn dialect_word(&self, file: FileId, word: &ast::Name) -> diag::Result<Dialect> {
        Dialect::ALL
            .into_iter()
            .find(|d| d.name() == word.text)
            .ok_or_else(|| {
                self.err(
                    file,
                    word.span,
                    format!(
                        "unknown dialect `{}`; expected `mapcheck`, `herd` or `dat3m`",
                        word.text
                    ),
                )
            })
    }

    /// The model uses the vocabulary's `name` at `span`: in a model that declares no dialect,
    /// warn (once per name) when herd7's or Dartagnan's prelude defines the name otherwise.
    pub(super) fn note_vocabulary_use(&mut self, file: FileId, span: ast::Span, name: &str) {
        if self.dialect.is_some() || self.vocabulary_checked.iter().any(|n| n == name) {
            return;
        }
        self.vocabulary_checked.push(name.to_string());
        let preludes = self.other_preludes.get_or_insert_with(other_preludes);
        let meanings: Vec<String> = preludes
            .iter()
            .filter_map(|(whose, files)| {
                let text = binding_text(files, name)?;
                Some(format!("{whose} models mean `{text}`"))
            })
            .collect();
        if meanings.is_empty() {
            return;
        }
        self.model.warnings.push(format!(
            "{}: warning: `{name}` is mapcheck's built-in here (src/vocab.rs); {}. This model \
             declares no dialect: add `dialect mapcheck` to keep this meaning, or read it with \
             `--dialect herd` / `--dialect dat3m`",
            self.position(file, span),
            meanings.join(", ")
        ));
    }
}

/// The prelude files of the other dialects, parsed (bundled files, so one that fails to parse is
/// left out rather than reported: `load_prelude` reports it when that dialect is used).
fn other_preludes() -> OtherPreludes {
    OTHER_DIALECTS
        .iter()
        .map(|&(d, whose)| {
            let files = library::prelude(d)
                .iter()
                .filter_map(|name| {
                    let text = library::file(name)?;
                    Some((text, cat::parse(name, &Arc::from(text)).ok()?))
                })
                .collect();
            (whose, files)
        })
        .collect()
}

/// The text of the binding of `name` in one dialect's prelude files (as `prelude_stmt` finds
/// it: the first file defining it, the last binding there).
fn binding_text(files: &[(&'static str, ast::File)], name: &str) -> Option<String> {
    files.iter().find_map(|(text, parsed)| {
        let b = parsed
            .stmts
            .iter()
            .rev()
            .find_map(|s| binding_in(s, name))?;
        Some(b.span.text(text).to_string())
    })
}
