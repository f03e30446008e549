"""The portability rules between pymqi and ibmmq (real-mq.md), each with a test that fails
when the backend breaks the rule. Tests marked by ``library`` run on ibmmq and, when its
sdist is at hand, on pymqi's real Python code as well.
"""

from __future__ import annotations

import ast
import threading
from pathlib import Path

import pytest

import mqconsole.backends.mqi as mqi_pkg
from mqconsole.backends.base import Context
from mqconsole.backends.mqi import _structs, shim
from mqconsole.backends.mqi import messages as messages_mod
from mqconsole.mq.errors import MQError
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.queue import QueueType

SOURCES = sorted(Path(mqi_pkg.__file__).parent.glob("*.py"))


def msg(body: bytes | str, **md: object) -> Message:
    data = body.encode() if isinstance(body, str) else body
    fields: dict[str, object] = {"format": "MQSTR", **md}
    return Message(MQMD(**fields), data)  # type: ignore[arg-type]


def put_bodies(qm, queue: str, *bodies: str) -> None:
    for b in bodies:
        qm.put(queue, msg(b), context=Context.NEW, syncpoint=False)


# -- rule 1: bytes for every MQCHAR field, queue name and body ----------------------------------

class _StrictBytes:
    """Mixed into the library's structures: a ``str`` in a character field is refused, as
    pymqi refuses it (ibmmq would quietly encode it)."""

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, str) and not name.startswith("_"):
            raise TypeError(f"{type(self).__name__}.{name} was given str {value!r}: bytes "
                            "are needed (pymqi rejects str)")
        super().__setattr__(name, value)

    def set(self, **kw: object) -> None:  # what the constructor's keywords go through
        for name, value in kw.items():
            if isinstance(value, str):
                raise TypeError(f"{type(self).__name__}({name}=...) was given str {value!r}: "
                                "bytes are needed (pymqi rejects str)")
        super().set(**kw)  # type: ignore[misc]


def _library_with(lib: shim.MQLibrary, **overrides: object) -> shim.MQLibrary:
    """``lib`` with some of its module's names replaced (the real module is untouched)."""
    import types

    mod = types.SimpleNamespace(**{k: getattr(lib.module, k) for k in dir(lib.module)
                                   if not k.startswith("__")})
    for k, v in overrides.items():
        setattr(mod, k, v)
    return shim.MQLibrary(lib.name, mod, lib.CMQC, lib.CMQCFC, lib.CMQXC,  # type: ignore
                          lib.MQMIError, lib.PYIFError, lib.version)


def _strict_library(lib: shim.MQLibrary) -> shim.MQLibrary:
    lib = _library_with(lib)
    mod = lib.module
    for name in ("MD", "OD", "GMO", "PMO", "CD", "SCO", "CNO"):
        base = getattr(lib.module, name)
        setattr(mod, name, type(name, (_StrictBytes, base), {}))
    for name in ("CFST", "CFSL"):  # PCF strings: bytes only (pymqi rejects str)
        base = getattr(lib.module, name)

        def strict(*args, _base=base, **kw):
            v = kw.get("String", kw.get("Strings", []))
            values = v if isinstance(v, list) else [v]
            assert not any(isinstance(x, str) for x in values), \
                f"PCF parameter {kw.get('Parameter')} given str: {v!r}"
            return _base(*args, **kw)

        setattr(mod, name, strict)
    return lib


def test_rule1_bytes_everywhere(make_qmgr, ibmmq_lib) -> None:
    qmgr = make_qmgr(lib=_strict_library(ibmmq_lib))
    qm = qmgr.connect(cipher_spec="TLS_AES_128_GCM_SHA256", key_repository="/k/key",
                      certificate_label="mqconsole")
    q = qmgr.queue()
    qm.change_queue(q, description="strict")
    qm.put(q, msg("x", reply_to_q="R"), context=Context.SET_ALL, syncpoint=False)
    with qm.browse(q, for_get=True) as cur:
        assert cur.next().body == b"x"
        cur.get_current(syncpoint=False)
    assert [x.name for x in qm.list_queues(q)] == [q]
    assert qm.queue_status(q).depth == 0


def test_rule1_strict_library_catches_str(make_qmgr, ibmmq_lib) -> None:
    """The check above would notice a str: here is one."""
    lib = _strict_library(ibmmq_lib)
    with pytest.raises(TypeError, match="bytes are needed"):
        lib.module.OD(ObjectName="Q")


