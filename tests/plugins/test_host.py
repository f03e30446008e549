"""The plugin host: each hook called safely, results attributed to their plugin."""

from __future__ import annotations

import types

import pytest

from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.plugins import (
    HOOK_NAMES,
    Action,
    ActionSummary,
    AuditColumn,
    Decoded,
    PluginHost,
    hookimpl,
)


def _message(body: bytes = b"hello") -> Message:
    return Message(md=MQMD(), body=body)


def _plugin(name: str, **hooks) -> types.SimpleNamespace:
    ns = types.SimpleNamespace(__name__=name)
    for hook, fn in hooks.items():
        setattr(ns, hook, hookimpl(fn))
    return ns


def test_hook_names_are_the_contracts() -> None:
    assert set(HOOK_NAMES) == {
        "mqconsole_decode_payload", "mqconsole_check_put", "mqconsole_actions",
        "mqconsole_audit_columns", "mqconsole_failure_rules", "mqconsole_operation_done"}


def test_decoders_are_attributed_and_none_is_skipped(register_plugins) -> None:
    a = _plugin("a", mqconsole_decode_payload=lambda message, payload: None)
    b = _plugin("b", mqconsole_decode_payload=lambda message, payload:
                Decoded("Upper", payload.decode().upper()))
    host = register_plugins(a, b)
    [result] = host.decode(_message(), b"abc")
    assert (result.plugin, result.title, result.text) == ("b", "Upper", "ABC")
    assert result.to_json() == {"plugin": "b", "title": "Upper", "text": "ABC"}


def test_a_raising_decoder_is_reported_once_and_others_still_answer(register_plugins) -> None:
    seen: list[str] = []

    def boom(message, payload):
        raise RuntimeError("bad layout")

    host = register_plugins(_plugin("broken", mqconsole_decode_payload=boom),
                            _plugin("fine", mqconsole_decode_payload=lambda message, payload:
                                    Decoded("T", "ok")))
    host.on_problem = seen.append
    for _ in range(3):
        assert [r.plugin for r in host.decode(_message(), b"x")] == ["fine"]
    assert seen == ["plugin broken failed in mqconsole_decode_payload: RuntimeError: bad "
                    "layout; its result is ignored"]
    assert host.problems == seen


def test_every_check_runs_and_the_first_refusal_is_returned(register_plugins) -> None:
    calls: list[str] = []

    def refuse(name):
        def check(operation, message, destination):
            calls.append(name)
            return f"{name} says no to {operation} on {destination}"
        return check

    host = register_plugins(_plugin("one", mqconsole_check_put=refuse("one")),
                            _plugin("two", mqconsole_check_put=refuse("two")))
    assert host.has_checks
    refusal = host.check_put("move", _message(), "APP.Q")
    assert sorted(calls) == ["one", "two"]
    assert refusal is not None and refusal.startswith("refused by plugin ")
    assert "says no to move on APP.Q" in refusal


def test_a_raising_check_refuses_naming_the_plugin(register_plugins) -> None:
    def boom(operation, message, destination):
        raise ValueError("cannot tell")

    host = register_plugins(_plugin("strict", mqconsole_check_put=boom))
    refusal = host.check_put("resubmit", _message(), "APP.Q")
    assert refusal == ("plugin strict's check failed (ValueError: cannot tell), so the put "
                       "is refused")


def test_a_check_may_take_fewer_arguments(register_plugins) -> None:
    host = register_plugins(_plugin("d", mqconsole_check_put=lambda destination:
                                    "no" if destination == "PROD.Q" else None))
    assert host.check_put("move", _message(), "TEST.Q") is None
    assert host.check_put("move", _message(), "PROD.Q") == "refused by plugin d: no"


def test_no_checks_means_the_fast_path() -> None:
    assert not PluginHost().has_checks
    assert PluginHost().check_put("move", _message(), "Q") is None


def test_actions_are_collected_once_and_bad_ones_reported(register_plugins) -> None:
    calls = []

    def run(context, messages):
        return ActionSummary(done=len(messages), sentence="ok")

    def actions():
        calls.append(1)
        return [Action("ticket", "Open a ticket", "selection", False, run),
                Action("bad", "Bad scope", "everything", False, run),  # type: ignore[arg-type]
                "not an action"]

    dup = _plugin("dup", mqconsole_actions=lambda: [Action("ticket", "Other", "queue", True,
                                                           run)])
    host = register_plugins(_plugin("tickets", mqconsole_actions=actions), dup)
    ids = [(a.plugin, a.id) for a in host.actions()]
    host.actions()
    assert len(calls) == 1
    assert len(ids) == 1 and ids[0][1] == "ticket"
    assert host.action("ticket") is not None and host.action("nope") is None
    assert any("same" in p or "id of one" in p for p in host.problems)
    assert any("not an Action" in p for p in host.problems)


def test_audit_columns_are_named_after_their_plugin(register_plugins) -> None:
    host = register_plugins(_plugin("site", mqconsole_audit_columns=lambda: [
             AuditColumn("region", "string", lambda m: "EU")]))
    [col] = host.audit_columns()
    assert col.full_name == "site_region"
    assert col.column.compute(_message()) == "EU"


