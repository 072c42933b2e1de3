"""`toolsurvey eval --description-tokens ... --fit-descriptions` end to end through the official openai
SDK against the fake OpenAI-compatible server: every per-variant figure recounted from the JSON Lines
log by a second, simple implementation (exact equality); each description on the wire checked with
tiktoken itself (the kept text at most N tokens, the marker naming the full count, never longer than
the description); requests grouped by variant; the fitted effect worked out by hand from a small
eval, loaded back by load_description_effect and used by description_sweep."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from _oracle import ntok, wilson
from conftest import ROOT
from fake_llm import Move, serve

from toolsurvey.cli import main

pytest.importorskip("openai")
REG = str(ROOT / "data" / "registries" / "ops_assistant.json")
QUERIES = [str(ROOT / "data" / "queries" / "ops_assistant.jsonl"),
           str(ROOT / "data" / "queries" / "ops_assistant_selection.jsonl")]
MARK = " …["


def words(text: str) -> set[str]:
    return {w.strip("?.,;:()`'\"").lower() for w in text.split() if len(w.strip("?.,;:()`'\"")) > 3}


def decide(query: str, names: list[str], tools: list) -> Move:
    """Calls the offered tool whose name and description share the most words with the query (the
    first on a tie), so a shorter description changes picks; writes a call out as text for incidents
    (invalid); no shared word: no call."""
    q = words(query)
    if "incident" in q:
        return Move(text='<tool_call>{"name": "x", "arguments": {}}</tool_call>')
    best, score = None, 0
    for t in tools:
        fn = t["function"]
        s = len(q & words(fn["name"].replace("_", " ") + " " + (fn.get("description") or "")))
        if s > score:
            best, score = fn["name"], s
    return Move([(best, {})]) if best else Move(text="no tool fits")


@pytest.fixture
def fake(monkeypatch, tmp_path):
    return serve(monkeypatch, tmp_path, decide)


def run(*args):
    return main(["eval", REG, "--queries", *QUERIES, "--model", "local-test-model", "--base-url", "http://llm.test/v1",
                 *args])





def recount(log: list[dict], label) -> dict:
    rows = [r for r in log if r["description_tokens"] == label and r["repeat"] == 0]
    by = Counter(r["outcome"] for r in rows)
    need = [r for r in rows if r["gold"]]
    calls = [r for r in need if r["outcome"] in ("right", "wrong", "invalid")]
    bad = sum(1 for r in calls if r["outcome"] in ("wrong", "invalid"))
    return {"queries": len(rows), "wrong": (bad, len(calls)), "accuracy": (by["right"] + by["no_call"], len(rows)),
            "tool_accuracy": (by["right"], len(need)), "skip": (by["skip"], len(need)),
            "false_call": (by["false_call"], len(rows) - len(need)), "invalid": (by["invalid"], len(rows))}


def registry_descriptions() -> dict[str, str | None]:
    """Each tool's description by server/name, in the registry file's order (the order tools are sent in)."""
    reg = json.loads(open(REG, encoding="utf-8").read())
    return {f"{s}/{t['name']}": t.get("description") for s, server in reg["servers"].items() for t in server["tools"]}


def test_every_figure_per_variant_is_recounted_from_the_log_and_the_wire(fake, tmp_path):
    log, out = tmp_path / "log.jsonl", tmp_path / "out.json"
    assert run("--description-tokens", "none,10,40,full", "--log", str(log), "--format", "json",
               "-o", str(out), "-q") == 0
    records = [json.loads(x) for x in log.read_text().splitlines()]
    doc = json.loads(out.read_text())
    assert [r["description_tokens"] for r in doc["by_description"]] == ["none", 10, 40, "full"]
    assert len(records) == 58 * 4 == len(fake.requests)
    for row in doc["by_description"]:
        mine = recount(records, row["description_tokens"])
        assert row["queries"] == mine["queries"] == 58
        for key, name in (("wrong", "wrong_call_rate"), ("accuracy", "accuracy"), ("tool_accuracy", "tool_accuracy"),
                          ("skip", "skip_rate"), ("false_call", "false_call_rate"), ("invalid", "invalid_rate")):
            k, n = mine[key]
            got = row[name]
            assert (got["count"], got["of"]) == (k, n), (row["description_tokens"], key)
            assert got["rate"] == k / n
            assert (got["low"], got["high"]) == pytest.approx(wilson(k, n), abs=1e-15)
    # the mean description tokens shown, counted again from the request bodies with tiktoken itself
    by_label: dict = {}
    for q, r in zip(fake.requests, records, strict=True):
        assert q["body"]["messages"][-1]["content"] == r["query"]  # the log's order is the wire's
        descs = [t["function"].get("description") for t in q["body"]["tools"]]
        by_label.setdefault(r["description_tokens"], set()).add(sum(ntok(d) if d else 0 for d in descs) / len(descs))
    for row in doc["by_description"]:
        (mean,) = by_label[row["description_tokens"]]  # every request of a variant shows the same descriptions
        assert row["mean_description_tokens"] == pytest.approx(mean, abs=1e-12)
    assert by_label["none"] == {0.0}
    # the sweep measured something that moves here: no description, more skips than the full ones
    skip = {r["description_tokens"]: r["skip_rate"]["count"] for r in doc["by_description"]}
    assert skip["none"] > skip["full"]


def test_each_shown_description_is_the_trimming_cut_at_most_n_tokens(fake, tmp_path):
    """Checked on the wire with tiktoken: the text kept before the marker is at most N tokens and a
    prefix of the description; the marker names its full token count; a description shown whole is
    either at most N tokens or one no cut shortens (its tokens at most N plus the marker's); nothing
    shown is longer than the description; `none` sends no description, `full` the registry's."""
    assert run("--description-tokens", "none,10,20,full", "-q", "-o", str(tmp_path / "o.txt")) == 0
    full = registry_descriptions()
    seen = Counter()
    for q in fake.requests:
        assert len(q["body"]["tools"]) == len(full)
        descs = {k: t["function"].get("description") for k, t in zip(full, q["body"]["tools"], strict=True)}
        kind = ("none" if all(d is None for d in descs.values()) else
                "full" if all(descs[n] == full[n] for n in descs) else None)
        n = None
        for name, shown in descs.items():
            whole = full[name]
            if shown is None or kind is not None:
                continue
            if MARK in shown:
                kept, marker = shown.split(MARK)
                assert whole.startswith(kept)
                assert marker == f"{ntok(whole)} tokens total]"
                n = max(n or 0, ntok(kept))
            assert ntok(shown) <= ntok(whole)
        seen[kind or ("cut", n)] += 1
    # 58 requests per variant; the longest kept text of the 10- and 20-token variants is exactly at their limit
    assert seen == Counter({"none": 58, "full": 58, ("cut", 10): 58, ("cut", 20): 58})
    for limit in (10, 20):
        marker = max(ntok(f" …[{ntok(d)} tokens total]") for d in full.values() if d)
        for q in fake.requests:
            descs = [t["function"].get("description") for t in q["body"]["tools"]]
            if not any(d and MARK in d and ntok(d.split(MARK)[0]) == limit for d in descs):
                continue
            for d in descs:
                if d and MARK not in d:
                    assert ntok(d) <= limit + marker


def test_requests_come_grouped_by_variant_and_a_rerun_sends_nothing(fake, tmp_path):
    assert run("--description-tokens", "none,20,full", "-q", "-o", str(tmp_path / "o.txt")) == 0
    sets = [tuple(t["function"].get("description") for t in q["body"]["tools"]) for q in fake.requests]
    changes = sum(1 for a, b in zip(sets, sets[1:], strict=False) if a != b)
    assert changes == len(set(sets)) - 1 == 2  # each variant's requests sent one after another
    before = len(fake.requests)
    assert run("--description-tokens", "none,20,full", "-q", "-o", str(tmp_path / "o.txt")) == 0
    assert len(fake.requests) == before


def test_table_markdown_csv_and_a_stored_eval_show_the_same_rows(fake, tmp_path):
    from toolsurvey.measuring.selection.stored import read_eval

    log, js = tmp_path / "log.jsonl", tmp_path / "o.json"
    assert run("--description-tokens", "none,full", "--log", str(log), "--format", "json", "-o", str(js), "-q") == 0
    doc = json.loads(js.read_text())
    for path in (log, js):
        de = read_eval(path)
        rows = de.by_description()
        assert [r["description_tokens"] for r in rows] == ["none", "full"]
        for mine, theirs in zip(rows, doc["by_description"], strict=True):
            for k in ("mean_description_tokens", "queries", "wrong_call_rate", "accuracy", "skip_rate"):
                assert mine[k] == theirs[k]
    for fmt in ("table", "markdown", "csv"):
        out = tmp_path / f"o.{fmt}"
        assert run("--description-tokens", "none,full", "--format", fmt, "-o", str(out), "-q") == 0
        text = out.read_text()
        assert "wrong" in text
        if fmt == "csv":
            lines = text.splitlines()
            assert lines[0].startswith("description_tokens,mean_description_tokens,descriptions_cut,queries,wrong_call")
            assert [x.split(",")[0] for x in lines[1:]] == ["none", "full"]


def one_line_error(err: str, message: str) -> bool:
    last = err.strip().splitlines()[-1]
    return last.startswith("toolsurvey eval: error:") and message in last and "Traceback" not in err


def test_bad_description_options_are_one_line_and_nothing_is_written(fake, tmp_path, capsys):
    effect, log = tmp_path / "e.toml", tmp_path / "l.jsonl"
    assert run("--description-tokens", "10,full", "--visible", "5,all") == 2
    assert one_line_error(capsys.readouterr().err, "--visible and --description-tokens are two sweeps")
    assert run("--fit-descriptions", str(effect)) == 2
    assert one_line_error(capsys.readouterr().err, "--fit-descriptions belongs to the description-length sweep")
    assert run("--description-tokens", "10,x") == 2
    assert one_line_error(capsys.readouterr().err, "expected --description-tokens as whole numbers")
    assert run("--description-tokens", "-3") == 2
    assert one_line_error(capsys.readouterr().err, "found '-3'")
    assert run("--description-tokens", "none,full", "--baseline", REG) == 2
    assert one_line_error(capsys.readouterr().err, "--baseline is not taken with --description-tokens")
    # no full variant: the fit has no reference, so neither the effect nor the log is written
    assert run("--description-tokens", "none,10", "--fit-descriptions", str(effect), "--log", str(log), "-q") == 2
    assert one_line_error(capsys.readouterr().err, "expected a 'full' variant")
    assert not effect.exists() and not log.exists()
    assert fake.requests  # that run was asked, then stopped before writing anything


def test_a_length_that_cuts_nothing_is_measured_as_full(fake, tmp_path, capsys):
    out = tmp_path / "o.json"
    assert run("--description-tokens", "none,5000", "--format", "json", "-o", str(out), "-q") == 0
    doc = json.loads(out.read_text())
    assert [r["description_tokens"] for r in doc["by_description"]] == ["none", "full"]
    assert any("--description-tokens 5000: no description is cut" in w for w in doc["warnings"])


def hand_eval(outcomes: dict):
    """A DescriptionEval of hand-written records: {variant: (mean tokens shown, [outcome, ...])}, every
    query needing tool t."""
    from toolsurvey.measuring.selection.descriptions import DescriptionEval
    from toolsurvey.measuring.selection.request import Estimate
    from toolsurvey.measuring.selection.result import SelectionEval

    records = [{"id": f"q{i}", "repeat": 0, "gold": ["s/t"], "outcome": o, "expected": "s/t",
                "called": "s/t" if o == "right" else "s/u", "args_valid": None, "args_match": None,
                "tools_offered": ["s/t", "s/u"], "description_tokens": label, "description_mean_tokens": mean}
               for label, (mean, outs) in outcomes.items() for i, o in enumerate(outs)]
    ev = SelectionEval("tiny-model", "chat-completions", None, records, Estimate(0, 0, 0, 0, 0, None, None, None, ""),
                       order=["s/t", "s/u"])
    return DescriptionEval(ev, list(outcomes), "o200k_base", 2)


def test_fitted_effect_by_hand_loads_back_and_drives_description_sweep(tmp_path):
    """docs/simulation.md, "A measured description effect", worked by hand. Ten queries per variant:
      full (30 tokens): 8 right, 1 wrong, 1 skip:            wrong 1/9, success 8/10, failure 0.2
      10   (12 tokens): 6 right, 2 wrong, 1 invalid, 1 skip: wrong 3/9, failure 0.4
      none (0 tokens):  3 right, 3 wrong, 4 skip:            wrong 3/6, failure 0.7
    Multipliers relative to full: none wrong 0.5 / (1/9) = 4.5, failure 0.7 / 0.2 = 3.5; 10: 3 and 2; full 1 and 1.
    With K = 2: failures 1 - 0.64 = 0.36, 1 - 0.36 = 0.64, 1 - 0.09 = 0.91: 10 -> 16/9, none -> 91/36."""
    import pandas as pd

    from toolsurvey import Scenario, description_sweep, load_description_effect
    from toolsurvey.model.measured_description import fit_description_effect
    from toolsurvey.present.curve_file import effect_toml

    de = hand_eval({"none": (0.0, ["right"] * 3 + ["wrong"] * 3 + ["skip"] * 4),
                    10: (12.0, ["right"] * 6 + ["wrong"] * 2 + ["invalid", "skip"]),
                    "full": (30.0, ["right"] * 8 + ["wrong", "skip"])})
    doc, warnings = fit_description_effect(de, [("q.jsonl", "ab" * 32)], date="2026-12-06")
    assert warnings == []
    path = tmp_path / "effect.toml"
    path.write_text(effect_toml(doc))
    eff = load_description_effect(path)
    assert eff.tokens == (0.0, 12.0, 30.0)
    assert eff.wrong == pytest.approx((4.5, 3.0, 1.0), abs=1e-12)
    assert eff.failure == pytest.approx((3.5, 2.0, 1.0), abs=1e-12)
    assert eff.source.startswith(f"measured: tiny-model on your registry, 10 queries, 2026-12-06 (q.jsonl sha256 {'ab' * 32}")
    assert eff.as_of == "2026-12-06"
    doc2, _ = fit_description_effect(de, task_calls=2, date="2026-12-06")
    assert [p["failure"] for p in doc2["points"]] == pytest.approx([91 / 36, 16 / 9, 1.0], abs=1e-12)
    # description_sweep with the written file: two tools whose descriptions are 30 tokens now, so the
    # multipliers are the points' own at 0, 12 and 30, and halfway between 12 and 30 at 21: wrong 2, failure 1.5
    table = pd.DataFrame({"kind": ["tool", "tool"], "tokens": [100, 100], "description": [30, 30]})
    grid = description_sweep(table, Scenario(), [0, 12, 21, 30], effect=path)
    assert list(grid["wrong_multiplier"]) == pytest.approx([4.5, 3.0, 2.0, 1.0], abs=1e-12)
    assert list(grid["failure_multiplier"]) == pytest.approx([3.5, 2.0, 1.5, 1.0], abs=1e-12)
    assert grid.attrs["assumptions"]["description_effect"]["source"].startswith("measured: tiny-model")


def test_a_rate_at_zero_is_moved_half_a_count_inward_and_said():
    """full: 8 of 8 right, no wrong call: wrong written 0.5 / 8, failure 1 - 7.5 / 8 = 1/16; none: 2 wrong
    of 4 calls (0.5), 2 right of 8 (failure 0.75): multipliers 0.5 / (1/16) = 8 and 0.75 / (1/16) = 12."""
    from toolsurvey.model.measured_description import fit_description_effect

    de = hand_eval({"none": (0.0, ["right"] * 2 + ["wrong"] * 2 + ["skip"] * 4), "full": (25.0, ["right"] * 8)})
    doc, warnings = fit_description_effect(de, date="2026-12-06")
    assert [p["wrong"] for p in doc["points"]] == pytest.approx([8.0, 1.0], abs=1e-12)
    assert [p["failure"] for p in doc["points"]] == pytest.approx([12.0, 1.0], abs=1e-12)
    assert any("no call was wrong (0 of 8)" in w for w in warnings)
    assert any("every query was answered right (8 of 8)" in w for w in warnings)


def test_fit_descriptions_from_the_cli_names_its_source(fake, tmp_path, capsys):
    effect = tmp_path / "effect.toml"
    assert run("--description-tokens", "none,20,full", "--fit-descriptions", str(effect), "-q",
               "-o", str(tmp_path / "o.txt")) == 0
    text = effect.read_text()
    assert 'source = "measured: local-test-model on your registry, 58 queries, ' in text
    assert "ops_assistant.jsonl sha256 " in text
    from toolsurvey import load_description_effect

    eff = load_description_effect(effect)
    assert eff.tokens[0] == 0.0 and eff.wrong[-1] == 1.0 and eff.failure[-1] == 1.0


def test_the_estimate_of_full_alone_is_the_plain_evals(tmp_path, monkeypatch):
    """Each variant is priced on its own descriptions; with the descriptions as they are, that is the plain
    eval's estimate, line for line; removing every description costs fewer tokens."""
    monkeypatch.setenv("TOOLSURVEY_CACHE_DIR", str(tmp_path / "cache"))
    args = ["eval", REG, "--queries", *QUERIES, "--model", "claude-sonnet-4-5", "--dry-run"]
    plain, full, none = tmp_path / "plain.txt", tmp_path / "full.txt", tmp_path / "none.txt"
    assert main([*args, "-o", str(plain)]) == 0
    assert main([*args, "--description-tokens", "full", "-o", str(full)]) == 0
    assert main([*args, "--description-tokens", "none", "-o", str(none)]) == 0
    norm = lambda p: " ".join(p.read_text().split()).replace("; the mean over the description variants", "")
    head, rest = norm(full).split(" estimate: ")  # the variant's line first, then the estimate
    descs = registry_descriptions().values()
    mean = sum(ntok(d) if d else 0 for d in descs) / len(descs)  # tiktoken's count, over the registry file's text
    assert head == f"descriptions full: every description as it is; {mean:.2f} o200k_base tokens per tool on average"
    assert norm(plain) == "estimate: " + rest
    tokens = lambda p: int(norm(p).split(" of tool definitions")[0].split("(")[-1].replace(",", ""))
    assert tokens(none) < tokens(full)


def test_description_outputs_escape_the_model_name(fake, tmp_path):
    hostile = "m\x1b[31m<script>|x"
    for fmt in ("table", "markdown"):
        out = tmp_path / f"o.{fmt}"
        assert main(["eval", REG, "--queries", *QUERIES, "--model", hostile, "--base-url", "http://llm.test/v1",
                     "--description-tokens", "none", "--format", fmt, "-o", str(out), "-q"]) == 0
        text = out.read_text()
        assert "\x1b" not in text
        if fmt == "markdown":
            assert "<script>" not in text
