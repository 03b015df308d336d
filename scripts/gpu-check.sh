#!/usr/bin/env bash
# The CUDA half of the checks, for a machine with an NVIDIA GPU (see shared/GPU.md).
#
#   OUT=/some/folder scripts/gpu-check.sh        # from the repository root
#
# Needs only what such a machine has: python3 with torch (CUDA build), pytest, hypothesis,
# jinja2 and PyYAML; the project runs from the working tree (PYTHONPATH), nothing is installed.
# The step limits add up to 555 s without the cluster step (one device command of ten
# minutes), 705 s with it: there, run STEPS="validate tests batch grade-one" and STEPS=cluster as
# two commands (STEPS: the steps to run; default all). The steps: `grade validate` on CPU and
# CUDA (references and alternatives at full marks, starters and mutants failing, on both
# devices), the grader's tests whose CUDA cases are skipped elsewhere (engine, codec, the
# adversarial suite in both isolation tiers with its GPU cases, the CPU+CUDA batch merge), a
# timed batch, the one-learner benchmark with CUDA, and (where Dask is installed: pip install
# "torch-grader[cluster]") `grade batch --cluster local:2` with a real GPU worker: its gradebook
# equals --jobs 2's, and CUDA passes run on the GPU worker only. Logs, the
# JUnit XML of validate and a summary go to $OUT (default: out/gpu-check); the exit code is 0
# only if every step passed.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-out/gpu-check}
mkdir -p "$OUT"
exec > >(tee "$OUT/summary.txt") 2>&1
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 NO_COLOR=1
PY=${PYTHON:-python3}
status=0
STEPS=" ${STEPS:-validate tests batch grade-one cluster} "
step() {  # step NAME TIMEOUT COMMAND...: run, log, remember failure, keep going
    local name=$1 limit=$2; shift 2
    case "$STEPS" in *" $name "*) ;; *) return 0 ;; esac
    echo "== $name ($(date +%T))"
    local started=$SECONDS
    timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
    local rc=$?
    echo "   exit $rc after $((SECONDS - started)) s; last lines:"
    tail -n 12 "$OUT/$name.log" | sed 's/^/   | /'
    [ "$rc" -eq 0 ] || status=1
}
echo "== environment"
nvidia-smi -L 2>&1 | head -4
$PY -c "import torch, sys; print('python', sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.version.cuda, 'available', torch.cuda.is_available(), 'devices', torch.cuda.device_count())"
$PY -c "from grader.engine import LocalEngine; e = LocalEngine(preload=[]); e.__enter__(); print('isolation:', e.isolation); e.__exit__()"
step validate 180 $PY -m grader validate --junit "$OUT/validate.xml"
step tests 240 $PY -m pytest -q -p no:cacheprovider tests/test_engine.py tests/test_codec.py \
    tests/adversarial/test_adversarial.py tests/adversarial/test_namespaces.py tests/test_batch.py::test_cpu_and_cuda_passes_merge_into_one_result
step batch 90 $PY bench/batch.py --students 20 --jobs 8 --no-naive
step grade-one 45 $PY bench/grade_one.py --rounds 2 --device all
case "$STEPS" in *" cluster "*) cluster=1 ;; *) cluster=0 ;; esac
if [ "$cluster" -eq 0 ]; then
    :
elif ! $PY -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
    echo "== cluster: skipped (no GPU)"
elif ! $PY -c "import dask, distributed" 2>/dev/null; then
    echo "== cluster: skipped (Dask is not installed: pip install 'torch-grader[cluster]')"
else
    step cluster 150 $PY -m pytest -q -p no:cacheprovider tests/test_cluster.py \
        -k "gradebook_on_a_cluster or cuda_passes_go_only"
fi
echo "== done: $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
