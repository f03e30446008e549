"""``mqconsole replay`` and ``mqconsole doctor``, as real invocations."""

from __future__ import annotations

import shlex
from pathlib import Path

from .conftest import run_cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def test_replay_scenario_json_needs_no_queue_manager(tmp_path):
    r = run_cli("replay", str(EXAMPLES / "scenarios" / "shared-counter.yaml"), "--json",
                home=tmp_path)
    assert r.code == 0, r.err
    doc = r.json
    assert set(doc) == {"events", "final", "summary"}
    assert doc["events"][0] == {"seq": 1, "t_ms": 0, "type": "deliver", "message": "p1",
                                "endpoint": "InMDB", "session": 1, "queue": "APP.IN",
                                "backout_count": 0}
    assert doc["final"]["endpoints"] == {"InMDB": {"state": "stopped", "rollback_counter": 2}}
    assert doc["summary"]["stopped_by"] == "all_endpoints_stopped"


def test_replay_text_is_a_timeline_and_a_summary(tmp_path):
    r = run_cli("replay", str(EXAMPLES / "scenarios" / "backout-queue-unusable.yaml"),
                home=tmp_path)
    assert r.code == 0, r.err
    assert "dead_lettered" in r.out and "MQRC_PUT_INHIBITED (2051)" in r.out
    assert "Summary: 1 deliveries" in r.out and "DLQ: poison(0)" in r.out


def test_replay_limits_can_be_overridden(tmp_path):
    r = run_cli("replay", str(EXAMPLES / "scenarios" / "sib-blocked-retry.yaml"), "--json",
                "--max-events", "3", home=tmp_path)
    assert r.code == 0, r.err
    assert len(r.json["events"]) <= 3 and r.json["summary"]["stopped_by"] == "limits"
    assert r.json["final"]["in_flight"]


def test_scenario_errors_exit_2_with_field_and_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("queues:\n  - name: Q\nendpoints:\n  - name: E\n    queue: Q\n"
                   "    provider: mq_activation_spec\n    max_server_session: 3\n")
    r = run_cli("replay", str(bad), "--json", home=tmp_path)
    assert r.code == 2
    assert r.json == {"error": r.err.strip().removeprefix("mqconsole: "), "exit": 2}  # no result
    assert f"{bad} line 7: endpoints[0].max_server_session: unknown field" in r.err
    assert "did you mean max_server_sessions?" in r.err
    bad.write_text("queues: [{name: Q}]\nmessages:\n  - {id: m1, queue: R}\n")
    code, out, err = in_process("replay", str(bad))
    assert code == 2 and out == ""
    assert "line 3: messages[0].queue: queue R is not defined" in err
    bad.write_text("queues: [{name: Q, bothresh: high}]\n")
    code, _, err = in_process("replay", str(bad))
    assert code == 2 and "line 1: queues[0].bothresh: must be a whole number" in err


def in_process(*args: str) -> tuple[int, str, str]:
    """Run the command in this interpreter (usage errors need no subprocess)."""
    import contextlib
    import io

    from mqconsole.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def test_replay_usage_errors(tmp_path):
    for args in ([], ["x.yaml", "--queue", "Q"], ["--queue", "Q"],
                 [str(EXAMPLES / "scenarios" / "sca-export.yaml"), "--fail", "first=1"]):
        code, _, err = in_process("replay", *args)
        assert code == 2, (args, err)
    code, _, err = in_process("replay", str(tmp_path / "missing.yaml"))
    assert code == 2 and "missing.yaml" in err


