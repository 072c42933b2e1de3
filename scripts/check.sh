#!/usr/bin/env bash
# Install everything the checks need (Python venv, npm MCP servers, Debian's chromium) and run
# every check: the linter, the import contract, the sdist and wheel (built once, checked by twine),
# and the test suite (which also executes every notebook, and installs that wheel in a fresh venv).
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[dev]'

if [ -f scripts/install-system.sh ]; then bash scripts/install-system.sh; fi

.venv/bin/ruff check toolsurvey tests bench
.venv/bin/lint-imports
bash scripts/build.sh dist
TOOLSURVEY_DIST=dist .venv/bin/python -m pytest -q "$@"
