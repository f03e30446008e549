"""``mqconsole plugins`` and ``--no-plugins``: real invocations with a plugin folder."""

from __future__ import annotations

import os
from pathlib import Path

from .conftest import run_cli

GOOD = '''
from mqconsole.plugins import hookimpl
__version__ = "0.3"

@hookimpl
def mqconsole_check_put(operation, message, destination):
    return None
'''


def _config(tmp_path: Path, folder: Path, extra: str = "") -> Path:
    cfg = tmp_path / "config.yaml"
    cfg.write_text(f"plugins:\n  paths: [{folder}]\n{extra}")
    return cfg


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "site-plugins"
    folder.mkdir()
    os.chmod(folder, 0o755)
    (folder / "good.py").write_text(GOOD)
    (folder / "broken.py").write_text("raise RuntimeError('half written')\n")
    return folder


def test_plugins_json_lists_each_with_its_status(tmp_path: Path) -> None:
    cfg = _config(tmp_path, _folder(tmp_path))
    r = run_cli("--config", str(cfg), "plugins", "--json", home=tmp_path / "home")
    assert r.code == 0, r.err
    by_name = {p["name"]: p for p in r.json}
    assert set(by_name) == {"good", "broken"}
    assert set(by_name["good"]) == {"name", "version", "source", "hooks", "status"}
    assert by_name["good"]["status"] == "loaded"
    assert by_name["good"]["version"] == "0.3"
    assert by_name["good"]["hooks"] == ["mqconsole_check_put"]
    assert by_name["broken"]["status"].startswith("error: plugin broken (")
    assert "RuntimeError: half written" in by_name["broken"]["status"]
    # reported once on stderr, never a traceback
    assert r.err.count("half written") == 1 and "Traceback" not in r.err


def test_plugins_text_and_disabled(tmp_path: Path) -> None:
    cfg = _config(tmp_path, _folder(tmp_path), "  disabled: [broken]\n")
    r = run_cli("--config", str(cfg), "plugins", home=tmp_path / "home")
    assert r.code == 0, r.err
    lines = {line.split()[0]: line for line in r.out.splitlines()[1:] if line.strip()}
    assert "disabled" in lines["broken"] and "loaded" in lines["good"]
    assert "check_put" in lines["good"]


def test_an_error_is_said_whole_below_the_table(tmp_path: Path) -> None:
    """A status sentence is never a table cell (a terminal cuts long cells): the table says
    "error (below)" and the sentence follows whole on its own line."""
    folder = _folder(tmp_path)
    os.chmod(folder, 0o777)
    r = run_cli("--config", str(_config(tmp_path, folder)), "plugins",
                home=tmp_path / "home")
    assert r.code == 0, r.err
    sentence = (f"plugin folder {folder} is writable by others (mode 0777): not loaded; "
                "chmod go-w it")
    assert "error (below)" in r.out.splitlines()[1]
    assert f"({folder}): {sentence}" in r.out


def test_no_plugins_flag_and_environment_load_none(tmp_path: Path) -> None:
    cfg = _config(tmp_path, _folder(tmp_path))
    r = run_cli("--config", str(cfg), "--no-plugins", "plugins", "--json",
                home=tmp_path / "home")
    assert (r.code, r.json) == (0, [])
    r = run_cli("--config", str(cfg), "plugins", home=tmp_path / "home",
                env={"MQCONSOLE_NO_PLUGINS": "1"})
    assert r.code == 0 and "switched off" in r.err


def test_a_folder_others_can_write_is_refused_in_one_sentence(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    os.chmod(folder, 0o777)
    r = run_cli("--config", str(_config(tmp_path, folder)), "plugins", "--json",
                home=tmp_path / "home")
    assert r.code == 0
    [entry] = r.json
    assert entry["status"] == (f"error: plugin folder {folder} is writable by others "
                               "(mode 0777): not loaded; chmod go-w it")



def test_each_file_a_plugin_loads_is_held_to_the_folders_rule(tmp_path: Path) -> None:
    """Issue 28 item 12: a 0666 module in a 0700 folder, a 0777 package subfolder and a
    symlink into a 0777 folder are each refused in one sentence; the rest load."""
    folder = tmp_path / "site-plugins"
    folder.mkdir(mode=0o700)
    os.chmod(folder, 0o700)
    (folder / "good.py").write_text(GOOD)
    (folder / "open.py").write_text(GOOD)
    os.chmod(folder / "open.py", 0o666)
    (folder / "pkg" / "sub").mkdir(parents=True)
    (folder / "pkg" / "__init__.py").write_text(GOOD)
    (folder / "pkg" / "sub" / "__init__.py").write_text("")
    os.chmod(folder / "pkg" / "sub", 0o777)
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    (shared / "real.py").write_text(GOOD)
    (folder / "linked.py").symlink_to(shared / "real.py")
    r = run_cli("--config", str(_config(tmp_path, folder)), "plugins", "--json",
                home=tmp_path / "home")
    assert r.code == 0, r.err
    status = {p["name"]: p["status"] for p in r.json}
    sentences = {
        "open": f"plugin open not loaded: plugin file {folder / 'open.py'} is writable by "
                "others (mode 0666); chmod go-w it",
        "pkg": f"plugin pkg not loaded: plugin folder {folder / 'pkg' / 'sub'} is writable "
               "by others (mode 0777); chmod go-w it",
        "linked": f"plugin linked not loaded: plugin file {folder / 'linked.py'} links to "
                  f"{shared / 'real.py'}, whose folder {shared} is writable by others "
                  "(mode 0777)"}
    assert status == {"good": "loaded", **{k: f"error: {v}" for k, v in sentences.items()}}
    assert sorted(r.err.splitlines()) == sorted(f"mqconsole: {v}" for v in sentences.values())


def test_a_profile_runs_its_own_narrower_plugins_section(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    profiles = ("profiles:\n"
                "  - name: dev\n    backend: {type: embedded, path: dev.sqlite}\n"
                "  - name: prod\n    backend: {type: embedded, path: prod.sqlite}\n"
                "    plugins:\n      disabled: [good]\n")
    cfg = _config(tmp_path, folder, "  disabled: [broken]\n" + profiles)
    home = tmp_path / "home"
    statuses = {}
    for profile in ("dev", "prod"):
        r = run_cli("--config", str(cfg), "--profile", profile, "plugins", "--json", home=home)
        assert r.code == 0, r.err
        statuses[profile] = {p["name"]: p["status"] for p in r.json}
    assert statuses["dev"] == {"good": "loaded", "broken": "disabled"}
    assert statuses["prod"] == {"good": "disabled", "broken": "disabled"}
    # several profiles and none chosen: the top-level section
    r = run_cli("--config", str(cfg), "plugins", "--json", home=home)
    assert {p["name"]: p["status"] for p in r.json} == statuses["dev"]
