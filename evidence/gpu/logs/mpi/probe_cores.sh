. tools/gpu/carry.sh
b() { OMP_NUM_THREADS=1 taskset -c $1 $NB bench --engine openmp-simd --precision double --n 32768 --repeats 3 | tail -1 | cut -d, -f6; }
echo "alone cpu0: $(b 0)"
for k in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
  b $k > /tmp/other.txt & t=$(b 0); wait; echo "cpu0 with cpu$k busy: $t (cpu$k: $(cat /tmp/other.txt))"
done
for p in 8 16; do
  for k in $(seq 0 $((p-1))); do b $k > /tmp/t$k.txt & done; wait
  echo "all of cpu0-$((p-1)) busy: $(cat /tmp/t*.txt | sort -n | tr '\n' ' ')"; rm -f /tmp/t*.txt
done
for t in 8 16; do echo "openmp-simd $t threads: $(OMP_NUM_THREADS=$t $NB bench --engine openmp-simd --precision double --n 65536 --repeats 3 | tail -1 | cut -d, -f6)"; done
cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list /sys/devices/system/cpu/cpu0/topology/core_cpus_list 2>&1
grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -c hypervisor
