"""Progress of an export's readers, told through small files in a shared folder.

Each reader (a Spark task, in another process or on another machine) writes
``<folder>/<partition>.json`` after every batch (``{"qmgr", "queue", "source", "read",
"done"}``, replaced atomically); the driver reads the folder to show "messages read, per
queue". A cluster reaches the folder as it reaches the snapshot (shared storage); when it
cannot, only the progress is missing, never data.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(slots=True)
class Progress:
    qmgr: str
    queue: str
    source: str
    read: int = 0
    done: bool = False


class ProgressWriter:
    def __init__(self, folder: str | None, partition: int) -> None:
        self.path = None if not folder else Path(folder) / f"{partition}.json"

    def write(self, progress: Progress) -> None:
        if self.path is None:
            return
        tmp = self.path.with_suffix(".tmp")
        with contextlib.suppress(OSError):  # progress is a courtesy: never fail a read for it
            tmp.write_text(json.dumps({"qmgr": progress.qmgr, "queue": progress.queue,
                                       "source": progress.source, "read": progress.read,
                                       "done": progress.done}))
            os.replace(tmp, self.path)


def read_progress(folder: str | os.PathLike[str]) -> dict[int, Progress]:
    """Every partition's last word, by partition number."""
    out: dict[int, Progress] = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if not entry.name.endswith(".json"):
                continue
            try:
                data = json.loads(Path(entry.path).read_text())
                out[int(entry.name[:-5])] = Progress(
                    str(data["qmgr"]), str(data["queue"]), str(data["source"]),
                    int(data["read"]), bool(data["done"]))
            except (OSError, ValueError, KeyError, TypeError):
                continue  # being replaced right now: the next look sees it
    return out


__all__ = ["Progress", "ProgressWriter", "read_progress"]
