"""Pydantic's validation errors of a scenario file as :class:`Problem` sentences: the field as
written (``endpoints[0].provider``), its line, and what to write instead when it can (``did
you mean``)."""

from __future__ import annotations

import difflib
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from mqconsole.yamlines import Loc, dotted

from .checks import AT
from .problems import Problem
from .schema import FileModel


def line_of(loc: Loc, lines: dict[Loc, int]) -> int | None:
    """The line of ``loc``, else of the nearest thing holding it."""
    while True:
        if loc in lines:
            return lines[loc]
        if not loc:
            return None
        loc = loc[:-1]


def _model_in(annotation: Any) -> type[FileModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation if issubclass(annotation, FileModel) else None
    for arg in get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _model_at(root: type[FileModel], loc: Loc) -> type[FileModel] | None:
    """The model holding the fields at ``loc`` (list indexes skipped)."""
    model: type[FileModel] | None = root
    for el in loc:
        if isinstance(el, int):
            continue
        if model is None or el not in model.model_fields:
            return None
        model = _model_in(model.model_fields[el].annotation)
    return model


def unknown_field(root: type[FileModel], loc: Loc) -> str:
    """``unknown field (did you mean bothresh?)``, else the fields known there."""
    model = _model_at(root, loc[:-1])
    if model is None:
        return "unknown field"
    if model.unknown_hint:
        return f"unknown field ({model.unknown_hint})"
    known = list(model.model_fields)
    close = difflib.get_close_matches(str(loc[-1]), known, n=1)
    hint = f"did you mean {close[0]}?" if close else f"known: {', '.join(known)}"
    return f"unknown field ({hint})"


def problems(exc: ValidationError, root: type[FileModel], lines: dict[Loc, int],
             file: str | None) -> list[Problem]:
    """Every problem pydantic found, once each, in line order (on one line, the deeper field
    first: a field's own problem before its mapping's missing field)."""
    found: dict[Problem, int] = {}
    for error in exc.errors(include_url=False):
        loc: Loc = tuple(error["loc"])
        kind = error["type"]
        if kind in ("extra_forbidden", "invalid_key"):
            text = unknown_field(root, loc)
        elif kind == "missing":
            text, loc = f"{loc[-1]} is required", loc[:-1]
        else:
            text = error["msg"]
            loc = (*loc, *(error.get("ctx") or {}).get(AT, ()))
        found.setdefault(Problem(dotted(loc), text, line_of(loc, lines), file), len(loc))
    return sorted(found, key=lambda p: (p.line is None, p.line or 0, -found[p]))
