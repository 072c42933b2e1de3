"""Engines that run the trace reader at scale: DuckDB (parses and projects JSON lines out of core) and
Dask (files spread over a cluster's workers, token counting in `map_partitions`).

Both feed the same per-record logic as the built-in reader (`read`), so they give the same numbers.
"""

from __future__ import annotations

import importlib.util
import json
from typing import Any

from ...core.choices import DEFAULT_ENCODING
from ...core.extras import require
from ...errors import InputError
from . import read
from .claude_code import claude_records
from .collector import Collector

BATCH_ROWS = 4096
_SAMPLES: dict[str, Any] = {"list": [], "str": "", "int": 0, "float": 0.0, "bool": False, "NoneType": None}
_JSON_TYPES = {"ARRAY": "list", "VARCHAR": "str", "BIGINT": "int", "UBIGINT": "int", "DOUBLE": "float",
               "BOOLEAN": "bool", "NULL": "NoneType"}
# One row per JSON line of a Claude Code file: the fields the reader uses, tool_use blocks, and
# tool_result blocks with their text already joined (the largest part of a session, parsed in C++).
CLAUDE_SQL = """
SELECT json_type(j) AS jt, j->>'type' AS type, j->>'requestId' AS requestId, j->>'sessionId' AS sessionId,
  j->>'timestamp' AS timestamp, j->>'uuid' AS uuid, j->>'agentId' AS agentId, j->>'isSidechain' AS side,
  j->>'cwd' AS cwd,
  CASE WHEN j->'data'->>'type' = 'agent_progress' THEN CAST(j->'data' AS VARCHAR) END AS progress,
  json_type(j->'message') AS mt, j->'message'->>'id' AS mid, j->'message'->>'model' AS model,
  json_type(j->'message'->'usage') AS ut, CAST(j->'message'->'usage' AS VARCHAR) AS usage,
  j->>'subtype' AS subtype, j->>'isMeta' AS meta, j->>'isCompactSummary' AS compact_summary,
  CAST(j->'compactMetadata'->'preTokens' AS VARCHAR) AS pre_tokens, j->'compactMetadata'->>'trigger' AS compact_trigger,
  json_type(j->'message'->'content') AS ct,
  len([1 FOR b IN json_extract(j, '$.message.content[*]') IF b->>'type' = 'text']) AS texts,
  [{'id': b->>'id', 'name': b->>'name', 'input': CAST(b->'input' AS VARCHAR)}
     FOR b IN json_extract(j, '$.message.content[*]') IF b->>'type' = 'tool_use'] AS uses,
  [{'id': b->>'tool_use_id', 'err': b->>'is_error',
    'text': CASE json_type(b->'content')
      WHEN 'VARCHAR' THEN b->>'content'
      WHEN 'ARRAY' THEN array_to_string([CASE WHEN json_type(x) = 'VARCHAR' THEN x->>'$'
                                              WHEN json_type(x) = 'OBJECT' AND coalesce(x->>'type', 'text') = 'text'
                                              THEN coalesce(x->>'text', '') ELSE '' END
                                         FOR x IN json_extract(b->'content', '$[*]')], chr(10))
      WHEN 'NULL' THEN '' ELSE NULL END,
    'raw': CASE WHEN json_type(b->'content') IN ('OBJECT', 'BIGINT', 'UBIGINT', 'DOUBLE', 'BOOLEAN')
                THEN CAST(b->'content' AS VARCHAR) END}
     FOR b IN json_extract(j, '$.message.content[*]') IF b->>'type' = 'tool_result'] AS results
FROM read_ndjson_objects(?, ignore_errors = true) t(j)
"""


def _need(module: str, engine: str):
    """The module, imported; raises MissingExtra (an InputError) naming the extra that brings it."""
    require(module, purpose=f"the {engine} engine")
    return importlib.import_module(module)


def collect(files: list[str], format: str, *, engine: str, scheduler: str | None = None,
            encoding: str = DEFAULT_ENCODING, keep_results: bool = True, progress=None, lean: bool = False) -> Collector:
    """A Collector for `files` read with `engine` ("duckdb" or "dask"); raises MissingExtra naming a missing extra.
    `progress(total)` is called once per file DuckDB reads (Dask's workers report nothing). `lean`: totals
    only, as `read.collect`."""
    if engine == "duckdb":
        _need("duckdb", "duckdb")
        return duckdb_collect(files, format, encoding=encoding, keep_results=keep_results, progress=progress,
                              lean=lean)
    if engine == "dask":
        return dask_collect(files, format, scheduler=scheduler, encoding=encoding, keep_results=keep_results,
                            lean=lean)
    raise InputError(f"unknown engine {engine!r}")