# -- rule 2: never rely on StrucId/Reserved names ----------------------------------------------

def test_rule2_no_strucid_or_reserved_names() -> None:
    for path in SOURCES:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Attribute):
                names.append(node.attr)
            elif isinstance(node, ast.keyword) and node.arg:
                names.append(node.arg)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.append(node.value)
            for n in names:
                assert not n.lstrip("_").startswith(("StrucId", "Reserved")), \
                    f"{path.name}:{node.lineno} uses {n!r} (ibmmq renamed it _{n.lstrip('_')})"


# -- rule 3: MQCHT_*, MQXPT_*, MQCD_VERSION_* come from CMQXC ------------------------------------

def test_rule3_channel_constants_from_cmqxc(qmgr, engine) -> None:
    lib = qmgr.lib
    if lib.name == "ibmmq":
        for name in ("MQCHT_CLNTCONN", "MQXPT_TCP", "MQCD_VERSION_7"):
            assert not hasattr(lib.CMQC, name), f"ibmmq's CMQC has {name} after all"
    qmgr.connect(cipher_spec="TLS_AES_256_GCM_SHA384", key_repository="/var/mqm/key")
    cd = engine.calls_named("MQCONNX")[-1].info["cd"]
    assert (cd["ChannelType"], cd["TransportType"]) == (lib.CMQXC.MQCHT_CLNTCONN,
                                                        lib.CMQXC.MQXPT_TCP) == (6, 2)
    assert cd["Version"] >= lib.CMQXC.MQCD_VERSION_7
    assert cd["SSLCipherSpec"] == "TLS_AES_256_GCM_SHA384"
    for path in SOURCES:
        text = path.read_text()
        for name in ("MQCHT_", "MQXPT_", "MQCD_VERSION_"):
            assert f"CMQC.{name}" not in text and f"C.{name}" not in text, (path.name, name)


# -- rule 4: GMO version 2 whenever MatchOptions are used ----------------------------------------

def test_rule4_every_get_uses_gmo_version_2(qmgr, qm, engine) -> None:
    q = qmgr.queue()
    put_bodies(qm, q, "a", "b", "c")
    same = qm.put(q, msg("d"), syncpoint=False).md.msg_id
    engine.clear_calls()
    with qm.browse(q, for_get=True) as cur:
        cur.next_batch(2)
        cur.get_current(syncpoint=False)
    qm.get(q, syncpoint=False)
    qm.get_by_msgid(q, same, syncpoint=False)
    gets = engine.calls_named("MQGET")
    assert len(gets) >= 5
    for call in gets:
        assert call.info["gmo_version"] >= 2, call.info
    for call in gets:  # and an MD of version 2: pymqi's default version 1 would get an
        assert call.info["md_version"] >= 2, call.info  # MQMDE in front of some bodies
    matches = [c.info["match"] for c in gets]
    C = qmgr.lib.CMQC
    assert C.MQMO_MATCH_MSG_ID in matches and C.MQMO_NONE in matches


def test_rule4_version_1_ignores_match_options(qmgr, qm, engine, monkeypatch) -> None:
    """Why the rule matters: a GMO of version 1 matches on the MD's MsgId and CorrelId
    whatever MatchOptions say (pymqi's default), so a reused MD narrows a browse to one
    message. With version 2 and MQMO_NONE the same reused MD browses everything."""
    q = qmgr.queue()
    put_bodies(qm, q, "a", "b", "c")
    reused = _structs.blank_md(qm.lib)
    monkeypatch.setattr(messages_mod, "blank_md", lambda lib, **kw: reused)
    with qm.browse(q) as cur:
        assert [m.body for m in cur.next_batch(10)] == [b"a", b"b", b"c"]
    reused = _structs.blank_md(qm.lib)  # a new one: the old one holds c's MsgId now
    real_gmo = _structs.gmo

    def version_1(lib, options, match):
        g = real_gmo(lib, options, match)
        g.Version = lib.CMQC.MQGMO_VERSION_1
        return g

    monkeypatch.setattr(messages_mod, "gmo", version_1)
    with qm.browse(q) as cur:
        assert [m.body for m in cur.next_batch(10)] == [b"a"]  # narrowed to a's MsgId


# -- rule 5: PCF replies are got with MQGMO_CONVERT (issue 22 item 3: mqconsole's own requests) --

