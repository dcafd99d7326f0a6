//! Where a litmus test's threads and locations go in a launch, for any target language.
//!
//! Owns: `Layout` (the test's scope tree as work-groups: which test thread each work-item role
//! runs; its locations) and `Launch` (one launch's iteration parameters of Kirkham et al.,
//! OOPSLA 2020, §3: work-group size and count, the shuffled work-group, work-item and instance
//! tables, the location regions and offsets, the stress targets), drawn from the seed's
//! generator. The kernels read a `Launch` through the `KNOBS` array and the tables. Also
//! `InstanceSizes`: the checked sizes of the buffers the hosts allocate per instance.
//!
//! A launch runs `instances` test instances. Testing work-groups come in blocks of `ctas`
//! (the number of distinct CTAs in the test): in block `b`, logical work-group `b * ctas + j`
//! plays CTA `j`. The testing work-groups are the first to arrive (the kernel counts arrivals);
//! `workgroup_table` gives each arrival its logical number. Inside a work-group, work-item `l` (after the work-item table) has slot
//! `l / roles_per_workgroup` and role `l % roles_per_workgroup`; role `r` of CTA `j` runs the
//! test thread `role_thread[j * roles_per_workgroup + r]`. The instance of (CTA `j`, block `b`,
//! slot `s`) is `instance_table[j * instances + b * slots + s]`: a permutation per CTA, so an
//! instance's threads in one CTA share a work-group and its threads in different CTAs never do.
use rand::seq::{index, SliceRandom};
use rand::{Rng, RngExt};

use super::params::{Params, StressAssignment};
use crate::diag::{Error, Result};
use crate::litmus::{Instr, Litmus, Target};
use crate::vocab::{Level, Placement};

/// The scope levels a launch realises: a work-item, its sub-group (the tests place one per
/// work-group), its work-group (a CTA), the device (every test thread runs on one) and the system.
/// A test that places threads at another level, or scopes an instruction to one, is refused.
const LAID_OUT: [Level; 5] = [
    Level::Thread,
    Level::Subgroup,
    Level::Cta,
    Level::Gpu,
    Level::System,
];

/// Refuse a test with a scope tag (`Tag::level`) or a placement at a level not in `LAID_OUT`
/// (PTX's `.cluster`: the kernels are launched without clusters, so each CTA is a cluster of
/// its own, and a cluster launch, `cuLaunchKernelEx` with a cluster dimension on sm_90, is not
/// written yet).
fn refuse_levels_not_laid_out(test: &Litmus) -> Result<()> {
    let scoped = test
        .threads
        .iter()
        .flat_map(|t| &t.code)
        .flat_map(instruction_tags);
    let tagged = scoped.filter_map(|t| {
        t.level()
            .map(|l| (l, format!("a `{t}`-scoped instruction")))
    });
    let placed = test.threads.iter().flat_map(|t| {
        let levels = Level::PLACED
            .into_iter()
            .filter(move |&l| t.placement.id(l) != 0);
        levels.map(move |l| {
            (
                l,
                format!("{} placed in {l:?} {}", t.name, t.placement.id(l)),
            )
        })
    });
    match tagged.chain(placed).find(|(l, _)| !LAID_OUT.contains(l)) {
        Some((level, what)) => Err(Error::file(
            &test.name,
            format!(
                "the test has {what}: the harness lays out work-items, work-groups (CTAs) and one \
                 device, not {level:?} instances (launched without clusters, each CTA is a cluster \
                 of its own; a cluster launch, sm_90, is not written yet)"
            ),
        )),
        None => Ok(()),
    }
}

fn instruction_tags(instr: &Instr) -> &[crate::vocab::Tag] {
    match instr {
        Instr::Load { tags, .. }
        | Instr::Store { tags, .. }
        | Instr::Rmw { tags, .. }
        | Instr::Fence { tags }
        | Instr::Barrier { tags, .. } => tags,
        _ => &[],
    }
}

/// Words of stressing memory (16 lines of the largest Table 3 stress line).
pub(crate) const SCRATCH_WORDS: u32 = 16 * 1024;

