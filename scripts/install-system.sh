#!/usr/bin/env bash
# What the tests need outside the Python venv. Idempotent; called by scripts/check.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's chromium, for the browser tests (Playwright drives it; its own browser download
# does not work offline).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >/dev/null
  else
    echo "chromium is missing: run 'sudo apt-get install chromium' (needed by the browser tests)" >&2
  fi
fi

# poppler's pdftoppm turns the printed report's first pages into pictures (tests/artifacts);
# the test checks the PDF without it.
if ! command -v pdftoppm >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q poppler-utils >/dev/null || true
fi

# Real MCP servers for the discovery tests (versions pinned in tests/servers/package.json).
# A symlink here is a worktree's link committed by mistake: replace it with the real install.
for link in tests/servers/node_modules tests/servers/.venv; do
  if [ -L "$link" ]; then rm "$link"; fi
done
if [ -f tests/servers/package.json ]; then
  (cd tests/servers && npm ci --no-audit --no-fund --loglevel=error)
fi
if [ -f tests/servers/requirements.txt ]; then
  python3 -m venv tests/servers/.venv
  tests/servers/.venv/bin/python -m pip install -q -r tests/servers/requirements.txt
fi
