"""The retrieval evaluation on small registries whose ranks are worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

import toolsurvey as ts
from toolsurvey.errors import InputError
from toolsurvey.measuring.retrieval.evaluation import retrieval_eval
from toolsurvey.measuring.retrieval.methods import regex_pattern
from toolsurvey.measuring.retrieval.ranks import gold_ranks, top
from toolsurvey.measuring.retrieval.text import terms, tool_text


def reg():
    return ts.Registry.from_tools([
        ts.Tool("create_issue", "Open a new issue in a repository.", server="gh",
                input_schema={"type": "object", "properties": {"title": {"type": "string", "description": "Issue title"}}}),
        ts.Tool("listPullRequests", "List pull requests of a repository.", server="gh"),
        ts.Tool("send_message", "Post a chat message to a channel.", server="chat"),
        ts.Tool("search", "Search anything.", server="chat"),
    ])


def test_terms_split_identifiers_and_drop_stop_words():
    assert terms("listPullRequests for the HTTPServer_v2-api") == ["list", "pull", "requests", "http", "server", "v2", "api"]
    assert "title" in tool_text(reg().tools[0]) and "Issue title" in tool_text(reg().tools[0])


def test_ties_pessimistic_and_optimistic_by_hand():
    scores = np.array([2.0, 1.0, 2.0, 0.0, 2.0])
    # gold 2 ties tools 0 and 4 (not needed): pessimistic, both rank first -> 3; optimistic -> 1
    assert gold_ranks(scores, np.array([2]), "pessimistic").tolist() == [3.0]
    assert gold_ranks(scores, np.array([2]), "optimistic").tolist() == [1.0]
    # gold 0 and 2 tied with each other and with tool 4: 4 first, then 0, then 2 (registry order)
    assert gold_ranks(scores, np.array([0, 2]), "pessimistic").tolist() == [2.0, 3.0]
    # a score of 0 is not retrieved
    assert np.isnan(gold_ranks(scores, np.array([3]))).all()
    mask = np.array([False, False, True, False, False])
    assert top(scores, mask, 4).tolist() == [0, 4, 2, 1]
    assert top(scores, mask, 10).tolist() == [0, 4, 2, 1]  # tool 3 scores 0: never listed
    assert top(scores, mask, 2, "optimistic").tolist() == [2, 0]


def test_evaluation_by_hand():
    queries = [{"id": "a", "query": "open an issue", "gold": ["create_issue"]},
               {"id": "b", "query": "pull requests of this repository", "gold": ["gh/listPullRequests", "create_issue"]},
               {"id": "c", "query": "weather tomorrow", "gold": ["send_message"]}]
    ev = retrieval_eval(reg(), queries, k=(1, 2))
    q = ev.queries.set_index("id")
    assert q.loc["a", "ranks"] == [1.0]
    # b: listPullRequests matches pull, requests, repository; create_issue matches repository only
    assert q.loc["b", "ranks"] == [1.0, 2.0]
    assert np.isnan(q.loc["c", "best_rank"])  # no shared term: not retrieved
    s = ev.summary
    assert s["hit@1"] == pytest.approx(2 / 3) and s["recall@1"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert s["recall@2"] == pytest.approx(2 / 3) and s["mrr"] == pytest.approx((1 + 1 + 0) / 3)
    assert ev.hit_at(1) == s["hit@1"]
    assert ev.never_found() == ["chat/send_message"]
    t = ev.tools.set_index("tool")
    assert t.loc["gh/create_issue", ["needed", "found"]].tolist() == [2, 2]


@pytest.mark.parametrize("method", ["tfidf", "regex"])
def test_other_methods_find_the_obvious_tool(method):
    ev = retrieval_eval(reg(), [{"id": "a", "query": "post a chat message", "gold": ["send_message"]}], method=method)
    assert ev.queries["best_rank"].tolist() == [1.0]


def test_regex_pattern_stays_within_the_documented_length():
    p = regex_pattern(" ".join(f"word{i:03d}" for i in range(100)))
    assert len(p) <= 200 and p.startswith("(?i)(?:word000|") and p.endswith(")")
    assert regex_pattern("the of and") == ""


def test_a_callable_retriever_is_measured():
    ev = retrieval_eval(reg(), [{"id": "a", "query": "x", "gold": ["search"]}],
                        rankings=lambda query, k: ["create_issue", "chat/search"])
    assert ev.summary["mrr"] == 0.5 and ev.method == "external rankings"


def test_bad_input_is_one_clear_error(tmp_path):
    with pytest.raises(InputError, match="no queries"):
        retrieval_eval(reg(), [])
    with pytest.raises(InputError, match="repeats"):
        retrieval_eval(reg(), [{"id": 1, "query": "a", "gold": ["search"]}, {"id": "1", "query": "b", "gold": ["search"]}])
    with pytest.raises(InputError, match=r"'create_isue' is not in the registry; closest: .*create_issue"):
        retrieval_eval(reg(), [{"id": 1, "query": "a", "gold": ["create_isue"]}])
    with pytest.raises(InputError, match="no ranking for 1 of 2"):
        retrieval_eval(reg(), [{"id": 1, "query": "a", "gold": ["search"]}, {"id": 2, "query": "b", "gold": ["search"]}],
                       rankings={"1": ["search"]})
    with pytest.raises(InputError, match="'nope' is not in the registry"):
        retrieval_eval(reg(), [{"id": 1, "query": "a", "gold": ["search"]}], rankings={"1": ["nope"]})
    with pytest.raises(InputError, match="unknown retrieval method"):
        retrieval_eval(reg(), [{"id": 1, "query": "a", "gold": ["search"]}], method="dense")
    with pytest.raises(InputError, match="model2vec model"):
        retrieval_eval(reg(), [{"id": 1, "query": "a", "gold": ["search"]}], method="embedding", model=str(tmp_path / "x"))


def test_empty_descriptions_are_a_counted_warning():
    r = ts.Registry.from_tools([ts.Tool("alpha"), ts.Tool("beta_tool", "")])
    ev = retrieval_eval(r, [{"id": 1, "query": "beta", "gold": ["beta_tool"]}])
    assert ev.warnings == ["2 tool(s) have no description: only their names and parameters can be found"]
    assert ev.queries["best_rank"].tolist() == [1.0]


def test_cli_errors_exit_2_with_one_line(cli, tmp_path, write_json):
    path = write_json([{"name": "a_tool", "description": "does a", "inputSchema": {"type": "object"}}])
    (tmp_path / "q.jsonl").write_text('{"id": 1, "query": "a", "gold": ["b_tool"]}\n')
    code, out, err = cli("retrieval", path, "--queries", tmp_path / "q.jsonl")
    assert code == 2 and err.count("\n") == 1 and "b_tool" in err and "Traceback" not in err
    (tmp_path / "q.jsonl").write_text("")
    code, out, err = cli("retrieval", path, "--queries", tmp_path / "q.jsonl")
    assert code == 2 and "q.jsonl: no queries" in err and "line:" not in err
    code, out, err = cli("retrieval", path, "--queries", tmp_path / "q.jsonl", "-k", "0,2")
    assert code == 2


def test_audit_names_the_tools_no_query_finds():
    queries = [{"id": "a", "query": "open an issue", "gold": ["create_issue"]},
               {"id": "b", "query": "weather tomorrow", "gold": ["send_message"]}]
    f = ts.audit(reg(), rules=["never-found"], queries=queries)
    assert f["tool"].tolist() == ["send_message"]
    assert "1 query needs it and none finds it in the top 5" in f["evidence"].iloc[0]
    assert "in the words users use" in f["fix"].iloc[0]
    assert ts.audit(reg(), rules=["never-found"]).empty  # no queries: nothing to say


def test_embedding_method_finds_a_paraphrase_through_a_local_model(tmp_path):
    # a tiny model2vec model built here (nothing is downloaded) in which "post" and "send" mean the same
    model2vec = pytest.importorskip("model2vec")
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    words = ["[UNK]", "[PAD]", "post", "send", "message", "issue", "open", "pull", "requests"]
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.normalizer, tok.pre_tokenizer = normalizers.Lowercase(), pre_tokenizers.Whitespace()
    vectors = np.eye(len(words), dtype=np.float32)
    vectors[0] = 0
    vectors[words.index("send")] = vectors[words.index("post")]
    model2vec.StaticModel(vectors, tok, normalize=True).save_pretrained(str(tmp_path / "m"))
    q = [{"id": "a", "query": "send", "gold": ["send_message"]}]
    ev = retrieval_eval(reg(), q, method="embedding", model=str(tmp_path / "m"))
    assert ev.queries["best_rank"].tolist() == [1.0]
    # BM25 has no shared term for "send" in send_message's text other than its name: both find it,
    # but with the name changed only the embedding does
    renamed = ts.Registry.from_tools([ts.Tool("chat_out", "Post a chat message.", server="chat"),
                                      ts.Tool("open_issue", "Open an issue.", server="gh")])
    q2 = [{"id": "a", "query": "send", "gold": ["chat_out"]}]
    assert np.isnan(retrieval_eval(renamed, q2).queries["best_rank"].iloc[0])
    assert retrieval_eval(renamed, q2, method="embedding", model=str(tmp_path / "m")).queries["best_rank"].iloc[0] == 1


def test_json_output_is_strict_json(cli):
    import json

    code, out, err = cli("retrieval", "data/registries/ops_assistant.json", "--queries",
                         "data/queries/ops_assistant.jsonl", "--format", "json")
    assert code == 0, err

    def no_nan(c):
        raise AssertionError(f"{c} in the JSON output")

    doc = json.loads(out, parse_constant=no_nan)
    assert set(doc) == {"summary", "queries", "tools"} and {"hit@1", "hit@5", "recall@5", "mrr"} <= set(doc["summary"])
    assert any(q["best_rank"] is None for q in doc["queries"])  # a query whose tools are not retrieved: null