/// The launch parameters the kernels read, in the order of `Launch::knobs`; a kernel defines
/// `K_<NAME>` as each one's index.
pub(crate) const KNOBS: &[&str] = &[
    "INSTANCES",
    "SLOTS",
    "TESTING_WGS",
    "STRESSING_WGS",
    "MEM_STRIDE",
    "BARRIER",
    "BARRIER_TIMEOUT",
    "BARRIER_JITTER",
    "MEM_STRESS",
    "MEM_STRESS_ITERATIONS",
    "MEM_STRESS_PATTERN",
    "PRE_STRESS",
    "PRE_STRESS_ITERATIONS",
    "PRE_STRESS_PATTERN",
    "STRESS_TARGET_LINES",
    "STRESS_CHUNKING",
    "SEED",
];

/// The test's scope tree as work-groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Distinct CTAs (work-groups) one instance spans.
    pub ctas: usize,
    /// Threads of one instance in one work-group: the most any of its CTAs has.
    pub(crate) roles_per_workgroup: usize,
    /// Per (CTA, role), CTA-major: the test thread that role runs, if any.
    pub(crate) role_thread: Vec<Option<usize>>,
    /// The test's locations in order of first mention, with their initial values.
    pub(crate) locations: Vec<(String, i64)>,
}

impl Layout {
    /// The layout of `test`: one work-group per distinct (GPU, CTA) of its threads.
    ///
    /// One launch runs on one device, so threads the test puts on different GPUs (M3's
    /// counterexample has one) run in different work-groups of that device: there, their
    /// device-scope operations synchronize, which the test's do not. That only removes
    /// behaviours, so an outcome the harness sees is still one the test can show; an unseen one
    /// may need two GPUs.
    /// A test with PTX 7.5 virtual aliases is refused: each location gets its own buffer.
    pub fn of(test: &Litmus) -> Result<Layout> {
        if let Some(a) = test.aliases.first() {
            let msg = format!(
                "`{}` aliases `{}`: the harness gives every name its own buffer and has no \
                 PTX 7.5 aliases, surfaces, textures or constant memory",
                a.name, a.target
            );
            return Err(Error::file(&test.name, msg));
        }
        refuse_levels_not_laid_out(test)?;
        let mut ctas: Vec<(Placement, Vec<usize>)> = vec![];
        for (i, t) in test.threads.iter().enumerate() {
            let key = t.placement.instance(Level::Cta);
            match ctas.iter_mut().find(|(c, _)| *c == key) {
                Some((_, threads)) => threads.push(i),
                None => ctas.push((key, vec![i])),
            }
        }
        let roles = ctas.iter().map(|(_, ts)| ts.len()).max().unwrap_or(0);
        let role_thread = ctas
            .iter()
            .flat_map(|(_, ts)| (0..roles).map(|r| ts.get(r).copied()))
            .collect();
        Ok(Layout {
            ctas: ctas.len(),
            roles_per_workgroup: roles,
            role_thread,
            locations: locations(test),
        })
    }

    pub(crate) fn location_index(&self, name: &str) -> Option<usize> {
        self.locations.iter().position(|(l, _)| l == name)
    }

    /// The names of the test threads that share a work-group, per work-group with more than one.
    pub(crate) fn shared_workgroups(&self, test: &Litmus) -> Vec<Vec<String>> {
        self.role_thread
            .chunks(self.roles_per_workgroup.max(1))
            .map(|roles| {
                roles
                    .iter()
                    .flatten()
                    .map(|&t| test.threads[t].name.clone())
                    .collect::<Vec<_>>()
            })
            .filter(|names| names.len() > 1)
            .collect()
    }

    /// The CTA (in layout order) of test thread `t`.
    #[cfg(test)]
    pub(crate) fn cta_of(&self, t: usize) -> usize {
        let slot = self.role_thread.iter().position(|r| *r == Some(t));
        slot.expect("every thread has a role") / self.roles_per_workgroup
    }

    /// Testing work-groups a launch uses: `params.testing_workgroups` rounded down to whole
    /// blocks of `ctas`; an error if not even one block fits.
    pub(crate) fn testing_workgroups(&self, params: &Params) -> Result<u32> {
        let ctas = self.ctas as u32;
        let used = params.testing_workgroups / ctas * ctas;
        if used == 0 {
            return Err(Error::file(
                "parameters",
                format!(
                    "testing_workgroups = {} but one test instance spans {ctas} work-groups (its CTAs)",
                    params.testing_workgroups
                ),
            ));
        }
        Ok(used)
    }

