//! The parsers lalrpop generates from `grammar/litmus_*.lalrpop` (into OUT_DIR, by `build.rs`).
//!
//! Owns the module declarations and one shared instance of each parser; `cond`, `table`, `ptx`,
//! `c` and `vulkan` call these.
lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused_parens, unused_imports, dead_code, non_snake_case, non_camel_case_types, unreachable_pub, missing_docs)]
    pub litmus_common
);
lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused_parens, unused_imports, dead_code, non_snake_case, non_camel_case_types, unreachable_pub, missing_docs)]
    pub litmus_ptx
);
lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused_parens, unused_imports, dead_code, non_snake_case, non_camel_case_types, unreachable_pub, missing_docs)]
    pub litmus_c
);
lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused_parens, unused_imports, dead_code, non_snake_case, non_camel_case_types, unreachable_pub, missing_docs)]
    pub litmus_vulkan
);

/// Building a parser compiles its lexer's regular expressions, which costs far more than parsing
/// a cell; each parser is therefore built once and shared.
macro_rules! shared_parser {
    ($fn_name:ident, $ty:path) => {
        pub(crate) fn $fn_name() -> &'static $ty {
            static PARSER: std::sync::OnceLock<$ty> = std::sync::OnceLock::new();
            PARSER.get_or_init(<$ty>::new)
        }
    };
}

shared_parser!(init, litmus_common::InitParser);
shared_parser!(condition, litmus_common::ConditionParser);
shared_parser!(ptx_header, litmus_ptx::HeaderParser);
shared_parser!(ptx_cell, litmus_ptx::CellParser);
shared_parser!(c_threads, litmus_c::ThreadsParser);
shared_parser!(vulkan_cell, litmus_vulkan::CellParser);
