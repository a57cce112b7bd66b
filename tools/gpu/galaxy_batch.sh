#!/usr/bin/env bash
# Seed S0's three movies on the lent H100 (the `run` device tool), from the repository root:
#   SCENES="collision central-99" tools/gpu/galaxy_batch.sh
#       for each scene, experiments/galaxy_scenes.py run: the run with its HDF5 snapshots, the
#       frames and measures; results/E20_galaxy_scenes.csv, .meta.json and _SCENE.npz, and
#       E20_galaxy_scenes_SCENE_movie_K.tar, copied to $OUT. N= and T_END= make a smaller trial.
# Binaries come prebuilt in $CARRY (tools/gpu/prepare_carry.sh); the step log in $OUT.
NAME=galaxy
. tools/gpu/batch_start.sh
for scene in ${SCENES:-collision central-99 central-10}; do
  step "scene $scene"
  python3 experiments/galaxy_scenes.py run --nbody "$NB" --scene "$scene" --movie-dir "$OUT" --work "$W" \
    ${N:+--n $N} ${T_END:+--t-end $T_END} 2>> "$W/progress.log" | tee -a "$W/steps.log"
  echo "rc=${PIPESTATUS[0]} (scene $scene)" | tee -a "$W/steps.log"
  tail -2 "$W/progress.log" >> "$W/steps.log"
  cp results/E20_galaxy_scenes.csv results/E20_galaxy_scenes.meta.json "results/E20_galaxy_scenes_$scene.npz" "$OUT"/ 2> /dev/null
done
kill $smi_pid 2> /dev/null
cp "$W/steps.log" "$OUT/${NAME}_steps.log"
