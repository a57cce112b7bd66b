#!/usr/bin/env bash
# The MPI engines on a host with several GPUs, one GPU per rank (E25_multi_gpu_scaling), from the
# repository root with build-gpu-carry carried:
#
#   tools/gpu/mpi_batch.sh        (LIMIT: seconds for E25_multi_gpu_scaling through the runner)
#
# A bounded probe of mpiexec, then 2 and 4 ranks against one process, bit for bit, memcheck on 4
# ranks, racecheck and synccheck of cuda-pairs' passes on 2, nbody_tests [mpi], and
# E25_multi_gpu_scaling through the runner. Ranks sharing one GPU are `make gpu-check`'s (its step
# mpi); E25's CPU scaling on the GPU host is the runner's (run_experiments.sh with
# NBODYLAB_RESULTS=results/machines/h100-host).
PARTS=gpus
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
NAME=mpi_gpus; . tools/gpu/batch_start.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # the device runs as root
MPIEXEC=$(command -v mpiexec)
# (On the 2 x H200 machine a first call stopped here for its 4 minutes: every mpiexec is bounded.)
{ timeout 30 "$MPIEXEC" --version || echo "mpiexec --version: exit $?"; ldd "$NB" | grep -i mpi; lscpu; } >> "$W/provenance.txt" 2>&1
pack

# gpus (a machine with several GPUs): one GPU per rank, chosen from the node-local rank. First a
# probe of mpiexec (bounded; with Open MPI's isolated launcher if the default one does not answer),
# then 2 and 4 ranks against 1 process, bit for bit (which GPU each rank used: apps.csv), memcheck
# on 4 ranks, nbody_tests [mpi] (cuda-pairs' passes added in turn over any split), then E25_multi_gpu_scaling through the runner (its points come back for a next call).
if part gpus; then
  step "one GPU per rank"
  export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader  # one host: shared memory only, no network probing
  { nvidia-smi -L; nvidia-smi topo -m; env | grep -E '^(OMPI_MCA|NCCL)_' | sort; } 2>&1 | tee -a "$W/steps.log"
  probe() {
    timeout 30 "$MPIEXEC" -n 4 --oversubscribe hostname >> "$W/probe.log" 2>&1
    local rc=$?
    echo "probe $* rc=$rc" | tee -a "$W/steps.log"
    return $rc
  }
  probe default || { export OMPI_MCA_plm=isolated; probe plm=isolated; } || { pack; kill $smi_pid; exit 1; }
  cd "$W" || exit 1
  common="--ic plummer --n 5000 --seed 4 --integrator rk4 --dt 0.001 --t-end 0.02 --eps 0.01 --stepping host"
  for p in float double; do
    "$NB" run $common --precision $p --engine cuda-tiled --final-state one.csv --quiet > /dev/null 2>> errors.log
    for r in 2 4; do
      # ENGINE[@LAUNCH]: cuda-pairs by its passes, with its own choice (one pass at this N) and 8.
      for e in mpi:cuda-tiled mpi-ring:cuda-tiled mpi:cuda-pairs mpi:cuda-pairs@split=8 mpi:cuda-split mpi:cuda-naive; do
        case "$r $e" in "2 mpi:cuda-tiled" | "2 mpi:cuda-pairs"*) ;; "2 "*) continue ;; esac
        [ $e = mpi:cuda-naive ] && [ $p = float ] && continue
        launch=; case $e in *@*) launch=${e#*@}; e=${e%@*} ;; esac
        # The other kernels sum in another order than cuda-tiled: their own 1-process run.
        local_e=${e#*:}
        [ $local_e = cuda-tiled ] || "$NB" run $common --precision $p --engine $local_e --launch "$launch" \
          --final-state ref.csv --quiet > /dev/null 2>> errors.log
        ref=one.csv; [ $local_e = cuda-tiled ] || ref=ref.csv
        timeout 120 "$MPIEXEC" -n $r "$NB" run $common --precision $p --engine $e --launch "$launch" --final-state many.csv \
          --summary many.json --quiet > /dev/null 2>> errors.log
        if [ -s many.csv ] && cmp -s $ref many.csv; then v=same; else v=DIFFERENT; fi
        echo "$p $e${launch:+ --launch $launch}, $r ranks on $(nvidia-smi -L | wc -l) GPUs vs 1 process ($local_e): $v" | tee -a gpus.log
        rm -f many.csv many.meta.json many.json ref.csv ref.meta.json
      done
    done
    rm -f one.csv one.meta.json
  done
  cd - > /dev/null
  cat "$W/gpus.log" >> "$W/steps.log"
  pack
  step "memcheck, 4 ranks"
  for e in mpi:cuda-tiled mpi:cuda-split mpi:cuda-pairs; do
    timeout 120 "$MPIEXEC" -n 4 "$SAN" --tool memcheck --error-exitcode 99 "$NB" bench --engine $e --precision double \
      --n 3000 --repeats 1 >> "$W/sanitizer_memcheck.log" 2>&1
    echo "rc=$? (memcheck 4 ranks $e)" >> "$W/sanitizer_summary.log"
  done
  # cuda-pairs split by its passes (4 passes on 2 ranks, the fold kernel too): racecheck and synccheck.
  for tool in racecheck synccheck; do
    timeout 120 "$MPIEXEC" -n 2 "$SAN" --tool $tool --error-exitcode 99 "$NB" bench --engine mpi:cuda-pairs --precision float \
      --n 3000 --repeats 1 --launch split=4 >> "$W/sanitizer_$tool.log" 2>&1
    echo "rc=$? ($tool 2 ranks mpi:cuda-pairs split=4)" >> "$W/sanitizer_summary.log"
  done
  sanitizer_summary
  step "tests [mpi]"
  run_tests "[mpi]"
  # Which GPU each process used while the scaling runs.
  nvidia-smi --query-compute-apps=timestamp,pid,gpu_bus_id,used_memory --format=csv -lms 2000 > "$W/apps.csv" 2>&1 &
  apps_pid=$!
  LIMIT=${LIMIT:-420} run_experiments E25_multi_gpu_scaling
  kill $apps_pid 2> /dev/null
  pack
fi

kill $smi_pid 2> /dev/null
pack
