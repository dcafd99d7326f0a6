#!/bin/sh
# A single-node Slurm on localhost, without systemd, everything under one directory: a munge key
# and munged on its own socket, slurm.conf, slurmctld and slurmd (run as root). What
# tests/it/slurm_cluster.rs runs the shard scripts on; also a way to try them by hand.
#
#   scripts/slurm/local-cluster.sh start DIR    # prints the SLURM_CONF line to export
#   scripts/slurm/local-cluster.sh stop DIR     # stops the daemons this script started in DIR
#
# Needs Debian's slurm-wlm and munge (scripts/install-deps.sh) and root. Client commands
# (sbatch, squeue, sinfo, scontrol) find the cluster through SLURM_CONF=DIR/etc/slurm.conf.
# Ports: SLURMCTLD_PORT (default 6817) and SLURMD_PORT (default 6818).
set -eu
# The daemons live in sbin, which a user's PATH may lack.
PATH=$PATH:/usr/sbin:/sbin
export PATH

usage() {
    echo "usage: $0 start|stop DIR" >&2
    exit 2
}
[ $# -eq 2 ] || usage
action=$1
mkdir -p "$2"
dir=$(cd "$2" && pwd)
conf=$dir/etc/slurm.conf
socket=$dir/munge/munge.socket.2

# Stop the daemon whose pid file is $1 (only a process this script started), waiting for it.
stop_pid() {
    [ -f "$1" ] || return 0
    pid=$(cat "$1" 2>/dev/null || true)
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill "$pid" 2>/dev/null || true
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
            sleep 0.2
            i=$((i + 1))
        done
        kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$1"
}

case $action in
stop)
    stop_pid "$dir/run/slurmd.pid"
    stop_pid "$dir/run/slurmctld.pid"
    stop_pid "$dir/run/munged.pid"
    echo "local-cluster: stopped ($dir)"
    exit 0
    ;;
start) ;;
*) usage ;;
esac

for tool in munged slurmctld slurmd sinfo; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "local-cluster: $tool not found (scripts/install-deps.sh installs slurm-wlm and munge)" >&2
        exit 1
    }
done
[ "$(id -u)" -eq 0 ] || {
    echo "local-cluster: slurmd runs jobs as their user and needs root" >&2
    exit 1
}

mkdir -p "$dir/etc" "$dir/state" "$dir/spool" "$dir/log" "$dir/run" "$dir/munge"
chmod 0700 "$dir/munge"

# munge: a key of our own, munged on a socket under DIR.
key=$dir/munge/munge.key
if [ ! -s "$key" ]; then
    if command -v mungekey >/dev/null 2>&1; then
        mungekey --create --keyfile="$key" --force
    else
        dd if=/dev/urandom of="$key" bs=1024 count=1 2>/dev/null
    fi
fi
chmod 0400 "$key"
stop_pid "$dir/run/munged.pid"
munged --force --key-file="$key" --socket="$socket" --pid-file="$dir/run/munged.pid" \
    --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed"

cpus=$(nproc)
cat >"$conf" <<EOF
# Written by scripts/slurm/local-cluster.sh: one node, localhost, everything under $dir.
ClusterName=mapcheck
SlurmctldHost=localhost
SlurmctldPort=${SLURMCTLD_PORT:-6817}
SlurmdPort=${SLURMD_PORT:-6818}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
# Finished jobs stay visible to scontrol for an hour (there is no accounting database for sacct).
MinJobAge=3600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF

export SLURM_CONF="$conf"
stop_pid "$dir/run/slurmd.pid"
stop_pid "$dir/run/slurmctld.pid"
# -c: a fresh controller state (no jobs of an earlier start).
slurmctld -c -f "$conf"
slurmd -f "$conf" -N localhost

# Wait until the node is idle.
i=0
state=""
while [ $i -lt 120 ]; do
    state=$(sinfo -h -N -n localhost -o '%t' 2>/dev/null || true)
    case $state in
    idle*) break ;;
    esac
    sleep 0.5
    i=$((i + 1))
done
case $state in
idle*) ;;
*)
    echo "local-cluster: the node did not become idle (state '$state'); logs in $dir/log" >&2
    tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 2>/dev/null || true
    exit 1
    ;;
esac
echo "local-cluster: up, node localhost idle with $cpus CPUs"
echo "export SLURM_CONF=$conf"
