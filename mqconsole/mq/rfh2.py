"""MQRFH2 (format ``MQHRF2  ``) and the older MQRFH (format ``MQHRF   ``).

An RFH2 is 36 fixed bytes, then folders: a 4-byte NameValueLength and that many bytes of
XML-like text (``<mcd>``, ``<jms>``, ``<usr>`` …, blank-padded to a multiple of 4) in the
NameValueCCSID. Folders stay an ordered list and names may repeat. The bytes of every folder
are kept as read, so ``pack(unpack(x)) == x`` byte for byte — NUL or blank padding, invalid
bytes and all — as long as the folder's text was not changed.

Properties are read leniently: a folder that is not well-formed yields no properties (the
text is still shown), and nothing but :class:`HeaderError` ever comes out of this module.
"""

from __future__ import annotations

import html
import re
import struct
from dataclasses import dataclass, field
from typing import ClassVar

from .ccsid import codec_for
from .dlh import (
    PAD,
    char_codec,
    check_room,
    check_struc_id,
    decode_chars,
    detect_order,
    encode_chars,
    norm_chars,
    strip_pad,
)
from .errors import HeaderError

MQRFH_STRUC_ID = "RFH "
MQRFH2_FIXED_LENGTH = 36
MQRFH_FIXED_LENGTH = 32
FORMAT_RFH2 = "MQHRF2  "
FORMAT_RFH = "MQHRF   "
UTF16_CCSIDS = frozenset({1200, 13488, 17584})
MAX_FOLDER_DEPTH = 64

_FIXED2 = {be: struct.Struct((">" if be else "<") + "4s i i i i 8s i i") for be in (False, True)}
_FIXED1 = {be: struct.Struct((">" if be else "<") + "4s i i i i 8s i") for be in (False, True)}


def name_value_codec(name_value_ccsid: int, big_endian: bool) -> str:
    """Codec of RFH2 folder text: UTF-8 (1208), UTF-16 in the header's byte order (1200,
    13488, 17584), another CCSID's codec if this machine has one, else UTF-8."""
    if name_value_ccsid in UTF16_CCSIDS:
        return "utf-16-be" if big_endian else "utf-16-le"
    if name_value_ccsid == 1208:
        return "utf-8"
    return codec_for(name_value_ccsid) or "utf-8"


