# SASS-level stall samples of the float tiled kernel at N = 2^20 (I = 2, block 512: launch 18 of the probe)
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
"$NCU" --clock-control none --kernel-name regex:tiled_kernel --launch-skip 18 --launch-count 1 \
  --section SourceCounters --section WarpStateStats --section SchedulerStats --section InstructionStats \
  --section ComputeWorkloadAnalysis --section SpeedOfLight --import-source yes -o $OUT/float_2p20 -f \
  build-probe/regcap_0 > $OUT/ncu_run.log 2>&1
echo "ncu rc=$?"
"$NCU" -i $OUT/float_2p20.ncu-rep --print-details all > $OUT/details.txt 2>&1
"$NCU" -i $OUT/float_2p20.ncu-rep --page source --csv --print-source sass > $OUT/sass.csv 2>&1
ls -la $OUT; grep -iE "Issue Slots Busy|Issued Ipc|No Eligible|Warp Cycles Per Issued|Stall|Pipe" $OUT/details.txt | head -30
