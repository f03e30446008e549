"""The example plugins of ``plugins/``: loaded by folder and by entry point, end to end.

They are never installed into the project's venv: a folder run copies the example's folder
(the files a site would copy), an entry-point run writes the distribution metadata their
``pyproject.toml`` declares into a directory on the import path (PYTHONPATH of the
executable; in process, ``sys.path`` for the call), as ``pip install`` would.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import IN_PROCESS, Result, run_cli

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = {
    "fixed_width": ["mqconsole_decode_payload"],
    "no_old_messages": ["mqconsole_check_put"],
    "ticket_file": ["mqconsole_actions"],
    "json_field": ["mqconsole_audit_columns"],
}


def copy_folder(tmp_path: Path, name: str) -> Path:
    """The example's folder as a site would copy it (tests left out), not writable by others."""
    folder = tmp_path / "site" / name
    shutil.copytree(REPO / "plugins" / name, folder,
                    ignore=shutil.ignore_patterns("tests", "__pycache__"))
    os.chmod(folder, 0o755)
    return folder


def installed(tmp_path: Path, name: str) -> dict[str, str]:
    """An environment in which the example is an installed distribution with the entry
    point its pyproject.toml declares."""
    project = tomllib.loads((REPO / "plugins" / name / "pyproject.toml").read_text())["project"]
    site = tmp_path / "site-packages"
    dist = site / f"{re.sub(r'[-.]+', '_', project['name'])}-{project['version']}.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                   f"Version: {project['version']}\n")
    points = project["entry-points"]["mqconsole"]
    (dist / "entry_points.txt").write_text(
        "[mqconsole]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()))
    shutil.copy(REPO / "plugins" / name / f"{name}.py", site)
    return {"PYTHONPATH": str(site)}


def with_installed(call: Callable[..., Result], *args: str, env: dict[str, str] | None,
                   **kw) -> Result:
    """``call(*args, **kw)`` (``run_cli`` or the ``cli`` fixture) with ``env`` of
    :func:`installed`: in this process its directory is on ``sys.path`` for the call only
    (what the call imported from there forgotten afterwards, as a process's end would);
    with ``MQCONSOLE_TEST_CLI=subprocess``, the executable with PYTHONPATH."""
    if env is None or not IN_PROCESS:
        return call(*args, env=env, **kw)
    site = env["PYTHONPATH"]
    # a module of that name imported here before would hide the installed one: set aside
    names = {p.stem for p in Path(site).glob("*.py")}
    hidden = {n: sys.modules.pop(n) for n in names if n in sys.modules}
    sys.path.insert(0, site)
    importlib.invalidate_caches()
    try:
        return call(*args, **kw)
    finally:
        sys.path.remove(site)
        sys.path_importer_cache.pop(site, None)
        for name, module in list(sys.modules.items()):
            if str(getattr(module, "__file__", None) or "").startswith(site + os.sep):
                del sys.modules[name]
        sys.modules.update(hidden)
        importlib.invalidate_caches()


def config(tmp_path: Path, text: str) -> str:
    cfg = tmp_path / "config.yaml"
    cfg.write_text(text)
    return str(cfg)


def test_the_examples_are_not_installed_in_this_venv(tmp_path) -> None:
    r = run_cli("--config", config(tmp_path, "plugins: {}\n"), "plugins", "--json",
                home=tmp_path / "home")
    assert r.code == 0, r.err
    assert not set(EXAMPLES) & {p["name"] for p in r.json}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_each_example_loads_from_its_folder(tmp_path, name) -> None:
    folder = copy_folder(tmp_path, name)
    r = run_cli("--config", config(tmp_path, f"plugins:\n  paths: [{folder}]\n"),
                "plugins", "--json", home=tmp_path / "home")
    assert r.code == 0, r.err
    assert r.json == [{"name": name, "version": "1.0.0", "source": str(folder / f"{name}.py"),
                       "hooks": EXAMPLES[name], "status": "loaded"}]
    assert r.err == ""


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_each_example_loads_by_its_entry_point(tmp_path, name) -> None:
    env = installed(tmp_path, name)
    r = with_installed(run_cli, "--config", config(tmp_path, f"plugins:\n  enabled: [{name}]\n"),
                       "plugins", "--json", home=tmp_path / "home", env=env)
    assert r.code == 0, r.err
    [entry] = [p for p in r.json if p["name"] == name]
    dist = "mqconsole-" + name.replace("_", "-")
    assert entry == {"name": name, "version": "1.0.0",
                     "source": f"{dist} (entry point {name})", "hooks": EXAMPLES[name],
                     "status": "loaded"}


ORDER = ("ORD" + "0000012345" + "000012550" + "20261124").encode("cp037") \
    + (3).to_bytes(4, "big") + bytes.fromhex("0012345C") + b"\x80\x01"


@pytest.mark.parametrize("how", ["folder", "entry point"])
def test_fixed_width_decodes_in_show(cli, tmp_path, how) -> None:
    layout = REPO / "plugins" / "fixed_width" / "orders.yaml"
    settings = f"  settings:\n    fixed_width: {{layout: {layout}}}\n"
    env = None
    if how == "folder":
        cfg = config(tmp_path, f"plugins:\n  paths: [{copy_folder(tmp_path, 'fixed_width')}]\n"
                               + settings)
    else:
        env = installed(tmp_path, "fixed_width")
        cfg = config(tmp_path, "plugins:\n" + settings)
    cli("queue", "define", "ORDERS.IN")
    assert cli("put", "ORDERS.IN", "--hex", ORDER.hex(), "--msgid", "0B" * 24).code == 0
    r = with_installed(cli, "--config", cfg, "show", "ORDERS.IN", "0B" * 24, "--json", env=env)
    assert r.code == 0, r.err
    [decoded] = r.json["decoded"]
    assert (decoded["plugin"], decoded["title"]) == ("fixed_width", "Order record")
    assert "amount       125.50" in decoded["text"].splitlines()
    text = with_installed(cli, "--config", cfg, "show", "ORDERS.IN", "0B" * 24, env=env).out
    assert "Decoded by plugin fixed_width: Order record" in text
    assert "  ordered_on   2026-11-24" in text.splitlines()


def test_config_example_loads_the_four_examples_and_no_test(tmp_path) -> None:
    """config.example.yaml's ``plugins.paths: [plugins]`` (issue 24 item 7): the repository's
    plugins/ folder, each example one folder deeper, loads the four examples; its
    conftest.py and the examples' tests are not plugins."""
    r = run_cli("--config", str(REPO / "config.example.yaml"), "plugins", "--json",
                home=tmp_path / "home")
    assert r.code == 0, r.err
    listed = {p["name"]: p for p in r.json}
    assert sorted(listed) == sorted(EXAMPLES)
    for name, hooks in EXAMPLES.items():
        assert listed[name]["status"] == "loaded"
        assert listed[name]["hooks"] == hooks
        assert listed[name]["source"] == str(REPO / "plugins" / name / f"{name}.py")
        assert listed[name]["version"] == "1.0.0"
    assert "conftest" not in r.err and r.err == ""
