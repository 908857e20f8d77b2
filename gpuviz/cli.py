"""The `gpuviz` command line: run scripts with every launch traced, and inspect trace files."""

from __future__ import annotations

import argparse
import sys
import traceback

import gpuviz
from gpuviz.errors import GpuvizError
from gpuviz.options import BACKEND_CHOICES, LEVELS, SCHEDULES

EXAMPLES = """\
examples:
  gpuviz run examples/vector_add.py                 trace every launch into ./traces/
  gpuviz run examples/racy_counter.py --schedule sequential
  gpuviz run my_script.py --backend sim --sms 4 --out run1 -- --size 100
  gpuviz info traces/000-add_half.npz               what a trace file holds
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
    run.add_argument("--sms", type=int, default=None, help="simulator: number of virtual SMs (default: 132)")
    run.add_argument("--debug", action="store_true", help="show tracebacks for errors")
    run.set_defaults(handler=_run)

    info = commands.add_parser("info", help="summarise a trace file")
    info.add_argument("trace", help="a .npz trace written by gpuviz")
    info.add_argument("--debug", action="store_true", help="show tracebacks for errors")
    info.set_defaults(handler=_info)
    return parser


def _run(args: argparse.Namespace) -> int:
    from gpuviz.options import RunOptions
    from gpuviz.script import ScriptError, run_script
    from gpuviz.session import Session, print_report

    options = RunOptions(backend=args.backend, level=args.level, schedule=args.schedule,
                         seed=args.seed, sms=args.sms)  # fmt: skip
    session = Session(options, out_dir=args.out, report=print_report)
    try:
        run_script(args.script, session, args.script_args)
    except ScriptError as exc:
        if args.debug:
            sys.stderr.write(exc.details)
        raise
    if not session.records:
        print_report("[gpuviz] the script launched no kernel")
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
    for warning in meta.get("warnings", []):
        print(f"warning  {warning}")
    return 0


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
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return args.handler(args)
    except GpuvizError as exc:
        if args.debug:
            traceback.print_exc()
            if getattr(exc, "details", None):
                print(exc.details, file=sys.stderr)
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

