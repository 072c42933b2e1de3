"""How toolsurvey's figures and objects show in Jupyter, and in copies of a notebook that cannot run code.

`notebook_mode()` makes every plotly Figure carry an HTML copy of itself next to plotly's own
mimetype, with plotly.js embedded once (in the output of the cell that calls it), so that
`jupyter nbconvert --to html` shows the charts; with `static=True` and Kaleido installed, a PNG
too, for viewers that run no JavaScript (GitHub's). With itables installed, long tables in
toolsurvey's rich views (Plan, Report, Run, Diff, footprint and audit tables) are paged and searchable.
"""

from __future__ import annotations

import html
import shutil
from typing import Any

from ..core.extras import require

RENDERER = "toolsurvey_html"
# Chromium as Debian installs it; Kaleido (the `static` extra) drives it to draw PNGs.
CHROMIUMS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def figure_html(fig: Any, *, height: int | None = None) -> str:
    """The figure as a <div> and a script that draws it with the page's plotly.js (not included)."""
    import plotly.io as pio

    return pio.to_html(_lean(fig), include_plotlyjs=False, include_mathjax=False, full_html=False,
                       default_width="100%", default_height=height or 525, validate=False)


def _lean(fig: Any) -> dict:
    """The figure as a dict, its template's trace defaults only for the trace types it draws: the rest
    (4 kB of colour scales for 3D, maps, contours...) would be repeated in every chart of an export."""
    d = fig if isinstance(fig, dict) else fig.to_dict()
    layout = d.get("layout") or {}
    template = layout.get("template")
    if not (isinstance(template, dict) and isinstance(template.get("data"), dict)):
        return d
    used = {t.get("type", "scatter") for t in d.get("data", [])}
    data = {k: v for k, v in template["data"].items() if k in used}
    return {**d, "layout": {**layout, "template": {**template, "data": data}}}


def _renderer():
    from plotly.io._base_renderers import MimetypeRenderer

    class HtmlCopy(MimetypeRenderer):
        """text/html of a figure for exports; plotly.js comes from `notebook_mode`'s one copy."""

        def to_mimebundle(self, fig_dict):
            return {"text/html": figure_html(fig_dict)}

    return HtmlCopy()


def chromium() -> str | None:
    """The path of an installed Chromium or Chrome, or None."""
    return next((p for p in map(shutil.which, CHROMIUMS) if p), None)


def notebook_mode(*, static: bool = False) -> list[str]:
    """Show figures interactively and keep an HTML copy of each in the notebook for exports.

    Embeds plotly.js once (this cell's output) and sets plotly's default renderer to plotly's own
    mimetype plus that HTML copy, plus a PNG when `static` is true (Kaleido, `pip install
    'toolsurvey[static]'`; it uses the system Chromium when there is one). Returns the renderer names
    in use. Raises MissingExtra for `static` without Kaleido, before anything is changed.
    """
    import os

    import plotly.io as pio
    from IPython.display import HTML, display
    from plotly.offline import get_plotlyjs

    if static:
        require("kaleido", purpose="static PNG copies of charts (notebook_mode(static=True))")
    pio.renderers[RENDERER] = _renderer()
    names = ["plotly_mimetype", RENDERER]
    if static:
        found = chromium()
        if found and not os.environ.get("BROWSER_PATH"):
            os.environ["BROWSER_PATH"] = found  # Kaleido's browser finder reads this
        names.append("png")
    pio.renderers.default = "+".join(names)
    _itables_mode()
    display(HTML('<script type="text/javascript">window.PlotlyConfig = {MathJaxConfig: "local"};</script>'
                 f'<script type="text/javascript">{get_plotlyjs()}</script>'))
    return names


# A widget cannot draw in an exported copy (no kernel, no widget manager), so an explorer is shown
# with a static copy of its charts under it. The copy hides itself wherever the live widget drew.
_HIDE_WHEN_LIVE = """<script type="text/javascript">(function () {
  var copy = document.currentScript && document.currentScript.parentElement;
  var area = copy && copy.parentElement && copy.parentElement.closest('.jp-OutputArea, .output_area, .output');
  if (!area) { return; }
  // A FigureWidget is drawn before JupyterLab lays it out, so it keeps plotly's default width:
  // once drawn, fit each live chart to the output's width, as the static charts are.
  var fit = function () {
    area.querySelectorAll('.widget-box .js-plotly-plot, .widget-vbox .js-plotly-plot').forEach(function (gd) {
      if (window.Plotly && gd._fullLayout && !(gd.layout && gd.layout.width)) { window.Plotly.Plots.resize(gd); }
    });
  };
  document.addEventListener('plotlywidget-after-render', function () { requestAnimationFrame(fit); });
  var hide = function () {
    if (area.querySelector('.widget-box .js-plotly-plot, .widget-vbox .js-plotly-plot')) {
      copy.style.display = 'none'; requestAnimationFrame(fit); return true;
    }
    return false;
  };
  if (!hide()) {
    var watch = new MutationObserver(function () { if (hide()) { watch.disconnect(); } });
    watch.observe(area, {childList: true, subtree: true});
    setTimeout(function () { watch.disconnect(); }, 60000);
  }
})();</script>"""


