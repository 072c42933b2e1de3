"""toolsurvey.present.display: figures carry an HTML copy (plotly.js not repeated) and, with Kaleido, a PNG."""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio
import pytest

from toolsurvey.present import display


@pytest.fixture
def restore_renderer(monkeypatch):
    """notebook_mode sets process-wide state (plotly's default renderer, itables in the rich views):
    put it back so later tests see a plain interpreter."""
    from toolsurvey.present import tables as _rich

    before = pio.renderers.default
    monkeypatch.setitem(_rich.ITABLES, "on", _rich.ITABLES["on"])
    yield
    pio.renderers.default = before


def test_figures_carry_plotly_json_and_an_html_copy_without_plotly_js(restore_renderer, capsys):
    names = display.notebook_mode()
    assert names[:2] == ["plotly_mimetype", display.RENDERER]
    bundle = pio.renderers._build_mime_bundle(go.Figure(go.Bar(x=["a"], y=[1])).to_dict())
    assert "application/vnd.plotly.v1+json" in bundle
    html = bundle["text/html"]
    assert "Plotly.newPlot" in html and "plotly.js v" not in html  # the one copy is notebook_mode's output
    assert "mathjax" not in html.lower()  # nothing fetched from a CDN


def test_static_png_with_kaleido_and_the_system_chromium(restore_renderer, monkeypatch, capsys):
    pytest.importorskip("kaleido")
    if display.chromium() is None:
        pytest.skip("no Chromium installed")
    monkeypatch.setenv("BROWSER_PATH", "")  # restored after the test; notebook_mode fills it in
    assert display.notebook_mode(static=True)[-1] == "png"
    bundle = pio.renderers._build_mime_bundle(go.Figure(go.Bar(x=["a"], y=[1])).to_dict())
    import base64

    assert base64.b64decode(bundle["image/png"])[:8] == b"\x89PNG\r\n\x1a\n"


def test_static_without_kaleido_raises_missing_extra_and_changes_nothing(restore_renderer, monkeypatch, capsys):
    """Asked for PNGs without Kaleido, notebook_mode says which extra brings it instead of printing a
    line and going on without them."""
    import sys

    from toolsurvey.core.extras import MissingExtra

    monkeypatch.setitem(sys.modules, "kaleido", None)  # what an environment without the extra finds
    before = pio.renderers.default
    with pytest.raises(MissingExtra, match=r"pip install 'toolsurvey\[static\]'"):
        display.notebook_mode(static=True)
    assert pio.renderers.default == before and capsys.readouterr().out == ""


def test_the_itables_bundle_is_embedded_gzipped_whole():
    import base64
    import gzip
    import re
    from pathlib import Path

    itables = pytest.importorskip("itables")
    from itables.javascript import generate_init_offline_itables_html

    bundle = Path(itables.options.dt_bundle)
    given = generate_init_offline_itables_html(bundle)
    packed = display.gzipped_bundle(given)
    assert len(packed) < len(given) / 3 and "DecompressionStream" in packed
    texts = [gzip.decompress(base64.b64decode(b)).decode() for b in re.findall(r'inflate\("([A-Za-z0-9+/=]+)"\)', packed)]
    assert texts == [bundle.with_suffix(".css").read_text(encoding="utf-8"), bundle.read_text(encoding="utf-8")]
    assert "window._itables_" in packed and "-ready" in packed  # the names itables' tables wait for
    assert display.gzipped_bundle("<p>another itables</p>") == "<p>another itables</p>"  # left as given


def test_a_figures_html_copy_keeps_the_template_of_the_traces_it_draws():
    import json
    import re

    fig = go.Figure([go.Bar(x=["a"], y=[1]), go.Scatter(x=["a"], y=[2])])
    drawn = json.loads(re.search(r"Plotly\.newPlot\(\s*\"[^\"]+\",\s*\[.*?\],\s*(\{.*?\}),\s*\{\"responsive",
                                 display.figure_html(fig), re.S).group(1))
    template = fig.to_dict()["layout"]["template"]
    assert drawn["template"]["data"] == {k: template["data"][k] for k in ("bar", "scatter")}
    assert drawn["template"]["layout"] == template["layout"]  # fonts, colours, axes: as plotly's own
