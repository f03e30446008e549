"""A decoder for fixed-width records whose layout is described in a YAML file.

Settings (``plugins.settings.fixed_width`` in the mqconsole config)::

    layout: ~/layouts/orders.yaml            # one layout file, or
    layouts: [~/layouts/orders.yaml, ...]    # several: the first that matches decodes

A layout names each field with its offset, length and type (see ``README.md`` and
``orders.yaml``). A payload that is not the record (too short, another record length, the
``match`` text absent) is left to other decoders. A bad layout file stops the decoder with
one sentence naming the file, the line and the field, reported once by mqconsole.
"""

from __future__ import annotations

import codecs
import datetime as dt
import difflib
import threading
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

from mqconsole.plugins import Decoded, hookimpl, plugin_settings

__version__ = "1.0.0"
MQCONSOLE_API_VERSION = 1

TYPES = ("text", "integer", "decimal", "date", "binary", "packed", "hex")
SCALED = ("decimal", "packed")
LAYOUT_KEYS = ("title", "encoding", "record_length", "match", "fields")
FIELD_KEYS = ("name", "offset", "length", "type", "scale", "signed")
MATCH_KEYS = ("offset", "text")


class LayoutError(ValueError):
    """A layout file that cannot be used; the message is one sentence naming file and line."""


@dataclass(frozen=True)
class Field:
    name: str
    offset: int
    length: int
    type: str
    scale: int = 0
    signed: bool = False

    @property
    def end(self) -> int:
        return self.offset + self.length


@dataclass(frozen=True)
class Layout:
    title: str
    encoding: str
    fields: tuple[Field, ...]
    record_length: int | None = None
    match_offset: int = 0
    match: bytes | None = None

    @property
    def needs(self) -> int:
        return max(f.end for f in self.fields)

    def matches(self, payload: bytes) -> bool:
        if self.record_length is not None and len(payload) != self.record_length:
            return False
        if len(payload) < self.needs:
            return False
        if self.match is not None:
            return payload[self.match_offset:self.match_offset + len(self.match)] == self.match
        return True


# -- reading a layout file, with lines ---------------------------------------------------------

class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, node: yaml.Node | None, where: str, what: str) -> LayoutError:
        line = f" line {node.start_mark.line + 1}" if node is not None else ""
        at = f" {where}:" if where else ""
        return LayoutError(f"layout {self.path}{line}:{at} {what}")

    def mapping(self, node: yaml.Node, where: str, keys: tuple[str, ...]
                ) -> dict[str, yaml.Node]:
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, where, "must be a mapping of " + ", ".join(keys))
        out: dict[str, yaml.Node] = {}
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else str(key)
            if name not in keys:
                close = difflib.get_close_matches(str(name), keys, n=1)
                hint = f" (did you mean {close[0]}?)" if close else \
                    f" (known: {', '.join(keys)})"
                raise self.fail(key, f"{where}.{name}".lstrip("."), f"unknown key{hint}")
            out[name] = value
        return out

    def scalar(self, node: yaml.Node, where: str) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            raise self.fail(node, where, "must be a single value")
        return yaml.constructor.SafeConstructor().construct_object(node)

    def text(self, node: yaml.Node, where: str) -> str:
        value = self.scalar(node, where)
        if not isinstance(value, str) or not value:
            raise self.fail(node, where, f"must be text, not {value!r}")
        return value

    def number(self, node: yaml.Node, where: str, lowest: int) -> int:
        value = self.scalar(node, where)
        if isinstance(value, bool) or not isinstance(value, int) or value < lowest:
            kind = "a positive whole number" if lowest > 0 else "a whole number of 0 or more"
            raise self.fail(node, where, f"must be {kind}, not {value!r}")
        return value

    def field(self, node: yaml.Node, where: str) -> Field:
        keys = self.mapping(node, where, FIELD_KEYS)
        for required in ("name", "offset", "length", "type"):
            if required not in keys:
                raise self.fail(node, where, f"has no {required}")
        kind = self.text(keys["type"], f"{where}.type")
        if kind not in TYPES:
            raise self.fail(keys["type"], f"{where}.type",
                            f"{kind!r} is not a type (one of {', '.join(TYPES)})")
        length = self.number(keys["length"], f"{where}.length", 1)
        scale = 0
        if "scale" in keys:
            if kind not in SCALED:
                raise self.fail(keys["scale"], f"{where}.scale",
                                f"only {' and '.join(SCALED)} fields have a scale")
            scale = self.number(keys["scale"], f"{where}.scale", 0)
        signed = False
        if "signed" in keys:
            if kind != "binary":
                raise self.fail(keys["signed"], f"{where}.signed",
                                "only binary fields are signed or not")
            signed = self.scalar(keys["signed"], f"{where}.signed")
            if not isinstance(signed, bool):
                raise self.fail(keys["signed"], f"{where}.signed", "must be true or false")
        if kind == "binary" and length > 8:
            raise self.fail(keys["length"], f"{where}.length",
                            f"a binary field is at most 8 bytes, not {length}")
        if kind == "date" and length != 8:
            raise self.fail(keys["length"], f"{where}.length",
                            f"a date field is 8 characters (YYYYMMDD), not {length}")
        return Field(self.text(keys["name"], f"{where}.name"),
                     self.number(keys["offset"], f"{where}.offset", 0), length, kind,
                     scale, signed)

    def layout(self, root: yaml.Node | None) -> Layout:
        if root is None:
            raise self.fail(None, "", "is empty")
        keys = self.mapping(root, "", LAYOUT_KEYS)
        if "fields" not in keys:
            raise self.fail(root, "", "has no fields")
        seq = keys["fields"]
        if not isinstance(seq, yaml.SequenceNode) or not seq.value:
            raise self.fail(seq, "fields", "must be a list of at least one field")
        fields: list[Field] = []
        seen: dict[str, int] = {}
        for i, node in enumerate(seq.value):
            f = self.field(node, f"fields[{i}]")
            if f.name in seen:
                raise self.fail(node, f"fields[{i}].name",
                                f"{f.name!r} is already the name of fields[{seen[f.name]}]")
            seen[f.name] = i
            fields.append(f)
        encoding = "ascii"
        if "encoding" in keys:
            encoding = self.text(keys["encoding"], "encoding")
            try:
                codecs.lookup(encoding)
            except LookupError:
                raise self.fail(keys["encoding"], "encoding",
                                f"{encoding!r} is not a known encoding (e.g. ascii, cp037, "
                                "cp500, latin-1, utf-8)") from None
        record_length = None
        if "record_length" in keys:
            record_length = self.number(keys["record_length"], "record_length", 1)
            for i, f in enumerate(fields):
                if f.end > record_length:
                    raise self.fail(seq.value[i], f"fields[{i}]",
                                    f"ends at byte {f.end}, after the record's "
                                    f"{record_length} bytes")
        match_offset, match = 0, None
        if "match" in keys:
            m = self.mapping(keys["match"], "match", MATCH_KEYS)
            if "text" not in m:
                raise self.fail(keys["match"], "match", "has no text")
            if "offset" in m:
                match_offset = self.number(m["offset"], "match.offset", 0)
            try:
                match = self.text(m["text"], "match.text").encode(encoding)
            except UnicodeEncodeError:
                raise self.fail(m["text"], "match.text",
                                f"cannot be written in {encoding}") from None
        title = self.text(keys["title"], "title") if "title" in keys else self.path.stem
        return Layout(title, encoding, tuple(fields), record_length, match_offset, match)


