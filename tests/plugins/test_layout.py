"""Plugin folders: which entries are plugins (the repository's plugins/ examples among them,
never a conftest.py or a test), and every file and folder a plugin loads held to the plugin
folder's permission rule, symbolic links' targets included (issue 24 item 7, issue 28
item 12)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mqconsole.plugins import PluginsSettings, load_plugins
from mqconsole.plugins.layout import folder_plugins, path_refusal

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = ["fixed_width", "json_field", "no_old_messages", "ticket_file"]

CHECKER = '''
from mqconsole.plugins import hookimpl

@hookimpl
def mqconsole_check_put(operation, message, destination):
    return None
'''
BOOM = "raise SystemError('a test module was imported as a plugin')\n"


def write(root: Path, files: dict[str, str], mode: int = 0o700) -> Path:
    root.mkdir(mode=mode, parents=True, exist_ok=True)
    os.chmod(root, mode)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def project(name: str, version: str = "2.1.0") -> dict[str, str]:
    return {f"{name}/pyproject.toml": f'[project]\nname = "{name}"\nversion = "{version}"\n',
            f"{name}/{name}.py": CHECKER, f"{name}/README.md": "read me",
            f"{name}/tests/test_{name}.py": BOOM, f"{name}/tests/conftest.py": BOOM}


def test_a_folder_of_plugin_folders(tmp_path) -> None:
    folder = write(tmp_path / "site", {
        "conftest.py": BOOM, "test_plain.py": BOOM, "plain_test.py": BOOM, "setup.py": BOOM,
        "tests/__init__.py": BOOM, "test/__init__.py": BOOM, "notes/readme.txt": "",
        "plain.py": CHECKER, "pkg/__init__.py": CHECKER, "pkg/helpers.py": "",
        **project("proj"),
        "pkgproj/pyproject.toml": '[project]\nname = "pkgproj"\nversion = "0.3"\n',
        "pkgproj/pkgproj/__init__.py": CHECKER})
    found = {p.name: p for p in folder_plugins(folder)}
    assert sorted(found) == ["pkg", "pkgproj", "plain", "proj"]
    assert found["proj"].file == folder / "proj" / "proj.py"
    assert (found["proj"].version, found["pkgproj"].version, found["plain"].version) == \
        ("2.1.0", "0.3", "")
    assert folder / "pkg" / "helpers.py" in found["pkg"].loads
    host = load_plugins(PluginsSettings(paths=[folder]))
    assert host.problems == []
    assert host.names() == ["pkg", "pkgproj", "plain", "proj"]
    assert {i.name: i.version for i in host.infos()}["proj"] == "2.1.0"


def test_the_repositorys_plugins_folder_loads_the_four_examples_and_no_test() -> None:
    """config.example.yaml's ``plugins.paths: [plugins]``: the examples, one folder deeper
    each, load; plugins/conftest.py and the examples' tests do not."""
    host = load_plugins(PluginsSettings(paths=[REPO / "plugins"]))
    assert host.problems == []
    assert host.names() == EXAMPLES
    assert [i.name for i in host.infos()] == EXAMPLES
    assert all(i.version == "1.0.0" for i in host.infos())


# -- permissions ---------------------------------------------------------------------------------

def test_a_file_others_can_write_in_a_private_folder_is_refused(tmp_path) -> None:
    folder = write(tmp_path / "site", {"open.py": CHECKER, "fine.py": CHECKER})
    os.chmod(folder / "open.py", 0o666)
    host = load_plugins(PluginsSettings(paths=[folder]))
    assert host.names() == ["fine"]
    assert host.problems == [f"plugin open not loaded: plugin file {folder / 'open.py'} is "
                             "writable by others (mode 0666); chmod go-w it"]


def test_a_package_subfolder_others_can_write_is_refused(tmp_path) -> None:
    folder = write(tmp_path / "site", {"pkg/__init__.py": CHECKER, "pkg/sub/__init__.py": "",
                                       "pkg/sub/deep.py": ""})
    os.chmod(folder / "pkg" / "sub", 0o777)
    host = load_plugins(PluginsSettings(paths=[folder]))
    assert host.names() == []
    assert host.problems == [f"plugin pkg not loaded: plugin folder {folder / 'pkg' / 'sub'} "
                             "is writable by others (mode 0777); chmod go-w it"]


