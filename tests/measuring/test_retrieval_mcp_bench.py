"""The done-when figures on ../shared/data/retrieval/mcp-bench, computed a second way: the tools'
texts built here from the catalogue's JSON, bm25s called directly (its own tokenizer, the same stop
list), and each gold tool's rank counted by brute force with the documented tie rule. The CLI's
JSON must agree to 1e-9. External rankings are checked against a plain script, exactly."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import numpy as np
import pytest
from conftest import ROOT, shared

K = (1, 3, 5, 10)


def _stop_words():
    text = (ROOT / "toolsurvey" / "assumptions" / "english_stop_words.txt").read_text(encoding="utf-8")
    return [w for w in text.split("\n") if w and not w.startswith("#")]


def _split(text):
    # identifiers apart: snake_case / kebab-case, camelCase and HTTPServer-style runs
    text = re.sub(r"[_-]+", " ", text)
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return re.sub(r"([A-Z])([A-Z][a-z])", r"\1 \2", text)


def _params(schema, out, depth=0):
    if not isinstance(schema, dict) or depth > 32:
        return
    for name, sub in (schema.get("properties") or {}).items():
        out += [name, sub.get("description") or "" if isinstance(sub, dict) else ""]
        _params(sub, out, depth + 1)
    items = schema.get("items")
    for sub in items if isinstance(items, list) else [items]:
        _params(sub, out, depth + 1)


def _catalog(path):
    keys, texts = [], []
    for server, spec in json.loads(path.read_text(encoding="utf-8"))["servers"].items():
        for t in spec["tools"]:
            out = [t["name"], t.get("description") or ""]
            _params(t.get("inputSchema") or t.get("input_schema") or {}, out)
            keys.append(f"{server}/{t['name']}")
            texts.append("\n".join(_split(x) for x in out if x))
    return keys, texts


def _brute_rank(scores, g, gold):
    """1 + tools scoring more + tools not needed scoring the same + needed ones tied and listed earlier."""
    if scores[g] <= 0:
        return None
    r = 1
    for j, s in enumerate(scores):
        if j != g and (s > scores[g] or (s == scores[g] and (j not in gold or j < g))):
            r += 1
    return r


def _metrics(all_ranks):
    """Means as exact fractions, rounded to a float once."""
    out, n = {}, len(all_ranks)
    best = [min((r for r in rs if r is not None), default=None) for rs in all_ranks]
    for k in K:
        out[f"hit@{k}"] = float(Fraction(sum(b is not None and b <= k for b in best), n))
        out[f"recall@{k}"] = float(sum(Fraction(sum(r is not None and r <= k for r in rs), len(rs))
                                       for rs in all_ranks) / n)
    out["mrr"] = float(sum(Fraction(1, b) for b in best if b) / n)
    return out


def test_bm25_figures_agree_with_bm25s_and_a_rank_count(cli):
    bm25s = pytest.importorskip("bm25s")
    catalog, queries = shared("retrieval", "mcp-bench", "catalog.json"), shared("retrieval", "mcp-bench", "queries.jsonl")
    keys, texts = _catalog(catalog)
    stop = _stop_words()
    engine = bm25s.BM25()
    engine.index(bm25s.tokenize(texts, stopwords=stop, return_ids=False, show_progress=False), show_progress=False)
    index = {k: i for i, k in enumerate(keys)}
    rows = [json.loads(line) for line in queries.read_text(encoding="utf-8").splitlines() if line.strip()]
    all_ranks = []
    for q in rows:
        words = [w for w in bm25s.tokenize([_split(q["query"])], stopwords=stop, return_ids=False,
                                           show_progress=False)[0] if w in engine.vocab_dict]
        scores = engine.get_scores(words) if words else np.zeros(len(keys))
        gold = {index[g] for g in q["gold"]}
        all_ranks.append([_brute_rank(scores, g, gold) for g in sorted(gold)])
    expected = _metrics(all_ranks)

    code, out, err = cli("retrieval", catalog, "--queries", queries, "--format", "json")
    assert code == 0, err
    got = json.loads(out)
    assert got["summary"]["queries"] == 104 and got["summary"]["tools"] == 257
    for name, value in expected.items():
        assert got["summary"][name] == pytest.approx(value, abs=1e-9), name
    # per query, the ranks themselves (the CLI lists them in the queries file's gold order)
    for q, mine, theirs in zip(rows, got["queries"], all_ranks, strict=True):
        gold_sorted = sorted(index[g] for g in dict.fromkeys(q["gold"]))
        by_index = dict(zip(gold_sorted, theirs, strict=True))
        assert mine["ranks"] == [by_index[index[g]] for g in dict.fromkeys(q["gold"])], q["id"]
    # the table names the same figures
    code, text, _ = cli("retrieval", catalog, "--queries", queries)
    assert f"{expected['hit@5']:.1%}" in text and f"MRR {expected['mrr']:.3f}" in text


def test_external_rankings_agree_with_a_plain_script(cli, tmp_path):
    catalog, queries = shared("retrieval", "mcp-bench", "catalog.json"), shared("retrieval", "mcp-bench", "queries.jsonl")
    keys, _ = _catalog(catalog)
    rows = [json.loads(line) for line in queries.read_text(encoding="utf-8").splitlines() if line.strip()]
    rng = np.random.default_rng(7)
    lists = {q["id"]: [keys[i] for i in rng.permutation(len(keys))[:rng.integers(0, 40)]] for q in rows}
    (tmp_path / "r.jsonl").write_text("".join(json.dumps({"id": i, "ranked": r}) + "\n" for i, r in lists.items()))
    all_ranks = [[lists[q["id"]].index(g) + 1 if g in lists[q["id"]] else None for g in dict.fromkeys(q["gold"])]
                 for q in rows]
    expected = _metrics(all_ranks)
    code, out, err = cli("retrieval", catalog, "--queries", queries, "--rankings", tmp_path / "r.jsonl",
                         "--format", "json")
    assert code == 0, err
    got = json.loads(out)["summary"]
    assert got["method"] == "external rankings"
    for name, value in expected.items():
        assert got[name] == value, name  # the same arithmetic on the same lists: exactly equal
