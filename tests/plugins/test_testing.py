"""The helpers for plugin authors' tests."""

from __future__ import annotations

import sys
from pathlib import Path

from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.plugins.testing import import_plugin, plugin_host

CHECK = '''
from mqconsole.plugins import hookimpl, plugin_settings

@hookimpl
def mqconsole_check_put(operation, message, destination):
    return plugin_settings().get("say")
'''


def test_import_plugin_imports_a_file_under_its_plugin_name_without_sys_path(tmp_path: Path
                                                                              ) -> None:
    (tmp_path / "site_check.py").write_text(CHECK)
    (tmp_path / "pkg_check").mkdir()
    (tmp_path / "pkg_check" / "__init__.py").write_text(CHECK)
    before = list(sys.path)
    for module, name in ((import_plugin(tmp_path / "site_check.py"), "site_check"),
                         (import_plugin(tmp_path / "pkg_check"), "pkg_check")):
        host = plugin_host(module, settings={name: {"say": "no"}})
        assert host.names() == [name]
        assert host.check_put("move", Message(md=MQMD(), body=b""), "Q") == \
            f"refused by plugin {name}: no"
    assert sys.path == before


def test_register_plugins_unregisters_every_plugin_when_the_test_ends() -> None:
    """The fixture's body (``register_plugins``): what a test registered is gone after it."""
    from mqconsole.plugins import hookimpl
    from mqconsole.plugins.testing import register_plugins

    class Refuse:
        @hookimpl
        def mqconsole_check_put(self, operation, message, destination):
            return "no"

    fixture = register_plugins()
    register = next(fixture)
    first, second = register(Refuse()), register(("other", Refuse()))
    assert first.names() == ["Refuse"] and second.names() == ["other"]
    assert first.has_checks and second.has_checks
    fixture.close()  # the test ended
    for host in (first, second):
        assert host.names() == [] and host.infos() == [] and not host.has_checks
