"""Record the eval of the bundled sample under data/evals/, from the local test model.

    python scripts/record_eval.py [--out data/evals] [--cache-dir DIR]

Starts the test model server (tests/_local_model.py: Gemma 3 270M, a base model, behind
llama-cpp-python's server with the `toolsurvey-test` chat handler of tests/servers/llm_server.py;
scripts/install-system.sh installs it), then runs, with the exact commands printed as they run:

1. a plain eval of data/registries/ops_assistant.json with both bundled query files
   (`ops_assistant.eval.json`);
2. an A/B: the sample (new) against a copy whose descriptions are cut to their first five words
   (`--baseline`, `ops_assistant.ab.json`), with both query files;
3. a `--visible 5,10,20,all` sweep, with `--fit` (`ops_assistant.sweep.json`,
   `ops_assistant.curve.toml`), of the 16 queries of ops_assistant_selection.jsonl only: the 58 at
   four sizes are 174 cold prompts more, which ran at about two a minute on the 2 shared cores.

The three share one answer cache, so the A/B's new side and the sweep's `all` are the plain eval's
answers, asked once. The answers are this small model's: they say what the harness does with a real
server's answers, never how good an agent's model is (data/evals/README.md).
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests._local_model import MODEL_ID, START_TIMEOUT, _ready, command, missing, stop  # noqa: E402

REGISTRY = "data/registries/ops_assistant.json"
QUERIES = ["data/queries/ops_assistant.jsonl", "data/queries/ops_assistant_selection.jsonl"]
SWEEP_QUERIES = ["data/queries/ops_assistant_selection.jsonl"]
SIZES = "5,10,20,all"
WORDS = 5  # the A/B's baseline: every description cut to its first WORDS words
# The answer cache's key holds the base URL, so a fixed port lets a re-run with the same --cache-dir
# reuse every answer; 46397 is the port of the recorded run (the files' "base_url").
PORT = 46397
STEPS = ("eval", "ab", "sweep")


def cut_descriptions(src: Path, dest: Path, words: int = WORDS) -> Path:
    reg = json.loads(src.read_text("utf-8"))
    for server in reg["servers"].values():
        for tool in server["tools"]:
            if tool.get("description"):
                tool["description"] = " ".join(tool["description"].split()[:words])
    dest.write_text(json.dumps(reg, indent=1) + "\n", "utf-8")
    return dest


def run(args: list[str]) -> None:
    shown = [a.replace(str(ROOT) + "/", "") for a in args]
    print("$ toolsurvey " + shlex.join(shown), flush=True)
    exe = Path(sys.executable).parent / "toolsurvey"
    code = subprocess.call([str(exe), *args], cwd=ROOT)
    if code != 0:
        sys.exit(f"toolsurvey exited {code}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="data/evals", help="where the files go (default: data/evals)")
    ap.add_argument("--cache-dir", help="the answer cache (default: a temporary folder, removed after)")
    ap.add_argument("--port", type=int, default=PORT, help=f"the model server's port (default: {PORT})")
    ap.add_argument("--only", nargs="+", choices=STEPS, default=list(STEPS),
                    help="run these steps only (default: all three, in this order)")
    a = ap.parse_args()
    why = missing()
    if why:
        sys.exit(why)
    out = (ROOT / a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="record-eval-") as tmp:
        cache = Path(a.cache_dir).resolve() if a.cache_dir else Path(tmp) / "cache"
        short = cut_descriptions(ROOT / REGISTRY, Path(tmp) / f"ops_assistant_{WORDS}words.json")
        log = Path(tmp) / "server.log"
        with open(log, "wb") as sink:
            proc = subprocess.Popen(command(a.port), stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
        try:
            url = f"http://127.0.0.1:{a.port}"
            _ready(url, proc, time.monotonic() + START_TIMEOUT, log)
            server = ["--model", MODEL_ID, "--base-url", f"{url}/v1", "--cache-dir", str(cache),
                      "--timeout", "300", "--retries", "0", "-q"]
            if "eval" in a.only:
                run(["eval", REGISTRY, "--queries", *QUERIES, *server, "--format", "json",
                     "-o", str(out / "ops_assistant.eval.json")])
            if "ab" in a.only:
                run(["eval", REGISTRY, "--queries", *QUERIES, *server, "--baseline", str(short), "--format", "json",
                     "-o", str(out / "ops_assistant.ab.json")])
            if "sweep" in a.only:
                run(["eval", REGISTRY, "--queries", *SWEEP_QUERIES, *server, "--visible", SIZES,
                     "--fit", str(out / "ops_assistant.curve.toml"), "--format", "json",
                     "-o", str(out / "ops_assistant.sweep.json")])
        finally:
            stop(proc)
    print(f"wrote {out}/ops_assistant.{{eval,sweep,ab}}.json and ops_assistant.curve.toml")


if __name__ == "__main__":
    main()