    /// The largest work-group size a launch may draw on a device allowing `device_max`.
    pub(crate) fn max_workgroup_size(&self, params: &Params, device_max: u32) -> Result<u32> {
        let size = params.max_workgroup_size.min(device_max);
        if (size as usize) < self.roles_per_workgroup {
            return Err(Error::file(
                "parameters",
                format!(
                    "work-groups of at most {size} work-items (max_workgroup_size {}, device {device_max}) \
                     cannot hold the {} threads one instance has in one CTA",
                    params.max_workgroup_size, self.roles_per_workgroup
                ),
            ));
        }
        Ok(size)
    }

    /// Blocks of testing work-groups (one work-group per CTA each) in a launch.
    pub(crate) fn blocks(&self, params: &Params) -> Result<u32> {
        Ok(self.testing_workgroups(params)? / self.ctas as u32)
    }

    /// The most instances one launch can have (at most `MAX_WORKGROUPS × MAX_WORKGROUP_SIZE` of
    /// `params`, 2^24).
    pub(crate) fn max_instances(&self, params: &Params, max_size: u32) -> Result<u32> {
        Ok(self.blocks(params)? * (max_size / self.roles_per_workgroup as u32))
    }

    /// The regions of a launch of `instances` instances: one per instance × location, numbered
    /// in the kernels' 32-bit `regions` table. An error naming the keys that set the instances
    /// when they do not fit (only a test with hundreds of locations or more gets there).
    pub(crate) fn regions(&self, instances: u32, params: &Params, max_size: u32) -> Result<u32> {
        let locations = self.locations.len();
        u32::try_from(locations)
            .ok()
            .and_then(|l| instances.checked_mul(l))
            .ok_or_else(|| {
                Error::file(
                    "parameters",
                    format!(
                        "testing_workgroups = {} and max_workgroup_size = {} (work-groups of up to \
                         {max_size} work-items here) give up to {instances} instances per launch; \
                         with the test's {locations} locations that is {} regions, more than the \
                         {} a 32-bit region table numbers: lower testing_workgroups or \
                         max_workgroup_size",
                        params.testing_workgroups,
                        params.max_workgroup_size,
                        u128::from(instances) * locations as u128,
                        u32::MAX
                    ),
                )
            })
    }

    /// The sizes of the per-instance device buffers a run allocates once for its largest launch
    /// (work-groups of up to `max_size` work-items, `registers` observed registers): checked
    /// products, and an error naming the keys if one does not fit the region table or this
    /// machine's address size.
    pub(crate) fn instance_sizes(
        &self,
        params: &Params,
        max_size: u32,
        registers: usize,
    ) -> Result<InstanceSizes> {
        let instances = self.max_instances(params, max_size)?;
        self.regions(instances, params, max_size)?;
        InstanceSizes::of(
            instances as usize,
            self.ctas,
            self.locations.len(),
            registers,
            params.mem_stride as usize,
        )
    }
}

/// Element counts (32-bit words) of the device buffers whose size is a product of parameters,
/// for launches of up to `instances` instances. Each is a checked product whose byte size fits
/// `usize`. The kernels index `mem`, `results` and `regions` with 64-bit arithmetic (`mem`
/// passes 2^32 words within the ranges `params` allows: 2^24 instances × locations × 512-word
/// strides), the instance table (below 2^24 entries) with 32-bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct InstanceSizes {
    pub(crate) instances: usize,
    /// Test memory: instances × locations × `mem_stride`.
    pub(crate) mem: usize,
    /// Observed registers: instances × registers.
    pub(crate) results: usize,
    /// The region table: instances × locations.
    pub(crate) regions: usize,
    /// The instance table: CTAs × instances.
    pub(crate) instance_table: usize,
}

impl InstanceSizes {
    /// The sizes for `instances` instances of a test with `ctas` CTAs, `locations` locations and
    /// `registers` observed registers, regions of `mem_stride` words; an error if one overflows.
    pub(crate) fn of(
        instances: usize,
        ctas: usize,
        locations: usize,
        registers: usize,
        mem_stride: usize,
    ) -> Result<InstanceSizes> {
        let i = (
            "instances (set by testing_workgroups and max_workgroup_size)",
            instances,
        );
        let l = ("locations", locations);
        Ok(InstanceSizes {
            instances,
            mem: words("test memory", &[i, l, ("mem_stride", mem_stride)])?,
            results: words("results", &[i, ("observed registers", registers)])?,
            regions: words("region", &[i, l])?,
            instance_table: words("instance", &[("CTAs", ctas), i])?,
        })
    }
}

