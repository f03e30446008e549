"""One table of exit codes for every command (scripts depend on these numbers).

The table lives in ``mqconsole.ops.exit_codes`` (operations compute their exit code);
this module is where the CLI reads it.
"""

from __future__ import annotations

from mqconsole.ops.exit_codes import ExitCode

__all__ = ["ExitCode"]
