"""What the simulator is compared with, recorded on a real GPU in one go (needs numba-cuda and a GPU).

1. Races: every launch shape of bench/race_shapes.py, RUNS plain numba runs each (no gpuviz code in the
   kernel), the outcome of each run (a[0], the counter, the bins' sum; a[1] too for the loop) and the
   launch's time by CUDA events. Then, for the counter's shapes, a probe: the counter with thread 0 of
   each block reading %globaltimer, %clock64 and %smid before and after its read-modify-write, so the
   blocks' starts, lives and the SM clock's rate can be read (the probe's own outcomes are not used).
2. Intrinsics: every case of tests/intrinsic_cases.py compiled by numba-cuda and run; the outputs, or
   the error numba gives, go into the fixture tests/test_intrinsics_on_gpu.py reads. Compiled in
   parallel worker processes after the race measurements, so they never share the GPU with a race.
Usage: python bench/gpu_fidelity.py OUT_DIR [--card NAME] [--date YYYY-MM-DD]; writes OUT_DIR/races.json
and OUT_DIR/gpu_intrinsics.json. `--smoke`: tiny shapes, two runs, a few intrinsics.
"""

from __future__ import annotations

import concurrent.futures
import importlib.util
import json
import multiprocessing
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

from gpuviz.backends.gpu.compat import import_numba_cuda

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import race_shapes  # noqa: E402

from tests import intrinsic_cases  # noqa: E402

SMOKE = "--smoke" in sys.argv
RUNS = 2 if SMOKE else 16
PROBE_RUNS = 1 if SMOKE else 3
READ_ONLY = ("data",)  # inputs no kernel writes: copied to the GPU once per shape


def compile_source(source: str, name: str, folder: Path):
    """A kernel from source text, through a real file (numba reads its lines for messages)."""
    path = folder / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- races -------------------------------------------------------------------------------------
def plain_runs(cuda, kernel, shape, runs: int) -> dict:
    host = shape.inputs()
    fixed = {name: cuda.to_device(host[name]) for name in READ_ONLY if name in host}
    outcomes, seconds, second_element = [], [], []
    for run in range(runs + 1):  # run 0 compiles the kernel (inside its timing): not kept
        fresh = shape.inputs() if shape.kernel in ("loop_add", "counter") else {"bins": np.zeros(shape.bins, np.int32)}
        written = {name: cuda.to_device(value) for name, value in fresh.items()}
        args = [fixed.get(name, written.get(name)) for name in host]
        start, end = cuda.event(), cuda.event()  # timing events by default
        start.record()
        kernel[shape.blocks, shape.threads](*args)
        end.record()
        end.synchronize()
        if run == 0:
            continue
        seconds.append(start.elapsed_time(end) / 1000)  # ms
        arrays = {name: d.copy_to_host() for name, d in written.items()}
        outcomes.append(shape.outcome(arrays))
        if shape.kernel == "loop_add":
            second_element.append(float(arrays["a"][1]))
    row = {"name": shape.name, "kernel": shape.kernel, "blocks": shape.blocks, "threads": shape.threads,
           "values": shape.values, "bins": shape.bins, "outcomes": outcomes, "seconds": seconds}  # fmt: skip
    if second_element:
        row["a1"] = second_element
    return row


PROBE = """
from numba import cuda
from gpuviz.backends.gpu.intrinsics import clock64, globaltimer, smid

timer, cycles, sm = globaltimer(), clock64(), smid()


@cuda.jit
def probe(c, out):
    first = cuda.threadIdx.x == 0
    if first:
        out[0, cuda.blockIdx.x] = timer()
        out[1, cuda.blockIdx.x] = cycles()
    c[0] += 1
    if first:
        out[2, cuda.blockIdx.x] = timer()
        out[3, cuda.blockIdx.x] = cycles()
        out[4, cuda.blockIdx.x] = sm()
"""


def _rate(cycles: np.ndarray, ns: np.ndarray) -> float | None:
    """The SM clock's cycles per ns, from the blocks whose life the timer saw (its step is 32 ns)."""
    seen = ns > 0
    return float(np.median(cycles[seen] / ns[seen])) if seen.any() else None


