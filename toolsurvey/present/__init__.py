"""Presentation only: units, Markdown, Jupyter views, charts, widgets and the report. It takes the
values the layers below compute and never computes a figure of its own."""
