"""mqconsole: a terminal console for IBM MQ operators."""

__version__ = "0.1.0"
