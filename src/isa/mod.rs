//! The concrete syntaxes' words for vocabulary tags, each syntax in one module holding both
//! directions of its tables (word → tag for the front ends and the mapping's templates, tag →
//! word for the printers and the GPU emitters).
//!
//! Owns: `Words`, a table between words and tags; `ptx` (PTX's instruction data: the forms
//! `ld`/`st`/`atom`/`fence` with the `.sem` each accepts and its default, the scope order, the
//! strength lattice, `membar` levels, barrier modes, and how an instruction's tags split into
//! PTX qualifiers), `c` (C11 / OpenCL memory orders, scopes, fence flags, address spaces) and
//! `vulkan` (the Vulkan litmus syntax's words). Nothing else holds a word ↔ tag table.
//!
//! Uses: `vocab`.
//!
//! Files:
//! - `ptx.rs`: `OpKind`, `Form`, `FORMS`, `scope_order`, `STRONGER`, `VOLATILE`, `releases`,
//!   `acquires`; `.sem` and `.scope` words, `membar` levels, barrier modes, PTX 7.5 proxy words;
//!   `split` and `quals` (an instruction's tags as qualifiers) and `unsupported`.
//! - `c.rs`: `memory_order_*`, OpenCL `memory_scope_*`, C11 `thread_scope_*`, fence flags, address
//!   spaces.
//! - `vulkan.rs`: Vulkan's orders, scopes, storage classes, semantics classes and flags.
use crate::vocab::Tag;

pub(crate) mod c;
pub(crate) mod ptx;
pub(crate) mod vulkan;

/// A table between the words of one syntax position and the tags they stand for. The first word
/// listed for a tag is how it is written; a later word for the same tag is an alias, only read.
pub(crate) struct Words(pub &'static [(&'static str, Tag)]);

impl Words {
    /// The tag `word` stands for.
    pub(crate) fn tag(&self, word: &str) -> Option<Tag> {
        self.0.iter().find(|(w, _)| *w == word).map(|(_, t)| *t)
    }

    /// How `tag` is written.
    pub(crate) fn word(&self, tag: Tag) -> Option<&'static str> {
        self.0.iter().find(|(_, t)| *t == tag).map(|(w, _)| *w)
    }

    /// How `tag` is written, for a tag the caller has checked the table has (a printer or an
    /// emitter after its own checks); a tag without a word here is a mapcheck bug.
    pub(crate) fn spelling(&self, tag: Tag) -> &'static str {
        self.word(tag)
            .unwrap_or_else(|| panic!("no word for tag {tag}"))
    }

    /// The words the table writes (aliases left out), as a message lists them: "`a`, `b` or
    /// `c`".
    pub(crate) fn listed(&self) -> String {
        let written = self.0.iter().filter(|&&(w, t)| self.word(t) == Some(w));
        let words: Vec<String> = written.map(|(w, _)| format!("`{w}`")).collect();
        match words.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }

    /// Does the table have a word for `tag`?
    pub(crate) fn has(&self, tag: Tag) -> bool {
        self.word(tag).is_some()
    }
}

/// Both directions agree: every tag's word reads back as the tag (tag → word → tag), and every
/// word is written back as itself (word → tag → word) unless it is an alias.
#[cfg(test)]
fn assert_round_trips(table: &Words, aliases: &[&str]) {
    for &(word, tag) in table.0 {
        let written = table.word(tag).expect("a listed tag has a word");
        assert_eq!(table.tag(written), Some(tag), "{tag} → {written}");
        assert_eq!(
            table.tag(word).and_then(|t| table.word(t)) == Some(word),
            !aliases.contains(&word),
            "{word}"
        );
    }
}
