"""What the browser tests share: Debian's Chromium (Playwright's own download does not work offline),
its flags, where screenshots go, and the skip when Chromium is missing."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                    reason="needs Debian's chromium (scripts/install-system.sh)")
