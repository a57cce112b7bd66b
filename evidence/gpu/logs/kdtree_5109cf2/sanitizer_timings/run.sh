rm -rf /tmp/nbody-work
. tools/gpu/carry.sh
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
W=$OUT
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu,pstate --format=csv > $W/provenance.txt 2>&1
date -u +%FT%TZ >> $W/provenance.txt
for e in cuda-kdtree-cycle cuda-kdtree-nested cuda-kdtree-nested-ldg cuda-kdtree-stackless; do
  for c in "float block=32 --leaf-size 1" "double block=96,l1=1 --leaf-size 8 --r-min 0.05"; do
    set -- $c; p=$1 shape=$2; shift 2
    for tool in memcheck racecheck synccheck; do
      timeout 60 "$SAN" --tool $tool --error-exitcode 99 "$NB" bench --engine $e --precision $p --n 333 --repeats 1 --ic two-galaxies --lambda-crit 2 --launch $shape "$@" > $W/san.log 2>&1
      echo "rc=$? $tool $e $p $shape $* | $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY\|SYNCCHECK SUMMARY' $W/san.log | head -1)" >> $W/sanitizer_summary.txt
    done
  done
done
for tool in memcheck racecheck synccheck; do
  timeout 60 "$SAN" --tool $tool --error-exitcode 99 "$NB" bench --engine cuda-kdtree-stackless --precision double --n 333 --repeats 1 --ic two-galaxies --lambda-crit 2 --launch block=64,host_build=1 > $W/san.log 2>&1
  echo "rc=$? $tool host_build | $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY\|SYNCCHECK SUMMARY' $W/san.log | head -1)" >> $W/sanitizer_summary.txt
done
rm -f $W/san.log
for p in float double; do
  for e in cuda-kdtree-cycle cuda-kdtree-nested cuda-kdtree-nested-ldg cuda-kdtree-stackless; do
    for shape in block=128 block=256 block=128,host_build=1; do
      timeout 60 "$NB" bench --engine $e --precision $p --n 1048576 --repeats 5 --ic two-galaxies --lambda-crit 4 --launch $shape > $W/b.csv 2>&1
      [ -s $W/timings.csv ] || head -1 $W/b.csv > $W/timings.csv
      tail -1 $W/b.csv >> $W/timings.csv
    done
  done
  timeout 60 "$NB" bench --engine cuda-tiled --precision $p --n 1048576 --repeats 3 --ic two-galaxies > $W/b.csv 2>&1
  tail -1 $W/b.csv >> $W/timings.csv
done
rm -f $W/b.csv
nvidia-smi --query-gpu=clocks.sm,temperature.gpu --format=csv >> $W/provenance.txt 2>&1
