#!/bin/sh
# Ryoanji (github.com/exafmm/ryoanji: the cornerstone octree and a Bonsai-style walk with Cartesian
# quadrupoles) built from its own source, for the reference experiment E17_ryoanji, into
# build/reference/ryoanji/ of this repository: the place the runner's requirement
# reference:ryoanji checks (experiments/nbodylab/requirements.py).
#   bin/        ryoanji_bench: bench.cu beside this script (one force evaluation on bodies of
#               `nbody ic`, timed, and its error against direct summation) linked with Ryoanji's
#               kernels (ryoanji/nbody traversal and upsweep) and the cornerstone octree's
#               (sfc, tree, primitives, traversal groups, source centres), compiled by nvcc as
#               Ryoanji's CMake does (C++20, -O3), for CUDA_ARCH (default: 90, the H100)
#   build.log   the compilers' output
#   build.json  the commit, where it came from, and its files; written last, and the folder put in
#               place whole, so a build that fails leaves none (the source it was built from, Ryoanji's
#               ryoanji/src and cstone/include at that commit, is not kept: the binary is all a run needs)
# FROM is a Ryoanji git directory (a clone, or a bare or mirror one), archived at COMMIT (default:
# its HEAD). Nothing is downloaded. JOBS: parallel compilers (default: the cores).
# Usage: tools/reference/ryoanji/build.sh FROM [COMMIT]
#        (make reference-ryoanji RYOANJI_GIT=FROM [RYOANJI_COMMIT=COMMIT])
set -eu
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 RYOANJI_GIT [COMMIT]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
dest=$(cd "$here/../../.." && pwd)/build/reference/ryoanji
tmp=$dest.tmp.$$
arch=${CUDA_ARCH:-90}
command -v nvcc > /dev/null || { echo "$0: no nvcc on PATH (a CUDA toolkit of version 12 or later builds Ryoanji)" >&2; exit 2; }
rm -rf "$tmp"
mkdir -p "$tmp/source" "$tmp/bin" "$tmp/obj"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP
[ "$(git -C "$1" rev-parse --is-bare-repository 2>/dev/null)" = true ] || [ -e "$1/.git" ] ||
  { echo "$0: $1 is not a git directory of Ryoanji" >&2; exit 2; }
commit=$(git -C "$1" rev-parse --verify --quiet "${2:-HEAD}^{commit}") ||
  { echo "$0: $1 has no commit ${2:-HEAD}" >&2; exit 2; }
git -C "$1" archive "$commit" ryoanji/src cstone/include | tar x -C "$tmp/source"
src=$tmp/source
kernels="ryoanji/src/ryoanji/nbody/traversal_gpu.cu ryoanji/src/ryoanji/nbody/upsweep_gpu.cu
  cstone/include/cstone/cuda/device_vector.cu cstone/include/cstone/focus/source_center_gpu.cu
  cstone/include/cstone/primitives/primitives_gpu.cu cstone/include/cstone/sfc/sfc_gpu.cu
  cstone/include/cstone/traversal/groups_gpu.cu cstone/include/cstone/tree/octree_gpu.cu
  cstone/include/cstone/tree/csarray_gpu.cu"
for f in $kernels; do [ -f "$src/$f" ] || { echo "$0: $commit has no $f" >&2; exit 2; }; done
flags="-O3 -DNDEBUG -std=c++20 -arch=sm_$arch -I$src/cstone/include -I$src/ryoanji/src"
echo "building Ryoanji $commit from $1 into $dest for sm_$arch (log: build.log)" >&2
# One object per file, JOBS at a time; the first failure ends the build with its log's end.
{ for f in $kernels; do echo "$src/$f"; done; echo "$here/bench.cu"; } |
  xargs -P "${JOBS:-$(nproc)}" -I{} sh -c 'nvcc $0 -c "$1" -o "$2/$(basename "$1" .cu).o" >> "$2/$(basename "$1" .cu).log" 2>&1 ||
    { echo "$1 did not compile" >> "$2/failed"; exit 255; }' "$flags" {} "$tmp/obj" || true
cat "$tmp"/obj/*.log > "$tmp/build.log" 2>/dev/null || true
if [ -f "$tmp/obj/failed" ]; then
  tail -5 "$tmp/build.log" >&2; echo "$0: $(head -1 "$tmp/obj/failed") (the lines above end the log)" >&2; exit 1
fi
nvcc -arch=sm_$arch "$tmp"/obj/*.o -o "$tmp/bin/ryoanji_bench" >> "$tmp/build.log" 2>&1 ||
  { tail -5 "$tmp/build.log" >&2; echo "$0: ryoanji_bench did not link (the lines above end the log)" >&2; exit 1; }
rm -rf "$tmp/obj" "$tmp/source"
python3 "$here/../finish_build.py" "$tmp" "$dest" commit="$commit" from="$(cd "$1" && pwd)" \
  files.bench=bin/ryoanji_bench compiler="$(nvcc --version | tail -1)" options="${flags%% -I*}" \
  driver=tools/reference/ryoanji/bench.cu driver_sha256="$(sha256sum "$here/bench.cu" | cut -d' ' -f1)"
trap - EXIT
echo "built $dest/bin/ryoanji_bench"
