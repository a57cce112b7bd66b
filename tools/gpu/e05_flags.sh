# Sourced by tools/gpu/e05_parts.sh and evidence/gpu/probes/e05_concurrent.sh: `e05_flags METHOD`
# prints the `nbody run` flags of E05's full profile (experiments/E05_long_run.toml) for METHOD on
# the GPU with device-resident steps, without --t-end; an unknown METHOD is an error (status 2).
e05_flags() {
  local base="--ic two-galaxies --n 512 --seed 1 --r-min 1e-4 --precision double --diag-every 0.1 --engine cuda-split --stepping device"
  case $1 in
    dopri5|verner65) echo "$base --integrator $1 --tol 1e-12 --h-min 1e-9 --h-max 1e-5 --controller pi" ;;
    adams-bashforth) echo "$base --integrator adams-bashforth --order 5 --dt 1e-6" ;;
    *) echo "unknown method $1 (dopri5, verner65, adams-bashforth)" >&2; return 2 ;;
  esac
}
