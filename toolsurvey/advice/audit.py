"""Audit a Registry: named rules that find contract defects costing tokens, steps or safety.

Each rule is a `Rule` (data: id, severity, impact, title, fix) with a small check function.
A finding's `tokens` is the change in the tool's tokens per request if the fix is applied,
positive for a saving and negative for a fix that adds text (“Tool registry design, and tool descriptions as prompt surface” (The Staff & Team Lead Interview Reference, undated): longer descriptions can
cost more per request and less per task). Tokens are compact-JSON tokens (the method of “Tool Calling in Language Model Agents”, Figure 1).
"""

from __future__ import annotations

import re
from collections import namedtuple
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from ..core.choices import SEVERITIES
from ..core.frames import ViewableFrame
from ..core.registry import Registry, Tool
from ..core.text import quoted
from ..core.tokens import count
from ..errors import InputError
from ..measuring.tool_tokens import tool_tokens
from ..providers.render import compact_json
from . import poisoning
from .folding import name_words, stem
from .merging import access, merge_groups, merge_saving, split_pairs
from .ownership import can_merge, owned
from .pricing import price_findings
from .similarity import similar_pairs
from .thresholds import load_config

_ALIASES = {"security": "poisoning"}  # `security` is the old name of `poisoning`
COLUMNS = ["rule", "severity", "impact", "server", "tool", "evidence", "fix", "tokens", "group", "other"]
_MAX_DEPTH = 64  # schemas nested deeper than this are not walked further (and never hang)


@dataclass(frozen=True)
class Rule:
    """A named check: what it finds, how bad it is, what it costs, and how to fix it."""

    id: str
    severity: str
    impact: str
    title: str
    fix: str
    check: Callable[..., Iterable[Hit]] = field(repr=False, compare=False)
    scope: str = "tool"  # "tool": check(ctx); "registry": check(reg, cfg, encoding)


@dataclass
class Hit:
    """One occurrence of a rule: the evidence and, when measurable, the tokens the fix saves."""

    evidence: str
    tokens: int = 0
    tool: Tool | None = None  # registry-scope rules say which tool
    fix: str | None = None  # a fix more specific than the rule's
    group: int | None = None
    other: str | None = None  # the other tool of a pair, as server/tool


# --- helpers ----------------------------------------------------------------------------------


def _short(text: str, n: int = 80) -> str:
    """A quoted excerpt of at most `n` characters, with invisible characters shown as \\uXXXX."""
    return quoted(text, n)


def walk(schema: Any, path: str = "", depth: int = 0, seen: frozenset = frozenset()) -> Iterator[tuple[str, Any]]:
    """Every (path, node) of a schema tree, stopping at `_MAX_DEPTH` and at objects met before."""
    if depth > _MAX_DEPTH or id(schema) in seen:
        return
    yield path, schema
    if isinstance(schema, dict):
        inner = seen | {id(schema)}
        for k, v in schema.items():
            if isinstance(v, (dict, list)):
                yield from walk(v, f"{path}/{k}", depth + 1, inner)
    elif isinstance(schema, list):
        inner = seen | {id(schema)}
        for i, v in enumerate(schema):
            if isinstance(v, (dict, list)):
                yield from walk(v, f"{path}/{i}", depth + 1, inner)


