//! The bundled cat library (`cat-lib/`, compiled into the binary): mapcheck's own definitions of
//! the files herd's and Dartagnan's models `include` (`stdlib.cat`, `cos.cat`, `c11_cos.cat`,
//! `c11_los.cat`), searched after the including file's directory and every `-I` directory, and
//! each dialect's prelude: the files whose names a model of that dialect sees without including;
//! and `Dialect`, whose names a model has (re-exported as `ir::Dialect`).

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

/// The bundled files read in place of herd's own of the same name (herdtools7's `herd/libdir`)
/// in a herd-dialect model, even where the include path has herd's, and why.
const STANDS_IN_FOR_HERDS: &[(&str, &str)] = &[
    (
        "cos.cat",
        "generates the coherence orders (`generate_cos`, through `cos-no-opt.cat` and `cross.cat`), which mapcheck's runner enumerates itself",
    ),
    (
        "stdlib.cat",
        "is written with herd constructs mapcheck does not read (procedures, curried and higher-order functions, architecture sets)",
    ),
];

/// Why bundled file `name` is read in place of a file of that name on the include path, for a
/// model of `dialect`; `None` when it is not.
pub(super) fn replaces_herds(dialect: Dialect, name: &str) -> Option<&'static str> {
    let (_, why) = STANDS_IN_FOR_HERDS.iter().find(|(n, _)| *n == name)?;
    (dialect == Dialect::Herd).then_some(*why)
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

/// Whose meaning a model's names have (`--dialect`): mapcheck's own vocabulary, or the names
/// herd7's or Dartagnan's models rely on without defining them (`cat-lib/herd.cat`,
/// `cat-lib/dat3m.cat`; decision 008).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Dialect {
    #[default]
    /// mapcheck's own vocabulary only (the default).
    Mapcheck,
    /// herd7's: names herd's models use without defining them come from `cat-lib/herd.cat`.
    Herd,
    /// Dartagnan's: such names come from `cat-lib/dat3m.cat`; a PTX model without `coherence …` has
    /// partial `co`.
    Dat3m,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 3] = [Dialect::Mapcheck, Dialect::Herd, Dialect::Dat3m];

    /// The dialect's word in a `dialect` declaration and in `--dialect`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Mapcheck => "mapcheck",
            Dialect::Herd => "herd",
            Dialect::Dat3m => "dat3m",
        }
    }

    /// Is `co` a partial order for a model of architecture `arch` (its title's first word) that
    /// does not say `coherence …`? Dartagnan's is for PTX; herd's and mapcheck's never are.
    pub fn partial_co(self, arch: Option<&str>) -> bool {
        match self {
            Dialect::Dat3m => arch == Some("PTX"),
            Dialect::Mapcheck | Dialect::Herd => false,
        }
    }
}