/// The product of `factors` as a count of 32-bit words, if its byte size fits `usize`; else an
/// error naming the buffer and each factor.
fn words(buffer: &str, factors: &[(&str, usize)]) -> Result<usize> {
    let bytes = factors
        .iter()
        .try_fold(std::mem::size_of::<u32>(), |acc, (_, f)| {
            acc.checked_mul(*f)
        });
    bytes
        .map(|b| b / std::mem::size_of::<u32>())
        .ok_or_else(|| {
            let product: Vec<String> = factors.iter().map(|(k, v)| format!("{k} {v}")).collect();
            Error::file(
                "parameters",
                format!(
                    "the {buffer} buffer ({} 32-bit words) is larger than this machine can address",
                    product.join(" × ")
                ),
            )
        })
}

/// Locations in order of first mention (initial state, code, condition), with initial values.
pub(crate) fn locations(test: &Litmus) -> Vec<(String, i64)> {
    let mut out: Vec<(String, i64)> = test.init_mem.clone();
    let accessed = test
        .threads
        .iter()
        .flat_map(|t| &t.code)
        .filter_map(|i| match i {
            Instr::Load { loc, .. } | Instr::Store { loc, .. } | Instr::Rmw { loc, .. } => {
                Some(loc)
            }
            _ => None,
        });
    let in_condition = test
        .condition
        .prop
        .targets()
        .into_iter()
        .filter_map(|t| match t {
            Target::Mem(l) => Some(l),
            Target::Reg { .. } => None,
        });
    for l in accessed.chain(in_condition) {
        if !out.iter().any(|(n, _)| n == l) {
            out.push((l.clone(), 0));
        }
    }
    out
}

/// One launch's iteration parameters.
#[derive(Clone, Debug)]
pub(crate) struct Launch {
    pub(crate) workgroup_size: u32,
    /// All work-groups: testing, then stressing (random occupancy).
    pub(crate) workgroups: u32,
    pub(crate) testing_workgroups: u32,
    /// Instances per block of testing work-groups (work-items per group / roles per group).
    pub(crate) slots: u32,
    pub(crate) instances: u32,
    /// A work-group's place in the order of arrival → the logical work-group it plays: the first
    /// `testing_workgroups` arrivals test, each as the block and CTA this shuffled prefix gives;
    /// later arrivals keep their place (they stress).
    pub(crate) workgroup_table: Vec<u32>,
    /// Local work-item id → the one it plays.
    pub(crate) local_table: Vec<u32>,
    /// Per CTA, slot position → instance (see the module doc).
    pub(crate) instance_table: Vec<u32>,
    /// Instance × location → its region (of `mem_stride` words) in test memory: a number below
    /// instances × locations, which `Layout::regions` keeps within `u32`.
    pub(crate) regions: Vec<u32>,
    /// Per location: its word offset inside its region.
    pub(crate) offsets: Vec<u32>,
    /// Word addresses in stressing memory, one per stress target line.
    pub(crate) stress_targets: Vec<u32>,
    /// Seed of the kernels' own per-instance randomness (the barrier jitter).
    pub(crate) seed: u32,
}

impl Launch {
    /// Draw a launch for `layout` under `params`; work-groups of at most `max_size` work-items.
    pub(crate) fn draw<R: Rng + ?Sized>(
        layout: &Layout,
        params: &Params,
        max_size: u32,
        rng: &mut R,
    ) -> Result<Launch> {
        let testing = layout.testing_workgroups(params)?;
        let roles = layout.roles_per_workgroup as u32;
        let sizes = workgroup_sizes(roles, max_size);
        let workgroup_size = sizes[rng.random_range(0..sizes.len())];
        let workgroups = rng.random_range(testing..=params.max_workgroups.max(testing));
        let slots = workgroup_size / roles;
        let instances = testing / layout.ctas as u32 * slots;
        let regions = layout.regions(instances, params, max_size)?;
        let shuffle = params.thread_shuffle;
        let instance_table = (0..layout.ctas)
            .flat_map(|_| table(instances, shuffle, rng))
            .collect();
        Ok(Launch {
            workgroup_size,
            workgroups,
            testing_workgroups: testing,
            slots,
            instances,
            workgroup_table: arrival_table(testing, workgroups, rng),
            local_table: table(workgroup_size, shuffle, rng),
            instance_table,
            regions: table(regions, true, rng),
            offsets: (0..layout.locations.len())
                .map(|_| rng.random_range(0..params.mem_stride))
                .collect(),
            stress_targets: stress_targets(params, rng),
            seed: rng.random(),
        })
    }

