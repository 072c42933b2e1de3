"""Audit a Registry: named rules that find contract defects costing tokens, steps or safety.

Each rule is a `Rule` (data: id, severity, impact, title, fix) with a small check function.
A finding's `tokens` is the change in the tool's tokens per request if the fix is applied,
positive for a saving and negative for a fix that adds text (“Tool registry design, and tool descriptions as prompt surface” (The Staff & Team Lead Interview Reference, undated): longer descriptions can
cost more per request and less per task). Tokens are compact-JSON tokens (the method of “Tool Calling in Language Model Agents”, Figure 1).
"""
