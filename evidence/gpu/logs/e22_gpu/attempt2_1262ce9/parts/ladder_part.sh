# part of a ladder run by hand, in the layout the runner's parts use: <points>/<h>.parts/
set -u
TOL=$1; STOP=$2
P=results/.points/E22_brutus_convergence_gpu
export LD_LIBRARY_PATH=$PWD/build-gpu-carry-z/libs NBODY_TUNE_CACHE=$PWD/tools/gpu/logs/e22_gpu/tune_cache.json
ARGS="run --ic two-galaxies --seed 1 --r-min 0.0001 --t-end 25 --snapshot-every 0.5 --n 512 --integrator bulirsch-stoer --order 32 --engine cuda-split --precision qd --tol $TOL"
H=$(python3 -c "
import hashlib,json,sys
args='$ARGS'.split(); sha=json.load(open('$P/a6a866ce70ee6ef978086bf68bab6d07.json'))['nbody_sha256']
print(hashlib.sha256(json.dumps({'run':args,'nbody_sha256':sha,'record_format':1}).encode()).hexdigest()[:32])")
D=$P/$H.parts; mkdir -p $D; echo "hash $H"
k=$(ls $D/part-*.summary.json 2>/dev/null | wc -l); k=$((k+1))
RES=""; [ -f $D/checkpoint.bin ] && RES="--resume $D/checkpoint.bin"
timeout -s INT ${LIMIT:-560} build-gpu-carry-z/nbody $ARGS $RES --checkpoint $D/checkpoint.bin --stop-at $STOP --summary $D/part-$k.summary.json --snapshots $D/part-$k.snapshots.csv 2>&1 | tail -3
ls -la $D; tar czf $OUT/parts_$H.tar.gz $D