    /// The `KNOBS` array.
    pub(crate) fn knobs(&self, params: &Params) -> Vec<u32> {
        vec![
            self.instances,
            self.slots,
            self.testing_workgroups,
            self.workgroups - self.testing_workgroups,
            params.mem_stride,
            params.barrier as u32,
            params.barrier_timeout,
            params.barrier_jitter,
            params.mem_stress as u32,
            params.mem_stress_iterations,
            params.mem_stress_pattern.code(),
            params.pre_stress as u32,
            params.pre_stress_iterations,
            params.pre_stress_pattern.code(),
            params.stress_target_lines,
            (params.stress_assignment == StressAssignment::Chunking) as u32,
            self.seed,
        ]
    }
}

/// The work-group sizes a launch draws from: the powers of two from `roles` to `max` (or `max`
/// alone if there is none). Powers of two, not every size: PoCL compiles a kernel once per
/// work-group size, and a few sizes keep that cost to a few compilations.
fn workgroup_sizes(roles: u32, max: u32) -> Vec<u32> {
    let powers: Vec<u32> = (0..32)
        .map(|k| 1u32 << k)
        .filter(|p| (roles..=max).contains(p))
        .collect();
    if powers.is_empty() {
        vec![max]
    } else {
        powers
    }
}

/// `0..workgroups`, its first `testing` entries shuffled among themselves.
fn arrival_table<R: Rng + ?Sized>(testing: u32, workgroups: u32, rng: &mut R) -> Vec<u32> {
    let mut t = table(testing, true, rng);
    t.extend(testing..workgroups);
    t
}

/// `0..n`, shuffled when asked.
fn table<R: Rng + ?Sized>(n: u32, shuffled: bool, rng: &mut R) -> Vec<u32> {
    let mut t: Vec<u32> = (0..n).collect();
    if shuffled {
        t.shuffle(rng);
    }
    t
}

