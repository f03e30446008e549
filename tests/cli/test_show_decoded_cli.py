"""``mqconsole show`` lists site decoders' results (``decoded``), made safe as payloads are."""

from __future__ import annotations

import os
from pathlib import Path

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
MSGID = "0A" * 24

PLUGINS = {
    "orders.py": '''
from mqconsole.plugins import Decoded, hookimpl

@hookimpl
def mqconsole_decode_payload(message, payload):
    if payload.startswith(b"ORD"):
        return Decoded("Order \\x1b[31m", "id " + payload[3:].decode("latin-1"))
    return None
''',
    "length.py": '''
from mqconsole.plugins import Decoded, hookimpl

@hookimpl
def mqconsole_decode_payload(message, payload):
    return Decoded("Length", f"{len(payload)} bytes, {len(message.body)} with headers")
''',
    "broken.py": '''
from mqconsole.plugins import hookimpl

@hookimpl
def mqconsole_decode_payload(message, payload):
    raise RuntimeError("decoder bug")
''',
}


def _config(tmp_path: Path, *names: str) -> str:
    folder = tmp_path / "decoders"
    folder.mkdir()
    os.chmod(folder, 0o755)
    for name in names:
        (folder / name).write_text(PLUGINS[name])
    cfg = tmp_path / "config.yaml"
    cfg.write_text(f"plugins:\n  paths: [{folder}]\n")
    return str(cfg)


def test_show_json_lists_each_decoders_result_after_every_header(cli, tmp_path) -> None:
    cfg = _config(tmp_path, "orders.py", "length.py", "broken.py")
    row = cli("browse", DLQ, "--json", "--limit", "1").json[0]
    r = cli("--config", cfg, "show", DLQ, row["msgid"], "--json")
    assert r.code == 0, r.err
    doc = r.json
    assert doc["headers"][0]["type"] == "MQDLH"
    length = doc["payload"]["length"]
    assert doc["decoded"] == [{"plugin": "length", "title": "Length",
                               "text": f"{length} bytes, {row['length']} with headers"}]
    # the raising decoder is reported once on stderr, the others' results stay
    assert r.err.count("decoder bug") == 1 and "Traceback" not in r.err
    assert "plugin broken failed in mqconsole_decode_payload: RuntimeError: decoder bug" \
        in r.err


def test_decoded_text_is_data_never_terminal_escapes(cli, tmp_path) -> None:
    cfg = _config(tmp_path, "orders.py")
    cli("queue", "define", "T.Q")
    body = b"ORD\x1b]0;pwned\x07 42"
    assert cli("put", "T.Q", "--hex", body.hex(), "--msgid", MSGID).code == 0
    doc = cli("--config", cfg, "show", "T.Q", MSGID, "--json").json
    assert doc["decoded"] == [{"plugin": "orders", "title": "Order \x1b[31m",
                               "text": "id \x1b]0;pwned\x07 42"}]
    r = cli("--config", cfg, "show", "T.Q", MSGID)
    assert r.code == 0, r.err
    assert "\x1b" not in r.out and "\x07" not in r.out
    lines = r.out.splitlines()
    at = lines.index("Decoded by plugin orders: Order \\x1b[31m")
    assert lines[at + 1] == "  id \\x1b]0;pwned\\x07 42"


def test_without_decoders_decoded_is_empty(cli) -> None:
    row = cli("browse", DLQ, "--json", "--limit", "1").json[0]
    r = cli("show", DLQ, row["msgid"], "--json")
    assert r.code == 0 and r.json["decoded"] == []
    assert "Decoded by plugin" not in cli("show", DLQ, row["msgid"]).out
