"""The `gpuviz` command line: run scripts with every launch traced, and inspect trace files."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import traceback
from contextlib import nullcontext
from pathlib import Path

import gpuviz
from gpuviz.app.views.table import PICTURE_VIEWS
from gpuviz.core.colors import MODES
from gpuviz.core.errors import GpuvizError
from gpuviz.core.frames import ORDERS
from gpuviz.core.modelled import modelled_notes
from gpuviz.core.options import BACKEND_CHOICES, DEVICES, ENGINES, LEVELS, SCHEDULES

MAX_MEMORY_HELP = "memory budget for traces, e.g. 4G or 512M (default: 2G, or GPUVIZ_MEMORY_BUDGET)"
EXAMPLES = """\
examples:
  gpuviz                                            open the app
  gpuviz open examples/racy_counter.py              open the app with a script, ready to run
  gpuviz run examples/vector_add.py                 trace every launch into ./traces/
  gpuviz run examples/racy_counter.py --schedule sequential
  gpuviz run examples/tiled_matmul.py --device t4 --engine reference
  gpuviz run my_script.py --backend sim --sms 4 --out run1 -- --size 100
  gpuviz run examples/racy_counter.py --repeat 20   outcomes of 20 runs from the same inputs
  gpuviz run my_script.py --timeout 60 --max-memory 4G   stop a hung run; a bigger trace budget
  gpuviz races traces/000-cudakernel0.npz           which threads race, where, on which line
  gpuviz info traces/000-add_half.npz               what a trace file holds
  gpuviz memory traces/000-matmul.npz               coalescing, bank conflicts, occupancy, divergence
  gpuviz export traces/000-matmul.npz --out t.json  the timeline for Perfetto (ui.perfetto.dev opens it)
  gpuviz render traces/000-k.npz --view timeline --out t.svg   a view as a picture, no window
  gpuviz render traces/000-k.npz --size 1920x1080 --scale 2 --theme light --at 0.5 --out slide.png
  gpuviz render traces/000-k.npz --animate --fps 8 --size 640x360 --out run.gif   a clip (or run.mp4)
  gpuviz render traces/001-k.npz --view compare --compare-with traces/000-k.npz --out c.png   two launches, one cursor
  gpuviz list                                       the lessons and examples
  gpuviz app --lessons my_lessons/                  the app with a teacher's lessons after the built-in ones
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
    run.add_argument("--allow-errors", action="store_true",
                     help="exit 0 even when a launch had memory errors (as a GPU stays silent)")  # fmt: skip
    run.add_argument("--json", action="store_true",
                     help="print the launches as JSON on stdout (docs/json.md); the script's own output goes to "
                          "stderr")  # fmt: skip
    _exit_options(run)
    run.add_argument("script_args", nargs="*", help="arguments for the script, after --")
    run.add_argument("--backend", choices=BACKEND_CHOICES, default="auto",
                     help="auto (GPU if usable, else simulator), sim or gpu (default: auto)")  # fmt: skip
    run.add_argument("--out", default="traces", help="folder for trace files (default: ./traces)")
    run.add_argument("--level", choices=LEVELS, default="auto",
                     help="record threads only, or memory accesses too (default: auto: every access up to "
                          "2 M threads; above, threads and, on the simulator, the first and last blocks' "
                          "accesses)")  # fmt: skip
    run.add_argument("--schedule", choices=SCHEDULES, default="gpu",
                     help="simulator: gpu (lockstep warps, waves), sequential (one thread at a time) or "
                          "reversed (one at a time, last thread first) (default: gpu)")  # fmt: skip
    run.add_argument("--seed", type=int, default=0, help="simulator: schedule seed (default: 0)")
    run.add_argument("--sms", type=int, default=None, help="simulator: number of virtual SMs (default: the device's)")
    run.add_argument("--device", choices=DEVICES, default="h200",
                     help="simulator: the GPU to model (NVIDIA compute-capability tables; default: h200)")  # fmt: skip
    run.add_argument("--blocks", default="",
                     help="simulator: record accesses of these blocks only, e.g. 0,1,-1 (default: all)")  # fmt: skip
    run.add_argument("--engine", choices=ENGINES, default="auto",
                     help="simulator: auto (fast where this kernel's is compiled already, else vector, which "
                          "hands a long run to fast), vector (whole blocks at once), reference (a generator per "
                          "thread) or fast (compiled for the CPU where its run can stand, else vector) "
                          "(default: auto)")  # fmt: skip
    run.add_argument("--debug", action="store_true", help="show tracebacks for errors", default=argparse.SUPPRESS)
    run.add_argument("--guard", action="store_true",
                     help="GPU, level accesses: check every access against its array first, so that one "
                          "outside it stops its thread and is reported instead of faulting the kernel "
                          "(slower: about 14%% on vector add)")  # fmt: skip
    run.add_argument("--max-memory", metavar="SIZE", help=MAX_MEMORY_HELP)
    run.add_argument("--timeout", type=float, metavar="SECONDS",
                     help="end the run after SECONDS, saying where it was (default: no limit)")  # fmt: skip
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
    races.add_argument("--json", action="store_true", help="print the report as JSON (the same as --format json)")
    races.add_argument("--format", choices=("text", "json", "sanitizer"), default=None,
                       help="text (default), json (docs/json.md) or sanitizer: compute-sanitizer racecheck's "
                            "layout, for log parsers")  # fmt: skip
    races.add_argument("--racecheck-report", choices=("analysis", "hazard"), default="analysis",
                       help="with --format sanitizer: one entry per pair of source accesses (analysis, "
                            "racecheck's default) or per racing location (hazard)")  # fmt: skip
    _exit_options(races)
    races.add_argument("--count-benign", action="store_true",
                       help="count several threads writing the same value as a race")  # fmt: skip
    races.add_argument("--max", type=int, default=1000, help="describe at most this many locations")
    races.add_argument("--debug", action="store_true", help="show tracebacks for errors", default=argparse.SUPPRESS)
    races.add_argument("--max-memory", metavar="SIZE", help=MAX_MEMORY_HELP)
    races.set_defaults(handler=_races)

    memory = commands.add_parser(
        "memory",
        help="coalescing, bank conflicts, occupancy and divergence of a trace",
        description="Group a trace's accesses into warp requests: 32-byte sectors per global request against "
        "the ideal, shared-memory bank conflicts, theoretical and measured occupancy, and divergence.",
    )
    memory.add_argument("trace", help="a .npz trace written by gpuviz")
    memory.add_argument("--json", action="store_true", help="print the analysis as JSON (docs/json.md)")
    _exit_options(memory)
    memory.add_argument("--debug", action="store_true", help="show tracebacks for errors", default=argparse.SUPPRESS)
    memory.set_defaults(handler=_memory)

    listing = commands.add_parser("list", help="list the catalog: lessons in course order, then examples")
    listing.add_argument("--lessons", metavar="DIR", help="also a teacher's folder of lessons (NN-name.py + .md)")
    listing.add_argument("--debug", action="store_true", help="show tracebacks for errors", default=argparse.SUPPRESS)
    listing.set_defaults(handler=_list)

    demo = commands.add_parser("demo", help="run a catalog entry and check it against its reference")
    demo.add_argument("name", help="an entry of `gpuviz list`: its name or its number")
    demo.add_argument("--grid", help="grid for the entry's first launch, e.g. 1 or 16,16")
    demo.add_argument("--block", help="block for the entry's first launch, e.g. 256 or 16,16")
    demo.add_argument("--backend", choices=BACKEND_CHOICES, default="auto", help="auto, sim or gpu")
    demo.add_argument("--out", default="traces", help="folder for trace files (default: ./traces)")
    demo.add_argument("--lessons", metavar="DIR", help="also a teacher's folder of lessons (NN-name.py + .md)")
    demo.add_argument("--check-fix", metavar="FILE", help="run your edited copy of a lesson and check its fix")
    demo.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="with --check-fix: stop the lesson's script after this long (default 120)",
    )
    demo.add_argument("--json", action="store_true", help="print the result as JSON on stdout (docs/json.md)")
    _exit_options(demo)
    demo.add_argument("--debug", action="store_true", help="show tracebacks for errors", default=argparse.SUPPRESS)
    demo.set_defaults(handler=_demo)

    render = commands.add_parser(
        "render",
        help="draw one view of a trace into a picture (PNG, SVG) or a clip (GIF, MP4), without a window",
        description="Draw a view with its title, legend and caption. AT, FROM and TO are frames of the animation: "
        "an index (0, 1, ...) or a fraction of the run with a point (0.5, 1.0).",
    )
    render.add_argument("trace", help="a .npz trace written by gpuviz")
    render.add_argument("--view", choices=PICTURE_VIEWS, default="grid")
    render.add_argument("--out", required=True, help="FILE.png or FILE.svg; with --animate FILE.gif or FILE.mp4")
    render.add_argument("--size", help="WIDTHxHEIGHT in pixels (default: 1600x900; 640x360 for a clip)")
    render.add_argument("--scale", type=float, default=1.0,
                        help="pixels per pixel of --size: 2 draws 1920x1080 as 3840x2160 (default: 1)")  # fmt: skip
    render.add_argument("--theme", choices=("dark", "light"), default="dark", help="colours (default: dark)")
    render.add_argument("--at", help="the frame to draw: N (in the replay: after N events), a fraction 0.0-1.0, or "
                        "t=TIME (default: the last, every thread shown)")  # fmt: skip
    render.add_argument("--element", help="an element to pick, e.g. 'array[0]' (the element story view tells it)")
    render.add_argument("--select", type=int, default=-1, help="a thread (global id) to select and name")
    render.add_argument("--colour-by", choices=MODES, default=MODES[0], help="the grid's colours (default: block)")
    render.add_argument("--order", choices=ORDERS, default=ORDERS[0],
                        help="replay (the recorded execution; the default where accesses were recorded) or the order "
                        "threads light up in")  # fmt: skip
    render.add_argument("--compare-with", metavar="TRACE", help="--view compare: the launch (a .npz trace) to put "
                        "beside this one on one cursor")  # fmt: skip
    render.add_argument("--animate", action="store_true", help="write a clip of the animation's frames")
    render.add_argument("--fps", type=float, default=8, help="clip: frames a second (default: 8)")
    render.add_argument("--from", dest="start", help="clip: the first frame (default: 0)")
    render.add_argument("--to", dest="stop", help="clip: the last frame (default: the last)")
    render.add_argument("--debug", action="store_true", help="show tracebacks for errors", default=argparse.SUPPRESS)
    render.add_argument("--max-memory", metavar="SIZE", help=MAX_MEMORY_HELP)
    render.set_defaults(handler=_render)

    export = commands.add_parser(
        "export",
        help="write a trace's timeline for another tool (Perfetto's trace-event JSON)",
        description="Write the launch's timeline as Chrome trace-event JSON, which Perfetto opens: one process per "
        "SM, one thread per warp slot, resident warps as counters, races as flows (docs/perfetto.md).",
    )
    export.add_argument("trace", help="a .npz trace written by gpuviz")
    export.add_argument("--format", choices=("perfetto",), default="perfetto", help="perfetto (the only one)")
    export.add_argument("--out", required=True, help="FILE.json")
    export.add_argument("--debug", action="store_true", help="show tracebacks for errors", default=argparse.SUPPRESS)
    export.add_argument("--max-memory", metavar="SIZE", help=MAX_MEMORY_HELP)
    export.set_defaults(handler=_export)

    app = commands.add_parser("app", help="open the app (the same as `gpuviz` alone)")
    app.add_argument("--lessons", metavar="DIR", help="also a teacher's folder of lessons (NN-name.py + .md)")
    app.add_argument("--debug", action="store_true", help="show tracebacks for errors", default=argparse.SUPPRESS)
    app.set_defaults(handler=_app)

    open_ = commands.add_parser("open", help="open the app with a script or a trace")
    open_.add_argument("path", help="a script (opened ready to run) or a .npz trace")
    open_.add_argument("--debug", action="store_true", help="show tracebacks for errors", default=argparse.SUPPRESS)
    open_.add_argument("--max-memory", metavar="SIZE", help=MAX_MEMORY_HELP)
    open_.set_defaults(handler=_open)

    info = commands.add_parser("info", help="summarise a trace file")
    info.add_argument("trace", help="a .npz trace written by gpuviz")
    info.add_argument("--json", action="store_true", help="print the summary as JSON (docs/json.md)")
    _exit_options(info)
    info.add_argument("--debug", action="store_true", help="show tracebacks for errors", default=argparse.SUPPRESS)
    info.add_argument("--max-memory", metavar="SIZE", help=MAX_MEMORY_HELP)
    info.set_defaults(handler=_info)
    return parser


