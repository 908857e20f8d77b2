#!/usr/bin/env bash
# The GPU recorder's checks on a machine with an NVIDIA GPU, from the repository root, in under 8 minutes:
# the gpu-marked tests (no Qt needed), instrumentation overhead, %clock64 latencies, the tutorial race timed
# without the recorder and the residency experiment. Logs go to $OUT (default ./gpu-check-logs); the last
# lines of each are the figures. `bench/gpu_check.sh --smoke` (tests/test_bench_smoke.py): every step at tiny
# sizes, the tests only collected.
set -u
smoke=""
if [ "${1:-}" = --smoke ]; then smoke=--smoke; fi
OUT=${OUT:-$PWD/gpu-check-logs}
mkdir -p "$OUT"
export PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD  # keep what the caller put first (a NumPy that numba-cuda imports with)
export GPUVIZ_CACHE_DIR=${GPUVIZ_CACHE_DIR:-$(mktemp -d)}  # compiled kernels: kept out of $OUT
parallel=""
if python3 -c "import xdist" 2>/dev/null; then parallel="-n 8"; fi

step() {  # step NAME SECONDS COMMAND...: run with a time limit, log to $OUT/NAME.log, say how it ended
    local name=$1 limit=$2
    shift 2
    local started=$SECONDS
    timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
    local rc=$?
    echo "== $name: exit $rc in $((SECONDS - started)) s" | tee -a "$OUT/summary.log"
    tail -n 4 "$OUT/$name.log" | tee -a "$OUT/summary.log"
}

python3 -c "import numba_cuda, numpy, sys; print('python', sys.version.split()[0], 'numba-cuda',
numba_cuda.__version__, 'numpy', numpy.__version__)" 2>&1 | tee "$OUT/summary.log"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee -a "$OUT/summary.log"
step residency 70 python3 bench/gpu_residency.py $smoke
step overhead 90 python3 bench/gpu_overhead.py $smoke
step latency 40 python3 bench/gpu_latency.py $smoke
step race_timing 30 python3 bench/gpu_race_timing.py ${smoke:-20}
if [ -n "$smoke" ]; then parallel="--collect-only"; fi
step tests 250 python3 -m pytest -q -m gpu -p no:cacheprovider -p no:pytest-qt -rfE $parallel tests
