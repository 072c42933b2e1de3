"""Which release and which data produced a result: `toolsurvey --version` prints the version and the
dates of the bundled data, and the JSON of `report`, `plan` and `check` carries the same fields. The
expected dates are read here from the data files with a plain scan, not through toolsurvey."""

from __future__ import annotations

import gzip
import json

import pytest
from _oracle import ASSUMPTIONS, expected_provenance, version_lines
from conftest import DATA

import toolsurvey as ts
from toolsurvey.core.assumptions import newest_as_of

REGISTRY = DATA / "registries" / "support_desk.json"


@pytest.fixture(autouse=True)
def no_fetched_prices(tmp_path, monkeypatch):
    """An empty user cache: the default prices are the snapshot shipped, whatever this machine fetched."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _printed(cli) -> list[str]:
    code, out, err = cli("--version")
    assert code == 0 and err == ""
    return out.splitlines()


def test_version_prints_the_release_and_the_dates_read_from_the_data_files(cli):
    assert _printed(cli) == version_lines(expected_provenance())


def test_the_accuracy_date_is_the_curve_the_simulation_loads_by_default(cli):
    assert _printed(cli)[-1] == f"accuracy curve: as of {ts.load_accuracy().as_of}"
    assert ts.__version__ == expected_provenance()["version"]


def test_providers_date_is_the_newest_entry_anywhere_in_the_file():
    doc = {"a": {"as_of": "2025-01-02", "b": [{"as_of": "2026-03-04"}, {"c": 1}]}, "as_of": "2025-12-31",
           "d": {"e": {"as_of": "2026-03-03"}}}
    assert newest_as_of(doc) == "2026-03-04"
    assert newest_as_of({"x": 1}) == ""


def test_report_plan_and_check_json_carry_what_version_prints(cli, tmp_path):
    printed = _printed(cli)
    code, out, _ = cli("report", REGISTRY, "--format", "json")
    assert code == 0
    docs = {"report": json.loads(out)}
    code, out, _ = cli("plan", REGISTRY, "--format", "json")
    assert code == 0
    docs["plan"] = json.loads(out)
    code, out, _ = cli("check", REGISTRY, "--max-tool-tokens", "1", "--format", "json", "-o", tmp_path / "c.json")
    assert code == 1  # the verdict's exit code is the same in JSON
    docs["check"] = json.loads((tmp_path / "c.json").read_text("utf-8"))
    for name, doc in docs.items():
        assert version_lines(doc["produced_by"]) == printed, name
    assert docs["check"]["within_budget"] is False and len(docs["check"]["breaches"]) == docs["check"]["tools"]


def test_a_fetched_price_file_is_named_in_place_of_the_snapshot(cli, tmp_path):
    # `toolsurvey prices update` leaves the file and its stamp in the user cache; the default prices
    # then come from it, and --version and the JSON say so
    cache = tmp_path / "cache" / "toolsurvey"
    cache.mkdir(parents=True)
    (cache / "model_prices_and_context_window.json").write_bytes(gzip.decompress((ASSUMPTIONS / "litellm_prices.json.gz").read_bytes()))
    (cache / "model_prices_and_context_window.meta.json").write_text(json.dumps({"fetched": "2027-01-05"}), "utf-8")
    lines = _printed(cli)
    assert lines[1] == "prices: LiteLLM price file fetched by `toolsurvey prices update`, as of 2027-01-05"
    code, out, _ = cli("check", REGISTRY, "--max-request-tokens", "1000000", "--format", "json")
    assert code == 0 and version_lines(json.loads(out)["produced_by"]) == lines


def test_a_stored_report_names_its_release_and_data_in_every_format(tmp_path):
    rep = ts.report(ts.load(REGISTRY))
    words = version_lines(expected_provenance())[1:]
    for text in (rep.to_html(), rep.to_markdown()):
        assert all(w in text for w in words)
        assert f"by toolsurvey {expected_provenance()['version']} (" in text
    doc = json.loads(rep.to_json())
    assert doc["produced_by"] == expected_provenance()
    assert [h["key"] for h in doc["headlines"]] == list(rep.headlines)
    for h in doc["headlines"]:  # a figure not priced is null, never NaN (which is not JSON)
        value = rep.headlines[h["key"]].value
        assert h["value"] == (None if value != value else pytest.approx(value))
    assert {name: len(t["rows"]) for name, t in doc["tables"].items()} == {n: len(t.data) for n, t in rep.tables.items()}
    assert rep.save(tmp_path / "r.json")[0].read_text("utf-8") == rep.to_json()  # the suffix picks JSON
    rows = rep.to_csv()["produced_by.csv"].splitlines()
    assert rows == ["field,value", *(f"{k},{v}" for k, v in expected_provenance().items())]
