"""Discovery: folders, entry points, enabled/disabled, switched off, broken plugins."""

from __future__ import annotations

import os
from importlib import metadata
from pathlib import Path

from mqconsole.plugins import API_VERSION, PluginsSettings, load_plugins
from mqconsole.plugins.discovery import folder_refusal

CHECKER = '''
from mqconsole.plugins import hookimpl

__version__ = "1.2"

@hookimpl
def mqconsole_check_put(operation, message, destination):
    return "never to " + destination if destination.startswith("PROD.") else None
'''


def _folder(tmp_path: Path, **files: str) -> Path:
    folder = tmp_path / "plugins"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    for name, text in files.items():
        if name.endswith("/"):
            (folder / name).mkdir()
            (folder / name / "__init__.py").write_text(text)
        else:
            (folder / name).write_text(text)
    return folder


def test_a_folder_plugin_loads_with_its_file_name(tmp_path: Path) -> None:
    folder = _folder(tmp_path, **{"no_prod.py": CHECKER, "_private.py": "raise SystemError",
                                  "notes.txt": "x"})
    host = load_plugins(PluginsSettings(paths=[folder]))
    [info] = host.infos()
    assert (info.name, info.version, info.status) == ("no_prod", "1.2", "loaded")
    assert info.hooks == ("mqconsole_check_put",)
    assert info.source == str(folder / "no_prod.py")


def test_a_package_in_a_folder_is_one_plugin(tmp_path: Path) -> None:
    folder = _folder(tmp_path, **{"pkg/": CHECKER})
    host = load_plugins(PluginsSettings(paths=[folder]))
    assert host.names() == ["pkg"]


def test_a_broken_plugin_is_reported_and_the_rest_load(tmp_path: Path) -> None:
    folder = _folder(tmp_path, **{"a_broken.py": "import nonexistent_module_xyz\n",
                                  "b_good.py": CHECKER})
    seen: list[str] = []
    host = load_plugins(PluginsSettings(paths=[folder]))
    seen.extend(host.problems)
    assert host.names() == ["b_good"]
    [broken] = [i for i in host.infos() if i.name == "a_broken"]
    assert broken.status.startswith("error: plugin a_broken (")
    assert "ModuleNotFoundError" in broken.status
    assert len(seen) == 1


def test_enabled_and_disabled_choose(tmp_path: Path) -> None:
    folder = _folder(tmp_path, **{"one.py": CHECKER, "two.py": CHECKER, "three.py": CHECKER})
    host = load_plugins(PluginsSettings(paths=[folder], enabled=["one", "two"],
                                        disabled=["two"]))
    status = {i.name: i.status for i in host.infos()}
    assert status == {"one": "loaded", "two": "disabled", "three": "disabled"}


def test_switched_off_by_flag_or_environment(tmp_path: Path, monkeypatch) -> None:
    folder = _folder(tmp_path, **{"one.py": CHECKER})
    assert load_plugins(PluginsSettings(paths=[folder]), switched_off=True).infos() == []
    monkeypatch.setenv("MQCONSOLE_NO_PLUGINS", "1")
    assert load_plugins(PluginsSettings(paths=[folder])).infos() == []
    monkeypatch.setenv("MQCONSOLE_NO_PLUGINS", "0")
    assert load_plugins(PluginsSettings(paths=[folder])).names() == ["one"]


def test_a_folder_others_can_write_is_refused(tmp_path: Path) -> None:
    folder = _folder(tmp_path, **{"one.py": CHECKER})
    os.chmod(folder, 0o777)
    host = load_plugins(PluginsSettings(paths=[folder]))
    assert host.names() == []
    assert "writable by others (mode 0777)" in host.problems[0]
    assert folder_refusal(tmp_path / "missing") == \
        f"plugin folder {tmp_path / 'missing'} does not exist"


def test_a_group_writable_folder_and_one_of_another_user_are_refused(
        tmp_path: Path, monkeypatch) -> None:
    folder = _folder(tmp_path, **{"one.py": CHECKER})
    os.chmod(folder, 0o775)
    assert folder_refusal(folder) == (f"plugin folder {folder} is writable by others (mode "
                                      "0775): not loaded; chmod go-w it")
    os.chmod(folder, 0o755)
    assert folder_refusal(folder) is None
    if os.getuid() == 0:  # root may give it away
        os.chown(folder, 4242, -1)
    else:  # this user's folder, seen by another user
        monkeypatch.setattr(os, "getuid", lambda: folder.stat().st_uid + 1)
    owner = folder.stat().st_uid
    host = load_plugins(PluginsSettings(paths=[folder]))
    assert host.names() == []
    assert host.problems == [f"plugin folder {folder} belongs to another user (uid {owner}): "
                             "not loaded"]


def test_another_api_version_is_refused(tmp_path: Path) -> None:
    folder = _folder(tmp_path, **{"future.py": f"MQCONSOLE_API_VERSION = {API_VERSION + 1}\n"
                                  + CHECKER})
    host = load_plugins(PluginsSettings(paths=[folder]))
    assert host.names() == []
    assert f"needs plugin API {API_VERSION + 1}" in host.problems[0]


def test_entry_points_load_by_their_name(tmp_path: Path, monkeypatch) -> None:
    module = tmp_path / "site_ep_plugin.py"
    module.write_text(CHECKER)
    monkeypatch.syspath_prepend(str(tmp_path))
    ep = metadata.EntryPoint(name="site", value="site_ep_plugin", group="mqconsole")
    broken = metadata.EntryPoint(name="gone", value="no_such_module_q", group="mqconsole")

    def fake(group=None, **kw):
        assert group == "mqconsole"
        return metadata.EntryPoints([ep, broken])

    monkeypatch.setattr(metadata, "entry_points", fake)
    host = load_plugins(PluginsSettings())
    assert host.names() == ["site"]
    status = {i.name: i.status for i in host.infos()}
    assert status["gone"].startswith("error: plugin gone failed to import")


def test_settings_reach_the_plugin() -> None:
    host = load_plugins(PluginsSettings(settings={"old": {"days": 3}}))
    assert host.settings_of("old") == {"days": 3}
    assert host.settings_of("other") == {}


def test_a_plugin_calling_sys_exit_at_import_is_broken_not_the_end(tmp_path, monkeypatch
                                                                   ) -> None:
    """Issue 28 item 6: an entry point or a folder's module that calls sys.exit (or raises
    KeyboardInterrupt) while imported is reported and skipped; the others load."""
    (tmp_path / "site_ep_quitter.py").write_text("import sys\nsys.exit(2)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    ep = metadata.EntryPoint(name="quitter", value="site_ep_quitter", group="mqconsole")
    monkeypatch.setattr(metadata, "entry_points",
                        lambda group=None, **kw: metadata.EntryPoints([ep]))
    folder = tmp_path / "site"
    folder.mkdir(mode=0o700)
    (folder / "breaker.py").write_text("raise KeyboardInterrupt\n")
    (folder / "fine.py").write_text(CHECKER)
    host = load_plugins(PluginsSettings(paths=[folder]))
    assert host.names() == ["fine"]
    status = {i.name: i.status for i in host.infos()}
    assert status["quitter"] == ("error: plugin quitter failed to import: it called "
                                 "sys.exit(2)")
    assert status["breaker"] == (f"error: plugin breaker ({folder / 'breaker.py'}) failed to "
                                 "import: KeyboardInterrupt")
