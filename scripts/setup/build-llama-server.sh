#!/usr/bin/env bash
# Builds llama.cpp's llama-server, offline, from the llama.cpp source that node-llama-cpp ships
# in its npm package (a git bundle), once, into .build/llama/bin/llama-server (git-ignored).
# The gateway never needs it: LLM_BACKEND=openai talks to an operator's model server over HTTP.
# The tests of that backend run against this binary, a real OpenAI-compatible server.
# A rebuild happens only when the source, the build flags or the compiler change (the stamp
# file records them).
#
# LLAMA_NATIVE=on|off (default on: tune for this machine's CPU; off for a portable binary),
# LLAMA_BUILD_JOBS (default: the number of cores).
set -euo pipefail
cd "$(dirname "$0")/../.."

bundle="node_modules/node-llama-cpp/llama/gitRelease.bundle"
out=".build/llama"
src="$out/src"
bin="$out/bin/llama-server"

give_up() {
  echo "build-llama-server: $1" >&2
  exit 1
}

[ -f "$bundle" ] || give_up "llama.cpp source bundle not found at $bundle (run npm install)"
command -v git >/dev/null || give_up "git not found (Debian: apt-get install -y git)"
command -v cmake >/dev/null || give_up "cmake not found (Debian: apt-get install -y cmake)"
command -v c++ >/dev/null || give_up "no C++ compiler (Debian: apt-get install -y build-essential)"

# The bundle's commit names the source exactly.
commit="$(git bundle list-heads "$bundle" | head -1 | cut -d' ' -f1)"
[ -n "$commit" ] || give_up "cannot read the commit of $bundle"

native="${LLAMA_NATIVE:-on}"
# No web UI (it would be downloaded) and no libcurl (the server never fetches models here).
flags=(-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF
  -DLLAMA_BUILD_SERVER=ON -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_CURL=OFF -DGGML_OPENMP=OFF
  "-DGGML_NATIVE=$([ "$native" = on ] && echo ON || echo OFF)")

# A native build runs only on CPUs like this one: a cached .build/ on another machine rebuilds.
cpu="$([ "$native" = on ] && sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1 || echo portable)"
stamp="llama.cpp $commit | $(c++ --version | head -1) | ${flags[*]} | cpu ${cpu:-unknown}"
if [ -x "$bin" ] && [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$stamp" ]; then
  echo "build-llama-server: $bin is up to date (llama.cpp ${commit:0:12})"
  exit 0
fi

echo "build-llama-server: building llama-server (llama.cpp ${commit:0:12}, native $native); this takes a few minutes"
mkdir -p "$out/bin"
rm -f "$out/stamp"
build() {
  rm -rf "$src" "$out/cmake" &&
    git clone --quiet "$bundle" "$src" >"$out/build.log" 2>&1 &&
    git -C "$src" -c advice.detachedHead=false checkout --quiet "$commit" >>"$out/build.log" 2>&1 &&
    cmake -S "$src" -B "$out/cmake" "${flags[@]}" >>"$out/build.log" 2>&1 &&
    cmake --build "$out/cmake" --target llama-server -j "${LLAMA_BUILD_JOBS:-$(nproc)}" >>"$out/build.log" 2>&1
}
if ! build; then
  tail -n 30 "$out/build.log" >&2
  give_up "the cmake build failed (full log: $out/build.log)"
fi
cp "$out/cmake/bin/llama-server" "$bin.tmp" && mv "$bin.tmp" "$bin"
# The source and object files are only needed to build; the binary is static.
rm -rf "$src" "$out/cmake"
echo "$stamp" >"$out/stamp"
echo "build-llama-server: built $bin"
