#!/bin/sh
# DualSPHysics built from its own source, for the reference experiment
# E19_sph_dam_break_dualsphysics, into build/reference/dualsphysics/ of this repository: the place
# the runner's requirement reference:dualsphysics checks (experiments/nbodylab/requirements.py).
#   source/     the tree it is built from: DualSPHysics's src/source and examples/main/01_DamBreak
#   bin/        DualSPHysics's CPU solver as its Makefile_cpu builds it by default (g++ -O3 -fopenmp
#               -ffast-math), without the Chrono, WaveGen and MoorDynPlus couplings the dam break
#               does not use (their libraries are binaries), and mkcase (mkcase.cpp), the input
#               writer of CaseDambreakVal2D in place of DualSPHysics's binary-only GenCase
#   build.log   the compilers' output
#   build.json  the commit, where it came from, and its files (solver, mkcase, source); written
#               last, and the folder put in place whole, so a build that fails leaves none
# FROM is a DualSPHysics git directory (a clone, or a bare or mirror one), archived at COMMIT
# (default: its HEAD), or a source tree holding src/source, copied as it is (COMMIT, if given, is
# recorded as its commit). Nothing is downloaded. JOBS: parallel compilers (default: the cores).
# Usage: tools/reference/dualsphysics/build.sh FROM [COMMIT]
#        (make reference-dualsphysics DUALSPHYSICS_GIT=FROM [DUALSPHYSICS_COMMIT=COMMIT])
set -eu
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 DUALSPHYSICS_GIT_OR_SOURCE [COMMIT]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
dest=$(cd "$here/../../.." && pwd)/build/reference/dualsphysics
tmp=$dest.tmp.$$
parts="src/source examples/main/01_DamBreak"
rm -rf "$tmp"
mkdir -p "$tmp/source" "$tmp/bin"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP
# A git directory only where FROM is one itself: a source tree inside some other checkout is not.
if [ "$(git -C "$1" rev-parse --is-bare-repository 2>/dev/null)" = true ] || [ -e "$1/.git" ]; then
  commit=$(git -C "$1" rev-parse --verify --quiet "${2:-HEAD}^{commit}") ||
    { echo "$0: $1 has no commit ${2:-HEAD}" >&2; exit 2; }
  git -C "$1" archive -o "$tmp/source.tar" "$commit" $parts
  tar xf "$tmp/source.tar" -C "$tmp/source"
  rm "$tmp/source.tar"
elif [ -f "$1/src/source/Makefile_cpu" ]; then
  commit=${2:-}
  for p in $parts; do
    mkdir -p "$tmp/source/$(dirname "$p")"
    cp -R "$1/$p" "$tmp/source/$p"
  done
else
  echo "$0: $1 is neither a git directory nor a DualSPHysics source tree (no src/source/Makefile_cpu)" >&2
  exit 2
fi
src=$tmp/source/src/source
solver=$(sed -n 's/^EXECNAME=//p' "$src/Makefile_cpu")
echo "building DualSPHysics ${commit:-(commit unknown)} from $1 into $dest (log: build.log)" >&2
make -C "$src" -f Makefile_cpu -j"${JOBS:-$(nproc)}" COMPILE_CHRONO=NO COMPILE_WAVEGEN=NO COMPILE_MOORDYNPLUS=NO \
  EXECS_DIRECTORY="$tmp/bin" >"$tmp/build.log" 2>&1 ||
  { tail -5 "$tmp/build.log" >&2; echo "$0: DualSPHysics's make failed (the lines above end its log)" >&2; exit 1; }
# mkcase needs the classes of the case's files only.
classes="JXml tinystr tinyxml tinyxmlerror tinyxmlparser Functions JException JObject JBinaryData JPartDataBi4
  JCaseCtes JCaseParts JCaseProperties JRangeFilter JLinearValue JReadDatafile JAppInfo JLog2"
g++ -O1 -std=c++11 -fopenmp -I"$src" "$here/mkcase.cpp" $(for c in $classes; do echo "$src/$c.cpp"; done) \
  -o "$tmp/bin/mkcase" >>"$tmp/build.log" 2>&1 ||
  { tail -5 "$tmp/build.log" >&2; echo "$0: mkcase did not compile (the lines above end the log)" >&2; exit 1; }
[ -x "$tmp/bin/$solver" ] || { echo "$0: the build made no bin/$solver" >&2; exit 1; }
python3 "$here/../finish_build.py" "$tmp" "$dest" commit="$commit" from="$(cd "$1" && pwd)" \
  files.solver="bin/$solver" files.mkcase=bin/mkcase files.source=source compiler="g++ $(g++ -dumpfullversion)" \
  options="Makefile_cpu's defaults, COMPILE_CHRONO/WAVEGEN/MOORDYNPLUS=NO"
trap - EXIT
echo "built $dest/bin/$solver and $dest/bin/mkcase"