def _pad_to_4(data: bytes, codec: str) -> bytes:
    """Blank-pad encoded folder text to a multiple of 4 bytes, as MQ does."""
    pad = -len(data) % 4
    blank = " ".encode(codec)
    if pad % len(blank) == 0:
        return data + blank * (pad // len(blank))
    return data + b"\x00" * pad


# -- lenient reading of folder text -------------------------------------------------------

_NAME = re.compile(r"\s*([^\s/<>=\"']+)")


def parse_folder(text: str) -> tuple[str, list[tuple[str, str, str]]] | None:
    """``(folder name, [(folder, dotted path, value)…])`` of one folder's text.

    Leaf elements are properties, their path the element names below the folder's root
    joined with dots (``<usr><a><b>1</b></a></usr>`` → ``("usr", "a.b", "1")``). Entities
    are resolved; attributes (``dt='i4'``) are ignored. None when the text is not
    well-formed (unclosed or crossed tags, text outside the folder element).
    """
    n = len(text)
    pos = 0
    stack: list[list] = []  # [name, has_child]
    root = first_root = ""
    props: list[tuple[str, str, str]] = []
    buf: list[str] = []
    while pos < n:
        lt = text.find("<", pos)
        chunk = text[pos:] if lt < 0 else text[pos:lt]
        if chunk:
            if stack:
                buf.append(chunk)
            elif chunk.strip(PAD + "\t\r\n"):
                return None
        if lt < 0:
            break
        if text.startswith("<!--", lt):
            end = text.find("-->", lt + 4)
            if end < 0:
                return None
            pos = end + 3
            continue
        if text.startswith("<![CDATA[", lt):
            end = text.find("]]>", lt + 9)
            if end < 0 or not stack:
                return None
            buf.append(html.escape(text[lt + 9:end], quote=False))
            pos = end + 3
            continue
        gt = text.find(">", lt + 1)
        if gt < 0:
            return None
        tag = text[lt + 1:gt]
        pos = gt + 1
        if tag.startswith(("?", "!")):
            continue
        if tag.startswith("/"):
            name = tag[1:].strip()
            if not stack or stack[-1][0] != name:
                return None
            _, has_child = stack.pop()
            if stack and not has_child:
                path = ".".join(e[0] for e in stack[1:]) + ("." if len(stack) > 1 else "")
                props.append((root, path + name, html.unescape("".join(buf))))
            buf = []
            continue
        self_closing = tag.endswith("/")
        if self_closing:
            tag = tag[:-1]
        m = _NAME.match(tag)
        if m is None or "<" in tag:
            return None
        name = m.group(1)
        buf = []
        if not stack:
            root = name
            first_root = first_root or name
        else:
            stack[-1][1] = True
        if self_closing:
            if stack:
                path = ".".join(e[0] for e in stack[1:])
                props.append((root, f"{path}.{name}" if path else name, ""))
            continue
        if len(stack) >= MAX_FOLDER_DEPTH:
            return None
        stack.append([name, False])
    if stack or not first_root:
        return None
    return first_root, props


def folder_name(text: str) -> str:
    """The name of the folder's first element, even when the folder is malformed."""
    m = re.match(r"[\s\x00]*<\s*([^\s/<>=\"']+)", text)
    return m.group(1) if m else ""


# -- MQRFH2 -------------------------------------------------------------------------------


@dataclass(slots=True)
class MQRFH2:
    """Rules and formatting header version 2. Encoding, CCSID and Format describe what follows.

    ``folders`` is the text of each folder without its padding. ``raw_folders`` holds the
    bytes as read (None for a header built in code); ``pack`` reuses a raw folder when its
    text still matches, so an unchanged header packs to exactly the bytes it came from.
    ``trailing`` keeps bytes inside StrucLength too short to be another folder.
    """

    encoding: int = 546
    ccsid: int = -2  # MQCCSI_INHERIT
    format: str = ""
    flags: int = 0
    name_value_ccsid: int = 1208
    folders: list[str] = field(default_factory=list)
    raw_folders: list[bytes] | None = None
    trailing: bytes = b""
    version: int = 2
    # byte order raw_folders were read in (it matters to UTF-16 folder text)
    raw_big_endian: bool = field(default=False, compare=False, repr=False)

    STRUC_ID: ClassVar[str] = MQRFH_STRUC_ID
    FORMAT: ClassVar[str] = FORMAT_RFH2
    FIXED_LENGTH: ClassVar[int] = MQRFH2_FIXED_LENGTH

    def __post_init__(self) -> None:
        self.format = norm_chars(self.format, 8)
        self.folders = list(self.folders)
        if self.raw_folders is not None:
            self.raw_folders = [bytes(r) for r in self.raw_folders]

    @property
    def format_name(self) -> str:
        return strip_pad(self.format)

    # -- folders -----------------------------------------------------------------------
    def folder_bytes(self, *, big_endian: bool | None = None) -> list[bytes]:
        """Each folder's NameValueData as it will be packed (by default in the byte order
        the header was read in)."""
        if big_endian is None:
            big_endian = self.raw_big_endian
        codec = name_value_codec(self.name_value_ccsid, big_endian)
        raw = self.raw_folders or []
        out = []
        for i, text in enumerate(self.folders):
            if i < len(raw) and _folder_text(raw[i], codec) == text:
                out.append(raw[i])
            else:
                out.append(_pad_to_4(text.encode(codec, errors="replace"), codec))
        return out

    @property
    def struc_length(self) -> int:
        return (MQRFH2_FIXED_LENGTH + sum(4 + len(b) for b in self.folder_bytes())
                + len(self.trailing))

    @property
    def length(self) -> int:
        return self.struc_length

    def folder_names(self) -> list[str]:
        return [folder_name(t) for t in self.folders]

    def properties(self) -> list[tuple[str, str, str]]:
        """``(folder, dotted path, value)`` of every leaf in every well-formed folder."""
        out: list[tuple[str, str, str]] = []
        for text in self.folders:
            parsed = parse_folder(text)
            if parsed is not None:
                out.extend(parsed[1])
        return out

    def get(self, folder: str, path: str, default: str | None = None) -> str | None:
        """The first value of ``folder``/``path`` (``rfh.get("jms", "Dst")``)."""
        for f, p, v in self.properties():
            if f == folder and p == path:
                return v
        return default

    # -- bytes -------------------------------------------------------------------------
    def pack(self, *, big_endian: bool, ccsid: int) -> bytes:
        codec = char_codec(ccsid)
        order = ">" if big_endian else "<"
        parts = self.folder_bytes(big_endian=big_endian)
        length = MQRFH2_FIXED_LENGTH + sum(4 + len(b) for b in parts) + len(self.trailing)
        out = [_FIXED2[big_endian].pack(
            encode_chars(MQRFH_STRUC_ID, 4, codec), self.version, length, self.encoding,
            self.ccsid, encode_chars(self.format, 8, codec), self.flags, self.name_value_ccsid)]
        for b in parts:
            out.append(struct.pack(order + "i", len(b)))
            out.append(b)
        out.append(self.trailing)
        return b"".join(out)

    @classmethod
    def unpack(cls, data: bytes, offset: int = 0, *, big_endian: bool | None,
               ccsid: int) -> MQRFH2:
        check_room(data, offset, MQRFH2_FIXED_LENGTH, "MQRFH2")
        codec = check_struc_id(data, offset, MQRFH_STRUC_ID, ccsid, "MQRFH2")
        big_endian, _ = detect_order(bytes(data[offset + 4:offset + 8]), (2,), "MQRFH2",
                                     offset + 4, big_endian)
        (_, version, length, encoding, ccsid_after, fmt, flags,
         nv_ccsid) = _FIXED2[big_endian].unpack_from(data, offset)
        end = _check_length(data, offset, length, MQRFH2_FIXED_LENGTH, "MQRFH2", multiple=4)
        nv_codec = name_value_codec(nv_ccsid, big_endian)
        order = ">i" if big_endian else "<i"
        pos = offset + MQRFH2_FIXED_LENGTH
        raw: list[bytes] = []
        while end - pos >= 4:
            (n,) = struct.unpack_from(order, data, pos)
            if n < 0 or pos + 4 + n > end:
                raise HeaderError("MQRFH2", pos,
                                  f"NameValueLength {n} of folder {len(raw) + 1} does not fit "
                                  f"in the {end - pos - 4} bytes left of StrucLength {length}")
            raw.append(bytes(data[pos + 4:pos + 4 + n]))
            pos += 4 + n
        return cls(encoding=encoding, ccsid=ccsid_after, format=decode_chars(fmt, codec),
                   flags=flags, name_value_ccsid=nv_ccsid,
                   folders=[_folder_text(r, nv_codec) for r in raw], raw_folders=raw,
                   trailing=bytes(data[pos:end]), version=version,
                   raw_big_endian=big_endian)

    def to_dict(self) -> dict[str, object]:
        folders = []
        for text in self.folders:
            parsed = parse_folder(text)
            props: dict[str, str] = {}
            for _, path, value in parsed[1] if parsed else ():
                key, i = path, 1
                while key in props:
                    i += 1
                    key = f"{path}[{i}]"
                props[key] = value
            folders.append({"name": parsed[0] if parsed else folder_name(text),
                            "content": text, "properties": props})
        return {
            "type": "MQRFH2",
            "format": self.format_name,
            "encoding": self.encoding,
            "ccsid": self.ccsid,
            "name_value_ccsid": self.name_value_ccsid,
            "flags": self.flags,
            "folders": folders,
        }


def _folder_text(raw: bytes, codec: str) -> str:
    return raw.decode(codec, errors="replace").rstrip(PAD)


def _check_length(data: bytes, offset: int, length: int, fixed: int, header: str, *,
                  multiple: int) -> int:
    """The end offset of a header of StrucLength ``length``; HeaderError when absurd."""
    if length < fixed:
        raise HeaderError(header, offset + 8, f"StrucLength {length} is less than {fixed}")
    if multiple > 1 and length % multiple:
        raise HeaderError(header, offset + 8,
                          f"StrucLength {length} is not a multiple of {multiple}")
    left = len(data) - offset
    if length > left:
        raise HeaderError(header, offset + 8,
                          f"StrucLength {length} goes past the end of the message "
                          f"({left} bytes left)")
    return offset + length


# -- MQRFH (version 1) ---------------------------------------------------------------------


@dataclass(slots=True)
class MQRFH:
    """Rules and formatting header version 1: 32 fixed bytes, then a NameValueString
    (blank-separated name/value pairs) in the header's CCSID. Kept as raw bytes."""

    encoding: int = 546
    ccsid: int = -2
    format: str = ""
    flags: int = 0
    name_value_data: bytes = b""
    text_codec: str = "latin-1"  # codec of name_value_data (from the CCSID before)
    version: int = 1

    STRUC_ID: ClassVar[str] = MQRFH_STRUC_ID
    FORMAT: ClassVar[str] = FORMAT_RFH
    FIXED_LENGTH: ClassVar[int] = MQRFH_FIXED_LENGTH

    def __post_init__(self) -> None:
        self.format = norm_chars(self.format, 8)
        self.name_value_data = bytes(self.name_value_data)

    @property
    def format_name(self) -> str:
        return strip_pad(self.format)

    @property
    def struc_length(self) -> int:
        return MQRFH_FIXED_LENGTH + len(self.name_value_data)

    @property
    def length(self) -> int:
        return self.struc_length

    @property
    def name_value_string(self) -> str:
        return decode_chars(self.name_value_data, self.text_codec).strip(PAD)

    def pack(self, *, big_endian: bool, ccsid: int) -> bytes:
        codec = char_codec(ccsid)
        return _FIXED1[big_endian].pack(
            encode_chars(MQRFH_STRUC_ID, 4, codec), self.version, self.struc_length,
            self.encoding, self.ccsid, encode_chars(self.format, 8, codec),
            self.flags) + self.name_value_data

    @classmethod
    def unpack(cls, data: bytes, offset: int = 0, *, big_endian: bool | None,
               ccsid: int) -> MQRFH:
        check_room(data, offset, MQRFH_FIXED_LENGTH, "MQRFH")
        codec = check_struc_id(data, offset, MQRFH_STRUC_ID, ccsid, "MQRFH")
        big_endian, _ = detect_order(bytes(data[offset + 4:offset + 8]), (1,), "MQRFH",
                                     offset + 4, big_endian)
        (_, version, length, encoding, ccsid_after, fmt,
         flags) = _FIXED1[big_endian].unpack_from(data, offset)
        end = _check_length(data, offset, length, MQRFH_FIXED_LENGTH, "MQRFH", multiple=1)
        return cls(encoding=encoding, ccsid=ccsid_after, format=decode_chars(fmt, codec),
                   flags=flags, name_value_data=bytes(data[offset + MQRFH_FIXED_LENGTH:end]),
                   text_codec=codec, version=version)

    def to_dict(self) -> dict[str, object]:
        return {
            "type": "MQRFH",
            "format": self.format_name,
            "encoding": self.encoding,
            "ccsid": self.ccsid,
            "flags": self.flags,
            "name_values": self.name_value_string,
        }
