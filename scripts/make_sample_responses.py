"""Write the sample tool results in data/responses/ (deterministic: same seed, same bytes).

    .venv/bin/python scripts/make_sample_responses.py            # seed 4, writes data/responses/
    .venv/bin/python scripts/make_sample_responses.py --seed 7 --out /tmp/samples

The payloads imitate what REST APIs and MCP servers return; every value is synthetic (random
words, made-up users and repositories), built to the field layout GitHub's REST API uses for
issues (`GET /repos/{owner}/{repo}/issues`) so that the size of URLs, user records, reactions
and bodies is realistic. Nothing is downloaded.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import struct
import sys
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
API = "https://api.github.com"
WEB = "https://github.com"
REPOS = ["acme/rocket-engine", "northwind/dataframe-kit", "lumen/http-tools", "orbit/ml-pipelines",
         "tidal/webui-components"]
WORDS = ("cache request timeout parser config release build test flaky error memory thread worker "
         "socket retry upload schema index query token session plugin handler render layout docs "
         "migration version default option window stream buffer encoding locale import export "
         "column filter sort merge branch deploy cluster node driver format warning crash leak").split()
LABELS = [("bug", "d73a4a", "Something isn't working"), ("enhancement", "a2eeef", "New feature or request"),
          ("documentation", "0075ca", "Improvements or additions to documentation"),
          ("good first issue", "7057ff", "Good for newcomers"), ("needs triage", "ededed", None),
          ("performance", "fbca04", "Speed or memory"), ("regression", "b60205", "Used to work"),
          ("question", "d876e3", "Further information is requested")]
USERS = ["octo-dev", "mlopez", "kchen42", "ana-ribeiro", "j-okafor", "sven-k", "priya-n", "tomasz-w",
         "lee-hyun", "fatima-z", "dev-bot", "rgarcia"]


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def user(rng: random.Random, login: str) -> dict:
    uid = 1000 + sum(map(ord, login)) * 7919 % 9_000_000
    u = f"{API}/users/{login}"
    return {
        "login": login, "id": uid, "node_id": "MDQ6VXNlcj" + base64.b64encode(str(uid).encode()).decode(),
        "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?v=4", "gravatar_id": "",
        "url": u, "html_url": f"{WEB}/{login}", "followers_url": f"{u}/followers",
        "following_url": f"{u}/following{{/other_user}}", "gists_url": f"{u}/gists{{/gist_id}}",
        "starred_url": f"{u}/starred{{/owner}}{{/repo}}", "subscriptions_url": f"{u}/subscriptions",
        "organizations_url": f"{u}/orgs", "repos_url": f"{u}/repos", "events_url": f"{u}/events{{/privacy}}",
        "received_events_url": f"{u}/received_events", "type": "Bot" if login.endswith("bot") else "User",
        "user_view_type": "public", "site_admin": False,
    }


def body(rng: random.Random) -> str:
    """An issue body following a common bug-report template; lengths vary with a long tail (logs)."""
    parts = [f"### Describe the bug\n\n{words(rng, rng.randint(15, 60)).capitalize()}.\n",
             "### Steps to reproduce\n\n" + "\n".join(f"{i}. {words(rng, rng.randint(4, 12))}"
                                                  for i in range(1, rng.randint(3, 6))) + "\n"]
    if rng.random() < 0.6:
        lines = rng.randint(4, 12) if rng.random() < 0.8 else rng.randint(40, 90)
        trace = "\n".join(f'  File "/usr/lib/python3.12/site-packages/{rng.choice(WORDS)}/{rng.choice(WORDS)}.py",'
                          f" line {rng.randint(10, 900)}, in {rng.choice(WORDS)}_{rng.choice(WORDS)}"
                          for _ in range(lines))
        parts.append(f"### Logs\n\n```\nTraceback (most recent call last):\n{trace}\n"
                     f"{rng.choice(['ValueError', 'KeyError', 'TimeoutError'])}: {words(rng, 6)}\n```\n")
    parts.append(f"### Expected behavior\n\n{words(rng, rng.randint(10, 30)).capitalize()}.\n")
    parts.append(f"### Environment\n\n- OS: {rng.choice(['Ubuntu 24.04', 'macOS 15.1', 'Windows 11'])}\n"
                 f"- Version: {rng.randint(1, 4)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}\n"
                 f"- Python: 3.{rng.randint(10, 13)}.{rng.randint(0, 9)}\n")
    return "\n".join(parts)


def issue(rng: random.Random, repo: str, number: int, when: datetime) -> dict:
    r = f"{API}/repos/{repo}"
    u = f"{r}/issues/{number}"
    iid = rng.randint(2_000_000_000, 3_000_000_000)
    author = user(rng, rng.choice(USERS))
    assignees = [user(rng, rng.choice(USERS)) for _ in range(rng.choice([0, 0, 1, 1, 2]))]
    labels = [{"id": 400_000_000 + i * 7, "node_id": f"LA_kwDO{i:05d}{repo[:3].upper()}", "url": f"{r}/labels/{n.replace(' ', '%20')}",
               "name": n, "color": c, "default": n in ("bug", "enhancement", "documentation"), "description": d}
              for i, (n, c, d) in enumerate(rng.sample(LABELS, rng.choice([0, 1, 1, 2, 3])))]
    created = when - timedelta(days=rng.randint(1, 400), minutes=rng.randint(0, 1440))
    state = rng.choice(["open"] * 4 + ["closed"])
    counts = {k: rng.choice([0, 0, 0, 1, 2, 5]) for k in ("+1", "-1", "laugh", "hooray", "confused", "heart",
                                                          "rocket", "eyes")}
    return {
        "url": u, "repository_url": r, "labels_url": f"{u}/labels{{/name}}", "comments_url": f"{u}/comments",
        "events_url": f"{u}/events", "html_url": f"{WEB}/{repo}/issues/{number}", "id": iid,
        "node_id": "I_kwDO" + base64.b64encode(str(iid).encode()).decode()[:14], "number": number,
        "title": words(rng, rng.randint(4, 11)).capitalize(), "user": author, "labels": labels, "state": state,
        "locked": False, "assignee": assignees[0] if assignees else None, "assignees": assignees,
        "milestone": None, "comments": rng.choice([0, 1, 2, 3, 5, 8, 13, 21]),
        "created_at": created.strftime("%Y-%m-%dT%H:%M:%SZ"), "updated_at": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "closed_at": when.strftime("%Y-%m-%dT%H:%M:%SZ") if state == "closed" else None,
        "author_association": rng.choice(["NONE", "CONTRIBUTOR", "MEMBER", "COLLABORATOR"]),
        "type": None, "active_lock_reason": None,
        "sub_issues_summary": {"total": 0, "completed": 0, "percent_completed": 0},
        "body": body(rng), "closed_by": author if state == "closed" else None,
        "reactions": {"url": f"{u}/reactions", "total_count": sum(counts.values()), **counts},
        "timeline_url": f"{u}/timeline", "performed_via_github_app": None,
        "state_reason": "completed" if state == "closed" else None,
    }


def list_issues(rng: random.Random, repo: str) -> list[dict]:
    """Ten most recently updated issues, newest first, as `GET /repos/{repo}/issues?sort=updated` returns."""
    when = datetime(2026, 10, 8, 12, 0, tzinfo=UTC)
    top = rng.randint(800, 30000)
    out = []
    for number in sorted(rng.sample(range(top - 400, top), 10), reverse=True):
        when -= timedelta(minutes=rng.randint(3, 600))
        out.append(issue(rng, repo, number, when))
    return out


def png(width: int, height: int) -> bytes:
    """A valid grey PNG of the given size (tiny, since all rows are equal and compress well)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def trace(rng: random.Random, issues: dict[str, list]) -> list[dict]:
    """One agent session's tool calls: several tools, JSON and text results, one MCP result with an image."""
    t = datetime(2026, 10, 8, 14, 0, tzinfo=UTC)
    recs = []

    def add(tool: str, server: str, result) -> None:
        nonlocal t
        t += timedelta(seconds=rng.randint(2, 40))
        recs.append({"tool": tool, "server": server, "timestamp": t.strftime("%Y-%m-%dT%H:%M:%SZ"),
                     "result": result})

    for repo in REPOS[:3]:
        add("list_issues", "github", issues[repo])
        pick = issues[repo][rng.randrange(10)]
        add("get_issue", "github", pick)
        add("search_code", "github", {
            "total_count": rng.randint(3, 400), "incomplete_results": False,
            "items": [{"name": f"{rng.choice(WORDS)}.py", "path": f"src/{rng.choice(WORDS)}/{rng.choice(WORDS)}.py",
                       "sha": f"{rng.getrandbits(160):040x}",
                       "url": f"{API}/repos/{repo}/contents/src/x.py?ref=main",
                       "git_url": f"{API}/repos/{repo}/git/blobs/{rng.getrandbits(160):040x}",
                       "html_url": f"{WEB}/{repo}/blob/main/src/x.py", "score": 1.0,
                       "repository": {"id": rng.randint(10**8, 10**9), "full_name": repo, "private": False}}
                      for _ in range(rng.randint(3, 8))]})
        source = "\n".join(f"def {rng.choice(WORDS)}_{i}(x):\n    return x  # {words(rng, 6)}"
                           for i in range(rng.randint(20, 60)))
        add("read_file", "filesystem", source)
    add("get_weather", "weather", {"city": "Lisbon", "temp_c": 21.5, "wind_kph": 12, "conditions": "clear"})
    add("fetch_page", "fetch", "# Release notes\n\n" + "\n\n".join(
        f"## {rng.randint(1, 4)}.{i}.0\n\n- {words(rng, 12)}\n- {words(rng, 9)}" for i in range(25)))
    add("take_screenshot", "browser", {
        "content": [{"type": "text", "text": "Screenshot of https://example.test/dashboard (1280x800)"},
                    {"type": "image", "mimeType": "image/png", "data": base64.b64encode(png(1280, 800)).decode()}]})
    add("read_resource", "docs", {
        "content": [{"type": "resource", "resource": {"uri": "docs://guide/errors", "mimeType": "text/markdown",
                                                     "text": "# Error codes\n\n" + "\n".join(
                                                         f"- E{100 + i}: {words(rng, 8)}" for i in range(30))}}]})
    add("list_issues_mcp", "github", {
        "content": [{"type": "text", "text": json.dumps(issues[REPOS[3]], indent=2)}],
        "structuredContent": {"issues": issues[REPOS[3]]}})
    return recs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--out", type=Path, default=ROOT / "data" / "responses")
    a = ap.parse_args(argv)
    rng = random.Random(a.seed)
    issues = {repo: list_issues(rng, repo) for repo in REPOS}
    (a.out / "list_issues").mkdir(parents=True, exist_ok=True)
    for repo, items in issues.items():
        path = a.out / "list_issues" / (repo.replace("/", "__") + ".json")
        path.write_text(json.dumps(items, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    lines = [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in trace(rng, issues)]
    (a.out / "traces.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(issues)} list_issues samples and {len(lines)} trace records to {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
