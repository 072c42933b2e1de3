"""The one severity table: its order, its old names, and every reader agreeing with it."""

from __future__ import annotations

import pytest

from toolsurvey.cli import main
from toolsurvey.core.severity import CHOICES, SEVERITIES, at_least, rank, severity, tally
from toolsurvey.errors import InputError


def test_order_and_the_old_name():
    assert SEVERITIES == ("info", "warning", "suspicious", "error", "poisoning")  # docs/audit.md's order
    assert severity("security") == "poisoning" and rank("security") == rank("poisoning") == 4
    assert at_least("poisoning", "error") and not at_least("suspicious", "error") and at_least("info", "info")
    with pytest.raises(InputError, match="unknown severity 'fatal'; expected one of: info, warning"):
        severity("fatal")


def test_tally_is_worst_first_and_counts_old_names_as_new():
    assert tally(["info", "security", "warning", "info", "poisoning", "info"]) == "2 poisoning, 1 warning, 3 info"
    assert tally(["info"] * 1200) == "1,200 info" and tally([]) == ""


@pytest.mark.parametrize("command", ["audit", "check"])
def test_fail_on_offers_every_severity_and_old_name(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert "--fail-on {info,warning,suspicious,error,poisoning,security}" in capsys.readouterr().out
    assert CHOICES == (*SEVERITIES, "security")
