"""Near-duplicate detection: folding, the same-action-and-object rule, TF-IDF cosine, clustering."""

import numpy as np
import pytest
from _public_data import SIMILARITY_GITHUB, SIMILARITY_PAIRS, similarity_tools
from conftest import ROOT, shared
from sklearn.feature_extraction.text import TfidfVectorizer

from toolsurvey.advice.similarity.folding import Folder, name_words
from toolsurvey.advice.similarity.pairs import clusters, similar_pairs
from toolsurvey.advice.similarity.pairs import components as _components
from toolsurvey.advice.thresholds import load_config
from toolsurvey.core.registry import Registry, Tool
from toolsurvey.errors import InputError

CFG = load_config()["similarity"]


def reg(*pairs):
    return Registry.from_tools([Tool(n, d, {"type": "object"}) for n, d in pairs])


def test_name_words_split_snake_kebab_and_camel():
    assert name_words("getHTTPResponse_code-v2") == ["get", "http", "response", "code", "v2"]


@pytest.mark.parametrize("name, expected", [
    ("get_active_alerts", ("list", "alert")),
    ("get_deploy_history", ("list", "deploy")),
    ("trigger_deployment", ("create", "deploy")),
    ("get_api_v1_users_id", ("get", "user")),
    ("crm_search_contacts", ("search", "contact")),
    ("release_calendar", (None, None)),
])
def test_action_and_object(name, expected):
    assert Folder(CFG).action_object(name) == expected


def test_score_is_sklearn_tfidf_cosine_of_the_folded_text():
    tools = [("rollback_deploy", "Roll a service back to the previous version. Returns the id."),
             ("rollback_service", "Rolls back a service to previous version.")]
    r = reg(*tools)
    fold = Folder(CFG)
    x = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit_transform([fold.text(t) for t in r])
    expected = float((x[0] @ x[1].T).toarray()[0, 0])
    p = similar_pairs(r, threshold=0.0, method="tfidf", config=CFG)
    assert p["score"][0] == pytest.approx(expected, abs=1e-4)


def test_different_actions_are_never_duplicates():
    r = reg(("get_ticket", "Get one ticket by key with its full history."),
            ("close_ticket", "Close one ticket by key with its full history."))
    for method in ("tfidf", "scored"):
        assert similar_pairs(r, threshold=0.0, method=method, config=CFG).empty


def test_same_action_and_object_is_a_pair_whatever_the_wording():
    r = reg(("create_incident", "Declare a major outage and open a war room."),
            ("open_incident", "Starts one."))
    p = similar_pairs(r, threshold=0.99, method="tfidf", config=CFG)
    assert list(p["basis"]) == ["same action and object"]


def test_clusters_do_not_chain():
    # a~b and b~c but not a~c: only the stronger pair forms a cluster
    a, b, same = np.array([0, 1]), np.array([1, 2]), np.array([False, False])
    assert _components(3, a, b, same, np.array([0.9, 0.8])) == [1, 1, 0]
    a, b, same = np.array([0, 1, 0]), np.array([1, 2, 2]), np.array([False, False, False])
    assert _components(3, a, b, same, np.array([0.9, 0.8, 0.7])) == [1, 1, 1]


def test_clusters_lists_members():
    r = reg(("get_incident", "Gets an incident."), ("get_incident_details", "Gets incident details."),
            ("restart_service", "Restart every instance of a service in batches."))
    assert clusters(similar_pairs(r, method="tfidf", config=CFG)) == [[("default", "get_incident"), ("default", "get_incident_details")]]


def test_bad_threshold_and_method():
    with pytest.raises(InputError):
        similar_pairs(reg(), threshold=1.5)
    with pytest.raises(InputError):
        similar_pairs(reg(), method="embeddings")


def test_empty_and_stop_word_only_registries():
    assert similar_pairs(Registry(), config=CFG).empty
    assert similar_pairs(reg(("a", "the"), ("b", "of")), config=CFG).empty


