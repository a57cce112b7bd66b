# Sourced by the device scripts, from the repository root: `. tools/gpu/carry.sh`.
# A device run's binaries come prebuilt in $CARRY (default build-gpu-carry; tools/gpu/prepare_carry.sh):
# nbody and nbody_tests, each plain, gzipped or xz-compressed (NAME.gz, NAME.xz: the working tree
# and carry must stay under the device tool's 64 MiB), and libs/ (shared libraries the device's
# image lacks). Unpacks what came compressed (unless an unpacked copy is newer), puts libs/ on
# LD_LIBRARY_PATH, registers NVIDIA's OpenCL where the image has its library but not its ICD file
# (else the OpenCL engines would run on whatever CPU platform the image registers), and sets NB
# (nbody) and NT (nbody_tests) to absolute paths; tests/gpu/check.sh sources it for its build
# folder. `unpack FILE.gz|.xz DEST` unpacks an executable (Python's lzma: the image may lack xz).
CARRY=${CARRY:-build-gpu-carry}
unpack() {
  case "$1" in
    *.gz) gunzip -c "$1" > "$2" ;;
    *.xz) python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" "$1" "$2" ;;
  esac && chmod +x "$2"
}
for f in nbody nbody_tests; do
  for packed in "$CARRY/$f.gz" "$CARRY/$f.xz"; do
    if [ -f "$packed" ] && [ "$packed" -nt "$CARRY/$f" ]; then unpack "$packed" "$CARRY/$f"; fi
  done
done
CARRY_DIR=$(cd "$CARRY" && pwd)
if [ -d "$CARRY_DIR/libs" ]; then export LD_LIBRARY_PATH=$CARRY_DIR/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; fi
if ! grep -qs nvidia /etc/OpenCL/vendors/*.icd && python3 -c 'import ctypes; ctypes.CDLL("libnvidia-opencl.so.1")' 2> /dev/null; then
  mkdir -p "$CARRY_DIR/opencl-vendors" && echo libnvidia-opencl.so.1 > "$CARRY_DIR/opencl-vendors/nvidia.icd"
  export OCL_ICD_VENDORS=$CARRY_DIR/opencl-vendors
fi
NB=$CARRY_DIR/nbody
NT=$CARRY_DIR/nbody_tests