/// Distinct stress lines at random, each with a random word inside it (paper Fig. 3 c, d).
fn stress_targets<R: Rng + ?Sized>(params: &Params, rng: &mut R) -> Vec<u32> {
    let size = params.stress_line_size;
    let lines = index::sample(
        rng,
        (SCRATCH_WORDS / size) as usize,
        params.stress_target_lines as usize,
    );
    lines
        .into_iter()
        .map(|line| line as u32 * size + rng.random_range(0..size))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn layout(text: &str) -> Layout {
        Layout::of(&crate::litmus::parse_str("t.litmus", text).unwrap()).unwrap()
    }

    const THREE_THREADS: &str = "PTX t\n{ x=0; y=0; }\n\
        P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 0,gpu 0 ;\n\
        st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, x | ld.relaxed.gpu r1, y ;\n\
        exists (1:r0=1 /\\ 2:r1=0)\n";

    #[test]
    fn threads_of_one_cta_share_a_work_group() {
        let l = layout(THREE_THREADS);
        assert_eq!((l.ctas, l.roles_per_workgroup), (2, 2));
        assert_eq!(l.role_thread, vec![Some(0), Some(2), Some(1), None]);
        assert_eq!(l.cta_of(2), 0);
        assert_eq!(l.locations, vec![("x".into(), 0), ("y".into(), 0)]);
    }

    #[test]
    fn threads_on_different_gpus_get_different_work_groups() {
        let l = layout(
            "PTX t\n{ x=0; }\n\
             P0@cta 0,gpu 0 | P1@cta 0,gpu 1 ;\n\
             st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, x ;\n\
             exists (1:r0=1)\n",
        );
        assert_eq!((l.ctas, l.roles_per_workgroup), (2, 1));
        assert_eq!((l.cta_of(0), l.cta_of(1)), (0, 1));
    }

    #[test]
    fn a_launch_gives_every_instance_each_role_once() {
        let l = layout(THREE_THREADS);
        let params = Params {
            thread_shuffle: true,
            testing_workgroups: 5,
            max_workgroups: 9,
            ..Params::defaults()
        };
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let launch = Launch::draw(&l, &params, 64, &mut rng).unwrap();
        assert_eq!(launch.testing_workgroups, 4);
        assert_eq!(launch.instances, 2 * (launch.workgroup_size / 2));
        for cta in launch.instance_table.chunks(launch.instances as usize) {
            let mut sorted = cta.to_vec();
            sorted.sort();
            assert_eq!(sorted, (0..launch.instances).collect::<Vec<_>>());
        }
        assert_eq!(launch.knobs(&params).len(), KNOBS.len());
        let (testing, stressing) = launch.workgroup_table.split_at(4);
        assert!(
            testing.iter().all(|&w| w < 4),
            "{:?}",
            launch.workgroup_table
        );
        assert!(stressing.iter().copied().eq(4..launch.workgroups));
        assert!(launch.stress_targets.iter().all(|&w| w < SCRATCH_WORDS));
    }

    #[test]
    fn work_group_sizes_are_powers_of_two_that_hold_an_instance() {
        assert_eq!(workgroup_sizes(1, 8), [1, 2, 4, 8]);
        assert_eq!(workgroup_sizes(3, 20), [4, 8, 16]);
        assert_eq!(workgroup_sizes(3, 3), [3]);
    }

    /// A layout of one CTA with one thread and `n` locations.
    fn with_locations(n: usize) -> Layout {
        let mut l =
            layout("PTX t\n{ x=0; }\nP0@cta 0,gpu 0 ;\nst.relaxed.gpu x, 1 ;\nexists (x=1)\n");
        l.locations = (0..n).map(|i| (format!("x{i}"), 0)).collect();
        l
    }

    /// The largest launches the parameter ranges allow.
    fn largest() -> Params {
        Params {
            testing_workgroups: 4096,
            max_workgroups: 4096,
            max_workgroup_size: 4096,
            mem_stride: 512,
            ..Params::defaults()
        }
    }

    #[test]
    fn instance_sizes_are_exact_past_two_to_the_32() {
        let l = with_locations(200);
        let sizes = l.instance_sizes(&largest(), 4096, 300).unwrap();
        let instances = 4096 * 4096;
        assert_eq!(
            sizes,
            InstanceSizes {
                instances,
                mem: instances * 200 * 512,
                results: instances * 300,
                regions: instances * 200,
                instance_table: instances,
            }
        );
        assert!(sizes.mem > u32::MAX as usize && sizes.results > u32::MAX as usize);
    }

    #[test]
    fn a_region_table_past_u32_is_refused_naming_the_keys() {
        let l = with_locations(300);
        let e = l.instance_sizes(&largest(), 4096, 1).unwrap_err();
        for key in ["testing_workgroups", "max_workgroup_size", "300 locations"] {
            assert!(e.message.contains(key), "{e}");
        }
        // A launch drawn from them refuses too, before it builds a table, whatever work-group
        // size it draws (even one work-item: 4096 instances × 2^20 + 1 locations).
        let huge = with_locations((1 << 20) + 1);
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let e = Launch::draw(&huge, &largest(), 4096, &mut rng).unwrap_err();
        assert!(e.message.contains("32-bit region table"), "{e}");
        // Fewer instances fit.
        let smaller = Params {
            testing_workgroups: 256,
            max_workgroups: 256,
            ..largest()
        };
        assert!(l.instance_sizes(&smaller, 4096, 1).is_ok());
    }

    #[test]
    fn a_buffer_size_that_overflows_is_an_error_not_a_wrap() {
        let e = InstanceSizes::of(1 << 24, 1, 1, usize::MAX / 8, 2).unwrap_err();
        assert!(e.message.contains("results buffer"), "{e}");
        assert!(e.message.contains("observed registers"), "{e}");
        let e = InstanceSizes::of(1 << 24, 1, usize::MAX >> 30, 1, 512).unwrap_err();
        assert!(e.message.contains("test memory buffer"), "{e}");
        assert!(e.message.contains("mem_stride 512"), "{e}");
        // Byte sizes count too: a word count that fits `usize` but whose bytes do not.
        let e = InstanceSizes::of(usize::MAX / 2, 1, 1, 1, 1).unwrap_err();
        assert!(e.message.contains("test memory buffer"), "{e}");
    }

    #[test]
    fn too_few_testing_work_groups_is_an_error() {
        let l = layout(THREE_THREADS);
        let params = Params {
            testing_workgroups: 1,
            ..Params::defaults()
        };
        let e = l.testing_workgroups(&params).unwrap_err();
        assert!(e.message.contains("spans 2 work-groups"), "{e}");
    }
}
