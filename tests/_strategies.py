"""Hypothesis strategies for tools with realistic shapes and odd text."""

from __future__ import annotations

from hypothesis import strategies as st

from toolsurvey.core.registry import Tool

# Emoji, zero-width space/joiner, BOM, right-to-left and bidi override marks, combining accents, CJK.
ODD = ["\U0001F680", "\U0001F469\u200D\U0001F4BB", "\u200b", "\u200d", "\ufeff", "\u200f", "\u202e",
       "\u0301", "\u4e2d\u6587", "\u05e9\u05dc\u05d5\u05dd", " ", "\n", "\t", '"', "\\", "<|endoftext|>"]

odd_text = st.lists(st.one_of(st.text(max_size=12), st.sampled_from(ODD)), max_size=8).map("".join)
names = st.from_regex(r"[a-z][a-z0-9_]{0,30}", fullmatch=True) | odd_text.filter(bool)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                    st.floats(allow_nan=False, allow_infinity=False), odd_text)


def _prop(children):
    return st.fixed_dictionaries(
        {"type": st.sampled_from(["string", "integer", "number", "boolean", "object", "array"])},
        optional={"description": odd_text, "enum": st.lists(odd_text, max_size=4),
                  "default": scalars, "properties": st.dictionaries(names, children, max_size=3),
                  "items": children})


props = st.recursive(st.fixed_dictionaries({"type": st.just("string")},
                                           optional={"description": odd_text}), _prop, max_leaves=8)
schemas = st.fixed_dictionaries(
    {"type": st.just("object"), "properties": st.dictionaries(names, props, max_size=5)},
    optional={"required": st.lists(names, max_size=3), "additionalProperties": st.booleans(),
              "$defs": st.dictionaries(names, props, max_size=2)})
annotations = st.fixed_dictionaries({}, optional={"readOnlyHint": st.booleans(), "title": odd_text})


@st.composite
def tools(draw, server=None):
    return Tool(name=draw(names), description=draw(st.none() | odd_text), input_schema=draw(schemas),
                output_schema=draw(st.none() | schemas), annotations=draw(st.none() | annotations),
                title=draw(st.none() | odd_text),
                server=server or draw(st.sampled_from(["alpha", "beta", "gamma"])))


registries = st.lists(tools(), min_size=1, max_size=6)
