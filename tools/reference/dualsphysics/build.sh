#!/bin/sh
# Builds, from a DualSPHysics source tree SRC (the repository's src/source), DualSPHysics's CPU
# solver as its Makefile_cpu does by default (-O3 -fopenmp -ffast-math), without the Chrono,
# WaveGen and MoorDynPlus couplings the dam break does not use (their libraries are binaries), and
# mkcase, the input writer of CaseDambreakVal2D; both into OUT. Nothing is downloaded.
# Usage: tools/reference/dualsphysics/build.sh SRC OUT
set -eu
[ $# -eq 2 ] || { echo "usage: $0 DUALSPHYSICS_SRC OUT" >&2; exit 2; }
src=$(cd "$1/src/source" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
make -C "$src" -f Makefile_cpu -j"$(nproc)" COMPILE_CHRONO=NO COMPILE_WAVEGEN=NO COMPILE_MOORDYNPLUS=NO \
  EXECS_DIRECTORY="$out" >"$out/build.log"
# mkcase needs the classes of the case's files only.
classes="JXml tinystr tinyxml tinyxmlerror tinyxmlparser Functions JException JObject JBinaryData JPartDataBi4
  JCaseCtes JCaseParts JCaseProperties JRangeFilter JLinearValue JReadDatafile JAppInfo JLog2"
g++ -O1 -std=c++11 -fopenmp -I"$src" "$here/mkcase.cpp" $(for c in $classes; do echo "$src/$c.cpp"; done) \
  -o "$out/mkcase"
echo "built $out/DualSPHysics5.4CPU_linux64 and $out/mkcase"
