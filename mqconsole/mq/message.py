"""A message: its descriptor and its body bytes, exactly as MQ holds them."""

from __future__ import annotations

from dataclasses import dataclass

from .md import MQMD


@dataclass(slots=True)
class Message:
    md: MQMD
    body: bytes

    @property
    def msg_id_hex(self) -> str:
        return self.md.msg_id.hex().upper()

    @property
    def correl_id_hex(self) -> str:
        return self.md.correl_id.hex().upper()