def load_layout(path: str | Path) -> Layout:
    """Read and check one layout file; LayoutError (one sentence) when it cannot be used."""
    path = Path(path).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise LayoutError(f"layout {path} cannot be read ({e.strerror or e})") from None
    except UnicodeDecodeError:
        raise LayoutError(f"layout {path} is not UTF-8 text") from None
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or "not valid YAML"
        raise LayoutError(f"layout {path}{line}: not valid YAML ({problem})") from None
    return _Reader(path).layout(root)


# -- decoding ----------------------------------------------------------------------------------

def _packed(raw: bytes, scale: int) -> Decimal:
    nibbles = raw.hex()
    digits, sign = nibbles[:-1], nibbles[-1]
    if not digits.isdigit() or sign not in "abcdef":
        raise ValueError(f"not packed decimal ({raw.hex().upper()})")
    value = Decimal(int(digits)).scaleb(-scale)
    return -value if sign in "bd" else value


def field_value(field: Field, raw: bytes, encoding: str) -> str:
    """One field's bytes as text for the operator (a bad value says what it is)."""
    try:
        if field.type == "hex":
            return raw.hex().upper()
        if field.type == "binary":
            return str(int.from_bytes(raw, "big", signed=field.signed))
        if field.type == "packed":
            return str(_packed(raw, field.scale))
        text = raw.decode(encoding, errors="replace")
        if field.type == "text":
            return text.rstrip()
        stripped = text.strip()
        if field.type == "date":
            return dt.date(int(text[0:4]), int(text[4:6]), int(text[6:8])).isoformat()
        if not stripped.lstrip("+-").isdigit():
            raise ValueError(f"not a number ({stripped!r})")
        if field.type == "integer":
            return str(int(stripped))
        return str(Decimal(int(stripped)).scaleb(-field.scale))
    except ValueError as e:
        return f"? {e}" if str(e).startswith("not ") else f"? not a {field.type} ({raw!r})"


def decode_record(layout: Layout, payload: bytes) -> list[tuple[str, str]]:
    return [(f.name, field_value(f, payload[f.offset:f.end], layout.encoding))
            for f in layout.fields]


def format_record(layout: Layout, payload: bytes) -> str:
    rows = decode_record(layout, payload)
    width = max(len(name) for name, _ in rows)
    lines = [f"{name.ljust(width)}  {value}" for name, value in rows]
    if len(payload) > layout.needs:
        lines.append(f"({len(payload) - layout.needs} more bytes after the last field)")
    return "\n".join(lines)


# -- the hook ----------------------------------------------------------------------------------

_cache: dict[tuple[str, int], Layout] = {}
_cache_lock = threading.Lock()


def _layout(path: str) -> Layout:
    file = Path(path).expanduser()
    try:
        stamp = file.stat().st_mtime_ns
    except OSError:
        stamp = -1
    with _cache_lock:
        found = _cache.get((str(file), stamp))
    if found is None:
        found = load_layout(file)
        with _cache_lock:
            _cache[(str(file), stamp)] = found
    return found


def layouts_from(settings: dict[str, Any]) -> list[Layout]:
    paths = settings.get("layouts") or ([settings["layout"]] if settings.get("layout") else [])
    if isinstance(paths, str):
        paths = [paths]
    if not paths:
        raise LayoutError("fixed_width has no layout: set plugins.settings.fixed_width.layout "
                          "to a layout file")
    return [_layout(str(p)) for p in paths]


@hookimpl
def mqconsole_decode_payload(message, payload: bytes) -> Decoded | None:
    for layout in layouts_from(plugin_settings()):
        if layout.matches(payload):
            return Decoded(layout.title, format_record(layout, payload))
    return None
