#!/usr/bin/env bash
# Builds node-llama-cpp's native addon with CUDA, offline, from the llama.cpp source its npm
# package ships (llama/gitRelease.bundle), with real code for CUDA_ARCHITECTURES
# (cuda-architectures.sh). The prebuilt @node-llama-cpp/linux-x64-cuda carries real code only for
# sm_86, sm_89, sm_120a and sm_121a: on a T4, A100, H100 or H200 every gateway start would
# JIT-compile its kernels. This uses node-llama-cpp's documented source build
# (`node-llama-cpp source download` / `source build`, CMake options through
# NODE_LLAMA_CPP_CMAKE_OPTION_<name>), in the mode its own CI builds the prebuilt binaries with
# (CI=true --ciMode): GGML_NATIVE off, every x86-64 CPU variant built and picked at run time, and
# the result in localBuilds/linux-x64-cuda, the folder getLlama({gpu: 'cuda'}) loads before any
# prebuilt binary.
#
#   scripts/setup/build-llama-addon.sh                 # build (needs nvcc, cmake, a C++ compiler)
#   scripts/setup/build-llama-addon.sh --print-flags   # the CMake options it would build with
#
# No GPU is needed to build (an image build sees none). About 4 minutes per architecture on 16 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/setup/cuda-architectures.sh

options=("CMAKE_CUDA_ARCHITECTURES=$(cuda_architectures)")
if [ "${1:-}" = --print-flags ]; then
  printf 'NODE_LLAMA_CPP_CMAKE_OPTION_%s\n' "${options[@]}"
  exit 0
fi

give_up() {
  echo "build-llama-addon: $1" >&2
  exit 1
}
[ -f node_modules/node-llama-cpp/llama/gitRelease.bundle ] || give_up "node-llama-cpp's llama.cpp source bundle is missing (run npm install)"
command -v nvcc >/dev/null || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] || give_up "nvcc not found (the CUDA toolkit)"
command -v cmake >/dev/null || give_up "cmake not found (Debian: apt-get install -y cmake)"
command -v git >/dev/null || give_up "git not found (it unpacks the source bundle)"

out=node_modules/node-llama-cpp/llama/localBuilds/linux-x64-cuda
export CI=true
for option in "${options[@]}"; do export "NODE_LLAMA_CPP_CMAKE_OPTION_${option%%=*}=${option#*=}"; done
echo "build-llama-addon: building node-llama-cpp's CUDA addon for $(cuda_architectures); this takes several minutes"
# --skipBuild: only unpack the bundled source (no network: the bundle matches the package's release).
npx --no node-llama-cpp source download --skipBuild --noUsageExample
npx --no node-llama-cpp source build --gpu cuda --ciMode --noCustomCmakeBuildOptionsInBinaryFolderName --noUsageExample
[ -f "$out/buildDone.status" ] && [ -f "$out/Release/_nlcBuildMetadata.json" ] || give_up "the build left no finished build in $out"
echo "build-llama-addon: built $out"
