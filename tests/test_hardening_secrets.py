"""A server that echoes the secrets it was given: nothing stored or printed holds them, and the
snapshot says it was scrubbed."""

import json
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "servers"))
from echo_http import EchoServer  # noqa: E402

ESCAPE = [sys.executable, str(Path(__file__).parent / "servers" / "escape.py")]
TOKEN = "sk-live-0123456789abcdefSECRET"
QUERY = "qk-0123456789QUERYSECRET"


def _all_output(code, out, err, snapshot: Path) -> str:
    return out + err + snapshot.read_text()


def test_an_echoed_authorization_header_and_url_token_are_scrubbed(cli, tmp_path):
    snap = tmp_path / "snap.json"
    with EchoServer() as url:
        code, out, err = cli("discover", f"{url}?key={QUERY}", "--header", f"Authorization: Bearer {TOKEN}",
                             "-o", snap)
    assert code == 0, err
    text = _all_output(code, out, err, snap)
    assert TOKEN not in text and QUERY not in text
    doc = json.loads(snap.read_text())
    server = next(iter(doc["servers"].values()))
    assert "<redacted>" in server["tools"][0]["description"] and server["scrubbed"] is True
    assert "sent back a secret it was given" in err


def test_an_echoed_env_secret_is_scrubbed(cli, tmp_path):
    snap = tmp_path / "snap.json"
    code, out, err = cli("discover", "--env", f"ECHO_TOKEN={TOKEN}", "-o", snap, "--",
                         *ESCAPE, "echo", uuid.uuid4().hex)
    assert code == 0, err
    assert TOKEN not in _all_output(code, out, err, snap)
    assert "<redacted>" in snap.read_text() and "sent back a secret" in err


def test_nested_defaults_expand(tmp_path):
    from toolsurvey.inputs.configs import read_config

    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"s": {"command": "srv", "args": ["${A:-${B:-x}}", "${A:-${B}}"]}}}))
    assert read_config(config, environ={"B": "bee"})[0].args == ("bee", "bee")
    assert read_config(config, environ={"A": "a"})[0].args == ("a", "a")  # B unset, but its default is unused
    spec = read_config(config, environ={"B": "b-secret-value"})[0]
    assert "b-secret-value" in spec.secrets
