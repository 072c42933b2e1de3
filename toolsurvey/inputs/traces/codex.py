"""Codex CLI sessions (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): every line is {timestamp, type,
payload}. `event_msg` lines of payload type `token_count` carry usage, `turn_context` the model,
`response_item` lines the tool calls and their outputs, `event_msg` `user_message` the user's prompts
and `compacted` the history replaced by a summary (both `Traces.events`, for the session model).
`world_state` lines (Codex 0.14x) hold what the thread's environment puts in the prompt: AGENTS.md,
the working directory, shell, date, time zone and workspace roots, whole (`full`) or as a change; they
carry no usage (the running totals of the `token_count` lines already count the prompt they are in). A
change (`full: false`) is an `environment` event: the session model finds the request after it cold.

A `token_count` event gives the session's running total (`total_token_usage`) and the last request's
(`last_token_usage`). A request's usage is the running total's step since the previous event; an
event that repeats the running total (Codex re-emits them on rate-limit refreshes) adds nothing, and
after a drop (a resumed or compacted session) the last request's own figures are used. A forked
session replays its parent's history after the parent's `session_meta` line: those events are keyed
by the parent's id, so a request met in both files counts once. OpenAI counts cached input inside
`input_tokens` and reasoning inside `output_tokens`: cached input becomes cache reads (priced as
OpenAI prices cached input), cache writes (`cache_write_input_tokens`, recorded from Codex 0.147 on,
for models that bill them) cache writes, the rest uncached input. A subagent's rollout (a
`session_meta` whose `source.subagent.thread_spawn` names its parent thread) belongs to its parent's
session, as an agent of its own.
"""

from __future__ import annotations

from typing import Any

from ...core.jsonlines import documents
from .collector import Collector, where
from .events import COMPACT_LIMIT, COMPACTION, ENVIRONMENT, PROMPT, WINDOW
from .fields import carries_usage, non_negative, result_text, split_name, stem

CODEX_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted", "world_state"})
# With `usage_only`, only lines holding one of these are parsed (usage, model, session, tool calls; and a
# line of a type no reader knows that holds a usage object, so both reads say the totals are incomplete).
MARKS = (b'"input_tokens"', b'"prompt_tokens"', b'"turn_context"', b'"session_meta"', b'"function_call"',
         b'"custom_tool_call"', b'"local_shell_call"')
_COUNTS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens",
           "cache_write_input_tokens")
_FALLBACK = {"cached_input_tokens": "cache_read_input_tokens", "cache_write_input_tokens": "cache_creation_input_tokens"}
_CALLS = {"function_call": "arguments", "custom_tool_call": "input", "local_shell_call": "action"}
_OUTPUTS = ("function_call_output", "custom_tool_call_output")
# Codex compacts a thread on its own at 90% of the model's context window unless configured otherwise
# (codex-rs/protocol/src/openai_models.rs, auto_compact_token_limit: `context_window * 9 / 10`).
AUTO_COMPACT_SHARE = 0.9


def _counts(u: Any) -> tuple[int, ...] | None:
    if not isinstance(u, dict):
        return None
    return tuple(non_negative(u.get(k, u.get(_FALLBACK.get(k, ""), 0))) for k in _COUNTS)


def codex_name(name: str) -> tuple[str | None, str]:
    """(server, tool) of a Codex tool name: MCP tools are `<server>__<tool>` (or `mcp__<server>__<tool>`)."""
    server, tool = split_name(name)
    if server is None and "__" in name.strip("_"):
        server, _, tool = name.partition("__")
    return server, tool


class _Session:
    """What one file has said so far: its session (a subagent's: its parent's), its own thread id, the
    thread its events belong to (a fork's replay: the parent's), model, cwd, the last request's context."""

    def __init__(self, path: str):
        self.id = self.own = self.thread = stem(path).rsplit("rollout-", 1)[-1]
        self.agent = ""
        self.model = ""
        self.cwd = ""
        self.subagent = False
        self.previous: tuple[int, ...] | None = None
        self.named = False
        self.context = 0  # input tokens of the thread's last request: the context a compaction replaced
        self.window = None  # the context window the thread's token counts last named
    def where(self) -> tuple:
        return where(self.id, self.subagent, self.agent, self.cwd)

    def replaying(self) -> bool:
        """True while the lines are a fork's replay of its parent's history (not this thread's own)."""
        return self.thread != self.own


