"""The rule table and the audit that runs it: findings ranked by severity and tokens, their summary
per rule, and the severity a CI run fails at."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from ...core.frames import ViewableFrame
from ...core.registry import Registry, Tool
from ...core.severity import rank
from ...errors import InputError
from ...measuring.selection.stored import as_eval
from ..deferral import measured_search
from ..ownership import check_owned, owned
from ..poisoning.scan import server_tools
from ..pricing import price_findings
from ..thresholds import load_config
from .confused import FIX as CONFUSED_FIX
from .confused import check_confused_pair
from .description_needed import FIX as NEEDED_FIX
from .description_needed import check_description_needed
from .descriptions import (
    check_description_long,
    check_description_missing,
    check_description_restates_name,
    check_description_short,
    check_description_token_band,
)
from .findability import FIX as FIND_FIX
from .findability import check_never_found
from .metadata import check_annotations_missing, check_output_schema_heavy
from .names import (
    check_name_collision,
    check_name_generic,
    check_name_invalid,
    check_name_long,
    check_name_mirrors_endpoint,
    check_name_not_verb_object,
)
from .overlap import check_overlap, check_overlap_across_servers
from .rule import Ctx, Hit, Rule
from .schema import (
    check_param_enum_in_prose,
    check_param_no_description,
    check_param_no_type,
    check_schema_additional_properties,
    check_schema_dollar_schema,
    check_schema_no_required,
    check_schema_not_object,
    check_schema_ref,
    check_schema_root_combinator,
)
from .security import security_rules

COLUMNS = ["rule", "severity", "impact", "server", "tool", "evidence", "fix", "tokens", "group", "other"]

_DESC_FIX = ("write 3-6 sentences: what it does, what it returns, when to use it, what it does NOT do "
             "(naming the neighbouring tool), side effects")

RULES: dict[str, Rule] = {r.id: r for r in [
    Rule("description-missing", "error", "steps", "tool has no description", _DESC_FIX, check_description_missing),
    Rule("description-short", "warning", "steps", "description under the minimum word count", _DESC_FIX,
         check_description_short),
    Rule("description-long", "warning", "tokens", "description over the maximum word count",
         "cut it to the five elements; move constraints into the schema; split a tool doing several jobs",
         check_description_long),
    Rule("description-restates-name", "warning", "steps", "description only restates the name", _DESC_FIX,
         check_description_restates_name),
    Rule("description-token-band", "info", "tokens", "description outside the token band",
         "bring the description into the band: add the missing elements, or cut repetition",
         check_description_token_band),
    Rule("schema-not-object", "error", "compat", "input schema root is not type: object",
         "wrap the parameters in {\"type\": \"object\", \"properties\": {...}}", check_schema_not_object),
    Rule("schema-ref", "error", "compat", "schema uses $ref / $defs",
         "inline the definitions (clients drop or reject tools with $ref)", check_schema_ref),
    Rule("schema-root-combinator", "error", "compat", "oneOf / allOf / anyOf at the schema root",
         "flatten to one object schema; express the variants with an enum parameter", check_schema_root_combinator),
    Rule("param-no-type", "warning", "steps", "parameters without a type", "give every parameter a type",
         check_param_no_type),
    Rule("param-no-description", "warning", "steps", "parameters without a description",
         "describe each parameter: format, units, an example, what omitting it means", check_param_no_description),
    Rule("schema-no-required", "warning", "steps", "no required array",
         "list the parameters the tool needs in \"required\" (an empty list if none)", check_schema_no_required),
    Rule("schema-additional-properties", "info", "compat", "additionalProperties is not false",
         "set \"additionalProperties\": false so invented arguments are rejected",
         check_schema_additional_properties),
    Rule("schema-dollar-schema", "info", "tokens", "$schema keys that only cost tokens",
         "remove the $schema keys", check_schema_dollar_schema),
    Rule("param-enum-in-prose", "warning", "steps", "free-text parameter whose description lists fixed values",
         "make the parameter an enum", check_param_enum_in_prose),
    Rule("name-invalid", "error", "compat", "name does not match the providers' name pattern",
         "rename to letters, digits, _ and -, at most 64 characters", check_name_invalid),
    Rule("name-long", "warning", "compat", "name too long to leave room for client prefixes",
         "shorten the name (about 40 characters at most)", check_name_long),
    Rule("name-not-verb-object", "info", "steps", "name is not verb_object snake_case",
         "rename to verb_object snake_case, e.g. search_customer_accounts", check_name_not_verb_object),
    Rule("name-generic", "warning", "steps", "name is a bare generic verb",
         "name the object and the service: e.g. crm_search_contacts", check_name_generic),
    Rule("name-mirrors-endpoint", "info", "steps", "name mirrors an HTTP endpoint",
         "design the tool around the agent's task (e.g. find_user_by_email), not the endpoint; merge "
         "endpoint-shaped tools", check_name_mirrors_endpoint),
    Rule("name-collision", "error", "compat", "same name on several servers", "prefix names with their service",
         check_name_collision, scope="registry"),
    Rule("overlap", "warning", "steps", "near-duplicate tools the user can merge",
         "merge them, or name the other tool in each description", check_overlap, scope="registry"),
    Rule("overlap-across-servers", "warning", "steps", "near-duplicate tools on servers the user does not own",
         "namespace them, drop one server, or gate them by phase", check_overlap_across_servers,
         scope="registry"),
    *security_rules(),
    Rule("description-needed", "warning", "steps", "recall drops when the description is cut (measured)",
         NEEDED_FIX, check_description_needed, scope="registry"),
    Rule("never-found", "warning", "steps", "no query that needs the tool finds it in a search's top k", FIND_FIX,
         check_never_found, scope="registry"),
    Rule("confused-pair", "warning", "steps", "a model took these two tools for each other in an eval",
         CONFUSED_FIX, check_confused_pair, scope="registry"),
    Rule("annotations-missing", "info", "compat", "missing readOnlyHint / destructiveHint",
         "add annotations: readOnlyHint, and destructiveHint when it writes", check_annotations_missing),
    Rule("output-schema-heavy", "info", "tokens", "output schema costs more than the input schema",
         "keep only the fields the model uses in the output schema", check_output_schema_heavy),
]}


def _select(rules: Iterable[str] | None) -> list[Rule]:
    if rules is None:
        return list(RULES.values())
    out = []
    for pat in rules:
        matched = [r for r in RULES.values() if re.fullmatch(pat.replace("*", ".*"), r.id)]
        if not matched:
            raise InputError(f"no audit rule matches {pat!r}; rules: {', '.join(RULES)}")
        out += [r for r in matched if r not in out]
    return out


class Findings(ViewableFrame):
    """The table `toolsurvey.audit` returns: one row per finding, worst first."""

    view_name = "findings"


def audit(reg: Registry, *, rules: Iterable[str] | None = None, config: dict | str | Path | None = None,
          encoding: str | None = None, own: str | Iterable[str] | None = None, progress=None,
          queries=None, eval=None) -> pd.DataFrame:
    """Findings, one row each (rule, severity, impact, server, tool, evidence, fix, tokens, group, other),
    ranked by severity then by the tokens per request at stake.

    `own` names the servers the user owns (a list or comma-separated): near-duplicates are `overlap`
    (mergeable) within one server, or among owned servers when given; others are `overlap-across-servers`.
    `progress(total)`, if given, is called once per tool checked (the CLI's progress bar). `queries` (a
    queries file or a retrieval evaluation) adds the never-found rule: tools no query that needs them finds.
    `eval` (an eval file `toolsurvey eval` wrote, or its result) adds the confused-pair rule: tools the
    model took for each other at least `[selection] min_confusions` times; a description-length sweep
    also adds the description-needed rule, the tools whose recall drops when their description is cut.
    Raises InputError for an unknown rule, a bad config or an owned server the registry lacks.
    """
    cfg = load_config(config)
    cfg["_own"] = owned(own)
    cfg["_retrieval"] = measured_search(reg, queries)
    cfg["_eval"] = as_eval(eval)
    cfg["_server_tools"] = server_tools(reg)  # an order about a tool of the same server is guidance
    check_owned(cfg["_own"], reg)
    encoding = encoding or cfg["description"]["encoding"]
    rows = []
    selected = _select(rules)
    for tool in reg:
        ctx = Ctx(tool, cfg, encoding)
        for rule in selected:
            if rule.scope == "tool":
                rows += [_row(rule, tool, h) for h in rule.check(ctx)]
        if progress:
            progress(len(reg))
    for rule in selected:
        if rule.scope == "registry":
            rows += [_row(rule, h.tool, h) for h in rule.check(reg, cfg, encoding)]
    out = pd.DataFrame(rows, columns=COLUMNS + ["_rank"])
    out["tokens"] = out["tokens"].astype("int64")
    out["group"] = out["group"].astype("Int64")
    out = out.assign(_abs=out["tokens"].abs()).sort_values(
        ["_rank", "_abs", "server", "tool", "rule"], ascending=[False, False, True, True, True], kind="stable")
    out = out.drop(columns=["_rank", "_abs"]).reset_index(drop=True)
    # one charge per text: a description two rules judge is priced once, on the higher-ranked finding
    out["tokens"] = price_findings(out).round().astype("int64")
    out.attrs.update(encoding=encoding, tools=len(reg), rules=[r.id for r in selected],
                     thresholds={k: v for k, v in cfg.items() if not k.startswith("_")},
                     own=sorted(cfg["_own"]) if cfg["_own"] else None, notes=cfg.get("_notes", []))
    return Findings.of(out)


def _row(rule: Rule, tool: Tool, hit: Hit) -> dict:
    return {"rule": rule.id, "severity": rule.severity, "impact": rule.impact, "server": tool.server,
            "tool": tool.name, "evidence": hit.evidence, "fix": hit.fix or rule.fix, "tokens": int(hit.tokens),
            "group": hit.group, "other": hit.other, "_rank": rank(rule.severity)}


def summary(findings: pd.DataFrame) -> pd.DataFrame:
    """Per rule: severity, findings, distinct tools, tokens per request the fixes save (each text counted
    once, by `advice.pricing.price_findings`, the price the report and the plan use too)."""
    g = findings.groupby("rule", sort=False)
    tools = findings.drop_duplicates(["rule", "server", "tool"]).groupby("rule", sort=False).size()
    out = pd.DataFrame({"severity": g["severity"].first(), "findings": g.size(), "tools": tools,
                        "tokens": price_findings(findings).groupby(findings["rule"], sort=False).sum()
                        .round().astype("int64")}, columns=["severity", "findings", "tools", "tokens"])
    return out.rename_axis("rule").reset_index()


def fails(findings: pd.DataFrame, level: str) -> bool:
    """True when any finding is at `level` or above (poisoning ranks above error, suspicious below it)."""
    return bool((findings["severity"].map(rank) >= rank(level)).any())