def _itables_mode() -> None:
    """With itables installed, page the long tables of the rich views (`pip install 'toolsurvey[tables]'`).

    itables' init shows two outputs: a module script that reads the bundle its second output defines.
    JupyterLab may run the first before the second exists ("Cannot destructure property
    'set_or_remove_dark_class'", itables 2.8-2.9), so they are shown as one output, bundle first."""
    try:
        import itables
    except ImportError:
        return
    from IPython.display import HTML, display
    from IPython.utils.capture import capture_output

    from . import tables

    with capture_output(stdout=False, stderr=False, display=True) as shown:
        itables.init_notebook_mode(all_interactive=False, connected=False)
    parts = [o.data.get("text/html", "") for o in shown.outputs]
    parts.sort(key=lambda h: "createObjectURL" not in h)  # the part that defines the bundle first
    display(HTML(gzipped_bundle("".join(parts))))
    tables.ITABLES["on"] = True


# itables' offline bundle (DataTables and its extensions, 726 kB) is in every notebook as base64 of the
# text, 968 kB. Gzipped, then base64, it is 250 kB: the browser inflates it (DecompressionStream) and
# loads it as itables does (a browser without DecompressionStream, older than Chrome 80, Firefox 113 or
# Safari 16.4, shows itables' loading line instead of the table).
_ITABLES_LOADER = """<script>
if (!window.NAME) {
  const inflate = async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    return await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
  };
  window.NAME = (async () => {
    const style = document.createElement("style");
    style.textContent = await inflate("CSS");
    document.head.appendChild(style);
    const url = URL.createObjectURL(new Blob([await inflate("JS")], {type: "application/javascript"}));
    try { return await import(url); } finally { URL.revokeObjectURL(url); }
  })();
  window.NAME.then(() => { window.dispatchEvent(new Event("READY")); });
}
</script>"""


def gzipped_bundle(init_html: str) -> str:
    """itables' offline init HTML with its bundle gzipped (see _ITABLES_LOADER); as given when it is not
    the form this was written for (itables 2.9's `injectCSS("...")`, `window.NAME = injectModule("...")`)."""
    import base64
    import gzip
    import re

    found = [re.search(p, init_html) for p in (r'injectCSS\("([A-Za-z0-9+/=]+)"\)',
                                                 r'window\.(\w+) = injectModule\("([A-Za-z0-9+/=]+)"\)',
                                                 r'new Event\("([\w.-]+)"\)')]
    start, end = init_html.find("<script>"), init_html.find("</script>")
    if not all(found) or start < 0 or init_html.find("injectCSS") > end:
        return init_html
    css, (name, js), ready = found[0].group(1), found[1].groups(), found[2].group(1)
    packed = lambda b64: base64.b64encode(gzip.compress(base64.b64decode(b64), 9, mtime=0)).decode("ascii")  # noqa: E731
    loader = (_ITABLES_LOADER.replace("NAME", name).replace("READY", ready)
              .replace('"CSS"', f'"{packed(css)}"').replace('"JS"', f'"{packed(js)}"'))
    return init_html[:start] + loader + init_html[end + len("</script>"):]


def static_copy(figures: dict) -> str:
    """HTML of `figures` (name -> Figure or FigureWidget) as they are now, for exported notebooks."""
    import plotly.graph_objects as go

    from .tables import NO_MATH

    parts = [figure_html(go.Figure(f)) for f in figures.values()]
    return (f'<div class="toolsurvey-static-copy {NO_MATH}">'
            f'<p><em>{html.escape("Static copy of the charts above, as first drawn (for exported copies).")}</em></p>'
            + "".join(parts) + _HIDE_WHEN_LIVE + "</div>")


def show_with_static_copy(box) -> None:
    """Display a widget box, then a static HTML copy of its `.figures` (see `static_copy`)."""
    from IPython.display import display

    display(box._repr_mimebundle_(), raw=True)
    display({"text/html": static_copy(box.figures)}, raw=True)


def styled(df, *, unit_column: str | None = None):
    """`df` as a pandas Styler with units (dollars, percentages, thousands separators); its data is unchanged.

    Columns are formatted by name (`cost*` dollars, `share`/`*_rate`/`success` percentages); with
    `unit_column`, each row by its unit (a plan's before/after table: `unit_column="unit"`).
    """
    from .tables import styler

    return styler(df, unit_column=unit_column)


def table_view(df, *, caption: str = "", columns="auto", unit_column: str | None = None,
               units: dict | None = None, rest: str = "the DataFrame holds them all"):
    """`df` (a DataFrame, or rows with `columns` naming them) to display in a notebook: the columns a
    reader needs ("auto": all but those with one value on every row, which the caption states once;
    or a list), numbers with units (by column name, or `units`: column -> "money", "percent" or
    "number"), long text wrapped to the panel, and more than 30 rows paged (itables) or cut with a
    line saying where the rest are (`rest`). Its `.data` is the DataFrame shown."""
    from .tables import Table

    return Table(df, caption=caption, columns=columns, unit_column=unit_column, units=units, rest=rest)