def _exit_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--error-exitcode", type=int, metavar="N",
                        help="exit with N when a launch had one of the --error-on causes (docs/json.md has the "
                             "table with --allow-errors)")  # fmt: skip
    parser.add_argument("--error-on", metavar="CAUSES",
                        help="with --error-exitcode: races, memory, barrier, warp-sync, separated by commas "
                             "(default: all four)")  # fmt: skip


def _exit_rule(args: argparse.Namespace):
    from gpuviz.core.findings import exit_rule

    return exit_rule(args.error_exitcode, args.error_on, getattr(args, "allow_errors", False))


def _exit_for(rule, found: list, default: tuple[str, ...] = ()) -> tuple[int, dict]:
    """The command's exit status for its launches' findings, as a number and as the --json "exit" entry;
    a launch whose races were not looked for, under --error-on races, is said on stderr."""
    from gpuviz.core.findings import exit_status, unchecked_races
    from gpuviz.core.json_reports import exit_json

    if unchecked_races(rule, found):
        print("warning: --error-on races: a launch was recorded at level threads, so its races were not looked "
              "for (record with --level accesses)", file=sys.stderr)  # fmt: skip
    status, failed = exit_status(rule, found, default)
    return status, exit_json(status, failed)


def _block_list(text: str) -> tuple[int, ...]:
    """'0,1,-1' as linear block numbers; one clear line otherwise."""
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise GpuvizError(f"--blocks {text!r}: give linear block numbers separated by commas, e.g. 0,1,-1") from None


