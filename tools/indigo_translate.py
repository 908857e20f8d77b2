"""Translate the vendored Indigo kernels (bench/indigo/sources) into numba-cuda scripts, and write the
manifest of every kernel's labels, pattern and translation (bench/indigo/manifest.json).

    python tools/indigo_translate.py [OUT_DIR]

With OUT_DIR, every kernel is also written as OUT_DIR/<pattern>/<name>.py, a script that launches it
as the artifact does (1,024 blocks of 256 threads) on the input given as its argument; OUT_DIR gets a
copy of the inputs and of indigo_inputs.py, which the scripts import.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from indigo.suite import HERE, MANIFEST, all_kernels, script_text, write_manifest  # noqa: E402
from indigo.translate import Untranslatable  # noqa: E402


def write_scripts(out: Path) -> int:
    written = 0
    for kernel in all_kernels():
        try:
            text = script_text(kernel)
        except Untranslatable:
            continue  # the manifest says why
        (out / kernel.pattern).mkdir(parents=True, exist_ok=True)
        (out / kernel.pattern / f"{kernel.name}.py").write_text(text)
        written += 1
    shutil.copyfile(HERE / "inputs.py", out / "indigo_inputs.py")
    shutil.copytree(HERE / "inputs", out / "inputs", dirs_exist_ok=True)
    return written


def main(argv: list[str]) -> int:
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        print("usage: python tools/indigo_translate.py [OUT_DIR]  (OUT_DIR: where to write the scripts)")
        return 2
    data = write_manifest()
    groups, untranslated = data["groups"], len(data["untranslated"])
    print(f"manifest: {data['kernels']} kernels ({groups}), untranslated {untranslated}: {MANIFEST}")
    for row in data["rows"]:
        if not row["translated"]:
            print(f"  {row['name']}: {row['reason']}")
    if argv:
        out = Path(argv[0])
        print(f"scripts: {write_scripts(out)} written under {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
