#!/usr/bin/env bash
# Builds prscope's wheel with the standard `build` frontend into dist/python/, which the .vsix carries:
# the extension installs it into its private environment when the chosen interpreter has no prscope
# (src/privateEnvironment.ts). Built from a copy of the sources, so that nothing is written into the
# checkout. PRSCOPE_PYTHON: the Python with `build` (default: the repository's .venv).
set -euo pipefail
client=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$client/.." && pwd)
python=${PRSCOPE_PYTHON:-$repo/.venv/bin/python}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/prscope-wheel.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/src"
for entry in pyproject.toml README.md prscope analysis server prompts; do
  cp -R "$repo/$entry" "$scratch/src/$entry"
done
find "$scratch/src" -name __pycache__ -prune -exec rm -rf {} +
rm -rf "$client/dist/python"
"$python" -m build --wheel --outdir "$client/dist/python" "$scratch/src" >"$scratch/build.log" 2>&1 || {
  cat "$scratch/build.log" >&2
  exit 1
}
ls "$client/dist/python"/prscope-*.whl >/dev/null
