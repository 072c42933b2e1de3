"""JSON at any depth: parsing, compact serialization and path-tagged fragments, all without recursion."""

from __future__ import annotations

import json
import re
from json.encoder import encode_basestring
from typing import Any

# Python's json module recurses once per nesting level and raises RecursionError near depth 1,000;
# third-party payloads can nest deeper, so every walk here keeps its own stack.
_TOKEN = re.compile(r'[ \t\n\r]*(?:([\[\]{}:,])|("(?:[^"\\\x00-\x1f]|\\.)*")|'
                    r'(-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)|(true|false|null|NaN|-?Infinity))')
_LITERALS = {"true": True, "false": False, "null": None,
             "NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}
_END = object()
# Compact JSON is encoded about this many characters at a time. A batch ends only after a number, true,
# false or null and before a `,`, `}` or `]`: the tokenizers' pre-split always cuts there (no piece
# joins a letter or digit to the punctuation after it), so the tokens are those of one whole encode.
BATCH_CHARS = 1 << 20
_CUT_AFTER, _CUT_BEFORE = frozenset("0123456789el"), frozenset(",}]")


def may_cut(before: str, after: str) -> bool:
    """True if encoding the text up to fragment `before` and from fragment `after` on, apart, gives the
    tokens of encoding them together."""
    return after[:1] in _CUT_BEFORE and before[-1:] in _CUT_AFTER


def loads(text: str) -> Any:
    """Parse JSON text of any nesting depth; raises ValueError (json.JSONDecodeError) if it is not JSON."""
    try:
        return json.loads(text)
    except RecursionError:
        return _loads_iterative(text)


def _loads_iterative(text: str) -> Any:
    """A stack-based JSON parser for documents too deep for `json.loads`; slower, same result."""
    stack: list[list] = []  # open containers: [container, pending key]
    pos, expect, root = 0, "value", None

    def fail(msg: str, at: int):
        raise json.JSONDecodeError(msg, text, at)

    while True:
        m = _TOKEN.match(text, pos)
        if m is None:
            rest = text[pos:]
            if expect == "done" and not rest.strip():
                return root
            fail("Extra data" if expect == "done" else "Expecting value", pos + len(rest) - len(rest.lstrip()))
        at, pos = m.start(m.lastindex), m.end()
        punct, string, number, literal = m.groups()
        if expect == "done":
            fail("Extra data", at)
        if expect in ("key", "key_or_end"):
            if string is not None:
                stack[-1][1], expect = json.loads(string), "colon"
                continue
            if not (punct == "}" and expect == "key_or_end"):
                fail("Expecting property name enclosed in double quotes", at)
            value = stack.pop()[0]
        elif expect == "colon":
            if punct != ":":
                fail("Expecting ':' delimiter", at)
            expect = "value"
            continue
        elif expect == "comma_or_end":
            is_dict = isinstance(stack[-1][0], dict)
            if punct == ",":
                expect = "key" if is_dict else "value"
                continue
            if punct != ("}" if is_dict else "]"):
                fail("Expecting ',' delimiter", at)
            value = stack.pop()[0]
        elif punct == "]" and expect == "value_or_end":
            value = stack.pop()[0]
        elif punct in ("{", "["):
            stack.append([{} if punct == "{" else [], None])
            expect = "key_or_end" if punct == "{" else "value_or_end"
            continue
        elif string is not None or number is not None:
            value = json.loads(string if string is not None else number)
        elif literal is not None:
            value = _LITERALS[literal]
        else:
            fail("Expecting value", at)
        if not stack:
            root, expect = value, "done"
            continue
        top = stack[-1]
        if isinstance(top[0], dict):
            top[0][top[1]] = value
        else:
            top[0].append(value)
        expect = "comma_or_end"


def _scalar(v: Any) -> str:
    t = type(v)
    if t is str:
        return encode_basestring(v)
    if v is None:
        return "null"
    if t is bool:
        return "true" if v else "false"
    if t is int:
        return int.__repr__(v)
    if t is float:
        return json.dumps(v)
    if isinstance(v, str | int | float):  # subclasses, e.g. a marker string
        return json.dumps(v, ensure_ascii=False)
    raise TypeError(f"not a JSON value: {type(v).__name__}")


# One reusable encoder each (json.dumps with options builds one per call).
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_SORTED = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode


def compact(value: Any, *, sort_keys: bool = False) -> str:
    """Compact JSON (no spaces, UTF-8 kept, keys sorted if asked) of a value of any depth, exactly as
    `json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys)` writes it
    (the form of “Tool Calling in Language Model Agents”, Figure 1). Raises TypeError for values JSON
    cannot hold."""
    try:
        return (_SORTED if sort_keys else _COMPACT)(value)
    except RecursionError:
        return "".join(fragments(value, PathTable(), sort_keys=sort_keys)[0])


def canonical(value: Any) -> str:
    """A value, or JSON text, as sorted compact JSON at any depth, so that equal values compare equal
    whatever their key order and spacing (a tool call's arguments). None is `{}`; text that is not JSON
    is kept as it is."""
    if isinstance(value, str):
        try:
            value = loads(value)
        except ValueError:
            return value
    return compact(value if value is not None else {}, sort_keys=True)


def depth(value: Any) -> int:
    """Nesting depth of containers (a scalar is 0, [] is 1)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = v.values()
        elif not isinstance(v, list | tuple):
            continue
        deepest = max(deepest, d + 1)
        stack.extend((x, d + 1) for x in v if isinstance(x, dict | list | tuple))
    return deepest


class PathTable:
    """Interned JSON paths: id 0 is the root; each child is (parent id, key), with '[]' for list items."""

    def __init__(self) -> None:
        self.ids: dict[tuple[int, str], int] = {}
        self.parent = [-1]
        self.key = [""]
        self.depth = [0]

    def __len__(self) -> int:
        return len(self.parent)

    def child(self, parent: int, key: str) -> int:
        i = self.ids.get((parent, key))
        if i is None:
            i = self.ids[(parent, key)] = len(self.parent)
            self.parent.append(parent)
            self.key.append(key)
            self.depth.append(self.depth[parent] + 1)
        return i

    def truncate(self, n: int) -> None:
        """Forget the paths added since the table held `n` (a result that had to be read again)."""
        for i in range(n, len(self.parent)):
            del self.ids[(self.parent[i], self.key[i])]
        del self.parent[n:], self.key[n:], self.depth[n:]

    def name(self, i: int) -> str:
        """Dotted path, list items as `[]`: `labels[].name`; the root is `(root)`."""
        keys = []
        while i > 0:
            keys.append(self.key[i])
            i = self.parent[i]
        out = ""
        for k in reversed(keys):
            out += k if k == "[]" or not out else "." + k
        return out or "(root)"


def fragments(value: Any, table: PathTable, max_depth: int = 32, root: int = 0, *, sort_keys: bool = False
              ) -> tuple[list[str], list[int], list[int]]:
    """Compact JSON of `value` cut into fragments, each tagged with the path it belongs to.

    A member's fragment is its separating comma, its quoted key, the colon and, for a scalar, the
    value; an object or list also owns its closing bracket. Joined, the fragments are exactly
    `compact(value, sort_keys=sort_keys)`. Paths deeper than `max_depth` fold into their ancestor at that depth.
    Returns (fragments, path id per fragment, path id of each value, for counting occurrences).
    Raises TypeError for values JSON cannot hold.
    """
    texts: list[str] = []
    pids: list[int] = []
    occ: list[int] = [root]
    put_t, put_p, put_o = texts.append, pids.append, occ.append
    child, ids = table.child, table.ids
    stack: list[list] = []  # open containers: [items, path id, is a dict, depth, no item yet]
    _open("", value, root, table.depth[root], texts, pids, stack, sort_keys)
    while stack:
        frame = stack[-1]
        item = next(frame[0], _END)
        cpid, is_dict, d = frame[1], frame[2], frame[3]
        if item is _END:
            put_t("}" if is_dict else "]")
            put_p(cpid)
            stack.pop()
            continue
        sep = "" if frame[4] else ","
        frame[4] = False
        if is_dict:
            k, v = item
            if type(k) is not str:
                k = _json_key(k)
            prefix = sep + encode_basestring(k) + ":"
            key = k
        else:
            v, prefix, key = item, sep, "[]"
        if d < max_depth:
            pid = ids.get((cpid, key))
            if pid is None:
                pid = child(cpid, key)
            put_o(pid)
        else:
            pid = cpid
        if type(v) is str:
            put_t(prefix + encode_basestring(v))
            put_p(pid)
        elif isinstance(v, dict | list | tuple):
            _open(prefix, v, pid, d + 1, texts, pids, stack, sort_keys)
        else:
            put_t(prefix + _scalar(v))
            put_p(pid)
    return texts, pids, occ


def _open(prefix: str, v: Any, pid: int, d: int, texts: list[str], pids: list[int], stack: list[list],
          sort_keys: bool = False) -> None:
    """Write `v` after `prefix`: whole if it is a scalar or empty, else its opening bracket, with a
    frame on `stack` to walk its items."""
    if isinstance(v, dict):
        if v:
            texts.append(prefix + "{")
            stack.append([iter(sorted(v.items()) if sort_keys else v.items()), pid, True, d, True])
        else:
            texts.append(prefix + "{}")
    elif isinstance(v, list | tuple):
        if v:
            texts.append(prefix + "[")
            stack.append([iter(v), pid, False, d, True])
        else:
            texts.append(prefix + "[]")
    else:
        texts.append(prefix + _scalar(v))
    pids.append(pid)


def _json_key(k: Any) -> str:
    """A key that is not a string, as json writes it (ints, floats, bools)."""
    return next(iter(json.loads(json.dumps({k: 0}))))


def path_parts(path: str) -> tuple[str, ...]:
    """The keys of a dotted path with list steps removed: 'labels[].name' and '[].labels.name' both
    give ('labels', 'name'), since lists are walked through transparently."""
    return tuple(p for p in (s.replace("[]", "").strip() for s in path.split(".")) if p)
