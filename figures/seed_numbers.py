"""The seeds' published numbers that the GPU tables (E09-E12) print beside ours, with the
hardware each seed ran on. The seeds are described in docs/sources.md. Every number is a string,
exactly as the seed prints it (decimal commas written as points), so that a table shows the
seed's own digits; float() of it gives the value for a ratio."""

# S0, Table 3: seconds of one force evaluation against N, for S0's best CPU engine
# ("openmp + block + optimierung", the row of its Table 2 repeated) and its tiled OpenCL and CUDA
# kernels. None: "---", not run. S0 states neither the precision nor the CUDA version.
S0_TABLE3_N = [4096, 8192, 16384, 32768, 65536, 131072]
S0_TABLE3_SECONDS = {
    "cpu": ["0.0128", "0.0495", "0.194", "0.774", None, None],
    "opencl": ["0.004", "0.008", "0.026", "0.134", "0.322", "1.18"],
    "cuda": ["0.004", "0.008", "0.0245", "0.115", "0.291", "1.13"],
}
S0_TABLE3_CPU = "Intel Core i7-5820K (6 cores, gcc 6.3.0)"
S0_TABLE3_GPU = "half an NVIDIA Tesla K80 (Google Colab)"

# S1 runs everything at N = 4096 in float and prints billions of interactions per second, on an
# NVIDIA A100 (compute capability 8.0, 108 multiprocessors, built with nvcc -arch=sm_80; the CUDA
# version is not stated). Its tables have no numbers.
S1_N = 4096
S1_GPU = "NVIDIA A100 (compute capability 8.0)"
# Its first table: block size of the one-thread-per-body kernel (nbody_parallel.cu). Block 1025
# prints a rate although its launch failed ("invalid configuration argument", S1's own
# diagnosis): nothing was computed.
S1_BLOCK_SWEEP = {1: "14.749", 2: "27.311", 3: "29.439", 4: "32.508", 8: "33.737", 16: "31.649",
                  30: "33.268", 31: "33.852", 32: "32.320", 64: "32.704", 128: "32.981",
                  256: "31.359", 512: "28.857", 1023: "20.423", 1024: "20.092", 1025: "783.982"}
S1_FAILED_LAUNCH = 1025
# Its second and third tables: the shared-memory kernel with BLOCK_STRIDE blocks per body
# (nbody_shared.cu; nbody-lab's split), block size at stride 4, then stride at block 128. The
# shape (128, 4) is in both, printed as 218.453 and as 197.147.
S1_SPLIT_SWEEPS = {
    "block size at split 4": {(8, 4): "112.448", (16, 4): "168.277", (32, 4): "202.379",
                              (64, 4): "201.166", (128, 4): "218.453", (256, 4): "178.102",
                              (512, 4): "113.207"},
    "split at block 128": {(128, 4): "197.147", (128, 8): "227.026", (128, 16): "246.724",
                           (128, 32): "256.532", (128, 64): "184.163", (128, 128): "126.716"},
}

# S2, Table 14-1: loop unrolling in the book's simple kernel (float4 bodies read from global
# memory, one body per thread), float. The table's body is not in the text; its prose gives three
# rates, in 亿 (10^8) interactions per second. The GPU, N and CUDA version are not named.
S2_UNROLL = {1: "250", 2: "300", 16: "343"}
S2_UNIT_EXPONENT = 8
