#!/usr/bin/env bash
# Build the sdist and the wheel the way a release is built, and check them:
# - from a clean copy of the files git tracks or would track (no stale build/ or egg-info of this
#   checkout can slip into them), each in an isolated environment with pyproject's build requirements;
# - any warning the build prints fails it (a deprecated setting today is a broken build tomorrow);
# - `twine check --strict` on both (the metadata and the README as PyPI would render them).
# Usage: scripts/build.sh [OUTDIR]   (default: dist; OUTDIR is emptied first)
# scripts/check.sh runs it and hands OUTDIR to the tests that install the wheel (TOOLSURVEY_DIST).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-dist}")
python=${PYTHON:-.venv/bin/python}

src=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$src" "$log"' EXIT
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' f; do if [ -f "$f" ]; then printf '%s\0' "$f"; fi; done \
    | tar --null -T - -cf - | tar -xf - -C "$src"
else  # not a git checkout (an unpacked sdist): everything but what builds and installs leave behind
  tar --exclude=./.venv --exclude=./build --exclude=./dist --exclude='*.egg-info' -cf - . | tar -xf - -C "$src"
fi

rm -rf "$out"
SECONDS=0
# PYTHONDONTWRITEBYTECODE (set on this machine) makes setuptools warn that it skips byte-compiling.
if ! env -u PYTHONDONTWRITEBYTECODE "$python" -m build --sdist --wheel --outdir "$out" "$src" >"$log" 2>&1; then
  cat "$log"
  echo "build.sh: the build failed (its output is above)" >&2
  exit 1
fi
seconds=$SECONDS
if grep -i -E '(^|[^a-z/._-])warn|previously-included' "$log"; then
  echo "build.sh: the build printed the warnings above; fix them" >&2
  exit 1
fi
"$python" -m twine check --strict "$out"/*
echo "build.sh: built in ${seconds} s:"
for f in "$out"/*; do echo "  $(basename "$f"): $(stat -c %s "$f") bytes"; done