def test_failure_rules_raising_count_as_no_failure_and_are_reported(register_plugins) -> None:
    def rules():
        return {"always": lambda facts: True,
                "broken": lambda facts: 1 / 0}

    host = register_plugins(_plugin("r", mqconsole_failure_rules=rules))
    got = host.failure_rules()
    assert got["always"]({}) is True
    assert got["broken"]({}) is False
    assert any("failure rule broken" in p for p in host.problems)


def test_operation_done_reaches_every_plugin_even_after_one_raises(register_plugins) -> None:
    seen = []

    def boom(summary):
        raise RuntimeError("mail server down")

    host = register_plugins(_plugin("mail", mqconsole_operation_done=boom),
                            _plugin("log", mqconsole_operation_done=lambda summary:
                                    seen.append(summary)))
    host.operation_done("the summary")
    assert seen == ["the summary"]
    assert host.problems and "mail server down" in host.problems[0]


def test_unmarked_and_misspelt_hooks_are_refused_not_ignored(register_plugins) -> None:
    unmarked = types.SimpleNamespace(__name__="unmarked",
                                     mqconsole_check_put=lambda destination: "no")
    host = register_plugins(unmarked)
    assert host.check_put("move", _message(), "Q") == "refused by plugin unmarked: no"
    typo = types.SimpleNamespace(__name__="typo", mqconsole_chek_put=lambda destination: None)
    with pytest.raises(ValueError, match="unknown hook mqconsole_chek_put"):
        register_plugins(typo)


def test_wrong_arguments_are_refused_at_registration() -> None:
    host = PluginHost()
    bad = _plugin("bad", mqconsole_check_put=lambda operation, message, destination, extra:
                  None)
    assert host.register(bad, "bad") is False
    [info] = host.infos()
    assert info.status.startswith("error: bad could not be registered")
    assert host.problems


def test_unregister_removes_the_plugin(register_plugins) -> None:
    p = _plugin("p", mqconsole_check_put=lambda destination: "no")
    host = register_plugins(p)
    host.unregister("p")
    assert not host.has_checks and host.infos() == []


def test_plugin_settings_answers_the_running_plugins_own_settings(register_plugins) -> None:
    from mqconsole.plugins import plugin_settings

    def check(destination):
        days = plugin_settings().get("days")
        return f"{days} days" if days else None

    def rule_factory():
        return {"uses-settings": lambda facts: plugin_settings()["fail"]}

    host = register_plugins(_plugin("old", mqconsole_check_put=check),
                            _plugin("other", mqconsole_check_put=check,
                                    mqconsole_failure_rules=rule_factory),
                            settings={"old": {"days": 3}, "other": {"fail": True}})
    assert host.check_put("move", _message(), "Q") == "refused by plugin old: 3 days"
    assert host.failure_rules()["uses-settings"]({}) is True
    with pytest.raises(LookupError, match="only known while mqconsole runs"):
        plugin_settings()


def test_failure_rules_offered_twice_or_not_callable_are_reported_and_left_out(
        register_plugins) -> None:
    host = register_plugins(_plugin("a", mqconsole_failure_rules=lambda: {"slow": lambda f: True}),
                            _plugin("b", mqconsole_failure_rules=lambda: {"slow": lambda f: False,
                                                                          "odd": 42}),
                            _plugin("c", mqconsole_failure_rules=lambda: ["not", "a mapping"]))
    rules = host.failure_rules()
    assert set(rules) == {"slow"}
    assert rules["slow"]({}) in (True, False)
    assert sum("has the name of one from" in p for p in host.problems) == 1
    assert any("failure rule odd is not callable" in p for p in host.problems)
    assert any("plugin c's mqconsole_failure_rules returned list" in p for p in host.problems)


def _vandalise(message, payload=None):
    message.md.msg_id = b"V" * 24
    message.md.priority = 0
    message.body = b"changed"
    message.md = MQMD(msg_id=b"W" * 24)


def test_a_check_or_decoder_changing_its_message_changes_only_its_copy(register_plugins
                                                                       ) -> None:
    """Issue 28 item 2: each plugin gets a message of its own; the caller's is untouched
    (what is put is what was planned) and the next plugin sees the original."""
    seen: list[tuple[bytes, bytes]] = []

    def vandal_check(operation, message, destination):
        _vandalise(message)
        return None

    def look(operation, message, destination):
        seen.append((message.md.msg_id, message.body))
        return None

    def vandal_decoder(message, payload):
        _vandalise(message)
        return Decoded("Vandal", "x")

    host = register_plugins(_plugin("a", mqconsole_check_put=vandal_check,
                                    mqconsole_decode_payload=vandal_decoder),
                            _plugin("b", mqconsole_check_put=look))
    message = Message(MQMD(msg_id=b"M" * 24, priority=4), b"original")
    assert host.check_put("move", message, "Q") is None
    assert host.decode(message, message.body)[0].title == "Vandal"
    assert (message.md.msg_id, message.md.priority, message.body) == (b"M" * 24, 4,
                                                                      b"original")
    assert seen == [(b"M" * 24, b"original")]


