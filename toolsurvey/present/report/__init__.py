"""The stakeholder report: `build.report()` resolves the inputs once and builds each section from the
library's own functions; `document.Report` holds the result and `render` writes it as self-contained
HTML, Markdown or CSV tables."""
