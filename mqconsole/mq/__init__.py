"""The MQ domain, pure: structures, names, codecs, messages. No I/O, no other rooms."""

from .errors import HeaderError, MQError
from .md import MQMD
from .message import Message

__all__ = ["MQMD", "HeaderError", "MQError", "Message"]