def _run(args: argparse.Namespace) -> int:
    from gpuviz.core.findings import RUN_DEFAULT
    from gpuviz.core.json_reports import exit_json
    from gpuviz.core.options import RunOptions
    from gpuviz.program.script import ScriptError, run_script
    from gpuviz.run.session import Session
    from gpuviz.run.terminal import TerminalEvents, print_report, stdout_to_stderr
    from gpuviz.run.watchdog import Watchdog

    options = RunOptions(backend=args.backend, level=args.level, schedule=args.schedule,
                         seed=args.seed, sms=args.sms, repeat=args.repeat, device=args.device,
                         engine=args.engine, blocks=_block_list(args.blocks), stop_stuck=args.timeout is None,
                         guard=args.guard, **_budget(args))  # fmt: skip
    rule = _exit_rule(args)  # before the script runs: a bad --error-on is one line, not a wasted run
    session = Session(options, out_dir=args.out, notify=TerminalEvents())
    if getattr(args, "say", None) is not None:  # in a process of its own: the parent hears of each launch
        from gpuviz.run.own_process import report_launches

        report_launches(session, args.script, args.say)
    chosen = None  # the status a script gave sys.exit, as Python would exit with it
    try:
        with Watchdog(args.timeout, session, args.script) if args.timeout is not None else nullcontext(), \
                stdout_to_stderr() if args.json else nullcontext():  # fmt: skip
            run_script(args.script, session, args.script_args)
    except GpuvizError as exc:
        chosen = exc.exit_code if isinstance(exc, ScriptError) else None
        if chosen is None:
            if isinstance(exc, ScriptError):
                exc.details = exc.details if args.debug else None  # main() prints them once, with --debug
            if args.json:  # stdout still holds one document: the launches that ran, and why the run stopped
                _print_run_json(args, session.records, {**exit_json(1, []), "error": str(exc)})
            raise
    if not session.records:
        print_report("[gpuviz] the script launched no kernel")
    status, exit_ = _exit_for(rule, [r.findings for r in session.records], RUN_DEFAULT)
    if status:
        print_report(_failed_line(session.records, exit_["failed_on"], status, args.error_exitcode is None))
    if chosen is not None:
        status, exit_ = chosen, {**exit_, "status": chosen}
    if args.json:
        _print_run_json(args, session.records, exit_)
    return status


