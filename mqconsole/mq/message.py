"""A message: its descriptor and its body bytes, exactly as MQ holds them."""

from __future__ import annotations

from dataclasses import dataclass, field

from .md import MQMD

# MQMD.MsgFlags (version 2) that make a message a member of a group or a segment
MQMF_SEGMENT = 0x02
MQMF_LAST_SEGMENT = 0x04
MQMF_MSG_IN_GROUP = 0x08
MQMF_LAST_MSG_IN_GROUP = 0x10
GROUP_FLAGS = MQMF_SEGMENT | MQMF_LAST_SEGMENT | MQMF_MSG_IN_GROUP | MQMF_LAST_MSG_IN_GROUP


@dataclass(slots=True, eq=False)
class Message:
    """Equal to any Message (subclasses included) with an equal MD and body.

    ``token`` names this very message while it is on its queue, when the browse or get that
    read it says so: MQ's MsgToken (MQGMO version 3), the embedded store's own identity.
    MsgIds need not be unique; a token is. It is never written to a file or put."""

    md: MQMD
    body: bytes
    token: bytes | None = field(default=None, kw_only=True)
    #: set when ``body`` is only the first bytes of a message this long: a preview read
    #: over a channel whose MAXMSGL is smaller than the message (2010). Such a message is
    #: never put nor saved (that would lose the rest of it).
    truncated_from: int | None = field(default=None, kw_only=True)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Message):
            return NotImplemented
        return self.md == other.md and self.body == other.body

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass was

    @property
    def msg_id_hex(self) -> str:
        return self.md.msg_id.hex().upper()

    @property
    def correl_id_hex(self) -> str:
        return self.md.correl_id.hex().upper()

    def packed_md(self) -> bytes | None:
        """The MD as ``md.pack(ccsid=819)`` lays it out, when this message holds it so
        already and its ``md`` was never unpacked (a stored message: ``packed_md`` of the
        embedded backend's); None otherwise. For writers that copy a message out
        (``ops.files.packed``) without unpacking its 29 fields."""
        return None

    @property
    def report(self) -> int:
        """The MD's Report options (a stored message reads them without unpacking)."""
        return self.md.report

    @property
    def in_group(self) -> bool:
        """A member of a message group, or a segment (MsgFlags of an MQMD version 2)."""
        md = self.md
        return md.version >= 2 and bool(md.msg_flags & GROUP_FLAGS)
