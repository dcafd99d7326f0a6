#!/bin/sh
# Submit a mapping check in SHARDS shards as a Slurm job array, and its merge as a job that runs
# after every task has ended, however it ended (afterany):
#
#   scripts/slurm/submit.sh MAP BOUND SHARDS DIR [check options…]
#
# e.g. scripts/slurm/submit.sh mappings/rc11-ptx-artifact.map 6 16 results/ --solver cadical
# Prints the two job ids ("ARRAY_ID MERGE_ID"). Logs go to DIR/logs/; the merged summary to
# DIR/logs/merge-MERGE_ID.out. sbatch's own settings come from its environment (SBATCH_PARTITION,
# SBATCH_TIMELIMIT, SBATCH_ACCOUNT, …); CPUS_PER_TASK (default 1) is each shard's CPUs and solver
# threads; MAPCHECK names the binary, exported to the jobs.
set -eu
[ $# -ge 4 ] || { echo "usage: $0 MAP BOUND SHARDS DIR [check options…]" >&2; exit 2; }
map=$1 bound=$2 shards=$3 dir=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir/logs"
array=$(sbatch --parsable --array="1-$shards" --cpus-per-task="${CPUS_PER_TASK:-1}" \
    --output="$dir/logs/shard-%A_%a.out" \
    "$here/check-array.sbatch" "$map" "$bound" "$dir" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterany:$array" --output="$dir/logs/merge-%j.out" \
    "$here/merge.sbatch" "$dir")
merge=${merge%%;*}
echo "$array $merge"
