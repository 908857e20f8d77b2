"""Execute a notebook with nbclient in a fresh kernel of this Python (its cells tagged `install` left out:
gpuviz is installed already) and write the executed notebook: how the docs' notebook runs on a machine
without Jupyter's command line, e.g. the lent H100/H200 with the wheels of tools/notebook_wheels.sh.
`python tools/execute_notebook.py docs/notebooks/record_and_replay.ipynb executed.ipynb`; the exit
status is 1 when a cell failed or wrote to stderr (Python warnings alone are printed, not failures), and the
cells' text output is printed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def execute(source: Path, target: Path, timeout: int = 1200, workdir: Path | None = None) -> list[str]:
    """Run the notebook's cells (not those tagged `install`) in `workdir` (default: beside `target`), where
    the notebook's own files go; the executed notebook is written to `target` even when a cell fails. The
    problems found, in words."""
    import nbclient
    import nbformat

    notebook = nbformat.read(source, as_version=4)
    notebook.cells = [c for c in notebook.cells if "install" not in c.metadata.get("tags", [])]
    client = nbclient.NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                                     resources={"metadata": {"path": str(workdir or target.parent)}})  # fmt: skip
    problems = []
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as exc:
        problems.append(str(exc).splitlines()[0])
    finally:
        nbformat.write(notebook, target)
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("name") == "stdout":
                print(output["text"], end="")
            elif output.get("name") == "stderr" and only_warnings(output["text"]):
                print("warning:", output["text"].strip(), file=sys.stderr)  # numba's own advice, not a failure
            elif output.get("name") == "stderr" or output.output_type == "error":
                problems.append(output.get("text") or f"{output.get('ename')}: {output.get('evalue')}")
    return problems


def only_warnings(text: str) -> bool:
    """Whether a cell's stderr holds Python warnings alone (`...: SomethingWarning: ...` and the line that
    raised it), such as numba's NumbaPerformanceWarning for a small grid on a GPU."""
    lines = [line for line in text.splitlines() if line.strip()]
    return bool(lines) and all("Warning:" in line or line.startswith("  ") for line in lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path)
    parser.add_argument("executed", type=Path)
    parser.add_argument("--timeout", type=int, default=1200, help="seconds a cell may take (default 1200)")
    parser.add_argument("--workdir", type=Path, help="where the cells run and save their files (default: beside "
                        "the executed notebook)")  # fmt: skip
    args = parser.parse_args()
    if not args.notebook.is_file():
        print(f"no notebook at {args.notebook}: give the path of an .ipynb file", file=sys.stderr)
        return 2
    args.executed.parent.mkdir(parents=True, exist_ok=True)
    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
    problems = execute(args.notebook, args.executed.resolve(), args.timeout, args.workdir)
    for problem in problems:
        print("problem:", problem.strip(), file=sys.stderr)
    print(f"executed {args.notebook} -> {args.executed}: {'ok' if not problems else f'{len(problems)} problem(s)'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