def test_replay_from_a_live_queue_changes_nothing(cli, demo):
    before = cli("browse", "APP.ORDERS", "--json").json
    r = cli("replay", "--queue", "APP.ORDERS", "--endpoints",
            str(EXAMPLES / "endpoints" / "demo.yaml"), "--fail", "position=1", "--json")
    assert r.code == 0, r.err
    doc = r.json
    head = before[0]["msgid"]
    assert [m["message"] for m in doc["final"]["queues"]["APP.ORDERS.BOQ"]] == [head]
    assert doc["summary"]["successes"] == 39
    assert cli("browse", "APP.ORDERS", "--json").json == before
    code, _, err = in_process("--embedded", str(demo), "replay", "--queue", "APP.ORDERS",
                              "--endpoints", str(EXAMPLES / "endpoints" / "demo.yaml"),
                              "--fail", "between=9")
    assert code == 2 and "FROM:TO" in err
    code, _, err = in_process("--embedded", str(demo), "replay", "--queue", "APP.AUDIT",
                              "--endpoints", str(EXAMPLES / "endpoints" / "demo.yaml"))
    assert code == 2 and "no endpoint" in err


def test_doctor_json_flags_the_demo_and_its_fixes_pass(cli):
    r = cli("doctor", "--json")
    assert r.code == 1, r.err  # APP.PAYMENTS is BAD: a script can stop on it
    entries = {e["queue"]: e for e in r.json}
    for e in entries.values():
        assert {"queue", "verdict", "finding", "fixes"} <= set(e)
        assert e["verdict"] in ("ok", "warn", "bad")
    assert entries["APP.PAYMENTS"]["verdict"] == "bad"
    assert entries["APP.INVOICES"]["verdict"] == "warn"
    assert entries["APP.SHIPPING"]["verdict"] == "warn"
    assert entries["APP.ORDERS"]["verdict"] == "ok"
    assert any(f.startswith("ALTER QLOCAL(APP.PAYMENTS) BOTHRESH(3)")
               for f in entries["APP.PAYMENTS"]["fixes"])
    named = ("APP.PAYMENTS", "APP.INVOICES", "APP.SHIPPING")
    lines = dict.fromkeys(f for q in named for f in entries[q]["fixes"]
                          if f.startswith("mqconsole "))
    assert any(line.startswith("mqconsole queue set ") for line in lines)
    for line in sorted(lines, key=lambda c: 0 if " define " in c else 1):
        args = shlex.split(line)[1:]
        # a queue set asks first, as every change does: a script says --yes
        done = cli(*args, *(["--yes"] if args[:2] == ["queue", "set"] else []))
        assert done.code == 0, (line, done.err)
    after = cli("doctor", "--json")
    again = {e["queue"]: e for e in after.json}
    assert after.code == (1 if any(e["verdict"] == "bad" for e in after.json) else 0)
    for q in named:
        assert again[q]["verdict"] == "ok", again[q]["finding"]
        assert again[q]["fixes"] == []
    assert again["APP.ORDERS"]["verdict"] == "ok"


def test_doctor_exits_0_when_nothing_is_bad(cli, tmp_path):
    """WARN alone exits 0; the exit follows the BAD verdicts, text or JSON."""
    eps = tmp_path / "eps.yaml"
    eps.write_text("endpoints:\n  - {name: OrdersMDB, queue: APP.ORDERS, "
                   "provider: mq_activation_spec, stop_endpoint_on_failure: false}\n")
    r = cli("doctor", "--endpoints", str(eps), "--json")
    assert r.code == 0, r.err
    assert [e["verdict"] for e in r.json] == ["ok"]
    r = cli("doctor", "--endpoints", str(eps))
    assert r.code == 0 and "0 bad" in r.err


def test_doctor_text_and_endpoints_errors(cli, tmp_path):
    r = cli("doctor", "--endpoints", str(EXAMPLES / "endpoints" / "demo.yaml"))
    assert r.code == 1, r.err  # a BAD queue
    assert "APP.PAYMENTS" in r.out and "BAD" in r.out
    assert "stops PaymentsMDB at every restart" in r.out
    assert "ok," in r.err and "bad" in r.err
    bad = tmp_path / "eps.yaml"
    bad.write_text("endpoints:\n  - name: E\n    queue: APP.ORDERS\n    provider: mdb\n")
    r = cli("doctor", "--endpoints", str(bad), "--json")
    assert r.code == 2 and r.json["exit"] == 2 and "provider" in r.json["error"]
    assert "line 4: endpoints[0].provider: must be one of" in r.err


