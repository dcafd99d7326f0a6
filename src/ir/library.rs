//! The bundled cat library (`cat-lib/`, compiled into the binary): mapcheck's own definitions of
//! the files herd's and Dartagnan's models `include` (`stdlib.cat`, `cos.cat`, `c11_cos.cat`,
//! `c11_los.cat`), searched after the including file's directory and every `-I` directory, and
//! each dialect's prelude: the files whose names a model of that dialect sees without including.
use super::Dialect;

/// How a bundled file's path is shown in messages.
pub(super) const SHOWN_DIR: &str = "<mapcheck cat-lib>";

const FILES: &[(&str, &str)] = &[
    ("stdlib.cat", include_str!("../../cat-lib/stdlib.cat")),
    ("cos.cat", include_str!("../../cat-lib/cos.cat")),
    ("c11_cos.cat", include_str!("../../cat-lib/c11_cos.cat")),
    ("c11_los.cat", include_str!("../../cat-lib/c11_los.cat")),
    ("herd.cat", include_str!("../../cat-lib/herd.cat")),
    ("dat3m.cat", include_str!("../../cat-lib/dat3m.cat")),
];

/// The text of bundled file `name`.
pub(super) fn file(name: &str) -> Option<&'static str> {
    FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

/// The bundled files whose definitions a model of `dialect` sees without including them, the
/// first one defining a name winning.
pub(super) fn prelude(dialect: Dialect) -> &'static [&'static str] {
    match dialect {
        Dialect::Mapcheck => &[],
        Dialect::Herd => &["herd.cat", "stdlib.cat"],
        Dialect::Dat3m => &["dat3m.cat"],
    }
}
