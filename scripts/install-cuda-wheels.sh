#!/bin/sh
# Installs NVIDIA's PTX assembler and SASS disassemblers from PyPI wheels into .tools/cuda, for
# optcheck (src/gpu/optcheck.rs): ptxas (wheel nvidia-cuda-nvcc), nvdisasm (nvidia-cuda-nvdisasm),
# cuobjdump (nvidia-cuda-cuobjdump). No GPU and no driver are needed to assemble and disassemble.
# The versions are pinned: the SASS table of docs/decisions/004-ptx-harness.md was measured with
# them. Skipped when the tools are already there, so a second run costs nothing.
# Without --no-deps pip would also fetch nvvm, crt and the runtime (nvcc's own needs), which
# optcheck does not use.
set -eu
cd "$(dirname "$0")/.."

version=13.5.37
target=.tools/cuda
bin="$target/nvidia/cu13/bin"

if [ -x "$bin/ptxas" ] && [ -x "$bin/nvdisasm" ] && [ -x "$bin/cuobjdump" ]; then
    exit 0
fi
echo "install-cuda-wheels: pip install ptxas, nvdisasm, cuobjdump $version into $target"
PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-deps --upgrade \
    --target "$target" \
    "nvidia-cuda-nvcc==$version" \
    "nvidia-cuda-nvdisasm==$version" \
    "nvidia-cuda-cuobjdump==$version"
"$bin/ptxas" --version | tail -n 2
