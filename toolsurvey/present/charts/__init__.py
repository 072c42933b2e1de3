"""Plotly figures of toolsurvey's tables, one module per subject: a tidy DataFrame in, a `go.Figure`
out, never shown.

Every chart takes the table first and keyword-only options after it, named the same across
charts: `title` (None picks a descriptive one), `top` (how many rows to keep), `cap`/`band`
(reference lines). Charts only reshape and draw; measuring and modelling live in the library.
Third-party text (tool, server and session names) is shown literally (`labels.safe_text`).
"""