def probe_blocks(cuda, kernel, shape) -> dict:
    """When blocks start and how long they live (ns by %globaltimer), per run; the SM's cycles per ns."""
    summaries = []
    for _ in range(PROBE_RUNS):
        out = cuda.to_device(np.zeros((5, shape.blocks), np.int64))
        kernel[shape.blocks, shape.threads](cuda.to_device(np.zeros(1, np.int32)), out)
        cuda.synchronize()
        start, clock_start, end, clock_end, sms = out.copy_to_host()
        origin = start.min()
        per_sm = min(race_shapes.BLOCKS_PER_SM, race_shapes.THREADS_PER_SM // shape.threads)
        resident = race_shapes.SMS * per_sm
        gaps = []
        for s in np.unique(sms):
            on_sm = np.sort(start[sms == s])
            gaps += np.diff(on_sm[per_sm:]).tolist() if len(on_sm) > per_sm else []
        lives = end - start
        summaries.append({
            "last_start_ns": int(start.max() - origin), "last_end_ns": int(end.max() - origin),
            "first_wave_start_spread_ns": int(np.ptp(start[:resident])),
            "block_life_ns_median": float(np.median(lives)), "block_life_ns_p90": float(np.percentile(lives, 90)),
            "gap_between_starts_on_an_sm_ns_median": float(np.median(gaps)) if gaps else None,
            "cycles_per_ns": _rate(clock_end - clock_start, lives),
            "sms_used": int(len(np.unique(sms))),
        })  # fmt: skip
    return {"name": shape.name, "probe": summaries}


def measure_races(cuda, folder: Path, out_path: Path, shapes) -> list[dict]:
    kernels = {k: getattr(compile_source(src, k, folder), k) for k, src in race_shapes.SOURCES.items()}
    probe = compile_source(PROBE, "probe", folder).probe
    rows = []
    for shape in shapes:
        rows.append(plain_runs(cuda, kernels[shape.kernel], shape, RUNS))
        if shape.kernel == "counter":
            rows[-1].update(probe_blocks(cuda, probe, shape))
        low, high = min(rows[-1]["outcomes"]), max(rows[-1]["outcomes"])
        print(f"{shape.name}: {low:g}-{high:g} median {statistics.median(rows[-1]['outcomes']):g}", flush=True)
        out_path.write_text(json.dumps(rows, indent=1))  # kept even if a later shape fails
    return rows


# ---- intrinsics --------------------------------------------------------------------------------
def record_intrinsic(intrinsic: str, dtype: str, keys: list[str]) -> dict[str, object]:
    """One intrinsic at one operand type over its input keys (in a worker process): outputs or the refusal."""
    cuda = import_numba_cuda()
    folder = Path(tempfile.mkdtemp())
    results: dict[str, object] = {}
    try:
        kernel = compile_source(intrinsic_cases.source(intrinsic), f"k_{intrinsic}_{dtype}", folder).k
    except Exception as error:  # noqa: BLE001 - recorded: what numba says is the finding
        return {key: {"error": f"{type(error).__name__}: {str(error).splitlines()[0][:300]}"} for key in keys}
    for key in keys:
        arrays = intrinsic_cases.inputs(key)
        out = intrinsic_cases.output(intrinsic, dtype, key)
        grid, block = intrinsic_cases.launch_shape(key)
        try:
            device_out = cuda.to_device(out)
            kernel[grid, block](*(cuda.to_device(arrays[n]) for n in ("v", "same", "quit")), device_out)
            cuda.synchronize()
            results[key] = {"out": device_out.copy_to_host().tolist()}
        except Exception as error:  # noqa: BLE001 - a typing error surfaces at the first launch
            results[key] = {"error": f"{type(error).__name__}: {str(error).splitlines()[0][:300]}"}
    return results


def record_intrinsics(out_path: Path, card: str, date: str, versions: dict) -> dict:
    groups: dict[tuple[str, str], list[str]] = {}
    for intrinsic, dtype, key in intrinsic_cases.cases():
        groups.setdefault((intrinsic, dtype), []).append(key)
    if SMOKE:
        groups = dict(list(groups.items())[:3])
    outputs: dict[str, object] = {}
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=1 if SMOKE else 8, mp_context=context) as pool:
        futures = {pool.submit(record_intrinsic, i, d, keys): (i, d) for (i, d), keys in groups.items()}
        for future, (intrinsic, _) in futures.items():
            for key, result in future.result().items():
                outputs[f"{intrinsic}|{key}"] = result
    keys = sorted({key for keys in groups.values() for key in keys})
    fixture = {
        "recorded": {"card": card, "date": date, **versions, "script": "bench/gpu_fidelity.py"},
        "sources": {name: intrinsic_cases.source(name) for name, _ in groups},
        "inputs": {key: {n: a.tolist() for n, a in intrinsic_cases.inputs(key).items()} for key in keys},
        "outputs": outputs,
    }
    out_path.write_text(json.dumps(fixture, separators=(",", ":")))
    refused = sorted({k.replace("|", " ").split("/")[0] for k, r in outputs.items() if "error" in r})
    print(f"intrinsics: {len(outputs)} cases, refused by numba: {', '.join(refused) or 'none'}", flush=True)
    return fixture


def option(name: str, default: str) -> str:
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def main() -> None:
    values = {sys.argv[k + 1] for k, a in enumerate(sys.argv[:-1]) if a in ("--card", "--date")}
    folders = [a for a in sys.argv[1:] if not a.startswith("--") and a not in values]
    out_dir = Path(folders[0] if folders else ".")  # `--smoke` alone: here
    out_dir.mkdir(parents=True, exist_ok=True)
    cuda = import_numba_cuda()
    import numba_cuda

    name = getattr(cuda.get_current_device(), "name", "numba's CUDA simulator")
    name = name.decode() if isinstance(name, bytes) else str(name)
    card, date = option("--card", name), option("--date", "unknown")
    versions = {"numba_cuda": numba_cuda.__version__, "numpy": np.__version__}
    print(f"device: {name}; {RUNS} runs a shape", flush=True)
    tiny = [race_shapes.Shape("counter", 4, 64), race_shapes.Shape("histogram", 2, 64, 128, 16)]
    shapes = tiny if SMOKE else race_shapes.SHAPES
    with tempfile.TemporaryDirectory() as folder:
        rows = measure_races(cuda, Path(folder), out_dir / "races.json", shapes)
    (out_dir / "races.json").write_text(json.dumps({"card": card, "date": date, **versions, "runs": RUNS,
                                                    "shapes": rows}, indent=1))  # fmt: skip
    record_intrinsics(out_dir / "gpu_intrinsics.json", card, date, versions)
    print(f"gpu_fidelity shapes={len(rows)} card={card}")


if __name__ == "__main__":
    main()
