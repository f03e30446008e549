"""issue 22 item 8: FORMAT is matched against the format of the data after any RFH2 of
message properties, as runmqdlq sees it (it gets messages with properties as a message
handle; mqconsole gets them with MQGMO_PROPERTIES_FORCE_MQRFH2, so they travel unchanged,
and that puts the properties' RFH2 after the MQDLH, whose Format then says MQHRF2)."""

from __future__ import annotations

import pytest

from mqconsole.backends.base import Context
from mqconsole.mq.chain import add_dead_letter_header, data_format, dead_letter_header
from mqconsole.mq.md import MQMD
from mqconsole.mq.message import Message
from mqconsole.mq.rfh2 import MQRFH2
from tests.support.faulty import browse_all

from .test_handler import DLQ, qm, run  # noqa: F401  (qm: the fixture)


def with_properties(i: int, *, dest: str = "APP.IN", folders: list[str] | None = None,
                    data: str = "MQSTR") -> Message:
    """A dead-letter message as MQGMO_PROPERTIES_FORCE_MQRFH2 delivers one that had
    properties: MQDLH (Format MQHRF2), an RFH2 of the properties, then the data."""
    rfh = MQRFH2(encoding=546, ccsid=1208, format=data,
                 folders=folders or [f"<usr><order>{i}</order></usr>"])
    inner = MQMD(format="MQHRF2  ", encoding=546, ccsid=1208, priority=5)
    md, body = add_dead_letter_header(inner, rfh.pack(big_endian=False, ccsid=1208)
                                      + f"payload {i}".encode(), reason=2053,
                                      dest_q_name=dest, dest_qmgr_name="QM1")
    return Message(md, body)


@pytest.mark.parametrize(("folders", "want"), [
    (["<usr><a>1</a></usr>"], "MQSTR"),
    (["<mcd><Msd>jms_text</Msd></mcd>", "<jms><Dst>queue:///A</Dst></jms>"], "MQSTR"),
    (["<other content='properties'><x>1</x></other>"], "MQSTR"),
    (["<psc><Command>Publish</Command></psc>"], "MQHRF2"),  # the application's RFH2: data
])
def test_the_data_format_is_read_past_an_rfh2_of_properties(folders, want) -> None:
    m = with_properties(1, folders=folders)
    dlh = dead_letter_header(m.md, m.body)
    assert dlh is not None and dlh.format.strip() == "MQHRF2"
    assert data_format(m.md, m.body, dlh) == want


def test_a_format_rule_matches_a_message_with_properties(qm, tmp_path) -> None:  # noqa: F811
    """Before, FORMAT(MQSTR) missed every message whose properties came as an RFH2."""
    qm.put(DLQ, with_properties(1), context=Context.SET_ALL, syncpoint=False)
    qm.put(DLQ, with_properties(2, folders=["<psc><Command>Publish</Command></psc>"]),
           context=Context.SET_ALL, syncpoint=False)
    report = run(qm, "WAIT(NO)\nFORMAT(MQSTR) ACTION(FWD) FWDQ(CATCH) HEADER(YES)\n"
                 "ACTION(IGNORE)", tmp_path)
    assert [(m.rule, m.data_format, m.header_format) for m in report.messages] == [
        (1, "MQSTR", "MQHRF2"), (2, "MQHRF2", "MQHRF2")]
    assert report.messages[0].to_json()["format"] == "MQSTR"
    assert len(browse_all(qm, "CATCH")) == 1 and len(browse_all(qm, DLQ)) == 1
