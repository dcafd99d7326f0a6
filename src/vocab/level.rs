//! The scope levels, declared once: the scope tree's levels from a thread to the whole system,
//! which of them a thread's placement numbers, and the relations that say "same instance of this
//! level".
//!
//! Owns: `Level`, `SameScope` (the same-instance relations, `Relation::Same`) and `Placement` (a
//! thread's instance id at every placed level). A new level (PTX's `.cluster`) is a row of
//! `levels!` (and of `same_scopes!` if models name its relation); the front ends then ask for its
//! word in each syntax that has one.

/// Declares the scope levels, innermost first. A row: the level and, after `placed`, the name
/// of its id in a placement, for a level whose instances a litmus test numbers. It generates
/// `Level`, `Level::ALL`, `Level::PLACED` and `Level::placed_name`.
macro_rules! levels {
    (@placed $field:ident $level:expr) => { $level };
    ($($(#[doc = $doc:literal])* $level:ident $(placed $field:ident)?;)*) => {
        /// A level of the scope tree. Levels compare by nesting: an inner level is less.
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
        pub enum Level {
            $($(#[doc = $doc])* $level,)*
        }

        impl Level {
            /// Every level, innermost first.
            pub const ALL: [Level; [$(Level::$level),*].len()] = [$(Level::$level),*];

            /// The levels a placement numbers, innermost first.
            pub const PLACED: [Level; [$($(levels!(@placed $field Level::$level),)?)*].len()] =
                [$($(levels!(@placed $field Level::$level),)?)*];

            /// The name of the level's id in a placement (`cta`); `None` for a level not placed.
            pub fn placed_name(self) -> Option<&'static str> {
                match self {
                    $($(Level::$level => Some(stringify!($field)),)?)*
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
        }
    };
}

levels! {
    /// A single thread (OpenCL's work-item scope).
    Thread;
    /// A Vulkan subgroup (OpenCL's sub-group scope); the front ends without subgroups (PTX, C,
    /// OpenCL) place one subgroup per CTA / work-group.
    Subgroup placed subgroup;
    /// A CTA (PTX, C11 `@cta N`) or work-group (OpenCL `@wg N`, Vulkan `wg N`).
    Cta placed cta;
    /// A PTX cluster of CTAs (PTX ISA 7.8+, sm_90: §2.2.2 "Cluster of Cooperative Thread
    /// Arrays"); the front ends without clusters (C with OpenCL words, OpenCL, Vulkan) place one
    /// cluster per GPU.
    Cluster placed cluster;
    /// A GPU (PTX, C11 `gpu N`), device (OpenCL `dev N`) or Vulkan queue family (`qf N`).
    Gpu placed gpu;
    /// The whole system (PTX `.sys`, OpenCL all SVM devices, Vulkan device).
    System;
}

/// Declares the relations between two events in one instance of a scope level (`Relation::Same`),
/// one row each (doc, variant, the name models use, the level). Several models name one level
/// differently (`scta`, OpenCL's `swg`); each name is a variant, so a model prints back as
/// written. It generates `SameScope`, `SAME_SCOPES` (in the rows' order, the vocabulary's), and
/// `SameScope::name` and `SameScope::level`.
macro_rules! same_scopes {
    ($($(#[doc = $doc:literal])* $variant:ident $name:literal $level:ident;)*) => {
        /// A relation between two events of one instance of a scope level (`scta`: same CTA).
        #[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
        pub enum SameScope {
            $($(#[doc = $doc])* $variant,)*
        }

        /// Every same-instance relation, in the vocabulary's order.
        pub(crate) const SAME_SCOPES: [SameScope; [$(SameScope::$variant),*].len()] =
            [$(SameScope::$variant),*];

        impl SameScope {
            /// The name models use (`scta`).
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $(SameScope::$variant => $name,)*
                }
            }

            /// The level whose instances it relates.
            pub(crate) fn level(self) -> Level {
                match self {
                    $(SameScope::$variant => Level::$level,)*
                }
            }
        }
    };
}

same_scopes! {
    /// Same Vulkan subgroup (threads placed in the same subgroup of the same workgroup).
    Ssg "ssg" Subgroup;
    /// Same CTA (threads placed in the same cta of the same gpu).
    Scta "scta" Cta;
    /// Same PTX cluster (threads placed in the same cluster of the same gpu).
    Scluster "scluster" Cluster;
    /// Same GPU.
    Sgpu "sgpu" Gpu;
    /// Same work-group (OpenCL name for scta).
    Swg "swg" Cta;
    /// Same device (OpenCL name for sgpu).
    Sdv "sdv" Gpu;
    /// Same Vulkan queue family (Vulkan name for sgpu).
    Sqf "sqf" Gpu;
}

/// Where a thread sits in the scope tree: its instance id at every placed level
/// (`Level::PLACED`), each unique only within its instance of the level above. A level a test
/// does not give is instance 0.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Hash)]
pub struct Placement {
    ids: [i64; Level::PLACED.len()],
}

impl Placement {
    /// The instance id at `level`. Panics for a level that is not placed (a thread is its own
    /// instance, the system has one).
    pub fn id(self, level: Level) -> i64 {
        self.ids[Self::index(level)]
    }

    /// This placement with instance `id` at `level`.
    pub fn with(mut self, level: Level, id: i64) -> Placement {
        self.ids[Self::index(level)] = id;
        self
    }

    /// The instance of `level` the thread lies in: this placement with every level inside
    /// `level` set to 0, so that two threads share an instance exactly when these are equal.
    /// (For `Level::Thread` it names the innermost placed instance: the caller knows whether two
    /// threads are one.)
    pub fn instance(mut self, level: Level) -> Placement {
        let inner = Level::PLACED.iter().take_while(|&&l| l < level).count();
        self.ids[..inner].fill(0);
        self
    }

    /// Do two threads lie in the same instance of `level` (see `instance`)?
    pub(crate) fn same_instance(self, other: Placement, level: Level) -> bool {
        self.instance(level) == other.instance(level)
    }

    fn index(level: Level) -> usize {
        let index = Level::PLACED.iter().position(|&l| l == level);
        index.unwrap_or_else(|| panic!("{level:?} is not a placed level"))
    }
}

impl std::fmt::Debug for Placement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = f.debug_struct("Placement");
        for level in Level::PLACED {
            s.field(level.placed_name().unwrap_or("?"), &self.id(level));
        }
        s.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_nest_innermost_first() {
        assert!(Level::ALL.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(
            Level::PLACED,
            [Level::Subgroup, Level::Cta, Level::Cluster, Level::Gpu]
        );
        for s in SAME_SCOPES {
            assert!(Level::PLACED.contains(&s.level()), "{s:?}");
        }
    }

    #[test]
    fn a_placement_compares_from_its_level_outwards() {
        let at = |sg, cta, gpu| {
            let p = Placement::default().with(Level::Subgroup, sg);
            p.with(Level::Cta, cta).with(Level::Gpu, gpu)
        };
        // CTA 0 of GPU 0 and CTA 0 of GPU 1 are two CTAs.
        assert!(!at(0, 0, 0).same_instance(at(0, 0, 1), Level::Cta));
        assert!(at(0, 0, 0).same_instance(at(1, 0, 0), Level::Cta));
        assert!(!at(0, 0, 0).same_instance(at(1, 0, 0), Level::Subgroup));
        assert!(at(0, 1, 0).same_instance(at(1, 0, 0), Level::Gpu));
        assert!(at(0, 0, 0).same_instance(at(0, 0, 1), Level::System));
        assert_eq!(
            format!("{:?}", at(0, 1, 2)),
            "Placement { subgroup: 0, cta: 1, cluster: 0, gpu: 2 }"
        );
    }
}