class _Stop(KeyboardInterrupt):
    """The operator's stop, as a face's signal handler raises it."""

    mqconsole_stop = True


def test_sys_exit_and_keyboard_interrupt_from_a_plugin_are_its_failure(register_plugins
                                                                       ) -> None:
    """Issue 28 item 6: a plugin's BaseException is its failure, named; the host goes on."""
    def leave(*_args):
        raise SystemExit(4)

    def interrupt(*_args):
        raise KeyboardInterrupt

    host = register_plugins(
        _plugin("leaver", mqconsole_check_put=lambda operation, message, destination:
                leave(), mqconsole_operation_done=lambda summary: leave(),
                mqconsole_failure_rules=lambda: {"bye": leave}),
        _plugin("breaker", mqconsole_decode_payload=lambda message, payload: interrupt()))
    assert host.check_put("move", _message(), "Q") == (
        "plugin leaver's check failed (it called sys.exit(4)), so the put is refused")
    assert host.decode(_message(), b"x") == []
    host.operation_done(object())
    assert host.failure_rules()["bye"]({}) is False
    assert host.problems == [
        "plugin breaker failed in mqconsole_decode_payload: KeyboardInterrupt; its result "
        "is ignored",
        "plugin leaver failed in mqconsole_operation_done: it called sys.exit(4); its "
        "result is ignored",
        "plugin leaver failed in failure rule bye: it called sys.exit(4); its result is "
        "ignored"]


def test_the_operators_stop_passes_through_a_plugin_saying_where(register_plugins) -> None:
    from mqconsole.plugins.host import plugin_running

    running: list[str | None] = []

    def stopped(operation, message, destination):
        running.append(plugin_running())
        raise _Stop

    host = register_plugins(_plugin("slow", mqconsole_check_put=stopped))
    with pytest.raises(_Stop) as stop:
        host.check_put("move", _message(), "Q")
    assert stop.value.plugin_running == "plugin slow's mqconsole_check_put"  # type: ignore[attr-defined]
    assert running == ["plugin slow's mqconsole_check_put"] and plugin_running() is None
    assert host.problems == []


def test_what_a_plugin_prints_goes_aside(register_plugins, capsys) -> None:
    """Issue 28 item 7: with ``stdout_aside`` set (the CLI: stderr), a hook's print does
    not reach stdout."""
    host = register_plugins(_plugin("chatty", mqconsole_operation_done=lambda summary:
                                    print("chatty was here")))
    host.operation_done(object())
    assert capsys.readouterr().out == "chatty was here\n"  # (not set: stdout, as before)
    import sys

    host.stdout_aside = sys.stderr
    host.operation_done(object())
    out, err = capsys.readouterr()
    assert (out, err) == ("", "chatty was here\n")


def test_decoders_in_the_background_leave_one_that_never_returns(register_plugins) -> None:
    """Issue 28 item 8: each decoder is given its time; one that does not answer is named
    (and reported once), the others' results come, and it is left in a daemon thread."""
    import threading

    release = threading.Event()
    answered = threading.Event()
    got: list = []

    def hang(message, payload):
        release.wait()
        return Decoded("Late", "x")

    host = register_plugins(_plugin("hang", mqconsole_decode_payload=hang),
                            _plugin("quick", mqconsole_decode_payload=lambda message, payload:
                                    Decoded("Quick", "y")))
    assert sorted(host.decoder_names()) == ["hang", "quick"]

    def done(results, timed_out):
        got.append(([r.plugin for r in results], timed_out))
        answered.set()

    try:
        host.decode_in_background(_message(), b"x", limit=0.2, done=done)
        assert answered.wait(120)
        assert got == [(["quick"], ["hang"])]
        assert host.problems == ["plugin hang's decoder did not answer within 0.2 s; its "
                                 "result is not shown"]
        hung = [t for t in threading.enumerate() if t.name == "mqconsole decoder hang"]
        assert hung and all(t.daemon for t in hung)
    finally:
        release.set()


@pytest.mark.subprocess
def test_a_process_ends_without_waiting_for_a_decoder_that_never_returns(tmp_path) -> None:
    """The process's exit does not wait for a hung decoder (the console's q)."""
    import subprocess
    import sys

    script = tmp_path / "hang.py"
    script.write_text('''
import threading, time
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.plugins import hookimpl
from mqconsole.plugins.testing import plugin_host

class Spin:
    @hookimpl
    def mqconsole_decode_payload(self, message, payload):
        while True:
            time.sleep(0.01)

answered = threading.Event()
host = plugin_host(Spin())
host.decode_in_background(Message(MQMD(), b"x"), b"x", limit=0.1,
                          done=lambda results, late: answered.set())
answered.wait()
print("leaving")
''')
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       timeout=120)
    assert (r.returncode, r.stdout) == (0, "leaving\n"), r.stderr
