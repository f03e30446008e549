"""Authorities of the embedded queue manager, named as MQ names them (setmqaut/dspmqaut).

A record grants a principal a set of authorities on one profile: a queue name, a generic
queue profile (``APP.*``, ``*``), or the queue manager object. When no record exists at
all, everyone may do everything; as soon as one exists, every check needs a matching grant.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from mqconsole.mq.errors import MQError
from mqconsole.mq.reasons import MQRC_NOT_AUTHORIZED

# The MQI and administration authorities of MQ (setmqaut names, without the leading +).
MQI_AUTHORITIES = frozenset({
    "browse", "get", "put", "inq", "set", "setid", "setall", "passid", "passall", "altusr",
    "connect",
})
ADMIN_AUTHORITIES = frozenset({"chg", "dsp", "dlt", "clr", "crt", "ctrl", "ctrlx"})
AUTHORITY_NAMES = MQI_AUTHORITIES | ADMIN_AUTHORITIES
_GROUPS = {
    "all": AUTHORITY_NAMES, "allmqi": MQI_AUTHORITIES, "alladm": ADMIN_AUTHORITIES,
    "none": frozenset(),
}

QUEUE = "queue"
QMGR = "qmgr"
OBJECT_TYPES = (QUEUE, QMGR)


@dataclass(frozen=True, slots=True)
class AuthorityRecord:
    """One grant: ``principal`` may do ``authorities`` on objects matching ``profile``."""

    principal: str
    object_type: str  # "queue" or "qmgr"
    profile: str  # a queue name or generic profile; the queue manager's name for "qmgr"
    authorities: frozenset[str]


def normalize(authorities: Iterable[str] | str) -> frozenset[str]:
    """``{"+put", "browse"}`` or ``"+put +browse"`` → ``frozenset({"put", "browse"})``.

    Accepts MQ's group names ``all``, ``allmqi``, ``alladm`` and ``none``; anything else
    unknown raises ValueError naming it.
    """
    if isinstance(authorities, str):
        authorities = authorities.replace(",", " ").split()
    out: set[str] = set()
    for raw in authorities:
        name = raw.strip().lstrip("+").lower()
        if name in _GROUPS:
            out |= _GROUPS[name]
        elif name in AUTHORITY_NAMES:
            out.add(name)
        else:
            known = " ".join(sorted(AUTHORITY_NAMES | set(_GROUPS)))
            raise ValueError(f"unknown authority {raw!r} (MQ names: {known})")
    return frozenset(out)


@lru_cache(maxsize=512)
def _profile_regex(profile: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if c == "*" else re.escape(c) for c in profile) + r"\Z")


def matches(profile: str, name: str) -> bool:
    """A generic name or profile: ``*`` stands for any run of characters (``APP.*``, ``*``)."""
    if "*" not in profile:
        return profile == name
    return _profile_regex(profile).match(name) is not None


def granted(records: Iterable[AuthorityRecord], principal: str, object_type: str,
            name: str) -> frozenset[str]:
    """The union of what every matching record grants ``principal`` on one object."""
    out: set[str] = set()
    for r in records:
        if r.principal != principal or r.object_type != object_type:
            continue
        if object_type == QMGR or matches(r.profile, name):
            out |= r.authorities
    return frozenset(out)


def refuse(principal: str, auth: str, object_type: str, name: str) -> MQError:
    what = "queue manager" if object_type == QMGR else "queue"
    return MQError(MQRC_NOT_AUTHORIZED,
                   f"principal {principal!r} lacks +{auth} on {what} {name!r}")
