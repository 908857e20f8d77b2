"""The `gpuviz` command line: run scripts with every launch traced, and inspect trace files."""

from __future__ import annotations

import argparse
import sys
import traceback

import gpuviz
from gpuviz.core.errors import GpuvizError
from gpuviz.core.options import BACKEND_CHOICES, DEVICES, ENGINES, LEVELS, SCHEDULES

EXAMPLES = """\
examples:
  gpuviz                                            open the app
  gpuviz open examples/racy_counter.py              open the app with a script, ready to run
  gpuviz run examples/vector_add.py                 trace every launch into ./traces/
  gpuviz run examples/racy_counter.py --schedule sequential
  gpuviz run examples/tiled_matmul.py --device t4 --engine reference
  gpuviz run my_script.py --backend sim --sms 4 --out run1 -- --size 100
  gpuviz run examples/racy_counter.py --repeat 20   outcomes of 20 runs from the same inputs
  gpuviz races traces/000-cudakernel0.npz           which threads race, where, on which line
  gpuviz info traces/000-add_half.npz               what a trace file holds
  gpuviz render traces/000-k.npz --view timeline --out t.svg   a view as a picture, no window
  gpuviz list                                       the lessons and examples
  gpuviz demo 03 --grid 1 --block 1                 a lesson with another launch, checked
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpuviz",
        description="See what a GPU really does when a CUDA kernel runs.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"gpuviz {gpuviz.__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks for errors")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = commands.add_parser(
        "run",
        help="run a numba-cuda script, tracing every kernel launch",
        description="Run SCRIPT unmodified; each kernel launch is instrumented, executed and saved "
        "as OUT/NNN-<kernel>.npz.",
    )
    run.add_argument("script", help="a Python script that launches numba-cuda kernels")
    run.add_argument("script_args", nargs="*", help="arguments for the script, after --")
    run.add_argument("--backend", choices=BACKEND_CHOICES, default="auto",
                     help="auto (GPU if usable, else simulator), sim or gpu (default: auto)")  # fmt: skip
    run.add_argument("--out", default="traces", help="folder for trace files (default: ./traces)")
    run.add_argument("--level", choices=LEVELS, default="auto",
                     help="record threads only, or memory accesses too (default: auto by size)")  # fmt: skip
    run.add_argument("--schedule", choices=SCHEDULES, default="gpu",
                     help="simulator: gpu (lockstep warps, waves) or sequential (default: gpu)")  # fmt: skip
    run.add_argument("--seed", type=int, default=0, help="simulator: schedule seed (default: 0)")
    run.add_argument("--sms", type=int, default=None, help="simulator: number of virtual SMs (default: the device's)")
    run.add_argument("--device", choices=DEVICES, default="h200",
                     help="simulator: the GPU to model (NVIDIA compute-capability tables; default: h200)")  # fmt: skip
    run.add_argument("--blocks", default="",
                     help="simulator: record accesses of these blocks only, e.g. 0,1,-1 (default: all)")  # fmt: skip
    run.add_argument("--engine", choices=ENGINES, default="vector",
                     help="simulator: vector (whole blocks at once) or reference (a generator per thread)")  # fmt: skip
    run.add_argument("--debug", action="store_true", help="show tracebacks for errors", default=argparse.SUPPRESS)
    run.set_defaults(handler=_run)

    run.add_argument("--repeat", type=int, default=1,
                     help="run each launch N times from the same inputs, keeping the outcomes")  # fmt: skip
    races = commands.add_parser(
        "races",
        help="find data races in a trace",
        description="Find accesses of different threads to the same location, at least one a write, that no "
        "barrier orders. Needs a trace recorded at level accesses.",
    )
    races.add_argument("trace", help="a .npz trace written by gpuviz")
    races.add_argument("--json", action="store_true", help="print the report as JSON")
    races.add_argument("--count-benign", action="store_true",
                       help="count several threads writing the same value as a race")  # fmt: skip
    races.add_argument("--max", type=int, default=1000, help="describe at most this many locations")
    races.add_argument("--debug", action="store_true", help="show tracebacks for errors", default=argparse.SUPPRESS)
    races.set_defaults(handler=_races)

    listing = commands.add_parser("list", help="list the catalog: lessons in course order, then examples")
    listing.add_argument("--debug", action="store_true", help="show tracebacks for errors", default=argparse.SUPPRESS)
    listing.set_defaults(handler=_list)

    demo = commands.add_parser("demo", help="run a catalog entry and check it against its reference")
    demo.add_argument("name", help="an entry of `gpuviz list`: its name or its number")
    demo.add_argument("--grid", help="grid for the entry's first launch, e.g. 1 or 16,16")
    demo.add_argument("--block", help="block for the entry's first launch, e.g. 256 or 16,16")
    demo.add_argument("--backend", choices=BACKEND_CHOICES, default="auto", help="auto, sim or gpu")
    demo.add_argument("--out", default="traces", help="folder for trace files (default: ./traces)")
    demo.add_argument("--debug", action="store_true", help="show tracebacks for errors", default=argparse.SUPPRESS)
    demo.set_defaults(handler=_demo)

    render = commands.add_parser("render", help="draw one view of a trace into a PNG or SVG, without a window")
    render.add_argument("trace", help="a .npz trace written by gpuviz")
    render.add_argument("--view", choices=["grid", "data", "timeline", "races", "code"], default="grid")
    render.add_argument("--out", required=True, help="the picture to write: FILE.png or FILE.svg")
    render.add_argument("--size", default="1600x900", help="WIDTHxHEIGHT in pixels (default: 1600x900)")
    render.add_argument("--debug", action="store_true", help="show tracebacks for errors", default=argparse.SUPPRESS)
    render.set_defaults(handler=_render)

    open_ = commands.add_parser("open", help="open the app with a script or a trace")
    open_.add_argument("path", help="a script (opened ready to run) or a .npz trace")
    open_.add_argument("--debug", action="store_true", help="show tracebacks for errors", default=argparse.SUPPRESS)
    open_.set_defaults(handler=_open)

    info = commands.add_parser("info", help="summarise a trace file")
    info.add_argument("trace", help="a .npz trace written by gpuviz")
    info.add_argument("--debug", action="store_true", help="show tracebacks for errors", default=argparse.SUPPRESS)
    info.set_defaults(handler=_info)
    return parser


def _block_list(text: str) -> tuple[int, ...]:
    """'0,1,-1' as linear block numbers; one clear line otherwise."""
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise GpuvizError(f"--blocks {text!r}: give linear block numbers separated by commas, e.g. 0,1,-1") from None


def _run(args: argparse.Namespace) -> int:
    from gpuviz.core.options import RunOptions
    from gpuviz.program.script import ScriptError, run_script
    from gpuviz.run.session import Session, print_events, print_report

    options = RunOptions(backend=args.backend, level=args.level, schedule=args.schedule,
                         seed=args.seed, sms=args.sms, repeat=args.repeat, device=args.device,
                         engine=args.engine, blocks=_block_list(args.blocks))  # fmt: skip
    session = Session(options, out_dir=args.out, notify=print_events)
    try:
        run_script(args.script, session, args.script_args)
    except ScriptError as exc:
        exc.details = exc.details if args.debug else None  # main() prints them once, with --debug
        raise
    if not session.records:
        print_report("[gpuviz] the script launched no kernel")
    return 0


def _list(args: argparse.Namespace) -> int:
    from gpuviz.catalog import catalog

    for entry in catalog():
        kind = "race" if entry.racy else ("lesson" if entry.is_lesson else "example")
        print(f"{entry.name:28s} {kind:8s} {entry.title}: {entry.description}")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from gpuviz.catalog import find
    from gpuviz.run.demo import parse_dims, run_demo
    from gpuviz.run.session import print_events

    entry = find(args.name)
    grid = parse_dims(args.grid, "grid") if args.grid else None
    block = parse_dims(args.block, "block") if args.block else None
    result = run_demo(entry, args.out, print_events, grid, block, args.backend)
    if entry.racy:
        print("\n".join(result.races))
    else:
        print(result.reference)
    return 0


def _render(args: argparse.Namespace) -> int:
    from gpuviz.app.export import parse_size, render_trace

    path = render_trace(args.trace, args.view, args.out, parse_size(args.size))
    print(f"wrote {path}")
    return 0


def _app(args: argparse.Namespace) -> int:
    from gpuviz.app import main as app_main

    return app_main()


def _open(args: argparse.Namespace) -> int:
    from pathlib import Path

    path = Path(args.path)
    if not path.is_file():
        raise GpuvizError(f"no file at {path}; open a .py script or a .npz trace")
    if path.suffix == ".npz":
        gpuviz.load(path)  # a bad trace gets its one-line message before any window opens
    from gpuviz.app import main as app_main

    return app_main(str(path))


def _races(args: argparse.Namespace) -> int:
    import json

    from gpuviz.core.analysis.races import find_races, format_report
    from gpuviz.core.analysis.report import race_report

    if args.max < 1:
        raise GpuvizError(f"--max is {args.max}; describe at least 1 location")
    trace = gpuviz.load(args.trace)
    stored = race_report(trace)  # found once when the launch ran, with the default options
    if stored is not None and not args.count_benign and args.max >= len(stored.races) and not stored.truncated:
        report = stored
    else:
        report = find_races(trace, count_benign=args.count_benign, max_locations=args.max)
    print(json.dumps(report.to_json()) if args.json else format_report(report, trace.kernel))
    return 0


def _info(args: argparse.Namespace) -> int:
    trace = gpuviz.load(args.trace)
    meta = trace.meta
    print(f"kernel   {meta['kernel']}  (launch {meta.get('launch', 0)}, backend {meta['backend']})")
    print(f"launch   grid={tuple(meta['grid'])} block={tuple(meta['block'])} threads={trace.n_threads:,}")
    print(f"device   {meta['device']} ({meta['sm_count']} SMs)")
    sms = len(set(trace.threads["sm"].tolist()))
    span = int(trace.threads["t_end"].max() - trace.threads["t_start"].min()) if trace.n_threads else 0
    print(f"ran on   {sms} SM(s) over {span:,} {meta['time_unit']}(s)")
    for entry in meta.get("arrays", []):
        print(f"array    {entry['name']}: {entry['space']} {entry['dtype']}{tuple(entry['shape'])}")
    events = 0 if trace.accesses is None else len(trace.accesses["thread"])
    capped = " (truncated)" if trace.truncated else ""
    print(f"accesses {events:,} recorded at level '{meta.get('level')}'{capped}")
    outcomes = meta.get("outcomes")
    if outcomes:
        seeds = f" (seeds {outcomes['seeds'][0]}..{outcomes['seeds'][-1]})" if meta["backend"] == "sim" else ""
        print(f"outcomes {outcomes['runs']} runs{seeds}")
        _print_outcomes(trace)
    for warning in meta.get("warnings", []):
        print(f"warning  {warning}")
    return 0


def _print_outcomes(trace, shown: int = 4) -> None:
    from gpuviz.core.analysis.outcomes import outcome_summary

    for name in trace.args:
        runs = trace.outcomes.get(f"{name}.runs")
        if runs is None or (runs == trace.before(name)).all():
            continue
        serial = trace.outcomes.get(f"{name}.sequential")
        lost = trace.outcomes.get(f"{name}.lost")
        for element in range(min(shown, runs[0].size)):
            summary = outcome_summary(runs, serial, element)
            seen = ", ".join(f"{v:g} x{c}" for v, c in zip(summary["values"], summary["counts"]))
            serial_text = f"serial {summary['sequential']:g}; " if "sequential" in summary else ""
            lost_text = ""
            if lost is not None:
                lost_text = f"; lost updates {int(lost.reshape(len(lost), -1)[:, element].mean()):,} on average"
            print(f"         {name}[{element}]: {serial_text}seen {seen}{lost_text}")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    passed_on: list[str] = []
    if "--" in argv:  # everything after -- belongs to the script
        cut = argv.index("--")
        argv, passed_on = argv[:cut], argv[cut + 1 :]
    args = parser.parse_args(argv)
    if passed_on and hasattr(args, "script_args"):
        args.script_args = [*args.script_args, *passed_on]
    if args.command is None:  # no command: the app
        args.handler = _app
    if args.command in ("run", "races", "demo"):  # a process that exists to run and analyse launches
        from gpuviz.run.allocator import keep_freed_memory

        keep_freed_memory()
    try:
        return args.handler(args)
    except GpuvizError as exc:
        if args.debug:
            if getattr(exc, "details", None):
                print(exc.details, file=sys.stderr)
            else:
                traceback.print_exc()
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

