#!/usr/bin/env bash
# Fetch the wheels that executing a notebook with nbclient needs (Jupyter's kernel and client, the widget's
# anywidget and ipywidgets, Pillow for its pictures, and everything they depend on) for a Python 3.12 x86-64
# Linux machine that reaches no package index, into the git-ignored folder .gpujob-nbwheels/.
# Run from the repository's root:  tools/notebook_wheels.sh [PYTHON_VERSION]   (default 3.12)
# On that machine (the folder carried there with the repository):
#   python3 -m pip install --no-index --target /tmp/site .gpujob-nbwheels/*.whl
#   PYTHONPATH=/tmp/site:$PWD python3 tools/execute_notebook.py docs/notebooks/record_and_replay.ipynb OUT.ipynb
set -euo pipefail
version=${1:-3.12}
cd "$(git rev-parse --show-toplevel)"
mkdir -p .gpujob-nbwheels
# pip resolves the whole closure for the target Python: --target installs there ignore what is installed
python3 -m pip download -q --only-binary=:all: --python-version "$version" --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform manylinux1_x86_64 --platform any \
  -d .gpujob-nbwheels nbclient nbformat ipykernel jupyter_client jupyter_core pyzmq tornado traitlets ipython \
  anywidget ipywidgets pillow 2>&1 | grep -v '^WARNING' || true
ls .gpujob-nbwheels | sed 's/-py[23].*\|-cp3.*//' | tr '\n' ' ' >&2
echo >&2
du -sh .gpujob-nbwheels >&2
