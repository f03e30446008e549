"""Which rule of a table applies to a dead-letter message: IBM's first match with a retry
budget.

Rules are tried top-down; a rule applies when its pattern matches and the sum of the RETRY
values of the matching rules so far (itself included) exceeds the attempts already made
for the message. So when one rule's attempts are used up the next matching rule applies,
and when every matching rule's are used up (or none matches) the message is left alone.

String patterns: ``*`` any run of characters (also none), ``?`` any one character that is
not a trailing blank; trailing blanks (and NULs) of the field and the pattern are not
significant, leading and embedded ones are. Numeric patterns: the exact value.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from mqconsole.mq.chain import data_format
from mqconsole.mq.dlh import MQDLH, strip_pad
from mqconsole.mq.md import MQMD

from ..textsearch import Wildcard
from .rules import Rule, RulesTable

_TRAILING = " \x00"


@dataclass(frozen=True, slots=True)
class Subject:
    """The fields of a dead-letter message that rules' patterns are matched against
    (strings without their trailing padding)."""

    APPLIDAT: str = ""
    APPLNAME: str = ""
    APPLTYPE: int = 0
    DESTQ: str = ""
    DESTQM: str = ""
    FEEDBACK: int = 0
    FORMAT: str = ""
    MSGTYPE: int = 8
    PERSIST: int = 0
    REASON: int = 0
    REPLYQ: str = ""
    REPLYQM: str = ""
    USERID: str = ""

    @classmethod
    def of(cls, md: MQMD, dlh: MQDLH, body: bytes | None = None) -> Subject:
        """The message's fields; FORMAT is the format of the data after any RFH2 of message
        properties (``mq.chain.data_format``: as runmqdlq sees it, with properties as a
        message handle) when ``body`` is given, else the header's Format."""
        def s(text: str) -> str:
            return text.rstrip(_TRAILING)

        fmt = s(dlh.format) if body is None else data_format(md, body, dlh)
        return cls(APPLIDAT=s(md.appl_identity_data), APPLNAME=s(md.put_appl_name),
                   APPLTYPE=md.put_appl_type, DESTQ=s(dlh.dest_q_name),
                   DESTQM=s(dlh.dest_qmgr_name), FEEDBACK=md.feedback, FORMAT=fmt,
                   MSGTYPE=md.msg_type, PERSIST=md.persistence, REASON=dlh.reason,
                   REPLYQ=s(md.reply_to_q), REPLYQM=s(md.reply_to_qmgr),
                   USERID=s(md.user_identifier))


@lru_cache(maxsize=4096)
def _compiled(pattern: str) -> Wildcard:
    return Wildcard(pattern)


def string_matches(pattern: str, value: str) -> bool:
    """``pattern`` (wildcards ``*``, ``?``) against a field value, trailing blanks aside;
    matched by RE2, as every pattern an operator writes (``ops.textsearch``): linear in
    the value, whatever the stars."""
    return _compiled(pattern.rstrip(" ")).fullmatch(value.rstrip(_TRAILING))


def matches(rule: Rule, subject: Subject) -> bool:
    for keyword, number in rule.numbers.items():
        if getattr(subject, keyword) != number:
            return False
    for keyword, pattern in rule.strings.items():
        if not string_matches(pattern, getattr(subject, keyword)):
            return False
    return True


def applicable(table: RulesTable, subject: Subject, attempts: int) -> Rule | None:
    """The rule to use for a message tried ``attempts`` times; None: leave it (no rule
    matches, or every matching rule's attempts are used up)."""
    budget = 0
    for rule in table.rules:
        if matches(rule, subject):
            budget += rule.retry
            if budget > attempts:
                return rule
    return None


def first_match(table: RulesTable, subject: Subject) -> Rule | None:
    """The first rule whose pattern matches, whatever its budget (for a plan's display)."""
    return next((rule for rule in table.rules if matches(rule, subject)), None)


def resolve_target(rule: Rule, md: MQMD, dlh: MQDLH) -> tuple[str, str]:
    """Where a RETRY or FWD rule puts the message: (queue, queue manager; "" the local one).
    ``&DESTQ`` and friends become the header's and descriptor's names (possibly blank:
    the caller reports a blank queue as a failure)."""
    if rule.action == "RETRY":
        return strip_pad(dlh.dest_q_name), strip_pad(dlh.dest_qmgr_name)
    symbols = {"&DESTQ": dlh.dest_q_name, "&REPLYQ": md.reply_to_q,
               "&DESTQM": dlh.dest_qmgr_name, "&REPLYQM": md.reply_to_qmgr}
    q = symbols.get(rule.fwd_q, rule.fwd_q)
    qm = symbols.get(rule.fwd_qm, rule.fwd_qm)
    return strip_pad(q), strip_pad(qm)
