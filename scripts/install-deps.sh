#!/bin/sh
# Installs what the tests need beyond the Rust toolchain, on a Debian machine where we are root:
#   - Coq (coqc) for the proof export (issue 4),
#   - PoCL, a CPU OpenCL device, with the OpenCL ICD loader, for the OpenCL harness,
#   - the PyPI CUDA wheels (ptxas, nvdisasm, cuobjdump) into .tools/cuda, for optcheck,
#   - Slurm (slurm-wlm: slurmctld, slurmd, sbatch, …) and munge, for the sharded check on a
#     single-node cluster (tests/it/slurm_cluster.rs, scripts/slurm/local-cluster.sh).
# Each part is skipped when already present, so a second run costs nothing.
set -eu
cd "$(dirname "$0")/.."

need_apt=""
command -v coqc >/dev/null 2>&1 || need_apt="$need_apt coq"
[ -e /etc/OpenCL/vendors/pocl.icd ] || need_apt="$need_apt pocl-opencl-icd"
[ -e /usr/lib/x86_64-linux-gnu/libOpenCL.so ] || need_apt="$need_apt ocl-icd-opencl-dev"
[ -x /usr/sbin/slurmctld ] && [ -x /usr/sbin/slurmd ] && [ -x /usr/bin/sbatch ] \
    || need_apt="$need_apt slurm-wlm"
[ -x /usr/sbin/munged ] || need_apt="$need_apt munge"
if [ -n "$need_apt" ]; then
    echo "install-deps: apt-get install$need_apt"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need_apt >/dev/null
fi

if [ -x scripts/install-cuda-wheels.sh ]; then
    scripts/install-cuda-wheels.sh
fi
