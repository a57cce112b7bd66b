#!/usr/bin/env bash
# Copies what a device run needs into build-gpu-carry/ (ignored by git, named in the run's carry):
# the stripped nbody and nbody_tests of build-gpu/ and the shared libraries the device's Ubuntu
# image may lack (libqd, the OpenCL ICD loader, libquadmath, serial HDF5 with its compression
# libraries). The CUDA runtime is linked statically.
set -euo pipefail
B=${1:-build-gpu}
C=build-gpu-carry
rm -rf "$C"
mkdir -p "$C/libs"
cp "$B/nbody" "$B/tests/nbody_tests" "$C/"
strip "$C/nbody" "$C/nbody_tests"
for lib in libqd.so.0 libOpenCL.so.1 libquadmath.so.0 libhdf5_serial.so.103 libsz.so.2 libaec.so.0; do
  cp -L "/usr/lib/x86_64-linux-gnu/$lib" "$C/libs/"
done
du -sh "$C"