def _print_run_json(args: argparse.Namespace, records: list, exit_: dict) -> None:
    from gpuviz.core.json_schema import envelope

    document = {**envelope("run"), "script": str(args.script), "out": str(args.out),
                "launches": [r.to_json() for r in records], "exit": exit_}  # fmt: skip
    print(json.dumps(document), flush=True)


def _failed_line(records: list, failed_on: list[str], status: int, default_rule: bool) -> str:
    faulty = sum(1 for r in records if any(r.findings.count(cause) for cause in failed_on))
    if default_rule:  # the line gpuviz has always printed
        return (
            f"[gpuviz] {faulty} launch(es) had memory errors, barrier or warp-sync divergence "
            "(exit status 1; --allow-errors gives 0)"
        )
    words = {"races": "races", "memory": "memory errors", "barrier": "barrier divergence",
             "warp-sync": "warp-sync divergence"}  # fmt: skip
    said = ", ".join(words[cause] for cause in failed_on)
    return f"[gpuviz] {faulty} launch(es) had {said} (exit status {status}, from --error-exitcode)"


def _list(args: argparse.Namespace) -> int:
    from gpuviz.catalog import catalog

    problems: list[str] = []
    for entry in catalog(args.lessons, problems):
        # a lesson is never listed as a race: that is what its question asks
        kind = "lesson" if entry.is_lesson else ("race" if entry.racy else "example")
        print(f"{entry.name:28s} {kind:8s} {entry.title}: {entry.description}")
    for problem in problems:  # every other lesson is listed; each bad one is a line and the exit status 1
        print(f"error: {problem}", file=sys.stderr)
    return 1 if problems else 0


