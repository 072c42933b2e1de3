"""llama-cpp-python's OpenAI-compatible server with a small real model, for the eval tests.

Runs in tests/servers/.venv-llm (scripts/install-system.sh installs it); tests/_local_model.py
starts it. Every argument after the script's name goes to `python -m llama_cpp.server`,
which does all the HTTP, request validation and response shaping: only the chat handler below is
ours.

Why a handler of our own (`--chat_format toolsurvey-test`): llama-cpp-python 0.3.36's stock
`chatml-function-calling` handler renders tools only when the request has a system message, leaves
every description out, answers HTTP 500 to `tool_choice: "required"`, and lets argument generation
run past `max_tokens` (one request ran 393 s). An eval whose descriptions never reach the model
can't test `--baseline`, and an unbounded request can't run in CI.

What this handler renders, in Gemma's turn format (the model is Gemma 3 270M, a base model whose
GGUF has no chat template), tools first so that requests with the same tools share a cached prefix. A parameter's type is its
schema's "type" (a list joined with |; "any" when absent); descriptions, enums and nested schemas
of parameters are left out, which keeps the sample's 63 tools near 4k tokens instead of 13k (a cold
13k-token prompt takes minutes on 2 cores):

    <start_of_turn>user
    Tools you can call. Each: its name, its parameters (? marks an optional one), what it does.
    - NAME(param: type, param?: type, ...): DESCRIPTION
    ...
    To call a tool, reply: call NAME {JSON arguments}
    To answer without a tool, reply: answer: TEXT
    SYSTEM PROMPT (when the request has one)

    USER MESSAGE<end_of_turn>
    <start_of_turn>model

and constrains the start of the answer, then lets the model write the rest:
  1. It decodes (at the request's temperature: greedily at 0) among the options `call NAME`, one per
     offered tool, and `answer:`: a logits mask allows only tokens that continue an option, as that
     option's own text tokenizes (so a name is always an offered one, and nothing else is decided
     for the model).
  2. After `call NAME` it appends ` {` and lets the model write the arguments freely until a blank
     line, a line starting `call ` or `answer:`, or `max_tokens` (default and ceiling 24): they may
     be valid JSON, fail the tool's schema, or be cut or malformed JSON. After `answer:` it lets the
     model write one line of text, within the same ceiling.
The reply becomes one `tool_calls` entry (name, and "{" + the arguments as written) or text
`content`. `tool_choice`: "none" offers only `answer:`, "required" only the calls, a named tool only
that call. One call per answer: no parallel calls. Assistant and tool messages of a longer
conversation are rendered as turns of plain text.

(llama.cpp's GBNF grammars would do step 1, but llama-cpp-python applies a grammar to all 262,144
tokens of Gemma's vocabulary at every step: 1-2 s a token here.)

The model's choices are real but mean nothing about any agent's model: it is a 270M base model.
"""

from __future__ import annotations

import sys
import time
import uuid

import llama_cpp
import numpy as np
from llama_cpp import llama_chat_format

NAME = "toolsurvey-test"
MAX_TOKENS = 24  # a ceiling on the arguments or text: at 12-19 tokens/s on 2 cores, 1-2 s

def _text(content) -> str:
    if isinstance(content, list):  # content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def signature(schema) -> str:
    """`name: type, other?: type` from a JSON schema's top-level properties."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return ""
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    out = []
    for name, prop in schema["properties"].items():
        kind = prop.get("type", "any") if isinstance(prop, dict) else "any"
        kind = "|".join(map(str, kind)) if isinstance(kind, list) else str(kind)
        out.append(f"{name}{'' if name in required else '?'}: {kind}")
    return ", ".join(out)


def render(messages: list, tools: list) -> str:
    """The prompt: the tools block, the system prompt, then the conversation's turns."""
    lines = []
    if tools:
        lines.append("Tools you can call. Each: its name, its parameters (? marks an optional one), what it does.")
        for t in tools:
            f = t.get("function", {})
            desc = " ".join((f.get("description") or "").split())
            lines.append(f"- {f.get('name')}({signature(f.get('parameters'))}): {desc}")
        lines.append("To call a tool, reply: call NAME {JSON arguments}")
        lines.append("To answer without a tool, reply: answer: TEXT")
    system = [_text(m.get("content")) for m in messages if m.get("role") in ("system", "developer")]
    lines.extend(s for s in system if s)
    head = "\n".join(lines)
    turns, first = [], True
    for m in messages:
        role = m.get("role")
        if role in ("system", "developer"):
            continue
        if role == "assistant":
            text = _text(m.get("content"))
            for c in m.get("tool_calls") or []:
                text += f"\ncall {c['function']['name']} {c['function']['arguments']}"
            turns.append(f"<start_of_turn>model\n{text.strip()}<end_of_turn>\n")
            continue
        text = _text(m.get("content"))
        if role == "tool":
            text = f"tool result: {text}"
        if first and head:
            text = f"{head}\n\n{text}"
        first = False
        turns.append(f"<start_of_turn>user\n{text}<end_of_turn>\n")
    if first and head:  # no user turn at all
        turns.append(f"<start_of_turn>user\n{head}<end_of_turn>\n")
    return "".join(turns) + "<start_of_turn>model\n"


