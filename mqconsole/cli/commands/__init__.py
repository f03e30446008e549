"""One module per command family; each exposes ``COMMANDS``."""