def _demo(args: argparse.Namespace) -> int:
    from gpuviz.catalog import find
    from gpuviz.core.plain_times import plain_time_lines
    from gpuviz.run.demo import lesson_checks, parse_dims, run_demo
    from gpuviz.run.fix_check import FixLimits, check_fix
    from gpuviz.run.terminal import TerminalEvents, stdout_to_stderr

    entry, print_events = find(args.name, args.lessons), TerminalEvents()
    if args.timeout is not None and args.check_fix is None:
        raise GpuvizError(f"--timeout {args.timeout:g} limits a fix check: give --check-fix FILE too")
    if args.timeout is not None and not 0 < args.timeout < float("inf"):
        raise GpuvizError(f"--timeout {args.timeout:g}: give a number of seconds above 0")
    rule = _exit_rule(args)
    if args.check_fix is not None and args.error_exitcode is not None:
        raise GpuvizError("--error-exitcode judges a demo's launches; a fix check's verdict is its exit status "
                          "(0 passed, 1 not yet): give one of --check-fix and --error-exitcode")  # fmt: skip
    quiet = stdout_to_stderr() if args.json else nullcontext()  # stdout holds the JSON alone
    if args.check_fix is not None:
        limits = FixLimits() if args.timeout is None else FixLimits(seconds=args.timeout)
        with quiet:
            fixed = check_fix(entry, args.check_fix, args.out, print_events, args.backend, limits)
        status = 0 if fixed.passed else 1
        if args.json:
            _print_demo_json(entry, [], None, [], [], fixed.passed, {"status": status, "failed_on": []},
                             fix=fixed.lines())  # fmt: skip
        else:
            print("\n".join(fixed.lines()))
        return status
    grid = parse_dims(args.grid, "grid") if args.grid is not None else None  # --block '' is refused, not ignored
    block = parse_dims(args.block, "block") if args.block is not None else None
    with quiet:
        result = run_demo(entry, args.out, print_events, grid, block, args.backend)
        outcomes = lesson_checks(entry, result)
    unmeasured = any(outcome.observed is None for outcome in outcomes)  # the lesson cannot be checked on this run
    records = result.session.records
    status, exit_ = _exit_for(rule, [r.findings for r in records])
    if not status and unmeasured:
        status, exit_ = 1, {"status": 1, "failed_on": []}
    if args.json:
        _print_demo_json(entry, records, None if entry.racy else result.reference, result.races, outcomes,
                         _demo_passed(entry, result, outcomes), exit_)  # fmt: skip
        return status
    print("\n".join(result.races) if entry.racy else result.reference)
    for line in plain_time_lines(result.session.traces):  # a GPU ran it: this card's times, as numba compiles it
        print(f"on this GPU: {line}")
    if outcomes:
        held = sum(outcome.passed for outcome in outcomes)
        print(f"the lesson's numbers: {held} of {len(outcomes)} hold")
        for outcome in outcomes:
            if not outcome.passed:
                print(f"  {outcome}")
    if unmeasured:
        print("error: a check of the lesson had nothing to measure on this run", file=sys.stderr)
    return status


