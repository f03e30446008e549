"""Opening a snapshot folder for the report and ``audit sql``.

A snapshot (audit.md) is a folder: ``manifest.json`` and the Parquet dataset partitioned by
``queue`` and ``put_date`` — either in the folder itself or in its ``messages/`` subfolder —
plus ``_summary/`` (:mod:`.summary`) when the export stored its aggregates. The manifest
is required: the export writes it last, so a folder without one (an export killed after
Spark wrote its data) is not a snapshot. Anything else is refused with one sentence (exit
2) before Spark reads a byte.

Partition columns are read as the strings they are (a queue named ``007`` stays ``007``):
partition type inference is turned off, and ``put_date`` is cast back to a date.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqconsole.audit.columns import COLUMNS, PAYLOAD, SCHEMA_VERSION
from mqconsole.audit.errors import AuditInputError, first_line

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

MANIFEST = "manifest.json"
COMMIT_MARKER = "_SUCCESS"  # written by the export after the manifest: the commit
DATA_DIR = "messages"
VIEW = "messages"

# The snapshot's fixed columns (audit.md); any other column is a plugin's audit column.
FIXED_COLUMNS = (*COLUMNS, PAYLOAD[0])
# When the message reached the queue it was read from (audit.md, age buckets).
ARRIVAL_SQL = "coalesce(dlh_put_time, put_time)"


@dataclass
class SnapshotFolder:
    """Where a snapshot's parts are; checked, not yet read."""

    root: Path
    data: Path
    manifest: dict[str, Any] = field(default_factory=dict)

    @property
    def summary_dir(self) -> Path:
        return self.root / "_summary"

    @property
    def files(self) -> list[str] | None:
        """The data files the manifest lists (relative to ``data``); None for a snapshot of
        schema 1, which lists none (the whole folder is read)."""
        listed = self.manifest.get("files")
        if listed is None:
            return None
        return [str(f["path"]) for f in listed]


def locate(path: str | Path) -> SnapshotFolder:
    """Check that ``path`` is a snapshot folder; :class:`AuditInputError` naming it if not."""
    root = Path(path).expanduser()
    if not root.exists():
        raise AuditInputError(f"snapshot folder {root} does not exist "
                              "(write one with 'mqconsole audit export --out DIR')")
    if not root.is_dir():
        raise AuditInputError(f"{root} is a file, not a snapshot folder")
    if not (root / MANIFEST).is_file():  # written last: without it the export did not end
        raise AuditInputError(f"{root} has no {MANIFEST}: not a finished audit snapshot (an "
                              "export that was stopped leaves none; export again)")
    try:
        manifest = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise AuditInputError(f"{root / MANIFEST} cannot be read: {e}") from None
    if not isinstance(manifest, dict):
        raise AuditInputError(f"{root / MANIFEST} is not a snapshot manifest")
    check_schema_version(manifest, root / MANIFEST)
    check_committed(root, manifest)
    data = root / DATA_DIR if (root / DATA_DIR).is_dir() else root
    fmt = str(manifest.get("format", "parquet"))
    if fmt != "parquet":
        raise AuditInputError(f"{root} is a {fmt} snapshot; the report and 'audit sql' read "
                              "Parquet snapshots (export again with --format parquet)")
    if not any(p.suffix == ".parquet" for p in data.rglob("*.parquet")):
        raise AuditInputError(f"{root} holds no Parquet files: not an audit snapshot")
    return SnapshotFolder(root=root, data=data, manifest=manifest)


def check_schema_version(manifest: dict[str, Any], where: Path) -> None:
    """A manifest's ``schema_version`` this mqconsole reads (1 to ``SCHEMA_VERSION``);
    :class:`AuditInputError` naming it otherwise."""
    version = manifest.get("schema_version", SCHEMA_VERSION)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise AuditInputError(f"{where} has schema_version {version!r}, not a snapshot "
                              "schema version (a whole number from 1)")
    if version > SCHEMA_VERSION:
        raise AuditInputError(f"{where} is a snapshot of schema version {version}, written by "
                              f"a newer mqconsole; this one reads up to version "
                              f"{SCHEMA_VERSION} (upgrade mqconsole)")


def check_committed(root: Path, manifest: dict[str, Any]) -> None:
    """A snapshot that lists its files must carry the commit marker written after its
    manifest, and list every file as ``{"path", "rows"}``; :class:`AuditInputError`."""
    listed = manifest.get("files")
    if listed is None:
        return  # schema 1: no list, no marker
    if not isinstance(listed, list) or not all(
            isinstance(f, dict) and isinstance(f.get("path"), str)
            and isinstance(f.get("rows"), int) for f in listed):
        raise AuditInputError(f"{root / MANIFEST} does not list its files as a snapshot's "
                              "manifest does")
    if any(Path(f["path"]).is_absolute() or ".." in Path(f["path"]).parts for f in listed):
        raise AuditInputError(f"{root / MANIFEST} lists a file outside the snapshot")
    if not (root / COMMIT_MARKER).is_file():
        raise AuditInputError(f"{root} has no {COMMIT_MARKER}: its export did not commit it "
                              "(export again)")


def read_messages(spark: SparkSession, folder: SnapshotFolder,
                  files: list[str] | None = None) -> DataFrame:
    """The snapshot as a DataFrame, registered as the ``messages`` view: the files its
    manifest lists (``files``: those of them, when some are missing)."""
    # partition folders are read as the strings they are: a queue named 007 stays 007
    spark.conf.set("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
    try:
        listed = folder.files if files is None else files  # only what the commit names
        paths = [str(folder.data / f) for f in listed] if listed else [str(folder.data)]
        frame = spark.read.option("basePath", str(folder.data)).parquet(*paths)
        if "put_date" in frame.columns:
            # the frame's own column, not functions.col: the same code on Spark Connect
            frame = frame.withColumn("put_date", frame["put_date"].cast("date"))
        missing = [c for c in ("qmgr", "queue", "msg_id", "put_time", "length")
                   if c not in frame.columns]
    except Exception as e:
        raise AuditInputError(f"{folder.root} cannot be read as a snapshot: "
                              f"{first_line(e)}") from None
    if missing:
        raise AuditInputError(f"{folder.root} is not an audit snapshot (no column "
                              f"{', '.join(missing)})")
    frame.createOrReplaceTempView(VIEW)
    return frame


def snapshot_notes(folder: SnapshotFolder) -> list[str]:
    """What the export said about its snapshot: queues that changed while they were read
    (rows read not the depth at the start and end), a read done again."""
    notes = [str(s["changed"]) for s in folder.manifest.get("sources") or []
             if isinstance(s, dict) and s.get("changed")]
    notes += [str(n) for n in folder.manifest.get("notes") or [] if str(n) not in notes]
    return notes


def plugin_columns(columns: list[str]) -> list[str]:
    """The plugins' audit columns among ``columns`` (those audit.md does not fix)."""
    return [c for c in columns if c not in FIXED_COLUMNS]