def test_rule5_pcf_replies_are_got_with_convert(qmgr, qm, engine) -> None:
    q = qmgr.queue()
    engine.clear_calls()
    assert qm.inquire_queue(q).name == q
    gets = [c for c in engine.calls_named("MQGET") if c.info.get("queue", "").startswith(
        "MQCONSOLE.")]
    assert gets and all(c.info["options"] & qm.lib.CMQC.MQGMO_CONVERT for c in gets)


def test_rule5_big_endian_queue_manager_needs_convert(make_qmgr, library, monkeypatch) -> None:
    qmgr = make_qmgr("QMAIX", encoding=273)
    qm = qmgr.connect()
    q = qmgr.queue(description="on AIX")
    got = qm.inquire_queue(q)
    assert (got.name, got.description, got.max_depth) == (q, "on AIX", 5000)
    assert {x.name for x in qm.list_queues("T.*")} >= {q}
    # without MQGMO_CONVERT the replies arrive big-endian and make no sense
    monkeypatch.setattr(library.CMQC, "MQGMO_CONVERT", 0)
    other = qmgr.connect()
    with pytest.raises(Exception):  # noqa: B017 - garbage parses as anything
        assert other.inquire_queue(q).name == q


# -- rule 6: strip PCF strings; skip replies without MQCA_Q_NAME ---------------------------------

def test_rule6_pcf_strings_are_padded_and_stripped(qmgr, qm) -> None:
    q = qmgr.queue("PAD", description="short", boqname="BO.Q")
    raw = qm._pcf().raw_command("MQCMD_INQUIRE_Q", {
        qm.lib.CMQC.MQCA_Q_NAME: q.encode(), qm.lib.CMQCFC.MQIACF_Q_ATTRS:
            [qm.lib.CMQC.MQCA_Q_DESC]})
    padded = raw[0].params[qm.lib.CMQC.MQCA_Q_NAME]
    assert padded != q.encode() and padded.rstrip() == q.encode()  # MQ pads: the rule bites
    got = qm.inquire_queue(q)
    assert (got.name, got.description, got.boqname) == (q, "short", "BO.Q")
    assert [x.name for x in qm.list_queues(q)] == [q]


def test_rule6_zos_extra_replies_are_skipped(make_qmgr) -> None:
    qmgr = make_qmgr("QMZ", zos_replies=True)
    qm = qmgr.connect()
    a, b = qmgr.queue("A"), qmgr.queue("B")
    prefix = a.rsplit(".", 1)[0]
    assert [x.name for x in qm.list_queues(prefix + ".*")] == sorted([a, b])
    assert qm.inquire_queue(a).name == a
    raw = qm._pcf().command("MQCMD_INQUIRE_Q", {qm.lib.CMQC.MQCA_Q_NAME: a.encode()})
    assert any(qm.lib.CMQC.MQCA_Q_NAME not in r.params for r in raw)  # they do come


# -- rule 7: DLH and RFH2 are parsed by mqconsole, from bytes left untouched --------------------

def test_rule7_headers_travel_as_bytes(qmgr, qm) -> None:
    from mqconsole.mq.chain import parse_body
    from mqconsole.mq.dlh import MQDLH
    from mqconsole.mq.rfh2 import MQRFH2

    q = qmgr.queue()
    rfh = MQRFH2(encoding=273, ccsid=1208, format="MQSTR",
                 folders=["<usr><a>1</a></usr>", "<usr><b>2</b></usr>", "<other>x</other>"])
    dlh = MQDLH(reason=2053, dest_q_name="APP.IN", dest_qmgr_name="QMB", encoding=273,
                ccsid=500, format="MQHRF2")
    body = dlh.pack(big_endian=True, ccsid=500) + rfh.pack(big_endian=True, ccsid=500) + \
        "payload".encode("cp500")
    qm.put(q, msg(body, format="MQDEAD", encoding=273, ccsid=500), syncpoint=False)
    with qm.browse(q) as cur:
        got = cur.next()
    assert got.body == body
    parsed = parse_body(got.md, got.body)
    assert parsed.dlh.dest_q_name.strip() == "APP.IN"
    assert [f for f in parsed.rfh2s[0].folder_names()] == ["usr", "usr", "other"]
    assert parsed.payload == "payload".encode("cp500")
    for path in SOURCES:
        tree = ast.parse(path.read_text())
        used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        assert not used & {"DLH", "RFH2", "get_rfh2", "put_rfh2"}, path.name


