"""Audit findings as a SARIF 2.1.0 log (OASIS Static Analysis Results Interchange Format), the file GitHub
code scanning reads: one rule per audit rule, one result per finding, located at the tool's entry in the
registry file when the file's text is given."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection, Mapping
from typing import Any

from ..core.severity import SARIF_LEVELS, SECURITY_SEVERITY

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"

Location = tuple[str, int | None]  # (a file's URI, the 1-based line of the tool's name, or None)


def locate(files: Mapping[str, str], tools: Collection[tuple[str, str]]) -> dict[tuple[str, str], Location]:
    """Where each (server, tool) is written: the line of its first `"name": "..."` after the server's key (from
    the top of a file that has no such key). A tool found in no file is left out, unless there is one file;
    one found in several files gets none."""
    out: dict[tuple[str, str], Location] = {}
    starts = {(uri, server): _after_key(text, server) for uri, text in files.items()
              for server in {s for s, _ in tools}}
    for server, name in tools:
        keyed = [uri for uri in files if starts[uri, server] is not None]  # files that name the server
        hits = []
        for uri in keyed or files:
            found = re.compile(r'"name"\s*:\s*' + re.escape(json.dumps(name))).search(files[uri], starts[uri, server] or 0)
            if found:
                hits.append((uri, found.start()))
        if len(hits) == 1:
            uri, pos = hits[0]
            out[server, name] = (uri, text_line(files[uri], pos))
        elif len(files) == 1:
            out[server, name] = (next(iter(files)), None)
    return out


def _after_key(text: str, server: str) -> int | None:
    m = re.search(re.escape(json.dumps(server)) + r"\s*:\s*\{", text)
    return m.end() if m else None


def text_line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def sarif(findings: Any, rules: Mapping[str, Any], *, version: str,
          locations: Mapping[tuple[str, str], Location] | None = None) -> dict:
    """The SARIF log of `findings` (the audit's table); `rules` maps each rule id to its `Rule`."""
    locations = locations or {}
    used = [rid for rid in rules if rid in set(findings["rule"])]
    index = {rid: i for i, rid in enumerate(used)}
    results = [_result(r, index, locations.get((r.server, r.tool))) for r in findings.itertuples()]
    driver = {"name": "toolsurvey", "version": version, "semanticVersion": version,
              "informationUri": "https://pypi.org/project/toolsurvey/",
              "rules": [_rule(rules[rid]) for rid in used]}
    return {"$schema": SCHEMA, "version": "2.1.0",
            "runs": [{"tool": {"driver": driver}, "columnKind": "unicodeCodePoints", "results": results}]}


def _rule(rule: Any) -> dict:
    props: dict[str, Any] = {"tags": [rule.impact],
                             "toolsurvey-severity": rule.severity}
    if rule.severity in SECURITY_SEVERITY:
        props["security-severity"] = SECURITY_SEVERITY[rule.severity]
    return {"id": rule.id, "name": _pascal(rule.id), "shortDescription": {"text": rule.title},
            "help": {"text": f"Fix: {rule.fix}"},
            "defaultConfiguration": {"level": SARIF_LEVELS[rule.severity]}, "properties": props}


def _result(r: Any, index: Mapping[str, int], where: Location | None) -> dict:
    logical = {"name": r.tool, "fullyQualifiedName": f"{r.server}/{r.tool}", "kind": "function"}
    location: dict[str, Any] = {"logicalLocations": [logical]}
    if where is not None:
        physical: dict[str, Any] = {"artifactLocation": {"uri": where[0]}}
        if where[1] is not None:
            physical["region"] = {"startLine": where[1]}
        location["physicalLocation"] = physical
    fingerprint = hashlib.sha256(f"{r.rule}\0{r.server}\0{r.tool}\0{r.evidence}".encode()).hexdigest()
    result = {"ruleId": r.rule, "ruleIndex": index[r.rule], "level": SARIF_LEVELS[r.severity],
              "message": {"text": f"{r.server}/{r.tool}: {r.evidence}. Fix: {r.fix}"},
              "locations": [location], "partialFingerprints": {"toolsurvey/v1": fingerprint[:32]},
              "properties": {"severity": r.severity, "impact": r.impact, "tokens": int(r.tokens)}}
    if isinstance(r.other, str) and r.other:
        result["relatedLocations"] = [{"id": 1, "logicalLocations": [{"fullyQualifiedName": r.other,
                                                                      "kind": "function"}]}]
    return result


def _pascal(rule_id: str) -> str:
    return "".join(w.capitalize() for w in rule_id.split("-"))