def params(schema: Any, prefix: str = "", depth: int = 0) -> Iterator[tuple[str, dict]]:
    """(dotted name, property schema) of every parameter: nested object and array-item properties,
    and the properties of oneOf/anyOf/allOf branches, included."""
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return
    props = schema.get("properties")
    if isinstance(props, dict):
        for name, prop in props.items():
            if not isinstance(prop, dict):
                continue
            dotted = f"{prefix}{name}"
            yield dotted, prop
            yield from params(prop, f"{dotted}.", depth + 1)
            items = prop.get("items")
            if isinstance(items, dict):
                yield from params(items, f"{dotted}[].", depth + 1)
    for key in ("oneOf", "anyOf", "allOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            for i, branch in enumerate(branches):
                yield from params(branch, f"{prefix}{key}[{i}].", depth + 1)


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9]+(?:'[a-z]+)?", text)


@dataclass
class Ctx:
    """One tool being audited, with the configuration and memoised measurements."""

    tool: Tool
    cfg: dict
    encoding: str
    _cache: dict = field(default_factory=dict)

    @property
    def desc(self) -> str:
        d = self.tool.description
        return d if isinstance(d, str) else ""

    @property
    def schema(self) -> Any:
        return self.tool.input_schema

    def desc_words(self) -> int:
        return self._memo("words", lambda: len(_words(self.desc)))

    def desc_tokens(self) -> int:
        return self._memo("dtokens", lambda: count(self.desc, self.encoding))

    def tokens(self) -> int:
        return self._memo("tokens", lambda: tool_tokens(self.tool, self.encoding))

    def saving(self, fixed: Tool) -> int:
        """Tokens per request saved by replacing the tool with `fixed` (negative: the fix costs)."""
        return self.tokens() - tool_tokens(fixed, self.encoding)

    def restates(self) -> bool:
        return self._memo("restates", lambda: _restates(self.tool.name, self.desc, self.cfg["description"]))

    def _memo(self, key: str, f: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = f()
        return self._cache[key]


def _restates(name: str, desc: str, cfg: dict) -> bool:
    words = [stem(w) for w in _words(desc)]
    if not words or len(words) >= cfg["min_words"]:
        return False
    synonym = {}
    for group in cfg["restate_synonyms"]:
        for w in group:
            synonym[w] = group[0]
    canon = lambda w: synonym.get(w, w)  # noqa: E731
    name_set = {canon(stem(w)) for w in name_words(name)}
    stop = set(cfg["restate_stop_words"])
    content = [canon(w) for w in words if w not in stop]
    new = [w for w in content if w not in name_set]
    return bool(set(content) & name_set) and len(new) <= cfg["restate_max_new_words"]


# --- description rules ------------------------------------------------------------------------


def _band_gap(ctx: Ctx) -> int:
    """Tokens from the current description to the nearest edge of the token band (negative: add)."""
    lo, hi = ctx.cfg["description"]["min_tokens"], ctx.cfg["description"]["max_tokens"]
    n = ctx.desc_tokens()
    return n - lo if n < lo else (n - hi if n > hi else 0)


def check_description_missing(ctx: Ctx):
    if not ctx.desc.strip():
        found = "no description" if ctx.tool.description is None else "an empty description"
        yield Hit(f"{found}; the model has only the name to choose by", _band_gap(ctx))


def check_description_short(ctx: Ctx):
    n, lo = ctx.desc_words(), ctx.cfg["description"]["min_words"]
    if ctx.desc.strip() and n < lo:
        yield Hit(f"{n} words (< {lo}): {_short(ctx.desc)}", _band_gap(ctx))


def check_description_long(ctx: Ctx):
    n, hi = ctx.desc_words(), ctx.cfg["description"]["max_words"]
    if n > hi:
        yield Hit(f"{n} words (> {hi}), {ctx.desc_tokens():,} tokens", _band_gap(ctx))


def check_description_restates_name(ctx: Ctx):
    if ctx.restates():
        yield Hit(f"{ctx.tool.name}: {_short(ctx.desc)} says nothing the name does not", _band_gap(ctx))


def check_description_token_band(ctx: Ctx):
    c = ctx.cfg["description"]
    if not ctx.desc.strip() or not c["min_words"] <= ctx.desc_words() <= c["max_words"] or ctx.restates():
        return  # the word-count and restatement rules already report this description
    n = ctx.desc_tokens()
    if n < c["min_tokens"] or n > c["max_tokens"]:
        yield Hit(f"{n} tokens, outside the {c['min_tokens']}-{c['max_tokens']} band", _band_gap(ctx))


# --- schema rules -----------------------------------------------------------------------------


def check_schema_not_object(ctx: Ctx):
    s = ctx.schema
    if not isinstance(s, dict):
        yield Hit(f"input schema is a {type(s).__name__}, not an object schema")
    elif s.get("type") != "object":
        found = f"type {s['type']!r}" if "type" in s else "no type" + (" (empty schema)" if not s else "")
        yield Hit(f"root has {found}; providers require type: object")


def inline_refs(schema: Any, max_nodes: int = 20000) -> tuple[Any, list[str]]:
    """The schema with local `#/$defs/…` and `#/definitions/…` references inlined, and the ones
    that could not be (cyclic, external, missing, or too large to inline)."""
    if not isinstance(schema, dict):
        return schema, []
    defs = {**{f"#/definitions/{k}": v for k, v in (schema.get("definitions") or {}).items()},
            **{f"#/$defs/{k}": v for k, v in (schema.get("$defs") or {}).items()}}
    unresolved: list[str] = []
    budget = [max_nodes]

    def go(node: Any, stack: tuple[str, ...], depth: int) -> Any:
        budget[0] -= 1
        if budget[0] < 0 or depth > _MAX_DEPTH:
            raise OverflowError
        if isinstance(node, list):
            return [go(v, stack, depth + 1) for v in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            if ref in stack:
                unresolved.append(f"{ref} (cyclic)")
                return node
            if ref not in defs:
                unresolved.append(f"{ref} (not a local definition)")
                return node
            target = go(defs[ref], stack + (ref,), depth + 1)
            rest = {k: go(v, stack, depth + 1) for k, v in node.items() if k != "$ref"}
            return {**target, **rest} if isinstance(target, dict) else target
        return {k: go(v, stack, depth + 1) for k, v in node.items() if k not in ("$defs", "definitions")}

    try:
        return go(schema, (), 0), sorted(set(unresolved))
    except OverflowError:
        return schema, ["(too large to inline automatically)"]


def check_schema_ref(ctx: Ctx):
    found = sorted({k for _, node in walk(ctx.schema) if isinstance(node, dict)
                    for k in ("$ref", "$defs", "definitions") if k in node})
    if not found:
        return
    inlined, unresolved = inline_refs(ctx.schema)
    tokens = ctx.saving(replace(ctx.tool, input_schema=inlined, raw=None)) if not unresolved else 0
    note = f"; cannot inline: {', '.join(unresolved)}" if unresolved else ""
    yield Hit(f"schema uses {', '.join(found)}{note}", tokens,
              fix=None if not unresolved else "restructure the schema without recursive references "
                                              "(e.g. a depth-limited shape or a string id)")


def check_schema_root_combinator(ctx: Ctx):
    if isinstance(ctx.schema, dict):
        found = [k for k in ("oneOf", "allOf", "anyOf") if k in ctx.schema]
        if found:
            yield Hit(f"root uses {', '.join(found)}")


def _param_hits(ctx: Ctx, missing: Callable[[dict], bool], what: str):
    bad = [name for name, prop in params(ctx.schema) if missing(prop)]
    if bad:
        yield Hit(f"{len(bad)} parameter(s) without {what}: {', '.join(bad[:8])}" + (" …" if len(bad) > 8 else ""))


_TYPED = ("type", "enum", "const", "$ref", "anyOf", "oneOf", "allOf")


def check_param_no_type(ctx: Ctx):
    yield from _param_hits(ctx, lambda p: not any(k in p for k in _TYPED), "a type")


def check_param_no_description(ctx: Ctx):
    yield from _param_hits(ctx, lambda p: not (isinstance(p.get("description"), str) and p["description"].strip()),
                           "a description")


def _has_params(schema: Any) -> bool:
    return isinstance(schema, dict) and isinstance(schema.get("properties"), dict) and bool(schema["properties"])


def check_schema_no_required(ctx: Ctx):
    s = ctx.schema
    if not isinstance(s, dict) or "required" in s:
        return
    if s.get("type") == "object" or any(k in s for k in ("oneOf", "anyOf", "allOf")):
        n = len(s["properties"]) if isinstance(s.get("properties"), dict) else 0
        where = "at the root" + (" (only inside oneOf/anyOf/allOf branches)" if n == 0 and "properties" not in s else "")
        yield Hit(f"{n} parameter(s) and no required array {where}")


def check_schema_additional_properties(ctx: Ctx):
    if _has_params(ctx.schema) and ctx.schema.get("additionalProperties") is not False:
        found = ctx.schema.get("additionalProperties", "absent")
        fixed = replace(ctx.tool, input_schema={**ctx.schema, "additionalProperties": False}, raw=None)
        yield Hit(f"additionalProperties is {compact_json(found) if found != 'absent' else found}", ctx.saving(fixed))


def _drop_key(node: Any, key: str, depth: int = 0) -> Any:
    if depth > _MAX_DEPTH:
        return node
    if isinstance(node, dict):
        return {k: _drop_key(v, key, depth + 1) for k, v in node.items() if k != key}
    if isinstance(node, list):
        return [_drop_key(v, key, depth + 1) for v in node]
    return node


def check_schema_dollar_schema(ctx: Ctx):
    where = [p or "/" for p, node in walk(ctx.schema) if isinstance(node, dict) and "$schema" in node]
    if where:
        fixed = replace(ctx.tool, input_schema=_drop_key(ctx.schema, "$schema"), raw=None)
        yield Hit(f"$schema at {', '.join(where[:5])}", ctx.saving(fixed))


@lru_cache(maxsize=8)
def _compiled(patterns: tuple[str, ...]) -> list[re.Pattern]:
    try:
        return [re.compile(p) for p in patterns]
    except re.error as e:
        raise InputError(f"invalid regular expression in the audit config: {e}") from None


def check_param_enum_in_prose(ctx: Ctx):
    pats = _compiled(tuple(ctx.cfg["schema"]["enum_phrases"]))
    for name, prop in params(ctx.schema):
        desc = prop.get("description")
        if prop.get("type", "string") != "string" or "enum" in prop or not isinstance(desc, str):
            continue
        m = next((m for p in pats if (m := p.search(desc))), None)
        if m:
            yield Hit(f"{name}: {_short(desc[max(0, m.start() - 20):m.end() + 40])}",
                      fix=f"make {name} an enum of the listed values and drop the list from its description")


# --- name rules -------------------------------------------------------------------------------


def check_name_invalid(ctx: Ctx):
    if not re.fullmatch(ctx.cfg["names"]["pattern"], ctx.tool.name):
        yield Hit(f"{_short(ctx.tool.name)} ({len(ctx.tool.name)} characters) does not match "
                  f"{ctx.cfg['names']['pattern']}")


def check_name_long(ctx: Ctx):
    n, hi = len(ctx.tool.name), ctx.cfg["names"]["max_length"]
    if n > hi:
        yield Hit(f"{n} characters (> {hi}); a client prefix such as mcp__{ctx.tool.server}__ "
                  f"makes it {n + len(ctx.tool.server) + 7}")


def _is_generic(ctx: Ctx) -> bool:
    return ctx.tool.name.lower() in set(ctx.cfg["names"]["generic"])


def check_name_generic(ctx: Ctx):
    if _is_generic(ctx):
        yield Hit(f"{ctx.tool.name!r} is a bare verb that says nothing about what it acts on")


def check_name_not_verb_object(ctx: Ctx):
    name = ctx.tool.name
    if (_is_generic(ctx) or not re.fullmatch(ctx.cfg["names"]["pattern"], name)
            or re.fullmatch(ctx.cfg["names"]["endpoint_pattern"], name)):
        return  # reported by the generic-name, invalid-name or endpoint rule
    verbs = set(ctx.cfg["names"]["verbs"])
    parts = name.split("_")
    if not re.fullmatch(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+", name):
        yield Hit(f"{name!r} is not snake_case verb_object")
    elif not (parts[0] in verbs or (len(parts) >= 3 and parts[1] in verbs)):
        yield Hit(f"{name!r} does not start with a verb (optionally after a service prefix)")


def check_name_mirrors_endpoint(ctx: Ctx):
    m = re.fullmatch(ctx.cfg["names"]["endpoint_pattern"], ctx.tool.name)
    if m:
        yield Hit(f"{ctx.tool.name!r} spells an HTTP method and path, as OpenAPI generators do")


def check_name_collision(reg: Registry, cfg: dict, encoding: str):
    for name, servers in sorted(reg.collisions().items()):
        for t in reg:
            if t.name == name:
                others = sorted({s for s in servers if s != t.server})
                where = (f"also defined by {', '.join(others)}" if others
                         else f"defined {servers.count(t.server)} times in {t.server}")
                yield Hit(f"{name!r} is {where}", tool=t,
                          fix=f"prefix the name with the service it belongs to (e.g. {t.server}_{name})")


# --- overlap ----------------------------------------------------------------------------------


def _identical_descriptions(reg: Registry, cfg: dict) -> list[list[Tool]]:
    """Groups of two or more tools of one server, all reading or all writing, whose (non-empty)
    descriptions are exactly the same."""
    groups: dict[tuple, list[Tool]] = {}
    for t in reg:  # only on servers the user may merge within; the others go through the pair search
        if (t.description or "").strip() and can_merge(t.server, t.server, cfg.get("_own")):
            groups.setdefault((t.server, t.description, access(t, cfg)), []).append(t)
    return [g for g in groups.values() if len(g) > 1]


def _pairs(reg: Registry, cfg: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Near-duplicate pairs the user can merge and pairs across servers they cannot (computed once per audit)."""
    memo = cfg.setdefault("_memo", {})
    if "pairs" not in memo:
        c = cfg["similarity"]
        twins = {t.key for g in _identical_descriptions(reg, cfg) for t in g[1:]}
        pairs = similar_pairs(reg.filter(lambda t: t.key not in twins), threshold=c["threshold"],
                              method=c["method"], config=c, max_features=c["max_features"])
        memo["pairs"] = split_pairs(pairs, reg, cfg, cfg.get("_own"))
    return memo["pairs"]


def _tuples(df: pd.DataFrame) -> Iterator[tuple]:
    """`df.itertuples(index=False)`, from plain lists: iterating pandas' string columns an element at a
    time costs more than the audit's own work on a pair."""
    row = namedtuple("row", df.columns)
    return map(row._make, zip(*(df[c].tolist() for c in df.columns), strict=True))


def _why(r, threshold: float) -> str:
    return (f"similarity {r.score:.2f} >= {threshold}" if r.basis == "similar description"
            else f"same action and object (similarity {r.score:.2f})")


def check_overlap(reg: Registry, cfg: dict, encoding: str):
    """Near-duplicates the user can merge. A cluster the plan merges carries the merge's saving once, on
    its first pair; other pairs carry 0 (their fix is a clearer description, not fewer tokens)."""
    # Tools of one server sharing one description are one finding per group, not n(n-1)/2 pairs
    # (1,000 copies would be 499,500 findings claiming many times the registry); the pair search
    # sees one tool of each group.
    for g in _identical_descriptions(reg, cfg):
        saving = merge_saving(g, lambda t: tool_tokens(t, encoding))
        names = ", ".join(t.name for t in g[1:6]) + (" …" if len(g) > 6 else "")
        yield Hit(f"{len(g)} tools share one description ({_short(g[0].description, 60)}): "
                  f"{g[0].name} and {names}", round(saving), tool=g[0],
                  fix="merge them into one tool, or say in each description what it does that the others do not")
    mergeable, _ = _pairs(reg, cfg)
    if mergeable.empty:
        return
    by_key = {t.key: t for t in reg}
    merge, _ = merge_groups(mergeable)
    cluster_of = {k: i for i, keys in enumerate(merge) for k in keys}
    saving = [merge_saving([by_key[k] for k in keys], lambda t: tool_tokens(t, encoding)) for keys in merge]
    charged: set[int] = set()
    for r in _tuples(mergeable):
        a, b = by_key[f"{r.server_a}/{r.tool_a}"], by_key[f"{r.server_b}/{r.tool_b}"]
        c = cluster_of.get(a.key, -1)
        merged = c >= 0 and c == cluster_of.get(b.key)
        tokens = round(saving[c]) if merged and c not in charged else 0
        charged.add(c)
        where = f", cluster {r.cluster}" if r.cluster else ""
        fix = (f"merge {r.tool_a} and {r.tool_b} into one tool" if merged else
               f"add a 'does NOT …, use …' clause to {r.tool_a} and {r.tool_b}, each naming the other")
        yield Hit(f"{r.tool_a} and {r.server_b}/{r.tool_b}: {_why(r, cfg['similarity']['threshold'])}{where}",
                  tokens, tool=a, group=int(r.cluster) or None, fix=fix, other=b.key)


def check_overlap_across_servers(reg: Registry, cfg: dict, encoding: str):
    """Near-duplicates the user cannot merge (across servers, or on a server not in `own`): a merge is
    not theirs to make."""
    _, across = _pairs(reg, cfg)
    by_key = {t.key: t for t in reg}
    for r in _tuples(across):
        a, b = by_key[f"{r.server_a}/{r.tool_a}"], by_key[f"{r.server_b}/{r.tool_b}"]
        fix = (f"namespace them ({a.server}_{a.name}, {b.server}_{b.name}), drop one of {a.server} and "
               f"{b.server}, or gate them by phase so a request sees only one" if a.server != b.server else
               f"{a.server} is not among the servers you own: ask its maintainers to merge them, or gate them "
               "by phase so a request sees only one")
        yield Hit(f"{r.tool_a} and {r.server_b}/{r.tool_b}: {_why(r, cfg['similarity']['threshold'])}",
                  tool=a, other=b.key, fix=fix)


# --- tool poisoning (security): the scan lives in poisoning.py ----------------------------------


def _poisoning_check(level: str, kind: str) -> Callable[[Ctx], Iterator[Hit]]:
    def check(ctx: Ctx):
        signals = ctx._memo("poisoning", lambda: poisoning.scan(ctx.tool, ctx.cfg["poisoning"]))
        for s in signals:
            if s.level == level and s.kind == kind:
                yield Hit(f"{s.where}: {s.evidence}")
    return check


# --- annotations and output schema ------------------------------------------------------------


def check_annotations_missing(ctx: Ctx):
    # readOnlyHint says whether the tool writes; destructiveHint only means something for a tool that
    # writes, so stating it counts as saying the tool is not read-only (MCP ToolAnnotations).
    ann = ctx.tool.annotations if isinstance(ctx.tool.annotations, dict) else {}
    if "readOnlyHint" not in ann and "destructiveHint" not in ann:
        yield Hit("annotations lack readOnlyHint" + ("" if ann else " (no annotations at all)"))
    elif ann.get("readOnlyHint") is False and "destructiveHint" not in ann:
        yield Hit("readOnlyHint is false but destructiveHint is not given")


def check_output_schema_heavy(ctx: Ctx):
    out = ctx.tool.output_schema
    if not isinstance(out, dict) or not out:
        return
    o, i = count(compact_json(out), ctx.encoding), count(compact_json(ctx.schema), ctx.encoding)
    if o > ctx.cfg["output_schema"]["max_ratio"] * i:
        yield Hit(f"output schema {o:,} tokens vs input schema {i:,} (when the client sends it)", o - i)


# --- the rule table ---------------------------------------------------------------------------

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
    *[Rule(rid, level, "security", title, fix, _poisoning_check(level, kind))
      for rid, level, kind, title, fix in poisoning.RULES],
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
          encoding: str | None = None, own: str | Iterable[str] | None = None, progress=None) -> pd.DataFrame:
    """Findings, one row each (rule, severity, impact, server, tool, evidence, fix, tokens, group, other),
    ranked by severity then by the tokens per request at stake.

    `own` names the servers the user owns (a list or comma-separated): near-duplicates are `overlap`
    (mergeable) within one server, or among owned servers when given; others are `overlap-across-servers`.
    `progress(total)`, if given, is called once per tool checked (the CLI's progress bar).
    Raises InputError for an unknown rule, a bad config or an owned server the registry lacks.
    """
    from .ownership import check_owned

    cfg = load_config(config)
    cfg["_own"] = owned(own)
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
                     own=sorted(cfg["_own"]) if cfg["_own"] else None)
    return Findings.of(out)


def _row(rule: Rule, tool: Tool, hit: Hit) -> dict:
    return {"rule": rule.id, "severity": rule.severity, "impact": rule.impact, "server": tool.server,
            "tool": tool.name, "evidence": hit.evidence, "fix": hit.fix or rule.fix, "tokens": int(hit.tokens),
            "group": hit.group, "other": hit.other, "_rank": SEVERITIES.index(rule.severity)}


def summary(findings: pd.DataFrame) -> pd.DataFrame:
    """Per rule: severity, findings, distinct tools, tokens per request the fixes save (each text counted
    once, by `advice.pricing.price_findings`, the price the report and the plan use too)."""
    g = findings.groupby("rule", sort=False)
    tools = findings.drop_duplicates(["rule", "server", "tool"]).groupby("rule", sort=False).size()
    out = pd.DataFrame({"severity": g["severity"].first(), "findings": g.size(), "tools": tools,
                        "tokens": price_findings(findings).groupby(findings["rule"], sort=False).sum()
                        .round().astype("int64")}, columns=["severity", "findings", "tools", "tokens"])
    return out.rename_axis("rule").reset_index()


def severity(level: str) -> str:
    """The severity named `level` (`security` is the old name of `poisoning`). Raises InputError if unknown."""
    level = _ALIASES.get(level, level)
    if level not in SEVERITIES:
        raise InputError(f"unknown severity {level!r}; expected one of: {', '.join(SEVERITIES)}")
    return level


def fails(findings: pd.DataFrame, level: str) -> bool:
    """True when any finding is at `level` or above (poisoning ranks above error, suspicious below it)."""
    level = severity(level)
    return bool((findings["severity"].map(SEVERITIES.index) >= SEVERITIES.index(level)).any())
