"""Files a reader likes (issue 25 item 6): a queue's rows in few files of at least the
target size, not many small ones.

Each task of the export writes its own file per queue it holds (no shuffle before the
write), so a queue read in stretches, decoded by every task or read from pieces of a file
lands in one file per task: small files when the queue is small or the cluster is wide.
After the write, before the commit counts anything, a queue whose files are more than its
bytes need — more than ``max(1, bytes // target)`` — is written again as that many files
(rows sorted by put time within each, as the export writes them), in one Spark job for
every such queue, and put in place of its files. The target is 64 MiB, or a site's
``--conf spark.mqconsole.targetFileBytes=SIZE`` (0: never compact).

No rename, so an object store (``s3a:``, ``abfss:``, ``gs:``) compacts as a disk does: the
new files are appended to the queue's partition folder (named after Spark's write job, so
never an old file's name) and the old ones then removed, best effort. The data folder is
not yet committed while this runs (a staging folder, or an ``--out`` claimed and without
its marker), so a crash in between leaves what the next export or ``audit clean`` removes;
an old file whose removal failed stays unlisted: the export counts only the files
:func:`compact` gives (:class:`Compacted`), its manifest lists those, and readers read only
what the manifest lists.

A queue in no more files than the read partitions it was read in (``keep``: the stretches
of an embedded queue, each of at least 100,000 messages, or the pieces of a saved file,
each of 32 MiB) is left as its readers wrote it: those files were written in parallel, each
sorted, and writing them again as one would cost a second read, sort and write of every
row in one task (about 35 s of CPU for 1M messages, more than a third of the export; the
bench in docs/benchmarks.md). Small files come from a read decoded by every task (a queue
of real MQ: each task writes a file of every queue it holds), and those are compacted.

Parquet snapshots only (the report's readers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .sqltext import sql_text
from .store import Store, join, op

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

TARGET_FILE_BYTES = 64 << 20


def wanted_files(total_bytes: int, target: int) -> int:
    """How many files a queue of ``total_bytes`` is written in: each at least ``target``
    (one when it is smaller)."""
    return max(1, total_bytes // target) if target > 0 else 0


def plan_compaction(sizes: dict[str, int], target: int, keep: Mapping[str, int] | None = None
                    ) -> dict[str, tuple[list[str], int]]:
    """The queues to write again: partition folder → (its files, how many files). ``sizes``
    maps each data file (a path under the data folder, ``queue=…/part-…``) to its bytes;
    ``keep``: queue → the files it may keep as written (its read partitions)."""
    if target <= 0:
        return {}
    by_folder: dict[str, list[str]] = {}
    for path in sorted(sizes):
        folder, _, _name = path.rpartition("/")
        by_folder.setdefault(folder, []).append(path)
    out = {}
    for folder, files in by_folder.items():
        want = wanted_files(sum(sizes[f] for f in files), target)
        if len(files) <= (keep or {}).get(queue_of(folder), 0):
            continue  # one file per read partition, written in parallel
        if len(files) > want:
            out[folder] = (files, want)
    return out


def parquet_files(sizes: Mapping[str, int]) -> dict[str, int]:
    """The data files of a listing of the data folder (``Store.sizes``: every file under
    it, relative path → bytes): the Parquet files inside a partition folder, none under a
    folder or of a name Spark hides (``_…``, ``.…``: ``_SUCCESS``, ``.….crc``)."""
    return {path: int(size) for path, size in sizes.items()
            if path.endswith(".parquet") and "/" in path
            and not any(part.startswith(("_", ".")) for part in path.split("/"))}


def compact(spark: SparkSession, store: Store, data: str, ddl: str, target: int,
            columns: Sequence[str], keep: Mapping[str, int] | None,
            sizes: Mapping[str, int]) -> Compacted | None:
    """Write again the queues whose files are too many for their bytes (see the module):
    the data files now (None when no queue was), of which the manifest lists them all.
    ``ddl``: the snapshot's schema (a queue named ``007`` stays a string); ``keep``: queue
    → files it may keep (``plan_compaction``); ``sizes``: the data files and their bytes
    (:func:`parquet_files` of the store's listing: the decision takes no Spark job).

    The new files are appended to the data folder (Spark names them after its write job:
    none is an old file's name) and the old ones removed, best effort, with the listing
    that tells the new ones in the same :meth:`Store.many` (one job over Spark Connect). No
    rename: the same on an object store as on a disk."""
    if target <= 0:
        return None
    todo = plan_compaction(dict(sizes), target, keep)
    if not todo:
        return None
    old = [f for files, _ in todo.values() for f in files]
    frame = spark.read.schema(ddl).option("basePath", data).parquet(
        *[join(data, f) for f in old])
    total = sum(want for _, want in todo.values())
    if total == 1:
        frame = frame.coalesce(1)  # one queue, one file: no shuffle
    else:  # each queue over its own buckets (a bucket per file it is to have)
        cases = " ".join(f"WHEN {sql_text(queue_of(folder))} THEN {want}"
                         for folder, (_, want) in todo.items())
        frame = (frame.selectExpr("*", f"pmod(position, CASE queue {cases} ELSE 1 END) "
                                        "AS `_bucket`")
                 .repartition(total, "queue", "_bucket"))
    (frame.select(*[f"`{c}`" for c in columns])
     .sortWithinPartitions("queue", "put_time", "position")
     .write.partitionBy("queue").mode("append").option("compression", "zstd").parquet(data))
    try:  # the old files go once the new ones are there
        listing = store.many([*(op("remove", uri=join(data, f)) for f in old),
                              op("sizes", uri=data)])[-1]
    except Exception:  # best effort: an old file left is not listed, nor read
        listing = store.sizes(data)
    now = parquet_files(listing)
    gone = set(old)
    return Compacted({f: n for f, n in now.items() if f not in gone},
                     sorted(gone.intersection(now)))


@dataclass(frozen=True)
class Compacted:
    """The data folder once compacted: ``files``, its data files and their bytes (the
    new ones in place of those written again); ``left``, old files a removal left there,
    which are not data (the export counts ``files`` only, and its manifest lists them)."""

    files: dict[str, int]
    left: list[str]


def queue_of(folder: str) -> str:
    """The queue a partition folder holds (``queue=A%2FB`` → ``A/B``: Spark escapes)."""
    from urllib.parse import unquote

    return unquote(folder.split("=", 1)[1])


__all__ = ["TARGET_FILE_BYTES", "Compacted", "compact", "parquet_files", "plan_compaction",
           "queue_of", "wanted_files"]