def duckdb_collect(files: list[str], format: str = "auto", *, encoding: str = DEFAULT_ENCODING,
                   keep_results: bool = True, every: int = 256, progress=None, lean: bool = False) -> Collector:
    """Claude Code files parsed and projected by DuckDB; a file DuckDB cannot read cleanly (a bad line,
    a corrupt gzip) and the other formats go through the built-in reader, so warnings keep their lines."""
    import duckdb

    c = Collector(lean=lean)
    con = duckdb.connect()
    for i, f in enumerate(files, 1):
        if progress:
            progress(len(files))
        fmt = read.format_of(c, f, format)
        if fmt is None:
            continue
        rows = _duck_rows(con, f) if fmt == "claude-code" else None
        if rows is None:
            read.parse_file(c, f, fmt)
        else:
            claude_records(f, rows, c)
        if not lean and i % every == 0:
            c.count_tokens(encoding, keep_results)
    if not lean:
        c.count_tokens(encoding, keep_results)
    return c


def _duck_rows(con, path: str) -> list[tuple[int, Any]] | None:
    """(line, record) pairs rebuilt from DuckDB's projection, or None when a line did not parse."""
    import duckdb

    try:
        cur = con.execute(CLAUDE_SQL, [path])
        cols = [d[0] for d in cur.description]
        out = []
        n = 0
        while batch := cur.fetchmany(BATCH_ROWS):
            for row in batch:
                n += 1
                r = dict(zip(cols, row, strict=True))
                if r["jt"] is None:
                    return None  # a line that is not JSON: the built-in reader words the warning
                out.append((n, _record(r)))
        return out
    except (duckdb.Error, OSError):
        return None


def _record(r: dict) -> Any:
    if r["jt"] != "OBJECT":  # a value of the same type, so the warning names it as the built-in reader does
        return _SAMPLES[_JSON_TYPES.get(r["jt"], "str")]
    rec = {k: r[k] for k in ("type", "requestId", "sessionId", "timestamp", "uuid", "agentId", "cwd", "subtype")
           if r[k] is not None}
    for key, col in (("isSidechain", "side"), ("isMeta", "meta"), ("isCompactSummary", "compact_summary")):
        if r[col] is not None:
            rec[key] = r[col] == "true"
    if r["progress"] is not None:  # a subagent's message relayed whole (few lines; parsed here)
        rec["data"] = json.loads(r["progress"])
    if r["pre_tokens"] is not None or r["compact_trigger"] is not None:  # what events.claude_event reads
        rec["compactMetadata"] = {"preTokens": json.loads(r["pre_tokens"]) if r["pre_tokens"] else None,
                                  "trigger": r["compact_trigger"]}
    if r["mt"] == "OBJECT":
        msg: dict = {k: v for k, v in (("id", r["mid"]), ("model", r["model"])) if v is not None}
        if r["ut"] == "OBJECT":
            msg["usage"] = json.loads(r["usage"])
        blocks = [{"type": "tool_use", "id": u["id"], "name": u["name"], "input": u["input"]} for u in r["uses"] or []]
        blocks += [{"type": "tool_result", "tool_use_id": x["id"], "is_error": x["err"] == "true",
                    "content": x["text"] if x["raw"] is None else json.loads(x["raw"])} for x in r["results"] or []]
        blocks += [{"type": "text"}] * (r["texts"] or 0)  # a prompt's text is not read, only that it is text
        msg["content"] = "" if r["ct"] == "VARCHAR" else blocks
        rec["message"] = msg
    return rec


def _partition(files: list[str], format: str, encoding: str, keep_results: bool, lean: bool) -> Collector:
    return read.collect(files, format, encoding=encoding, keep_results=keep_results, lean=lean)


def dask_collect(files: list[str], format: str = "auto", *, scheduler: str | None = None,
                 encoding: str = DEFAULT_ENCODING, keep_results: bool = True, lean: bool = False) -> Collector:
    """Files spread over Dask partitions, each parsed and token-counted in `map_partitions`, then merged
    in file order (so a request seen in two files counts once, as with one reader)."""
    db = _need("dask.bag", "dask")
    parts = max(1, min(len(files), 64))
    bag = db.from_sequence(files, npartitions=parts).map_partitions(
        lambda fs: [_partition(list(fs), format, encoding, keep_results, lean)])
    if scheduler:
        distributed = _need("distributed", "dask")
        with distributed.Client(scheduler) as client:
            collectors = client.compute(bag, sync=True)
    else:
        collectors = bag.compute(scheduler="threads")
    c = Collector(lean=lean)
    for part in collectors:
        c.merge(part)
    return c
