# The GPUs a CUDA build carries real machine code for, one list for whisper-cli
# (build-whisper.sh) and the LLM runtime (build-llama-addon.sh): CMAKE_CUDA_ARCHITECTURES syntax.
# Without real code for a GPU the driver JIT-compiles the PTX at every process start (whisper-cli
# runs once per recording: ~40 s each on an H200) or, where there is no PTX either, the GPU
# cannot run the kernels at all.
#
#   75 Turing (T4, RTX 20xx, Quadro RTX)      86 Ampere (A10, A40, RTX 30xx, RTX A-series)
#   80 Ampere (A100, A30)                     89 Ada (L4, L40S, RTX 40xx, RTX 6000 Ada)
#   90 Hopper (H100, H200, GH200)            120a Blackwell (RTX 50xx, RTX PRO 6000 Blackwell)
#
# ggml turns a plain 120 into 120a itself (Blackwell's FP4 instructions need the arch-specific
# variant); it is written out here so the list says what is built. CUDA 13 cannot build for
# Volta (70) or older: with a CUDA 12 toolkit add 70-real for a V100. Each architecture adds
# build time (one took 190–240 s for whisper-cli on 16 cores) and size, so a site may narrow the
# list to its own GPUs: CUDA_ARCHITECTURES="90-real" (Docker: --build-arg CUDA_ARCHITECTURES=...).
CUDA_ARCHITECTURES_DEFAULT="75-real;80-real;86-real;89-real;90-real;120a-real"

cuda_architectures() {
  printf '%s' "${CUDA_ARCHITECTURES:-$CUDA_ARCHITECTURES_DEFAULT}"
}