def test_a_symlink_into_a_folder_others_can_write_is_refused(tmp_path) -> None:
    shared = write(tmp_path / "shared", {"real.py": CHECKER}, mode=0o777)
    os.chmod(shared / "real.py", 0o644)  # the file itself is fine; its folder is not
    folder = write(tmp_path / "site", {})
    (folder / "linked.py").symlink_to(shared / "real.py")
    host = load_plugins(PluginsSettings(paths=[folder]))
    assert host.names() == []
    assert host.problems == [
        f"plugin linked not loaded: plugin file {folder / 'linked.py'} links to "
        f"{shared / 'real.py'}, whose folder {shared} is writable by others (mode 0777)"]


def test_a_symlink_to_a_file_others_can_write_is_refused(tmp_path) -> None:
    private = write(tmp_path / "private", {"real.py": CHECKER})
    os.chmod(private / "real.py", 0o646)
    folder = write(tmp_path / "site", {})
    (folder / "linked.py").symlink_to(private / "real.py")
    assert path_refusal(folder / "linked.py") == (
        f"plugin file {folder / 'linked.py'} is writable by others (mode 0646); chmod go-w it")
    os.chmod(private / "real.py", 0o644)
    assert path_refusal(folder / "linked.py") is None
    assert load_plugins(PluginsSettings(paths=[folder])).names() == ["linked"]


def test_a_symlinked_folder_inside_a_package_is_followed_and_checked(tmp_path) -> None:
    shared = write(tmp_path / "shared" / "lib", {"helpers.py": ""})
    os.chmod(tmp_path / "shared", 0o777)
    folder = write(tmp_path / "site", {"pkg/__init__.py": CHECKER})
    (folder / "pkg" / "lib").symlink_to(shared)
    host = load_plugins(PluginsSettings(paths=[folder]))
    assert host.names() == []
    assert host.problems == [
        f"plugin pkg not loaded: plugin folder {folder / 'pkg' / 'lib'} links to {shared}, "
        f"whose folder {tmp_path / 'shared'} is writable by others (mode 0777)"]
    os.chmod(tmp_path / "shared", 0o755)
    os.chmod(shared / "helpers.py", 0o622)
    assert load_plugins(PluginsSettings(paths=[folder])).problems == [
        f"plugin pkg not loaded: plugin file {folder / 'pkg' / 'lib' / 'helpers.py'} is "
        "writable by others (mode 0622); chmod go-w it"]


def test_a_plugin_folder_that_is_a_symlink_into_a_shared_folder_is_refused(tmp_path) -> None:
    shared = tmp_path / "shared"
    write(shared / "plugins", {"one.py": CHECKER})
    os.chmod(shared, 0o777)
    link = tmp_path / "plugins"
    link.symlink_to(shared / "plugins")
    host = load_plugins(PluginsSettings(paths=[link]))
    assert host.names() == []
    assert host.problems == [f"plugin folder {link} links to {shared / 'plugins'}, whose "
                             f"folder {shared} is writable by others (mode 0777): not loaded"]


@pytest.mark.parametrize("where", ["project folder", "project module", "bytecode"])
def test_each_file_of_a_plugin_project_is_checked(tmp_path, where) -> None:
    folder = write(tmp_path / "site", project("proj"))
    proj = folder / "proj"
    os.chmod(proj, 0o700)
    if where == "bytecode":
        cache = proj / "__pycache__"
        cache.mkdir(mode=0o777)
        os.chmod(cache, 0o777)
        (cache / "proj.cpython-311.pyc").write_bytes(b"")
        bad, kind, mode = cache, "folder", "0777"
    elif where == "project folder":
        os.chmod(proj, 0o757)
        bad, kind, mode = proj, "folder", "0757"
    else:
        os.chmod(proj / "proj.py", 0o664)
        bad, kind, mode = proj / "proj.py", "file", "0664"
    host = load_plugins(PluginsSettings(paths=[folder]))
    assert host.problems == [f"plugin proj not loaded: plugin {kind} {bad} is writable by "
                             f"others (mode {mode}); chmod go-w it"]
    # what is not loaded (its tests, its README) is not held to the rule
    os.chmod(bad, 0o700 if kind == "folder" else 0o600)
    os.chmod(proj / "README.md", 0o666)
    os.chmod(proj / "tests", 0o777)
    assert load_plugins(PluginsSettings(paths=[folder])).names() == ["proj"]