def options(names: list[str], tool_choice) -> list[str]:
    """The texts an answer may start with, under `tool_choice`."""
    if isinstance(tool_choice, dict):
        return [f"call {tool_choice['function']['name']}"]
    calls = [] if tool_choice == "none" else [f"call {n}" for n in names]
    return calls if tool_choice == "required" and calls else calls + ["answer:"]


class OptionMask:
    """A logits processor: after the prompt's `start` tokens, only tokens that continue one of the
    options (as each tokenizes on its own), and end-of-sequence once an option is complete."""

    def __init__(self, llama: llama_cpp.Llama, texts: list[str], start: int):
        self.start, self.eos = start, llama.token_eos()
        self.next: dict[tuple, set[int]] = {}
        for text in texts:
            toks = tuple(llama.tokenize(text.encode(), add_bos=False, special=False))
            for i in range(len(toks)):
                self.next.setdefault(toks[:i], set()).add(toks[i])
            self.next.setdefault(toks, set()).add(self.eos)

    def __call__(self, input_ids, scores):
        allowed = self.next.get(tuple(int(t) for t in input_ids[self.start:]), {self.eos})
        out = np.full_like(scores, -np.inf)
        idx = np.fromiter(allowed, dtype=np.intp)
        out[idx] = scores[idx]
        return out


def _complete(llama, tokens, limit, sampling, **extra):
    return llama.create_completion(prompt=tokens, max_tokens=limit, stream=False, **sampling, **extra)


@llama_chat_format.register_chat_completion_handler(NAME)
def toolsurvey_test(llama: llama_cpp.Llama, messages, functions=None, function_call=None, tools=None,
                    tool_choice=None, temperature=0.2, top_p=0.95, top_k=40, min_p=0.05, seed=None,
                    max_tokens=None, model=None, **_ignored):
    if functions and not tools:
        tools = [{"type": "function", "function": f} for f in functions]
    tools = tools or []
    if tool_choice is None:
        tool_choice = function_call if function_call is not None else ("auto" if tools else "none")
    if isinstance(tool_choice, dict) and "name" in tool_choice:  # legacy function_call
        tool_choice = {"type": "function", "function": {"name": tool_choice["name"]}}
    names = [t["function"]["name"] for t in tools if t.get("type", "function") == "function"]
    if isinstance(tool_choice, dict) and tool_choice.get("function", {}).get("name") not in names:
        raise ValueError(f"tool_choice names {tool_choice['function'].get('name')!r}, not an offered tool")
    if seed is not None:
        llama.set_seed(seed)
    sampling = {"temperature": temperature, "top_p": top_p, "top_k": top_k, "min_p": min_p, "model": model}
    prompt = llama.tokenize(render(messages, tools).encode(), add_bos=True, special=True)
    texts = options(names, tool_choice)
    start = _complete(llama, prompt, max(len(llama.tokenize(t.encode(), add_bos=False)) for t in texts) + 1,
                      sampling, logits_processor=llama_cpp.LogitsProcessorList(
                          [OptionMask(llama, texts, len(prompt))]))
    head = start["choices"][0]["text"]
    call = head.startswith("call ")
    cont = prompt + llama.tokenize((head + (" {" if call else "")).encode(), add_bos=False, special=False)
    limit = min(max_tokens or MAX_TOKENS, MAX_TOKENS)
    stop = ["\n\n", "\ncall ", "\nanswer:", "<end_of_turn>"] if call else ["\n", "<end_of_turn>"]
    rest = _complete(llama, cont, limit, sampling, stop=stop)
    body, finish = rest["choices"][0]["text"], rest["choices"][0]["finish_reason"]
    message: dict = {"role": "assistant", "content": None}
    if call:
        message["tool_calls"] = [{"id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
                                  "function": {"name": head[len("call "):], "arguments": "{" + body.rstrip()}}]
        finish = "tool_calls" if finish == "stop" else finish
    else:
        message["content"] = body.strip()
    u1, u2 = start["usage"], rest["usage"]
    usage = {"prompt_tokens": len(prompt), "completion_tokens": u1["completion_tokens"] + u2["completion_tokens"]}
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    return {"id": "chat" + rest["id"], "object": "chat.completion", "created": int(time.time()),
            "model": rest["model"], "choices": [{"index": 0, "message": message, "logprobs": None,
                                                 "finish_reason": finish}],
            "usage": usage}


if __name__ == "__main__":
    from llama_cpp.server.__main__ import main

    sys.argv = [sys.argv[0], *sys.argv[1:]]
    main()
