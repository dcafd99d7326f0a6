//! Which shard this process runs: `--shard I/N` (1-based), or `--shard env`, from a Slurm
//! array task's environment (any `--array` offset and step) or a Kubernetes Indexed Job pod's
//! (`JOB_COMPLETION_INDEX`, with `--shards N`). A shard is never guessed: an ambiguous or
//! inconsistent environment is an error.
//!
//! Owns: `ShardSpec` (parsing, `resolve`). Uses: nothing.

/// Which shard this process runs: given (`--shard I/N`, 1-based) or read from the environment
/// (`--shard env`, see `ShardSpec::resolve`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardSpec {
    /// Shard `index` (1 to `count`) of `count`.
    Given {
        /// 1-based.
        index: usize,
        /// The number of shards.
        count: usize,
    },
    /// From a Slurm array task's or a Kubernetes Indexed Job pod's environment.
    Env,
}

impl std::str::FromStr for ShardSpec {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<ShardSpec, String> {
        if s == "env" {
            return Ok(ShardSpec::Env);
        }
        let bad = || format!("`{s}` is not I/N (shard I of N, 1 ≤ I ≤ N) or `env`");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index == 0 || index > count {
            return Err(bad());
        }
        Ok(ShardSpec::Given { index, count })
    }
}

impl ShardSpec {
    /// The shard (1-based index, count). `shards` is `--shards N`; `var` reads the environment.
    ///
    /// `env` reads, in a Slurm array task, `SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_MIN` (the
    /// array's first index, whatever `--array` offset it has), `SLURM_ARRAY_TASK_STEP` (1 when
    /// unset) and `SLURM_ARRAY_TASK_COUNT`: shard (ID − MIN) / STEP + 1 of COUNT; in a Kubernetes
    /// Indexed Job, `JOB_COMPLETION_INDEX` (0-based): shard index + 1 of `--shards N`, which is
    /// required there (a pod is not told the completions count). Both set, neither set, or an
    /// index outside the count is an error: a shard is never guessed.
    pub fn resolve(
        self,
        shards: Option<usize>,
        var: &dyn Fn(&str) -> Option<String>,
    ) -> std::result::Result<(usize, usize), String> {
        let number = |name: &str| -> std::result::Result<Option<usize>, String> {
            var(name)
                .map(|v| {
                    v.trim()
                        .parse::<usize>()
                        .map_err(|_| format!("{name}={v} is not a number"))
                })
                .transpose()
        };
        let agree = |count: usize, from: &str| match shards {
            Some(n) if n != count => Err(format!(
                "--shards {n} disagrees with {from} = {count}; give one of them"
            )),
            _ => Ok(count),
        };
        match self {
            ShardSpec::Given { index, count } => Ok((index, agree(count, "--shard")?)),
            ShardSpec::Env => {
                let slurm = number("SLURM_ARRAY_TASK_ID")?;
                let k8s = number("JOB_COMPLETION_INDEX")?;
                let (pos, count) = match (slurm, k8s) {
                    (Some(_), Some(_)) => {
                        return Err(
                            "both SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX are set: \
                                    give --shard I/N"
                                .into(),
                        )
                    }
                    (None, None) => {
                        return Err("--shard env: neither SLURM_ARRAY_TASK_ID (a Slurm array \
                                    task) nor JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) \
                                    is set; give --shard I/N"
                            .into())
                    }
                    (Some(id), None) => {
                        let min = number("SLURM_ARRAY_TASK_MIN")?.ok_or(
                            "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_MIN is not: give \
                             --shard I/N",
                        )?;
                        let step = number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
                        let count = match number("SLURM_ARRAY_TASK_COUNT")? {
                            Some(c) => agree(c, "SLURM_ARRAY_TASK_COUNT")?,
                            None => shards
                                .ok_or("SLURM_ARRAY_TASK_COUNT is not set: give --shards N")?,
                        };
                        if id < min || (id - min) % step != 0 {
                            return Err(format!(
                                "SLURM_ARRAY_TASK_ID={id} is not in the array {min}, {}, … \
                                 (step {step}): submit a range, e.g. --array=1-{count}",
                                min + step
                            ));
                        }
                        ((id - min) / step, count)
                    }
                    (None, Some(index)) => {
                        let count = shards.ok_or(
                            "JOB_COMPLETION_INDEX is set: give --shards N (the Job's \
                             completions), which a pod is not told",
                        )?;
                        (index, count)
                    }
                };
                if count == 0 || pos >= count {
                    return Err(format!(
                        "the array index gives shard {} of {count}: submit an array of \
                         exactly {count} consecutive tasks (e.g. --array=1-{count}, or \
                         completions: {count})",
                        pos + 1
                    ));
                }
                Ok((pos + 1, count))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn a_given_shard_is_one_based() {
        assert_eq!(
            "2/4".parse::<ShardSpec>(),
            Ok(ShardSpec::Given { index: 2, count: 4 })
        );
        for bad in ["0/4", "5/4", "1/0", "4", "a/b", ""] {
            assert!(bad.parse::<ShardSpec>().is_err(), "{bad}");
        }
        let none = env(&[]);
        assert_eq!(
            "3/4".parse::<ShardSpec>().unwrap().resolve(None, &none),
            Ok((3, 4))
        );
        assert!("3/4"
            .parse::<ShardSpec>()
            .unwrap()
            .resolve(Some(5), &none)
            .is_err());
    }

    #[test]
    fn a_slurm_array_at_any_offset_and_step_gives_shards_one_to_n() {
        let at = |id: &str, min: &str, step: Option<&str>| {
            let mut v = vec![
                ("SLURM_ARRAY_TASK_ID", id),
                ("SLURM_ARRAY_TASK_MIN", min),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ];
            if let Some(s) = step {
                v.push(("SLURM_ARRAY_TASK_STEP", s));
            }
            ShardSpec::Env.resolve(None, &env(&v))
        };
        assert_eq!(at("0", "0", None), Ok((1, 4)));
        assert_eq!(at("3", "0", None), Ok((4, 4)));
        assert_eq!(at("1", "1", None), Ok((1, 4)));
        assert_eq!(at("4", "1", None), Ok((4, 4)));
        assert_eq!(at("12", "10", None), Ok((3, 4)));
        assert_eq!(at("7", "1", Some("2")), Ok((4, 4)));
        assert!(at("2", "1", Some("2")).is_err());
        assert!(at("5", "1", None).is_err());
        assert!(at("0", "1", None).is_err());
        let no_min = env(&[
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert!(ShardSpec::Env.resolve(None, &no_min).is_err());
    }

    #[test]
    fn a_kubernetes_index_needs_the_count() {
        let pod = env(&[("JOB_COMPLETION_INDEX", "0")]);
        assert_eq!(ShardSpec::Env.resolve(Some(3), &pod), Ok((1, 3)));
        assert!(ShardSpec::Env.resolve(None, &pod).is_err());
        let last = env(&[("JOB_COMPLETION_INDEX", "3")]);
        assert!(ShardSpec::Env.resolve(Some(3), &last).is_err());
        let both = env(&[
            ("JOB_COMPLETION_INDEX", "0"),
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
        ]);
        assert!(ShardSpec::Env.resolve(Some(3), &both).is_err());
        assert!(ShardSpec::Env.resolve(Some(3), &env(&[])).is_err());
    }
}
