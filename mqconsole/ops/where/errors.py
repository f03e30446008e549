"""The one error of ``--where``: a sentence naming the position, the expression echoed
with a caret under it."""

from __future__ import annotations


class WhereError(ValueError):
    """A bad expression. ``str()`` is one sentence naming the position, then the expression
    and a caret under that position on the following lines.

    ``position`` is the 0-based offset into ``expression``; ``column`` is 1-based.
    """

    def __init__(self, message: str, position: int, expression: str = "") -> None:
        self.message = message
        self.position = max(0, min(position, len(expression)) if expression else position)
        self.expression = expression
        super().__init__(self._render())

    @property
    def column(self) -> int:
        return self.position + 1

    def _render(self) -> str:
        msg = self.message.rstrip(".")
        head = f"Bad --where expression at position {self.column}: {msg}."
        if not self.expression:
            return head
        shown, caret = _echo(self.expression, self.position)
        return f"{head}\n  {shown}\n  {' ' * caret}^"


def _echo(expr: str, position: int, limit: int = 100) -> tuple[str, int]:
    """The expression as a safe single line (control characters shown as ``?``), cut to
    ``limit`` characters around ``position``; and the caret's offset in it."""
    start = 0
    if len(expr) > limit:
        start = max(0, min(position - limit // 2, len(expr) - limit))
    piece = expr[start:start + limit]
    safe = "".join(c if c.isprintable() else "?" for c in piece)
    prefix = "..." if start else ""
    suffix = "..." if start + limit < len(expr) else ""
    return prefix + safe + suffix, len(prefix) + (position - start)
