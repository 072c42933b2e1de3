"""advice: the baseline scenario, how often each tool is visible, and one price per finding, each
checked against figures worked out by hand."""

import warnings

import pandas as pd
import pytest

from toolsurvey.advice.baseline import baseline
from toolsurvey.advice.pricing import price_findings
from toolsurvey.advice.visibility import visibility
from toolsurvey.core.registry import Registry, Tool
from toolsurvey.inputs.sources import load_usage
from toolsurvey.model.scenario import Phase, Scenario
from toolsurvey.model.simulate import simulate

S = {"type": "object", "properties": {"q": {"type": "string"}}}


def reg_of(*names):
    return Registry.from_tools([Tool(n, f"Does {n}.", S, server="s") for n in names])


def run(reg, **sc):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return simulate(reg, Scenario(**sc))


def test_visibility_under_each_strategy():
    reg = reg_of(*[f"list_{i}" for i in range(20)], "get_core")
    assert visibility(reg).share("s/list_3") == 1.0
    fixed = visibility(reg, run(reg, strategy="fixed", tools=("list_1", "list_2")))
    assert fixed.share("s/list_1") == 1.0 and fixed.share("s/list_3") == 0.0
    # retrieval: the core always, each of the 20 others in 10 of 20 picks
    r = visibility(reg, run(reg, strategy="retrieval", retrieval_k=10, core=("get_core",)))
    assert r.share("s/get_core") == 1.0 and r.share("s/list_0") == pytest.approx(0.5)
    # phases: 2 requests see list_*, the last 2 (with the answer) get_core; accuracy off keeps 4 requests
    ph = run(reg, steps=4, accuracy=False, strategy="phases",
             phases=[Phase("look", tools=("list_*",), steps=2), Phase("act", tools=("get_core",), steps=2)])
    v = visibility(reg, ph)
    assert v.share("s/list_0") == pytest.approx(0.5) and v.share("s/get_core") == pytest.approx(0.5)
    assert v.share("s/list_0", "s/get_core") == 0.0 and v.share("s/list_0", "s/list_1") == pytest.approx(0.5)


def test_baseline_takes_the_logs_mean_result_of_known_tools_only():
    reg = reg_of("list_a", "get_b")
    sc = Scenario(response_tokens=800)
    assert baseline(reg, sc) is sc
    log = load_usage([{"tool": "list_a", "response_tokens": 100}, {"tool": "get_b", "response_tokens": 300},
                      {"tool": "other", "response_tokens": 10_000}, {"tool": "get_b"}])
    assert baseline(reg, sc, log).response_tokens.expected() == 200
    assert baseline(reg, sc, [{"tool": "list_a"}]) is sc  # no sizes in the log: the scenario's stays


def test_price_findings_charges_one_description_once_and_weights_by_visibility():
    f = pd.DataFrame({"rule": ["description-restates-name", "description-short", "schema-dollar-schema"],
                      "server": ["s", "s", "s"], "tool": ["get_b", "get_b", "list_a"], "tokens": [-40, -40, 12],
                      "group": pd.array([None, None, None], dtype="Int64")})
    assert list(price_findings(f)) == [-40, 0, 12]
    reg = reg_of("list_a", "get_b")
    v = visibility(reg, run(reg, steps=4, accuracy=False, strategy="phases",
                            phases=[Phase("look", tools=("list_*",), steps=1), Phase("act", tools=("get_*",), steps=3)]))
    assert list(price_findings(f, v)) == pytest.approx([-30, 0, 3])


def test_a_merge_is_priced_on_the_requests_that_show_every_member():
    from toolsurvey.advice.audit.run import audit

    desc = "Get one incident by id: title, severity, status, owner and timeline."
    reg = Registry.from_tools([Tool("get_incident", desc, S, server="inc"),
                               Tool("get_incident_details", desc + " With the timeline.", S, server="inc"),
                               Tool("page_oncall", "Page the on-call engineer of a team.", S, server="inc")])
    f = audit(reg, rules=["overlap"])
    [charged] = f.loc[f["tokens"] > 0, "tokens"]
    # get_incident shows on 3 of 4 requests, get_incident_details on 1 of them: together on 1 of 4
    v = visibility(reg, run(reg, steps=4, accuracy=False, strategy="phases", phases=[
        Phase("look", tools=("get_incident",), steps=2), Phase("act", tools=("get_incident*", "page_*"), steps=1),
        Phase("end", tools=("page_*", "get_incident"), steps=1)]))
    assert price_findings(f, v).max() == pytest.approx(charged * 0.25)
