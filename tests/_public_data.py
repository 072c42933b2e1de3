"""Where the public evaluation data lives, and the real-tool sets that join it to what is committed.

Data copied from public repositories is not committed (issue 22): tests and benches read it from
`../shared/data` next to the project root, or from $TOOLSURVEY_SHARED_DATA. CI has that folder; a
user's clone does not, so every reader must cope with `shared_path()` returning None.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import toolsurvey as ts

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
SHARED = Path(os.environ.get("TOOLSURVEY_SHARED_DATA") or ROOT.parent / "shared" / "data")

REAL_TOOLS = DATA / "real_tools"  # the tool lists captured here from npm and PyPI packages
SIMILARITY_TOOLS = DATA / "similarity_pairs.tools.json"  # the labelled pairs' tools, GitHub's server left out
SIMILARITY_PAIRS = DATA / "similarity_pairs.csv"
# The labelled pairs were built on these tools of github/github-mcp-server without the keys below.
SIMILARITY_GITHUB = ("tools", "github.json")
SIMILARITY_GITHUB_DROPPED = ("_meta", "icons")
CLAUDE_CODE_LOG = ("traces", "claude-code-log", "representative_messages.jsonl")  # 5 requests, claude-3-sonnet


def shared_path(*parts: str) -> Path | None:
    """The path under the shared data folder, or None when it is absent."""
    path = SHARED.joinpath(*parts)
    return path if path.exists() else None


def absent_reason(*parts: str) -> str:
    """Why a test or bench leaves out what needs `parts` of the shared data."""
    where = "/".join(("../shared/data", *parts))
    override = f"; looked in {SHARED}" if os.environ.get("TOOLSURVEY_SHARED_DATA") else ""
    return f"{where} is absent (as in a user's clone{override}); CI has it"


def real_tool_files() -> list[Path]:
    """The real tool lists, one server per file: the committed captures plus ../shared/data/tools/*.json
    when present, in file-name order (the order of loading one folder that held them all)."""
    shared = shared_path("tools")
    files = [*REAL_TOOLS.glob("*.json"), *(shared.glob("*.json") if shared else ())]
    both = sorted({p.name for p in files if p.parent != REAL_TOOLS} & {p.name for p in REAL_TOOLS.glob("*.json")})
    if both:
        raise RuntimeError(f"tool lists both committed and in {shared}: {', '.join(both)}")
    return sorted(files, key=lambda p: p.name)


def load_real_tools() -> ts.Registry:
    """All real tools: 2,311 on 84 servers with the shared data, fewer without it."""
    return ts.load(*real_tool_files())


MCP_BENCH_CATALOG = ("retrieval", "mcp-bench", "catalog.json")  # 257 tools of 28 servers


def benign_sets() -> list[tuple[str, ts.Registry]]:
    """The real benign tool sets present, each as one registry: the committed captures, the public servers'
    lists of ../shared/data/tools and the MCP-Bench catalog (the attack sets' siblings: `_attack_sets`)."""
    out = [("real tools captured from npm and PyPI (tests/data/real_tools)", ts.load(REAL_TOOLS))]
    if (tools := shared_path("tools")) is not None:
        out.append(("public servers' tool lists (../shared/data/tools)", ts.load(tools)))
    if (catalog := shared_path(*MCP_BENCH_CATALOG)) is not None:
        out.append(("MCP-Bench catalog (../shared/data/retrieval/mcp-bench)", ts.load(catalog)))
    return out


def similarity_tools() -> ts.Registry:
    """The tools of the labelled near-duplicate pairs: GitHub's server from the shared data (first, as
    labelled) when present, then the committed servers."""
    github = shared_path(*SIMILARITY_GITHUB)
    if github is None:
        return ts.load(SIMILARITY_TOOLS)
    value = json.loads(github.read_text(encoding="utf-8"))
    value["tools"] = [{k: v for k, v in t.items() if k not in SIMILARITY_GITHUB_DROPPED} for t in value["tools"]]
    return ts.load(ts.load(value, server="github"), SIMILARITY_TOOLS)


def folded_real_tools() -> list[str]:
    """Each real tool's text as the similarity audit folds it (tests/data/real_tools plus what
    ../shared/data adds)."""
    from toolsurvey.advice.similarity.folding import Folder
    from toolsurvey.advice.thresholds import load_config

    fold = Folder(load_config()["similarity"])
    return [fold.text(t) for t in load_real_tools()]
