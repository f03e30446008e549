"""Whether the doctor's and the replay's modules are there is found without importing them
or their packages (the delivery model's package imports pydantic's scenario schema: most of
the console's start-up CPU, spent for the footer's first look at its keys)."""

from __future__ import annotations

import sys

from mqconsole.tui.context import _module_exists

exists = _module_exists.__wrapped__  # (the console asks once a process: not cached here)


def test_a_module_is_found_without_importing_its_package(tmp_path, monkeypatch):
    package = tmp_path / "optional_part"
    package.mkdir()
    (package / "__init__.py").write_text("raise RuntimeError('imported')\n")
    (package / "engine.py").write_text("raise RuntimeError('imported')\n")
    (package / "inner").mkdir()
    (package / "inner" / "__init__.py").write_text("")
    (package / "inner" / "screen.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert exists("optional_part.engine")
    assert exists("optional_part.inner.screen")
    assert not exists("optional_part.missing")
    assert not exists("optional_part.engine.sub")  # a module, not a package
    assert not exists("no_such_part.engine")
    assert not any(name.startswith("optional_part") for name in sys.modules)


def test_the_console_s_optional_parts_are_found():
    assert exists("mqconsole.model.engine") and exists("mqconsole.tui.screens.replay")
    assert exists("mqconsole.ops.doctor") and exists("mqconsole.tui.screens.doctor")
