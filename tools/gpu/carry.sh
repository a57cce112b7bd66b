# Sourced by the device scripts, from the repository root: `. tools/gpu/carry.sh`.
# A device run's binaries come prebuilt in $CARRY (default build-gpu-carry; tools/gpu/prepare_carry.sh):
# nbody and nbody_tests, each plain or gzipped (NAME.gz: the working tree and carry must stay under
# the device tool's 64 MiB), and libs/ (shared libraries the device's image lacks). Unpacks what
# came gzipped (unless an unpacked copy is newer), puts libs/ on LD_LIBRARY_PATH and sets
# NB (nbody) and NT (nbody_tests) to absolute paths.
CARRY=${CARRY:-build-gpu-carry}
for f in nbody nbody_tests; do
  if [ -f "$CARRY/$f.gz" ] && [ "$CARRY/$f.gz" -nt "$CARRY/$f" ]; then
    gunzip -c "$CARRY/$f.gz" > "$CARRY/$f" && chmod +x "$CARRY/$f"
  fi
done
export LD_LIBRARY_PATH=$PWD/$CARRY/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
NB=$PWD/$CARRY/nbody
NT=$PWD/$CARRY/nbody_tests
