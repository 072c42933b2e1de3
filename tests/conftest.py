import json
import sys
from pathlib import Path

import pytest
from _dist import artifact, build_dist, venv_with
from _public_data import absent_reason, shared_path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
TESTS = ROOT / "tests"


def shared(*parts: str) -> Path:
    """A path under the shared data folder (tests/_public_data.py); skips the test when it is absent."""
    __tracebackhide__ = True  # a skip names the test that needs the data, not this line
    path = shared_path(*parts)
    if path is None:
        pytest.skip(absent_reason(*parts))
    return path


def run_cli(*argv, capsys=None):
    """Run the CLI in-process; returns (exit code, stdout, stderr) when given capsys."""
    from toolsurvey.cli import main

    try:
        code = main([str(a) for a in argv])
    except SystemExit as e:  # a bad option value (argparse), as `toolsurvey` itself would exit
        code = e.code
    if capsys is not None:
        out = capsys.readouterr()
        return code, out.out, out.err
    return code


@pytest.fixture
def cli(capsys):
    return lambda *argv: run_cli(*argv, capsys=capsys)


@pytest.fixture
def write_json(tmp_path):
    def write(value, name="tools.json"):
        p = tmp_path / name
        p.write_text(json.dumps(value), encoding="utf-8")
        return p
    return write


@pytest.fixture(scope="session")
def dist(tmp_path_factory) -> Path:
    """The folder with this tree's sdist and wheel (scripts/build.sh: once per session, or check.sh's)."""
    return build_dist(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="session")
def wheel_venv(dist, tmp_path_factory) -> Path:
    """A fresh venv with the built wheel installed, no extras (tests/_dist.py)."""
    return venv_with(artifact(dist, ".whl"), tmp_path_factory.mktemp("wheel") / "venv")


@pytest.fixture(scope="session")
def local_model(tmp_path_factory):
    """A real OpenAI-compatible server with a small real model, behind a request-counting proxy
    (tests/_local_model.py): `.base_url`, `.model`, `.proxy.count()`. Skips when not installed."""
    from _local_model import need, serve

    need()
    with serve(tmp_path_factory.mktemp("local-model") / "server.log") as model:
        yield model


sys.path.insert(0, str(ROOT))
