"""The checks of a scenario's fields, each a pydantic validator (:func:`checked`) whose
problem is the sentence the operator reads (``must be a whole number, not text ('three')``).

A check returns the value (normalised) or raises :class:`Bad`; ``checked`` turns that into
pydantic's error, which ``sentences.py`` reads back with the file, line and field.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError

from mqconsole.mq.queue import is_valid_name, name_problem

from .problems import type_name

PROVIDERS = ("sib", "mq_activation_spec", "mq_listener_port", "sca_export")
TRANSACTIONS = ("required", "not_supported", "bean_managed")
PLATFORMS = ("distributed", "zos")
BINDINGS = ("mq", "jms")
KINDS = ("component", "export")
# authority names as setmqaut spells them (without +), and MQ's groups
AUTHORITIES = frozenset({"browse", "get", "put", "inq", "set", "setid", "setall", "passid",
                         "passall", "altusr", "connect", "chg", "dsp", "dlt", "clr", "crt",
                         "ctrl", "ctrlx"})
_AUTH_GROUPS = {"all": AUTHORITIES, "allmqi": frozenset({"browse", "get", "put", "inq", "set",
                "setid", "setall", "passid", "passall", "altusr", "connect"}),
                "none": frozenset()}
MAX_INT = 2**53

#: the key of an error's context that extends its location (a check made on a model that
#: concerns one of its fields)
AT = "__mqconsole_at__"


class Bad(Exception):
    """A value a check refuses; ``str()`` is the problem."""


def problem(message: str, at: tuple[Any, ...] = ()) -> PydanticCustomError:
    """A validation error whose message is ``message``; ``at`` extends its location."""
    return PydanticCustomError("scenario", message, {AT: at} if at else None)


Check = Callable[[Any], Any]


def checked(check: Check) -> BeforeValidator:
    """``check`` as a pydantic validator run on the value as YAML gave it."""
    def validate(value: Any) -> Any:
        try:
            return check(value)
        except Bad as exc:
            raise problem(str(exc)) from None
    return BeforeValidator(validate)


def mapping(what: str, sentence: str | None = None) -> BeforeValidator:
    """A section or a list item must be a mapping (of ``what`` fields)."""
    def validate(value: Any) -> Any:
        if not isinstance(value, dict):
            raise problem((sentence or f"must be a mapping of {what} fields")
                          + f", not {type_name(value)}")
        return value
    return BeforeValidator(validate)


def listing(what: str) -> BeforeValidator:
    """A list of ``what`` (nothing, ``null``, is an empty list)."""
    def validate(value: Any) -> Any:
        if value is None:
            return []
        if not isinstance(value, list):
            raise problem(f"must be a list of {what}, not {type_name(value)}")
        return value
    return BeforeValidator(validate)


def t_int(lo: int = 0, hi: int = MAX_INT) -> Check:
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise Bad(f"must be a whole number, not {type_name(v)}")
        if not lo <= v <= hi:
            raise Bad(f"must be from {lo} to {hi}, not {v}" if hi < MAX_INT
                      else f"must be {lo} or more, not {v}")
        return v
    return check


def t_bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise Bad(f"must be true or false, not {type_name(v)}")
    return v


def t_true(v: Any) -> bool:
    if v is not True:
        raise Bad(f"must be true, not {type_name(v)}")
    return v


def t_text(v: Any) -> str:
    if not isinstance(v, str):
        raise Bad(f"must be text, not {type_name(v)}")
    return v


def t_id(v: Any) -> str:
    """Message ids and other labels: text, or a plain number taken as text."""
    if isinstance(v, bool) or not isinstance(v, str | int):
        raise Bad(f"must be text, not {type_name(v)}")
    text = str(v)
    if not text.strip():
        raise Bad("must not be blank")
    return text


def t_name(blank_ok: bool = False) -> Check:
    def check(v: Any) -> str:
        if v is None and blank_ok:
            return ""
        if not isinstance(v, str):
            raise Bad(f"must be an MQ name (text), not {type_name(v)}")
        v = v.strip()
        if not v and blank_ok:
            return ""
        problem = name_problem(v)
        if problem is not None:
            raise Bad(problem)
        return v
    return check


def t_profile(v: Any) -> str:
    """A queue name or a generic profile (``APP.*``) of an authority record."""
    queue = t_text(v).strip()
    if "*" not in queue and not is_valid_name(queue):
        raise Bad(f"{queue!r} is not an MQ name or generic profile")
    return queue


def t_enum(*choices: str) -> Check:
    def check(v: Any) -> str:
        if not isinstance(v, str) or v not in choices:
            raise Bad(f"must be one of {', '.join(choices)}, not {type_name(v)}")
        return v
    return check


def t_list(item: Check, *, min_len: int = 0) -> Check:
    def check(v: Any) -> tuple[Any, ...]:
        if not isinstance(v, list):
            raise Bad(f"must be a list, not {type_name(v)}")
        if len(v) < min_len:
            raise Bad(f"must list at least {min_len}")
        out = []
        for i, x in enumerate(v):
            try:
                out.append(item(x))
            except Bad as e:
                raise Bad(f"item {i + 1}: {e}") from None
        return tuple(out)
    return check


def t_grant(v: Any) -> frozenset[str]:
    if isinstance(v, str):
        v = v.replace(",", " ").split()
    if not isinstance(v, list):
        raise Bad(f"must be a list of authorities, not {type_name(v)}")
    out: set[str] = set()
    for raw in v:
        if not isinstance(raw, str):
            raise Bad(f"authorities are names (get, put, ...), not {type_name(raw)}")
        name = raw.strip().lstrip("+").lower()
        if name in _AUTH_GROUPS:
            out |= _AUTH_GROUPS[name]
        elif name in AUTHORITIES:
            out.add(name)
        else:
            raise Bad(f"unknown authority {raw!r} (MQ names: {', '.join(sorted(AUTHORITIES))})")
    return frozenset(out)


def t_then(v: Any) -> tuple[str, str | None]:
    if isinstance(v, str) and v in ("rollback", "discard"):
        return v, None
    if isinstance(v, dict) and list(v) == ["move"]:
        return "move", t_name()(v["move"])
    raise Bad(f"must be rollback, discard or {{move: QUEUE}}, not {type_name(v)}")


def t_between(v: Any) -> tuple[int, int]:
    pair = t_list(t_int(0))(v)
    if len(pair) != 2:
        raise Bad("must be two times [from, to] in milliseconds")
    if pair[0] > pair[1]:
        raise Bad(f"the window ends ({pair[1]}) before it starts ({pair[0]})")
    return pair[0], pair[1]
