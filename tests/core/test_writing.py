"""Shared writers: atomic, with ordinary permissions, and CSV that a spreadsheet cannot execute."""

import os
import stat

import pandas as pd
import pytest

from toolsurvey.core.writing import atomic_write, spreadsheet_safe


def test_a_new_file_gets_the_permissions_open_would_give(tmp_path):
    old = os.umask(0o022)
    try:
        p = atomic_write(tmp_path / "out.txt", "hello")
    finally:
        os.umask(old)
    assert p.read_text() == "hello"
    assert stat.S_IMODE(p.stat().st_mode) == 0o644


def test_an_existing_file_keeps_its_permissions(tmp_path):
    p = tmp_path / "out.txt"
    p.write_text("old")
    p.chmod(0o600)
    atomic_write(p, "new")
    assert p.read_text() == "new" and stat.S_IMODE(p.stat().st_mode) == 0o600


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    p = tmp_path / "out.txt"
    p.write_text("old")
    with pytest.raises(TypeError):
        atomic_write(p, object())  # not str or bytes: the write itself fails
    assert p.read_text() == "old"
    assert [f.name for f in tmp_path.iterdir()] == ["out.txt"]


def test_formula_cells_are_defused_and_numbers_untouched():
    df = pd.DataFrame({"tool": ["=HYPERLINK(\"x\")", "+1", "-x", "@sum", "plain"], "tokens": [1, -2, 3, 4, 5]})
    out = spreadsheet_safe(df)
    assert list(out["tool"]) == ["'=HYPERLINK(\"x\")", "'+1", "'-x", "'@sum", "plain"]
    assert list(out["tokens"]) == [1, -2, 3, 4, 5]


def test_cli_csv_output_is_defused(cli, write_json):
    path = write_json({"tools": [{"name": "=cmd", "description": "x", "inputSchema": {"type": "object"}}]})
    code, out, _ = cli("footprint", path, "--format", "csv")
    assert code == 0 and "'=cmd" in out