def test_sparse_neighbours_are_the_dense_top_k_a_few_rows_at_a_time(monkeypatch):
    import random

    import toolsurvey.advice.similarity.neighbours as S
    import toolsurvey.core.tfidf as T

    rng = random.Random(3)
    vocab = [f"w{i}" for i in range(30)]
    texts = [" ".join(rng.choice(vocab) for _ in range(6)) for _ in range(60)]
    x = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit_transform(texts)
    dense = (x @ x.T).toarray()
    np.fill_diagonal(dense, -1)
    k = 4
    expected = set()
    for a in range(len(texts)):
        for b in np.argsort(-dense[a], kind="stable")[:k]:
            if dense[a, b] > 0:
                expected.add((min(a, int(b)), max(a, int(b))))
    monkeypatch.setattr(T, "BLOCK", 200)  # a few rows at a time
    n = len(texts)
    assert len(S.tfidf(texts).slices(np.arange(n), n)) > 10
    assert {(int(c) // n, int(c) % n) for c in S.neighbours(S.tfidf(texts), k)} == expected



def test_a_large_block_pairs_each_tool_with_its_nearest_members_only():
    # 30 servers each with a `list_alerts`: one action-and-object block. Up to k + 1 members every pair is
    # a candidate; beyond, each member meets its k nearest (here its twin, same team), not all 29 others
    from toolsurvey.advice.similarity.pair_features import scored_pairs

    tools = [Tool("list_alerts", f"Lists the open alerts of team{i // 2} with severity and owner.",
                  {"type": "object"}, server=f"s{i}") for i in range(30)]
    r = Registry.from_tools(tools)
    assert len(list(scored_pairs(r, CFG, k=29))) == 30 * 29 // 2
    bounded = {(a, b) for a, b, _ in scored_pairs(r, CFG, k=3)}
    assert len(bounded) <= 30 * 3 * 2 < 30 * 29 // 2
    assert all((2 * j, 2 * j + 1) in bounded for j in range(15))

# --- the labelled set of real tool pairs (tests/data/similarity_pairs.md) --------------------------


def _eval(method):
    import csv

    shared(*SIMILARITY_GITHUB)  # 117 of the 255 tools: GitHub's own server
    reg = similarity_tools()
    found = {frozenset(((r.server_a, r.tool_a), (r.server_b, r.tool_b)))
             for r in similar_pairs(reg, threshold=CFG["threshold"], method=method, config=CFG).itertuples()}
    tp = fp = fn = 0
    with open(SIMILARITY_PAIRS, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            if r["split"] != "test":
                continue
            hit = frozenset(((r["server_a"], r["tool_a"]), (r["server_b"], r["tool_b"]))) in found
            dup = r["duplicate"] == "1"
            tp, fp, fn = tp + (hit and dup), fp + (hit and not dup), fn + (dup and not hit)
    return tp / (tp + fp), tp / (tp + fn)


def test_default_method_meets_the_goal_on_held_out_real_pairs():
    # issue 12: precision >= 0.9 at recall >= 0.7 on the pairs the weights and threshold never saw
    precision, recall = _eval(CFG["method"])
    assert precision >= 0.9 and recall >= 0.7


def test_read_and_write_tools_are_never_paired():
    r = reg(("alerting_rules_read", "Read Grafana alerting rules: list them or get one by uid."),
            ("alerting_rules_write", "Write Grafana alerting rules: create, update or delete one by uid."))
    for method in ("tfidf", "scored"):
        assert similar_pairs(r, threshold=0.0, method=method, config=CFG).empty


def test_same_operation_on_different_products_is_not_a_duplicate():
    tools = [Tool("create_issue", f"Create a new issue in a {p} project", {"type": "object"}, server=s)
             for s, p in (("gh", "GitHub"), ("gl", "GitLab"))]
    tools += [Tool(f"{v}_file", f"{v.capitalize()} a file in a {p} project.", {"type": "object"}, server=s)
              for s, p in (("gh", "GitHub"), ("gl", "GitLab")) for v in ("get", "delete")]
    for method in ("tfidf", "scored"):
        assert similar_pairs(Registry.from_tools(tools), threshold=0.0, method=method, config=CFG).empty


@pytest.mark.parametrize("method", ["tfidf", "scored"])
def test_memory_at_20k_tools_stays_under_300_mb(method):
    # issue 15: sparse top-k neighbours, not dense n x n blocks; measured in a fresh process on the
    # real-shaped registry bench/audit.py builds (the tfidf rule keeps 373,505 pairs at 20,000 tools;
    # both methods score the same candidates)
    import subprocess
    import sys

    root = ROOT
    child = f"""
import resource, sys
sys.path[:0] = [{str(root)!r}, {str(root / "bench")!r}]
from audit import registry
from toolsurvey.advice.thresholds import load_config
from toolsurvey.advice.similarity.pairs import similar_pairs
cfg, reg = load_config()["similarity"], registry(20000, 1)
similar_pairs(registry(50, 2), config=cfg)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
pairs = similar_pairs(reg, method={method!r}, config=cfg)
print(len(pairs), (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024)
"""
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True).stdout.split()
    if method == "tfidf":
        assert int(out[0]) > 100_000  # the registry does have many pairs to hold
    assert float(out[1]) < 300


def test_scored_pairs_a_general_update_with_its_special_cases_only():
    ids = {"owner": {"type": "string"}, "repo": {"type": "string"}, "number": {"type": "integer"}}

    def tool(name, desc, *fields):
        props = {**ids, **{f: {"type": "string"} for f in fields}}
        return Tool(name, desc, {"type": "object", "properties": props}, annotations={"readOnlyHint": False})

    r = Registry.from_tools([
        tool("update_pull_request", "Update an existing pull request: title, body, state or base.",
             "title", "body", "state", "base"),
        tool("update_pull_request_title", "Update the title of an existing pull request.", "title"),
        tool("update_pull_request_body", "Update the body of an existing pull request.", "body"),
    ])
    p = similar_pairs(r, method="scored", config=CFG)
    assert {frozenset((a, b)) for a, b in zip(p["tool_a"], p["tool_b"], strict=True)} == {
        frozenset(("update_pull_request", "update_pull_request_title")),
        frozenset(("update_pull_request", "update_pull_request_body"))}
    assert (p["score"] >= 0.55).all() and (p["score"] <= 1).all()


def test_audit_can_use_the_scored_method():
    from toolsurvey.advice.audit.run import audit

    r = Registry.from_tools([
        Tool("get_config", "Get the server configuration as JSON.", {"type": "object"}, server="a"),
        Tool("get_config", "Get the server configuration as JSON.", {"type": "object"}, server="b"),
        Tool("set_config_value", "Set one configuration value by key.", {"type": "object"}, server="a"),
    ])
    f = audit(r, rules=["overlap*"], config={"similarity": {"method": "scored"}})
    assert list(f["tool"]) == ["get_config"] and "b/get_config" in f["evidence"][0]
    assert list(f["rule"]) == ["overlap-across-servers"]  # two servers: not the user's to merge


# --- the optional embedding path (model2vec), with a tiny model built here: none can be downloaded ---


def _tiny_model2vec(path):
    """A model2vec model of a 12-word vocabulary in which fill/type and field/element mean the same."""
    model2vec = pytest.importorskip("model2vec")
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    words = ["[UNK]", "[PAD]", "fill", "type", "field", "element", "input", "text", "delete", "file", "disk", "page"]
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.normalizer, tok.pre_tokenizer = normalizers.Lowercase(), pre_tokenizers.Whitespace()
    vectors = np.eye(len(words), dtype=np.float32)
    vectors[0] = 0  # unknown words (puppeteer, browser, into, ...) carry no meaning
    vectors[words.index("type")] = vectors[words.index("fill")]
    vectors[words.index("element")] = vectors[words.index("field")]
    model2vec.StaticModel(vectors, tok, normalize=True).save_pretrained(str(path))
    return str(path)


def test_embedding_method_pairs_paraphrases_through_a_local_model(tmp_path):
    tools = [Tool("puppeteer_fill", "Fill out an input field.", {"type": "object"}, server="puppeteer"),
             Tool("browser_type", "Type text into an input element.", {"type": "object"}, server="playwright"),
             Tool("delete_file", "Delete a file from disk.", {"type": "object"}, server="fs")]
    r = Registry.from_tools(tools)
    cfg = {**CFG, "model": _tiny_model2vec(tmp_path / "m2v")}
    p = similar_pairs(r, method="embedding", config=cfg)
    assert [(a, b) for a, b in zip(p["tool_a"], p["tool_b"], strict=True)] == [("puppeteer_fill", "browser_type")]
    # by hand: "puppeteer fill. fill out an input field." and "browser type. type text into an input
    # element." have bags {fill: 2, input: 1, field: 1} and {fill: 2, input: 1, field: 1, text: 1} here
    assert p["score"][0] == pytest.approx(6 / (6 ** 0.5 * 7 ** 0.5), abs=1e-3)
    assert similar_pairs(r, method="tfidf", config=CFG).empty  # wording alone does not tie them


def test_embedding_method_never_downloads_a_model(tmp_path):
    r = reg(("get_ticket", "Get one ticket."), ("fetch_ticket", "Fetch one ticket."))
    for model in ("", str(tmp_path / "missing"), "minishlab/potion-base-8M"):
        with pytest.raises(InputError, match="model2vec model on this machine"):
            similar_pairs(r, method="embedding", config={**CFG, "model": model})