# -- rule 8: MQCNO_HANDLE_SHARE_BLOCK ------------------------------------------------------------

def test_rule8_handle_share_block(qmgr, qm, engine) -> None:
    C = qmgr.lib.CMQC
    options = engine.calls_named("MQCONNX")[-1].info["options"]
    assert options & C.MQCNO_HANDLE_SHARE_BLOCK
    q = qmgr.queue()
    errors: list[BaseException] = []

    def other_thread() -> None:
        try:
            qm.put(q, msg("from a worker"), syncpoint=False)
        except BaseException as exc:  # pragma: no cover - the failure is asserted below
            errors.append(exc)

    t = threading.Thread(target=other_thread)
    t.start()
    t.join()
    assert not errors
    assert qm.get(q, syncpoint=False).body == b"from a worker"


def test_rule8_without_share_option_a_worker_thread_is_refused(make_qmgr, library,
                                                               monkeypatch) -> None:
    """What the rule prevents: pymqi passes only the options it is given, and a connection
    without a MQCNO_HANDLE_SHARE_* option belongs to the thread that made it. (ibmmq adds
    MQCNO_HANDLE_SHARE_BLOCK itself; pymqi does not.)"""
    qmgr = make_qmgr()

    class NoShare:
        def __getattr__(self, name):
            if name == "MQCNO_HANDLE_SHARE_BLOCK":
                return 0
            return getattr(library.CMQC, name)

    patched = shim.MQLibrary(library.name, library.module, NoShare(),  # type: ignore
                             library.CMQCFC, library.CMQXC, library.MQMIError,
                             library.PYIFError, library.version)
    qm = qmgr.connect()
    qm.lib = patched
    bare = qm.new_connection()  # made with the patched constants
    qmgr.opened.append(bare)
    q = qmgr.queue()
    failures: list[MQError] = []

    def worker() -> None:
        try:
            bare.put(q, msg("x"), syncpoint=False)
        except MQError as exc:
            failures.append(exc)

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    if library.name == "pymqi":
        assert [f.reason for f in failures] == [2018]
    else:
        assert failures == []  # ibmmq added the option


# -- rule 9: browsing on its own connection ------------------------------------------------------

def test_rule9_new_connection_is_another_mqconnx(qmgr, qm, engine) -> None:
    q = qmgr.queue()
    put_bodies(qm, q, "a", "b")
    before = len(engine.calls_named("MQCONNX"))
    browser = qm.new_connection()
    qmgr.opened.append(browser)
    assert len(engine.calls_named("MQCONNX")) == before + 1
    hconns = {c.info["hconn"] for c in engine.calls_named("MQCONNX")}
    assert len(hconns) == len(engine.calls_named("MQCONNX"))
    assert qm.get(q).body == b"a"  # a unit of work on the first connection ...
    with browser.browse(q) as cur:  # ... does not hold up the browsing one
        assert [m.body for m in cur.next_batch(5)] == [b"b"]
    qm.backout()


# -- 2080: the buffer grows to the message's length ----------------------------------------------

def test_2080_grows_the_buffer_and_repeats_the_same_call(qmgr, engine) -> None:
    qm = qmgr.connect(buffer_size=16)
    q = qmgr.queue()
    bodies = [b"s1", bytes(range(256)) * 4, b"s2", b"x" * 5000]
    for b in bodies:
        qm.put(q, msg(b), context=Context.NEW, syncpoint=False)
    engine.clear_calls()
    with qm.browse(q, for_get=True) as cur:
        seen = [m.body for m in cur.next_batch(10)]
    assert seen == bodies  # nothing skipped: a 2080 left the cursor where it was
    rcs = [c.info.get("rc") for c in engine.calls_named("MQGET")]
    assert 2080 in rcs
    with qm.browse(q, for_get=True) as cur:
        cur.next()
        assert cur.next().body == bodies[1]
        assert cur.get_current(syncpoint=False).body == bodies[1]
    assert qm.get(q, syncpoint=False).body == b"s1"
    mid = qm.put(q, msg(b"y" * 70_000), syncpoint=False).md.msg_id
    assert qm.get_by_msgid(q, mid, syncpoint=False).body == b"y" * 70_000
    assert qm.inquire_queue(q).depth == 2


