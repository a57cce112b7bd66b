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

# S0, Tables 5-7: seconds of one force evaluation of the kd-tree walks (and the all-pairs
# "dense" kernels) against the block size (work-group size), two galaxies; the tree built on the
# host and included in the time. Table 5: half a Tesla K80, N = 131072, lambda_crit = 10;
# Table 6: the same GPU, N = 2^20, lambda_crit = 4; Table 7: GeForce GTX 1080 Ti, N = 2^20,
# lambda_crit = 4, "single accuracy" in its title. Tables 5 and 6 state no precision. None:
# "-", not run (the CUDA dense kernel at block 1024).
S0_TREE_BLOCKS = [8, 16, 32, 64, 128, 256, 512, 1024]
S0_TREE_TABLES = {
    "5": {"gpu": "half an NVIDIA Tesla K80", "n": 131072, "lambda": 10, "rows": {
        "opencl+dense": ["5.77", "2.84", "1.46", "1.13", "1.15", "1.14", "1.14", "1.13"],
        "cuda+dense": ["5.44", "2.55", "1.27", "0.96", "0.97", "0.99", "0.99", None],
        "opencl+heap+cycle": ["5.88", "5.65", "5.74", "5.96", "5.37", "5.38", "5.35", "5.38"],
        "opencl+heap+nested": ["4.54", "3.68", "3.98", "5.25", "5.46", "5.41", "5.48", "5.31"],
        "cuda+heap+nested": ["3.62", "2.81", "2.68", "4.26", "4.84", "4.75", "4.8", "4.67"],
        "cuda+heap+nested+tex": ["2.6", "1.51", "0.912", "0.7", "1.85", "1.75", "1.69", "1.61"],
        "cuda+heap+nested+tex+stackless": ["2.3", "1.29", "0.773", "0.5", "0.51", "0.52", "0.52", "0.52"]}},
    "6": {"gpu": "half an NVIDIA Tesla K80", "n": 1048576, "lambda": 4, "rows": {
        "opencl+dense": ["366", "179", "89.9", "69.3", "70.3", "69.1", "68.9", "68.0"],
        "cuda+dense": ["346", "162", "79.6", "60.8", "60.8", "60.7", "59.6", None],
        "opencl+heap+cycle": ["16.2", "18.2", "20.1", "21.2", "21.2", "21.3", "21.2", "21.1"],
        "opencl+heap+nested": ["10.5", "7.63", "6.38", "8.23", "9.95", "9.89", "9.65", "9.66"],
        "cuda+heap+nested": ["8.67", "6.44", "5.39", "5.93", "8.65", "8.61", "8.41", "8.27"],
        "cuda+heap+nested+tex": ["6.38", "3.57", "2.13", "1.44", "3.56", "3.46", "3.30", "3.29"],
        "cuda+heap+nested+tex+stackless": ["5.78", "3.19", "1.83", "1.21", "1.11", "1.10", "1.11", "1.13"]}},
    "7": {"gpu": "NVIDIA GeForce GTX 1080 Ti", "n": 1048576, "lambda": 4, "rows": {
        "opencl+dense": ["47.8", "23.4", "11.6", "11.59", "12.8", "12.8", "12.8", "12.8"],
        "cuda+dense": ["49.0", "23.8", "11.9", "11.8", "11.7", "11.7", "11.7", "11.7"],
        "opencl+heap+cycle": ["7.48", "8.26", "7.73", "7.36", "7.33", "7.27", "7.25", "7.26"],
        "opencl+heap+nested": ["1.33", "1.20", "1.41", "2.46", "2.53", "2.49", "2.44", "2.47"],
        "cuda+heap+nested": ["1.23", "1.10", "1.31", "2.28", "2.29", "2.28", "2.23", "2.25"],
        "cuda+heap+nested+tex": ["0.88", "0.68", "0.654", "1.6", "1.6", "1.6", "1.6", "1.6"],
        "cuda+heap+nested+tex+stackless": ["0.71", "0.47", "0.45", "0.43", "0.43", "0.42", "0.41", "0.395"]}},
}
# Our engine for each of S0's rows.
S0_TREE_ROW_ENGINE = {
    "opencl+dense": "opencl-tiled", "cuda+dense": "cuda-tiled", "opencl+heap+cycle": "opencl-kdtree-cycle",
    "opencl+heap+nested": "opencl-kdtree-nested", "cuda+heap+nested": "cuda-kdtree-nested",
    "cuda+heap+nested+tex": "cuda-kdtree-nested-ldg", "cuda+heap+nested+tex+stackless": "cuda-kdtree-stackless",
}
