"""A Diff as a pull-request comment: its summary, the scenario and a table of the changed tools, in
Markdown that third-party text cannot break."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..advice.diff import Diff, signed
from . import markdown as md


def diff_markdown(d: Diff, top: int = 50) -> str:
    """The comment: the summary, the scenario, the `top` largest changes and the security-relevant ones."""
    lines = ["### Tool surface change (toolsurvey)", "", f"**{md.escape(d.summary())}**", ""]
    if d.costs.get("scenario"):
        lines += [f"Scenario: {md.escape(d.costs['scenario'])}", ""]
    ch = d.changes
    if not ch.empty:
        rows = [(r.status, r.tool, r.server, _num(r.tokens_old), _num(r.tokens_new),
                 md.Raw(md.escape(signed(r.delta))), r.changed)
                for r in ch.head(top).itertuples()]
        lines.append(md.table(["", "tool", "server", "tokens before", "tokens after", "change",
                               "what changed"], rows, right=(3, 4, 5)))
        if len(ch) > top:
            lines += ["", f"… and {len(ch) - top} more changed tools."]
        lines.append("")
    sec = d.security_changes
    if not sec.empty:
        lines += ["#### Security-relevant changes", "",
                  "Tools that keep their name but tell the model something new. Review the new text "
                  "before approving it: this is how a rug pull works.", ""]
        lines.append(md.table(["tool", "server", "security"], [(r.tool, r.server, r.security)
                                                               for r in sec.itertuples()]))
        lines.append("")
    lines.append(f"<sub>{md.escape(d.method)}</sub>")
    return "\n".join(lines) + "\n"


def _num(v: Any) -> str:
    return "" if pd.isna(v) else f"{int(v):,}"