def _demo_passed(entry, result, outcomes) -> bool:
    """The reference held (a race entry has none to hold) and every check of the lesson held."""
    reference = entry.racy or result.reference == "reference: ok"
    return reference and all(outcome.passed for outcome in outcomes)


def _print_demo_json(entry, records, reference, races, outcomes, passed, exit_, fix=None) -> None:
    from gpuviz.core.json_schema import envelope

    kind = "lesson" if entry.is_lesson else ("race" if entry.racy else "example")
    checks = [{"check": o.check.text, "passed": o.passed, "observed": o.observed} for o in outcomes]
    document = {
        **envelope("demo"),
        "entry": entry.name,
        "kind": kind,
        "launches": [r.to_json() for r in records],
        "reference": reference,
        "races": list(races),
        "checks": checks,
        "passed": passed,
        "exit": exit_,
    }
    if fix is not None:
        document["fix"] = fix
    print(json.dumps(document))


def _render(args: argparse.Namespace) -> int:
    from gpuviz.app.pictures.export import CLIP_SIZE, PICTURE_SIZE, parse_size
    from gpuviz.app.pictures.picture import PictureOptions
    from gpuviz.app.pictures.render import render_clip, render_picture
    from gpuviz.core.analysis.report import as_trace
    from gpuviz.scene.scene import scene_at

    size = parse_size(args.size) if args.size is not None else CLIP_SIZE if args.animate else PICTURE_SIZE
    options = PictureOptions(size, args.scale, args.theme)
    trace = as_trace(gpuviz.load(args.trace, **_budget(args)))  # within the memory budget, before any window
    scene = scene_at(trace, at=args.at, select=args.select, colour=args.colour_by, order=args.order,
                     element=args.element)  # fmt: skip
    if args.compare_with is not None:
        if args.view != "compare":
            raise GpuvizError("--compare-with names the launch beside this one in the Compare view: add --view compare")
        other = as_trace(gpuviz.load(args.compare_with, **_budget(args)))
        scene = dataclasses.replace(scene, launches=(trace, other), partner=1)
    if args.animate:
        path = render_clip(scene, args.view, args.out, options, args.fps, args.start, args.stop)
    else:
        if args.start is not None or args.stop is not None:
            raise GpuvizError("--from and --to choose the frames of a clip: add --animate")
        path = render_picture(scene, args.view, args.out, options)
    print(f"wrote {path}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from gpuviz.core.analysis.perfetto import perfetto_trace
    from gpuviz.core.files import write_file

    if Path(args.out).suffix.lower() != ".json":
        raise GpuvizError(f"cannot export to {Path(args.out).name}: give a .json file name")
    trace = gpuviz.load(args.trace, **_budget(args))
    document = perfetto_trace(trace)
    path = write_file(args.out, lambda stream: stream.write(json.dumps(document).encode()), "export")
    print(f"wrote {path} ({len(document['traceEvents']):,} events)")
    return 0


def _budget(args: argparse.Namespace) -> dict:
    """{"memory_budget": bytes} from --max-memory, or nothing (the default: core/budget.py)."""
    from gpuviz.core.budget import parse_bytes

    text = getattr(args, "max_memory", None)
    return {} if text is None else {"memory_budget": parse_bytes(text, "--max-memory")}


def _app(args: argparse.Namespace) -> int:
    from gpuviz.app import main as app_main

    lessons = getattr(args, "lessons", None)
    if lessons:
        from gpuviz.catalog import teacher_lessons

        teacher_lessons(Path(lessons), [])  # a missing folder gets its line before any window; bad lessons, in it
    return app_main(lessons=lessons)


def _open(args: argparse.Namespace) -> int:

    path = Path(args.path)
    if not path.is_file():
        raise GpuvizError(f"no file at {path}; open a .py script or a .npz trace")
    if path.suffix == ".npz":
        gpuviz.load(path, **_budget(args))  # a bad trace gets its one-line message before any window opens
    if args.max_memory is not None:  # the window reads its budget where every reader does: the environment
        from gpuviz.core.budget import ENVIRONMENT

        os.environ[ENVIRONMENT] = args.max_memory
    from gpuviz.app import main as app_main

    return app_main(str(path))


def _races(args: argparse.Namespace) -> int:
    from gpuviz.core.analysis.races import find_races, format_report
    from gpuviz.core.analysis.report import race_report, recorded_share
    from gpuviz.core.analysis.sanitizer import racecheck_text
    from gpuviz.core.findings import findings_of
    from gpuviz.core.json_reports import trace_document

    if args.max < 1:
        raise GpuvizError(f"--max is {args.max}; describe at least 1 location")
    shown = args.format or ("json" if args.json else "text")
    if args.json and shown != "json":
        raise GpuvizError(f"--json and --format {shown} ask for two layouts: give one")
    rule = _exit_rule(args)
    trace = gpuviz.load(args.trace, **_budget(args))
    stored = race_report(trace)  # found once when the launch ran, with the default options
    if stored is not None and not args.count_benign and args.max >= len(stored.races) and not stored.truncated:
        report = stored
    else:
        report = find_races(trace, count_benign=args.count_benign, max_locations=args.max)
    status, exit_ = _exit_for(rule, [findings_of(trace)])
    if shown == "json":
        print(json.dumps(trace_document("races", trace, args.trace, report.to_json(), exit_)))
    elif shown == "sanitizer":
        print(racecheck_text(report, trace, args.racecheck_report))
    else:
        print(format_report(report, trace.kernel, recorded_share(trace)))
    return status


def _memory(args: argparse.Namespace) -> int:
    from gpuviz.core.analysis.memory_text import format_memory
    from gpuviz.core.analysis.report import memory_analysis
    from gpuviz.core.findings import findings_of
    from gpuviz.core.json_reports import trace_document

    rule = _exit_rule(args)
    trace = gpuviz.load(args.trace, **_budget(args))
    report = memory_analysis(trace)
    status, exit_ = _exit_for(rule, [findings_of(trace)])
    print(json.dumps(trace_document("memory", trace, args.trace, report, exit_)) if args.json
          else format_memory(report, trace.kernel))  # fmt: skip
    return status


def _info(args: argparse.Namespace) -> int:
    from gpuviz.core.findings import findings_of
    from gpuviz.core.json_reports import info_body, trace_document

    rule = _exit_rule(args)
    trace = gpuviz.load(args.trace, **_budget(args))
    status, exit_ = _exit_for(rule, [findings_of(trace)])
    if args.json:
        print(json.dumps(trace_document("info", trace, args.trace, info_body(trace), exit_)))
        return status
    _print_info(trace)
    return status


def _print_info(trace) -> None:
    from gpuviz.core.analysis.memcheck import format_errors
    from gpuviz.core.analysis.memory_text import register_words
    from gpuviz.core.analysis.occupancy import theoretical
    from gpuviz.core.analysis.outcomes import plain_vs_recorded, recording_note
    from gpuviz.core.analysis.report import recorded_share
    from gpuviz.core.analysis.residency import residency_note
    from gpuviz.core.launch import LaunchConfig

    meta = trace.meta
    print(f"kernel   {meta['kernel']}  (launch {meta.get('launch', 0)}, backend {meta['backend']})")
    config = LaunchConfig.of(trace.grid, trace.block)  # the launch's own thread count, checked against the columns
    print(f"launch   grid={config.grid} block={config.block} threads={config.threads:,}")
    print(f"device   {meta['device']} ({meta['sm_count']} SMs)")
    sms = len(set(trace.threads["sm"].tolist()))
    span = int(trace.threads["t_end"].max() - trace.threads["t_start"].min()) if trace.n_threads else 0
    clock = {"scheduler-steps": " (the reference engine's scheduler steps, not the cost model's cycles)",
             "cost-model": " (the cost model's cycles)"}.get(meta.get("time_source") or "", "")  # fmt: skip
    print(f"ran on   {sms} SM(s) over {span:,} {meta['time_unit']}(s){clock}")
    for entry in meta.get("arrays", []):
        print(f"array    {entry['name']}: {entry['space']} {entry['dtype']}{tuple(entry['shape'])}")
    print(f"thread   {register_words(theoretical(trace))}")
    events = 0 if trace.accesses is None else len(trace.accesses["thread"])
    capped = " (truncated)" if trace.truncated else ""
    share = recorded_share(trace)
    blocks = f", of {share[0]:,} of its {share[1]:,} blocks only (the warning below says why)" if share else ""
    print(f"accesses {events:,} recorded at level '{meta.get('level')}'{blocks}{capped}")
    outcomes = meta.get("outcomes")
    if outcomes:
        seeds = f" (seeds {outcomes['seeds'][0]}..{outcomes['seeds'][-1]})" if meta["backend"] == "sim" else ""
        print(f"outcomes {outcomes['runs']} runs{seeds}")
        _print_outcomes(trace)
    for line in plain_vs_recorded(trace):
        print(f"plain    {line}")
    note = recording_note(trace)
    if note:
        print(f"plain    {note}")
    note = residency_note(trace)
    if note:
        print(f"timeline {note}")
    for warning in meta.get("warnings", []):
        print(f"warning  {warning}")
    for note in meta.get("unrecorded", []):
        print(f"note     {note}")
    for note in modelled_notes(meta):
        print(f"model    {note}")
    printed = meta.get("printed", [])
    if printed:
        print(f"printed  {len(printed):,} line(s) from kernel threads, first: thread {printed[0]['thread']}: "
              f"{printed[0]['text']}")  # fmt: skip
    for line in format_errors(trace):
        print(f"errors   {line}" if line.startswith("memory") else f"         {line}")


def _print_outcomes(trace, shown: int = 4) -> None:
    from gpuviz.core.analysis.outcomes import outcome_summary
    from gpuviz.core.numbers import number

    for name in trace.args:
        runs = trace.outcomes.get(f"{name}.runs")
        if runs is None or (runs == trace.before(name)).all():
            continue
        lost = trace.outcomes.get(f"{name}.lost")
        for element in range(min(shown, runs[0].size)):
            summary = outcome_summary(runs, trace.outcomes, name, element)
            seen = ", ".join(f"{number(v)} x{c:,}" for v, c in zip(summary["values"], summary["counts"]))
            serial = number(summary["sequential"]) if "sequential" in summary else ""
            serial_text = f"serial {serial}; " if serial else ""
            if "reversed" in summary:  # the order of threads decides: no one serial answer
                serial_text = f"serial {serial}, reversed {number(summary['reversed'])} (order matters); "
            lost_text = ""
            if lost is not None:
                lost_text = f"; lost updates {int(lost.reshape(len(lost), -1)[:, element].mean()):,} on average"
            print(f"         {name}[{element}]: {serial_text}seen {seen}{lost_text}")


def main(argv: list[str] | None = None, apart: bool | None = None) -> int:
    """The command line. `apart` (default: when started from the shell, argv None) runs a script in a
    process of its own (run/own_process.py), so a script that kills its interpreter cannot take the
    command with it; called with argv (tests, other Python), it runs here."""
    parser = build_parser()
    argv_given = argv is not None
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
    if args.command == "run" and (argv_given is False if apart is None else apart):
        from gpuviz.run.own_process import run_apart

        return run_apart(lambda say: _handled(args, say))
    return _handled(args)


def _handled(args: argparse.Namespace, say=None) -> int:
    """The command's handler; a GpuvizError becomes one line and exit status 1."""
    args.say = say
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