def test_2080_without_growth_fails(qmgr, monkeypatch) -> None:
    qm = qmgr.connect(buffer_size=16)
    q = qmgr.queue()
    qm.put(q, msg(b"z" * 100), syncpoint=False)
    real = qm._get

    def no_growth(handle, options, match, **kw):
        g = _structs.gmo(qm.lib, options, match)
        md = _structs.blank_md(qm.lib)
        return _structs.message_from_lib(md, handle.get(16, md, g))

    monkeypatch.setattr(qm, "_get", no_growth)
    with pytest.raises(MQError) as info:
        qm.get(q, syncpoint=False)
    assert info.value.reason == 2080
    monkeypatch.setattr(qm, "_get", real)
    assert qm.get(q, syncpoint=False).body == b"z" * 100  # the 2080 took nothing


# -- properties: MQGMO_PROPERTIES_FORCE_MQRFH2 ---------------------------------------------------

def _rfh2_message() -> tuple[bytes, Message]:
    from mqconsole.mq.rfh2 import MQRFH2

    rfh = MQRFH2(encoding=546, ccsid=1208, format="MQSTR", folders=["<app><k>v</k></app>"])
    body = rfh.pack(big_endian=False, ccsid=1208) + b"data"
    return body, msg(body, format="MQHRF2", ccsid=1208)


def test_properties_are_kept_in_the_body(qmgr, qm, engine) -> None:
    q = qmgr.queue()
    body, m = _rfh2_message()
    qm.put(q, m, syncpoint=False)
    with qm.browse(q) as cur:
        assert cur.next().body == body
    assert qm.get(q, syncpoint=False).body == body
    C = qmgr.lib.CMQC
    for call in engine.calls_named("MQGET"):
        if call.info.get("queue") == q:
            assert call.info["options"] & C.MQGMO_PROPERTIES_FORCE_MQRFH2


def test_without_force_mqrfh2_properties_are_lost(qmgr, qm, monkeypatch) -> None:
    q = qmgr.queue()
    body, m = _rfh2_message()
    qm.put(q, m, syncpoint=False)
    assert qmgr.admin().get(q, syncpoint=False).body == body  # stored whole
    qm.put(q, m, syncpoint=False)
    real_gmo = _structs.gmo

    def no_force(lib, options, match):
        g = real_gmo(lib, options, match)
        g.Options &= ~lib.CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2
        return g

    monkeypatch.setattr(messages_mod, "gmo", no_force)
    got = qm.get(q, syncpoint=False)
    assert got.body == b"data" and got.md.format == "MQSTR   "  # the <app> folder is gone


# -- rule 6 again: one damaged queue does not abort a listing ------------------------------------

def test_damaged_queue_is_left_out_of_the_listing(make_qmgr) -> None:
    qmgr = make_qmgr("QMD")
    a, b, c = qmgr.queue("A"), qmgr.queue("B"), qmgr.queue("C")
    qmgr.qdef.damaged.add(b)
    qm = qmgr.connect()
    prefix = a.rsplit(".", 1)[0]
    assert [x.name for x in qm.list_queues(prefix + ".*")] == sorted([a, c])
    assert qm.last_listing_failures == {b: 2101}
    with pytest.raises(MQError) as info:
        qm.inquire_queue(b)
    assert info.value.reason == 2101


def test_pymqi_style_listing_falls_back_per_queue(make_qmgr, ibmmq_lib, monkeypatch) -> None:
    """The path pymqi takes (it stops at the first error reply), forced on ibmmq."""
    qmgr = make_qmgr("QMF", lib=ibmmq_lib)
    a, b, c = qmgr.queue("A"), qmgr.queue("B"), qmgr.queue("C")
    qmgr.qdef.damaged.add(a)
    monkeypatch.setattr(shim.MQLibrary, "pcf_collects_errors", property(lambda self: False))
    qm = qmgr.connect()
    prefix = a.rsplit(".", 1)[0]
    assert [x.name for x in qm.list_queues(prefix + ".*")] == sorted([b, c])
    assert qm.last_listing_failures == {a: 2101}


def test_non_local_queues_have_no_depth(qmgr, qm) -> None:
    local = qmgr.queue()
    from mqconsole.mq.queue import QueueAttrs

    qmgr.admin().define_queue(QueueAttrs(name=local + ".AL", type=QueueType.ALIAS,
                                         target_q=local))
    got = {x.name: x for x in qm.list_queues(local + "*")}
    assert got[local].depth == 0 and got[local + ".AL"].depth is None
