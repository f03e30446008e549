"""Validation errors turned into :class:`ConfigProblem` sentences with file, line and setting.

Pydantic reports a location such as ``("profiles", 0, "backend", "mq", "port")``; the
sentence shows it as the operator wrote it (``profiles.prod.backend.port``), on the line the
YAML reader kept for it, and says what to write instead when it can (``did you mean``).
"""

from __future__ import annotations

import difflib
import re
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from mqconsole.yamlines import Duplicate

from .backends import PASSWORD_REFUSED, MQBackendConfig
from .checks import AT, Loc, strip_value_error
from .errors import ConfigProblem
from .profiles import Profile
from .schema import Config

_TAGGED_UNIONS = {"backend"}


def models_in(annotation: Any) -> list[type[BaseModel]]:
    """The pydantic models an annotation holds (``list[Profile]`` → ``[Profile]``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    found: list[type[BaseModel]] = []
    for arg in get_args(annotation):
        found.extend(models_in(arg))
    return found


def _descend(cur: Any, el: Any) -> Any:
    if isinstance(cur, dict):
        return cur.get(el)
    if isinstance(cur, list) and isinstance(el, int) and 0 <= el < len(cur):
        return cur[el]
    return None


def _descend_all(data: Any, loc: Loc) -> Any:
    cur = data
    for el in loc:
        cur = _descend(cur, el)
    return cur


def _clean_loc(loc: Loc, data: Any) -> Loc:
    """Pydantic's loc without the union tags it inserts, and without ``[key]`` markers."""
    out: list[Any] = []
    cur = data
    for el in loc:
        if el == "[key]":
            continue
        if (
            out
            and out[-1] in _TAGGED_UNIONS
            and isinstance(cur, dict)
            and isinstance(el, str)
            and el == cur.get("type")
        ):
            continue
        out.append(el)
        cur = _descend(cur, el)
    return tuple(out)


def display_loc(loc: Loc, data: Any) -> str:
    """``profiles.prod.backend.port`` (the profile's name when it is usable), else indexes."""
    names: list[str | None] = []
    profiles = data.get("profiles") if isinstance(data, dict) else None
    if isinstance(profiles, list):
        names = [p.get("name") if isinstance(p, dict) else None for p in profiles]
    out = ""
    cur = data
    for i, el in enumerate(loc):
        parent, cur = cur, _descend(cur, el)
        if isinstance(el, int) and not isinstance(el, bool) and not isinstance(parent, dict):
            name = names[el] if i == 1 and loc[0] == "profiles" and el < len(names) else None
            if (
                isinstance(name, str)
                and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", name)
                and names.count(name) == 1
            ):
                out += f".{name}"
            else:
                out += f"[{el}]"
        else:
            out += ("." if out else "") + str(el)
    return out


def _line_for(loc: Loc, lines: dict[Loc, int]) -> int | None:
    for n in range(len(loc), 0, -1):
        line = lines.get(loc[:n])
        if line is not None:
            return line
    return None


def _model_at(loc: Loc, data: Any) -> list[type[BaseModel]]:
    """The model(s) that hold the settings at ``loc`` (several for an undecided union)."""
    models: list[type[BaseModel]] = [Config]
    cur = data
    for el in loc:
        if isinstance(el, int) and not isinstance(el, bool):
            cur = _descend(cur, el)
            continue
        if len(models) != 1 or el not in models[0].model_fields:
            return []
        models = models_in(models[0].model_fields[el].annotation)
        cur = _descend(cur, el)
        if not models:
            return []
        if len(models) > 1 and isinstance(cur, dict):
            tagged = [m for m in models if cur.get("type") in get_args(_type_of(m))]
            models = tagged or models
    return models


def _type_of(model: type[BaseModel]) -> Any:
    field = model.model_fields.get("type")
    return None if field is None else field.annotation


def _unknown_setting(loc: Loc, data: Any) -> str:
    key = loc[-1]
    if key == "password":
        return PASSWORD_REFUSED
    models = _model_at(loc[:-1], data)
    if len(models) == 1 and isinstance(key, str):
        allowed = list(models[0].model_fields)
        parent = _descend_all(data, loc[:-1])
        kind = parent.get("type") if isinstance(parent, dict) else None
        if loc[-2:-1] == ("backend",) and kind:
            others = [
                m
                for m in models_in(Profile.model_fields["backend"].annotation)
                if key in m.model_fields and m is not models[0]
            ]
            if others:
                other = get_args(_type_of(others[0]))[0]
                article = "an" if str(kind)[:1] in "aeiou" else "a"
                return f"unknown setting for {article} {kind} backend (it belongs to type: {other})"
        if models[0] is MQBackendConfig and key in ("host", "port", "hostname", "conname"):
            return "unknown setting; MQ takes host and port in connection_name: host(port)"
        close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
        if close:
            return f"unknown setting; did you mean {close[0]}?"
        return f"unknown setting; known here: {', '.join(allowed)}"
    return "unknown setting"


def _problem_text(error: Any, loc: Loc, data: Any) -> tuple[str, Loc]:
    kind = error["type"]
    msg = strip_value_error(error["msg"])
    if kind == "extra_forbidden":
        return _unknown_setting(loc, data), loc
    if kind == "missing":
        return "required setting is missing", loc
    if kind == "union_tag_invalid":
        tag = (error.get("ctx") or {}).get("tag")
        return f"unknown backend type {tag}; use embedded or mq", (*loc, "type")
    if kind == "union_tag_not_found":
        return "required setting is missing: type: embedded or type: mq", (*loc, "type")
    if kind == "invalid_key":
        return "setting names must be text", loc
    if kind in ("bool_type", "bool_parsing"):
        return "must be true or false", loc
    if kind in ("string_type", "int_type", "int_parsing", "float_type", "float_parsing"):
        value = _descend_all(data, loc)
        if kind == "string_type" and isinstance(value, bool | int | float):
            shown = str(value).lower() if isinstance(value, bool) else str(value)
            return f"{msg} (YAML read this as {shown}; put it in quotes)", loc
    return msg, loc


def validation_problems(
    exc: ValidationError, data: Any, lines: dict[Loc, int], filename: str | None
) -> list[ConfigProblem]:
    """Every problem pydantic found, once each, in line order."""
    problems: list[ConfigProblem] = []
    for error in exc.errors(include_url=False):
        loc = _clean_loc(tuple(error["loc"]), data)
        at = (error.get("ctx") or {}).get(AT)
        if at:
            loc = (*loc, *at)
        text, loc = _problem_text(error, loc, data)
        problem = ConfigProblem(
            problem=text,
            file=filename,
            line=_line_for(loc, lines),
            setting=display_loc(loc, data) or None,
        )
        if problem not in problems:
            problems.append(problem)
    problems.sort(key=lambda p: (p.line is None, p.line or 0))
    return problems


def duplicate_problems(
    duplicates: list[Duplicate], data: Any, filename: str | None
) -> list[ConfigProblem]:
    """A sentence for each setting the file gives twice (YAML would keep only the last)."""
    return [
        ConfigProblem(
            f"this setting appears twice (first at line {dup.first}); "
            "YAML would silently keep only the last one",
            filename,
            dup.line,
            display_loc(dup.loc, data),
        )
        for dup in duplicates
    ]