def codex(path: str, c: Collector, usage_only: bool = False) -> None:
    """Add one Codex rollout file to `c`; with `usage_only`, lines that carry none of MARKS are not parsed."""
    s = _Session(path)
    for n, rec in documents(path, c.skips, MARKS if usage_only else ()):
        if not isinstance(rec, dict):
            c.skips.add(path, n, f"expected a JSON object, found {type(rec).__name__}", "not an object")
            continue
        kind, p = rec.get("type"), rec.get("payload") if isinstance(rec.get("payload"), dict) else {}
        if kind == "session_meta":
            _meta(s, p)
        elif kind == "turn_context":
            s.model = str(p.get("model") or s.model)
            s.cwd = str(p.get("cwd") or s.cwd)
        elif kind == "event_msg" and p.get("type") == "token_count":
            _token_count(path, n, rec, p, s, c)
        elif kind == "response_item":
            _item(p, rec.get("timestamp"), s, c)
        elif kind in CODEX_TYPES:
            c.other_lines += 1
            _event(kind, p, rec.get("timestamp"), s, c)
        else:
            c.unknown(str(kind), path, n, carries_usage(rec))


def _parent(p: dict) -> str:
    """The thread that spawned this one, from `source.subagent.thread_spawn.parent_thread_id` (or a
    top-level `parent_thread_id`), else ''."""
    src = p.get("source")
    sub = src.get("subagent") if isinstance(src, dict) else None
    spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
    parent = spawn.get("parent_thread_id") if isinstance(spawn, dict) else p.get("parent_thread_id")
    return parent if isinstance(parent, str) else ""


def _meta(s: _Session, p: dict) -> None:
    sid = str(p.get("id") or "")
    if not s.named:  # the file's own session (a fork then embeds its parent's session_meta: a new thread)
        s.id = s.own = s.thread = sid or s.id
        s.cwd = str(p.get("cwd") or s.cwd)
        src = p.get("source")
        parent = _parent(p)
        s.subagent = bool(parent) or (isinstance(src, dict) and "subagent" in src) or p.get("thread_source") == "subagent"
        if parent:  # a spawned subagent: a thread of its parent's session
            s.id, s.agent = parent, s.own
        s.named = True
    elif sid:
        s.thread = sid  # the file's own id again (a resumed session) ends a replay; another id starts one


def _event(kind: str, p: dict, ts: Any, s: _Session, c: Collector) -> None:
    """A prompt (`event_msg` `user_message`), a compaction (`compacted`, with the context it replaced) or
    a change of the environment the prompt describes (`world_state`, not `full`) of this thread (a fork's
    replay of its parent's is the parent's), for the session model."""
    if c.lean or s.replaying():
        return
    if kind == "event_msg" and p.get("type") == "user_message":
        c.event((s.id, s.agent, ts, PROMPT, None, ""))
    elif kind == "compacted":
        c.event((s.id, s.agent, ts, COMPACTION, s.context or None, ""))
    elif kind == "world_state" and p.get("full") is False:
        c.event((s.id, s.agent, ts, ENVIRONMENT, None, ""))


def _token_count(path: str, n: int, rec: dict, p: dict, s: _Session, c: Collector) -> None:
    info = p.get("info") if isinstance(p.get("info"), dict) else None
    if info is None:
        c.other_lines += 1  # rate limits only
        return
    window = info.get("model_context_window")
    if window != s.window and isinstance(window, int) and window > 0 and not (c.lean or s.replaying()):
        c.event((s.id, s.agent, rec.get("timestamp"), WINDOW, window, ""))  # what it must compact within
        c.event((s.id, s.agent, rec.get("timestamp"), COMPACT_LIMIT, int(window * AUTO_COMPACT_SHARE), ""))
        s.window = window
    total, last = _counts(info.get("total_token_usage")), _counts(info.get("last_token_usage"))
    if total is not None and total == s.previous:
        c.other_lines += 1  # the running total repeated: no new request
        return
    if total is not None and s.previous is not None and all(a >= b for a, b in zip(total, s.previous, strict=True)):
        step = tuple(a - b for a, b in zip(total, s.previous, strict=True))
    else:
        step = last or total
    if total is not None:
        s.previous = total
    if step is None or not any(step[:4]):
        c.other_lines += 1
        return
    inp, out = step[0], step[2]
    cached = min(step[1], inp)
    written = min(step[5], inp - cached)
    model = str(info.get("model") or info.get("model_name") or s.model)
    # keyed by content within a thread, so a fork's replay of its parent matches the parent's events;
    # without a running total nothing identifies a repeat, and each line is its own request
    key = f"codex:{s.thread}:{total}:{last}" if total is not None else f"{path}:{n}"
    c.request(key, path, n, s.where(), rec.get("timestamp"), model, (inp - cached - written, written, 0, cached, out))
    s.context = inp


def _item(p: dict, ts: Any, s: _Session, c: Collector) -> None:
    kind = p.get("type")
    call_id = p.get("call_id") or p.get("id")
    if kind in _CALLS and call_id:
        server, tool = codex_name(str(p.get("name") or ("local_shell" if kind == "local_shell_call" else "")))
        c.call(str(call_id), s.where(), ts, tool, server, p.get(_CALLS[kind]))
    elif kind in _OUTPUTS and call_id and not c.lean:
        out = p.get("output")
        err = isinstance(out, dict) and out.get("success") is False
        text = out.get("content") if isinstance(out, dict) and "content" in out else out
        c.result(str(call_id), result_text(text), err)