RULES_PLUGIN = '''
from mqconsole.plugins import hookimpl

def not_json(facts):
    return not facts["payload"].startswith("{")

def broken(facts):
    raise KeyError("colour")

@hookimpl
def mqconsole_failure_rules():
    return {"not-json": not_json, "broken": broken}
'''

PLUGIN_SCENARIO = """queues: [{name: Q}]
messages: [{id: a, queue: Q, payload: "bad json"}, {id: b, queue: Q, payload: "{}"}]
endpoints: [{name: E, queue: Q, provider: mq_activation_spec,
             stop_endpoint_on_failure: false}]
failures:
  - plugin: RULE
    then: discard
"""


def _rules_config(tmp_path: Path) -> Path:
    import os

    folder = tmp_path / "site-plugins"
    folder.mkdir()
    os.chmod(folder, 0o755)
    (folder / "site_rules.py").write_text(RULES_PLUGIN)
    cfg = tmp_path / "config.yaml"
    cfg.write_text(f"plugins:\n  paths: [{folder}]\n")
    return cfg


def test_replay_uses_a_site_plugins_failure_rule(tmp_path):
    cfg = _rules_config(tmp_path)
    scenario = tmp_path / "s.yaml"
    scenario.write_text(PLUGIN_SCENARIO.replace("RULE", "not-json"))
    r = run_cli("--config", str(cfg), "replay", str(scenario), "--json", home=tmp_path)
    assert r.code == 0, r.err
    assert [m["message"] for m in r.json["final"]["lost"]] == ["a"]
    assert r.json["summary"]["successes"] == 1 and r.err == ""


def test_an_unknown_plugin_rule_is_one_sentence_with_file_and_line(tmp_path):
    cfg = _rules_config(tmp_path)
    scenario = tmp_path / "s.yaml"
    scenario.write_text(PLUGIN_SCENARIO.replace("RULE", "nope"))
    r = run_cli("--config", str(cfg), "replay", str(scenario), home=tmp_path)
    assert (r.code, r.out) == (2, "")
    assert r.err.strip() == (f"mqconsole: {scenario} line 6: failures[0].plugin: no "
                             "failure-rule plugin named 'nope' is loaded (loaded: broken, "
                             "not-json)")
    scenario.write_text(PLUGIN_SCENARIO.replace("RULE", "not-json"))
    r = run_cli("--config", str(cfg), "--no-plugins", "replay", str(scenario), home=tmp_path)
    assert r.code == 2 and "no plugin offering failure rules is loaded" in r.err
    assert f"{scenario} line 6" in r.err and len(r.err.strip().splitlines()) == 1


def test_a_raising_plugin_rule_is_reported_once_and_fails_nothing(tmp_path):
    cfg = _rules_config(tmp_path)
    scenario = tmp_path / "s.yaml"
    scenario.write_text(PLUGIN_SCENARIO.replace("RULE", "broken"))
    r = run_cli("--config", str(cfg), "replay", str(scenario), "--json", home=tmp_path)
    assert r.code == 0, r.err
    assert r.json["final"]["lost"] == [] and r.json["summary"]["successes"] == 2
    assert r.err.count("failure rule broken") == 1 and "Traceback" not in r.err


def test_replay_of_a_queue_with_a_plugin_fail_rule(tmp_path, demo):
    cfg = _rules_config(tmp_path)
    eps = tmp_path / "eps.yaml"
    eps.write_text("endpoints:\n  - {name: OrdersMDB, queue: APP.ORDERS, "
                   "provider: mq_activation_spec}\n")
    base = ("--config", str(cfg), "--embedded", str(demo), "replay", "--queue", "APP.ORDERS",
            "--endpoints", str(eps))
    r = run_cli(*base, "--fail", "plugin=not-json,first=1", "--json", home=tmp_path)
    assert r.code == 0, r.err
    r = run_cli(*base, "--fail", "plugin=nope", home=tmp_path)
    assert r.code == 2
    assert r.err.strip() == ("mqconsole: --fail 'plugin=nope': no failure-rule plugin named "
                             "'nope' is loaded (loaded: broken, not-json)")
