. tools/gpu/carry.sh
W=$OUT
for p in float double; do
  for k in 1 4 8 16; do
    for shape in block=256 block=1024 block=256,l1=1; do
      timeout 60 "$NB" bench --engine cuda-kdtree-stackless --precision $p --n 1048576 --repeats 5 --ic two-galaxies --lambda-crit 4 --leaf-size $k --launch $shape > $W/b.csv 2>&1
      [ -s $W/leaf.csv ] || { printf 'leaf_size,'; head -1 $W/b.csv; } > $W/leaf.csv
      printf '%s,' $k >> $W/leaf.csv; tail -1 $W/b.csv >> $W/leaf.csv
    done
  done
done
rm -f $W/b.csv
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv >> $W/provenance.txt 2>&1
