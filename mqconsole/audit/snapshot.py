"""Opening a snapshot folder for the report and ``audit sql``.

A snapshot (audit.md) is a folder, named by a URI (``store.py``) and read through a store
(the client's disk only for a ``file:`` snapshot of a classic session): ``manifest.json``
and the Parquet dataset partitioned by ``queue`` and ``put_date`` — either in the folder
itself or in its ``messages/`` subfolder — plus ``_summary/`` (:mod:`.summary`) when the
export stored its aggregates. The manifest is required: the export writes it last, so a
folder without one (an export killed after Spark wrote its data) is not a snapshot.
Anything else is refused with one sentence (exit 2) before Spark reads a byte.

Partition columns are read as the strings they are (a queue named ``007`` stays ``007``):
partition type inference is turned off, and ``put_date`` is cast back to a date.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqconsole.audit.columns import COLUMNS, PAYLOAD, SCHEMA_VERSION
from mqconsole.audit.errors import AuditInputError, first_line
from mqconsole.audit.store import LocalStore, Store, display, has_scheme, join, op, to_uri

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

MANIFEST = "manifest.json"
COMMIT_MARKER = "_SUCCESS"  # written by the export after the manifest: the commit
DATA_DIR = "messages"
SUMMARY_DIR = "_summary"  # the stored aggregates (summary.py)
SUMMARY_FILE = "summary.json"  # their description, in SUMMARY_DIR
VIEW = "messages"

# The snapshot's fixed columns (audit.md); any other column is a plugin's audit column.
FIXED_COLUMNS = (*COLUMNS, PAYLOAD[0])


@dataclass
class SnapshotFolder:
    """Where a snapshot's parts are (URIs), checked through ``store``; not yet read."""

    root: str
    data: str
    manifest: dict[str, Any] = field(default_factory=dict)
    store: Store | None = None
    texts: dict[str, str | None] = field(default_factory=dict)
    """The snapshot's small files read when it was opened (URI: text, None when missing)."""
    listing: dict[str, int] | None = None
    """Every file under ``data`` when it was opened (path relative to it → bytes; the
    store's listing), for a snapshot whose manifest lists its files; None otherwise."""

    @property
    def where(self) -> str:
        """How a sentence names the snapshot."""
        return display(self.root)

    @property
    def summary_dir(self) -> str:
        return join(self.root, SUMMARY_DIR)

    def read_text(self, uri: str) -> str | None:
        """A small file of the snapshot: as read when it was opened, else through its store
        (a committed snapshot does not change)."""
        if uri in self.texts:
            return self.texts[uri]
        return (self.store or LocalStore()).read_text(uri)

    @property
    def files(self) -> list[str] | None:
        """The data files the manifest lists (relative to ``data``); None for a snapshot of
        schema 1, which lists none (the whole folder is read)."""
        listed = self.manifest.get("files")
        if listed is None:
            return None
        return [str(f["path"]) for f in listed]

    @property
    def present(self) -> list[str] | None:
        """The listed data files that are there (all of them, when the folder was not
        listed): what a reader reads. Never a file the manifest does not list: a file
        dropped into the folder later is not the snapshot's."""
        listed = self.files
        if listed is None or self.listing is None:
            return listed
        return [p for p in listed if p in self.listing]

    @property
    def missing(self) -> list[str]:
        """The listed data files that are not there."""
        listed, present = self.files or [], set(self.present or ())
        return [p for p in listed if p not in present]


def locate(path: str | Path, store: Store | None = None) -> SnapshotFolder:
    """Check that ``path`` (a path or URI) is a snapshot folder, through ``store`` (by
    default the local disk, for a ``file:`` snapshot); :class:`AuditInputError` naming it
    if not. What it reads there (the manifest, the commit marker, the stored aggregates'
    description, whether the data folder is there, the data folder's listing) is read in
    one :meth:`Store.many`: one Spark job over Spark Connect (a second one lists the
    folder itself where its manifest lists files kept there, not in ``messages/``)."""
    root = to_uri(path)
    if store is None:
        store = LocalStore()
    where = display(root)
    manifest_uri, marker_uri = join(root, MANIFEST), join(root, COMMIT_MARKER)
    summary_uri, data_dir = join(root, SUMMARY_DIR, SUMMARY_FILE), join(root, DATA_DIR)
    text, marker, summary, has_data_dir, there, is_folder, listing = store.many([
        op("read_text", uri=manifest_uri), op("read_text", uri=marker_uri),
        op("read_text", uri=summary_uri), op("is_dir", uri=data_dir),
        op("exists", uri=root), op("is_dir", uri=root), op("sizes", uri=data_dir)])
    if text is None:
        if not there:
            raise AuditInputError(f"snapshot folder {where} does not exist "
                                  "(write one with 'mqconsole audit export --out DIR')")
        if not is_folder:
            raise AuditInputError(f"{where} is a file, not a snapshot folder")
        # written last: without it the export did not end
        raise AuditInputError(f"{where} has no {MANIFEST}: not a finished audit snapshot (an "
                              "export that was stopped leaves none; export again)")
    try:
        manifest = json.loads(text)
    except ValueError as e:
        raise AuditInputError(f"{where}/{MANIFEST} cannot be read: {e}") from None
    if not isinstance(manifest, dict):
        raise AuditInputError(f"{where}/{MANIFEST} is not a snapshot manifest")
    check_schema_version(manifest, f"{where}/{MANIFEST}")
    check_committed(root, manifest, store, marked=marker is not None)
    data = data_dir if has_data_dir else root
    fmt = str(manifest.get("format", "parquet"))
    if fmt != "parquet":
        raise AuditInputError(f"{where} is a {fmt} snapshot; the report and 'audit sql' read "
                              "Parquet snapshots (export again with --format parquet)")
    # a committed manifest listing no file is the export of empty queues: a snapshot of
    # no rows; a folder of schema 1 (no list) must hold Parquet files
    if manifest.get("files") is None and not _has_parquet(store, data):
        raise AuditInputError(f"{where} holds no Parquet files: not an audit snapshot")
    if manifest.get("files") is None:
        listing = None  # schema 1: the folder is read whole
    elif not has_data_dir:  # the data in the folder itself
        listing = store.sizes(root)
    return SnapshotFolder(root=root, data=data, manifest=manifest, store=store, texts={
        manifest_uri: text, marker_uri: marker, summary_uri: summary},
        listing=None if listing is None else {str(k): int(v) for k, v in listing.items()})


def unreadable(path: str | Path) -> str:
    """How the sentence begins when Spark cannot read the snapshot at ``path`` (a path or
    URI): the report's, ``audit sql``'s and the console's, one wording."""
    return f"{display(to_uri(path))} cannot be read as a snapshot"


def open_snapshot(spark: SparkSession, path: str | Path | SnapshotFolder) -> SnapshotFolder:
    """:func:`locate` through the store that reaches the snapshot from ``spark``'s driver
    (Hadoop's file systems; over Spark Connect, the server's); a folder already opened is
    given back as it is (the CLI's report opens it once for its notes and its report)."""
    from mqconsole.audit.stores import store_for

    if isinstance(path, SnapshotFolder):
        return path
    return locate(path, store_for(spark, to_uri(path)))


def precheck(path: str | Path, remote: bool) -> SnapshotFolder | None:
    """:func:`locate` before Spark starts, where this process can look (a ``file:``
    snapshot of a classic session): a bad folder is said before a JVM starts. None where
    only Spark can look (checked when it has started)."""
    from mqconsole.audit.store import scheme_of

    if remote or scheme_of(to_uri(path)) != "file":
        return None
    return locate(path)


def _has_parquet(store: Store, folder: str, depth: int = 4) -> bool:
    for name in store.children(folder):
        if name.startswith((".", "_")):
            continue
        if name.endswith(".parquet"):
            return True
        if depth and "=" in name and _has_parquet(store, join(folder, name), depth - 1):
            return True
    return False


def check_schema_version(manifest: dict[str, Any], where: str | Path) -> None:
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


def check_committed(root: str, manifest: dict[str, Any], store: Store,
                    marked: bool | None = None) -> None:
    """A snapshot that lists its files must carry the commit marker written after its
    manifest, and list every file as ``{"path", "rows"}``; :class:`AuditInputError`.
    ``marked``: whether the marker is there, when it was looked for already."""
    listed = manifest.get("files")
    if listed is None:
        return  # schema 1: no list, no marker
    where = display(root)
    if not isinstance(listed, list) or not all(
            isinstance(f, dict) and isinstance(f.get("path"), str)
            and isinstance(f.get("rows"), int) for f in listed):
        raise AuditInputError(f"{where}/{MANIFEST} does not list its files as a snapshot's "
                              "manifest does")
    if any(f["path"].startswith("/") or ".." in f["path"].split("/") or has_scheme(f["path"])
           for f in listed):
        raise AuditInputError(f"{where}/{MANIFEST} lists a file outside the snapshot")
    if marked is None:
        marked = store.read_text(join(root, COMMIT_MARKER)) is not None
    if not marked:
        raise AuditInputError(f"{where} has no {COMMIT_MARKER}: its export did not commit it "
                              "(export again)")


def read_messages(spark: SparkSession, folder: SnapshotFolder,
                  files: list[str] | None = None) -> DataFrame:
    """The snapshot as a DataFrame, registered as the ``messages`` view: the files its
    manifest lists that are there (:attr:`SnapshotFolder.present`; ``files``: those
    given). A listed file that is missing is said by :func:`missing_note`."""
    # partition folders are read as the strings they are: a queue named 007 stays 007
    spark.conf.set("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
    listed = folder.present if files is None else files  # only what the commit names
    # empty queues were exported: no file, the manifest's columns
    empty = manifest_ddl(folder) if listed == [] else None
    try:
        if empty is not None:
            frame = spark.createDataFrame([], empty)
        else:
            paths = [join(folder.data, f) for f in listed] if listed else [folder.data]
            frame = data_reader(spark, folder, listed=bool(listed)).parquet(*paths)
        if "put_date" in frame.columns:
            # the frame's own column, not functions.col: the same code on Spark Connect
            frame = frame.withColumn("put_date", frame["put_date"].cast("date"))
        missing = [c for c in ("qmgr", "queue", "msg_id", "put_time", "length")
                   if c not in frame.columns]
    except Exception as e:
        raise AuditInputError(f"{unreadable(folder.root)}: {first_line(e)}") from None
    if missing:
        raise AuditInputError(f"{folder.where} is not an audit snapshot (no column "
                              f"{', '.join(missing)})")
    frame.createOrReplaceTempView(VIEW)
    return frame


def data_reader(spark: SparkSession, folder: SnapshotFolder, listed: bool = True) -> Any:
    """Spark's reader of the snapshot's data files (partition columns from the folders
    under ``data``); for the files a committed manifest lists (``listed``), with the
    columns it names: no file's footer is read to learn them."""
    reader = spark.read.option("basePath", folder.data)
    if listed and folder.files is not None:
        with contextlib.suppress(AuditInputError):  # (no columns listed: Spark reads them)
            reader = reader.schema(manifest_ddl(folder))
    return reader


def missing_note(folder: SnapshotFolder) -> str | None:
    """What a reader of the snapshot says when files its manifest lists are not there (it
    reads the others); None when every one is."""
    missing = folder.missing
    if not missing:
        return None
    return (f"the snapshot's data disagrees with its manifest ({missing_files(missing)}): "
            "reading the files that are there")


def missing_files(missing: list[str]) -> str:
    """How a sentence says which listed data files are not there (``missing``: one or
    more)."""
    more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
    return f"{missing[0]}{more} listed in the manifest is missing"


def manifest_ddl(folder: SnapshotFolder) -> str:
    """The snapshot's columns as its manifest names them, as Spark DDL (``name type, ...``):
    the schema of a snapshot of no rows, which has no file to read it from."""
    columns = folder.manifest.get("columns")
    if not (isinstance(columns, list) and columns and all(
            isinstance(c, dict) and isinstance(c.get("name"), str)
            and isinstance(c.get("type"), str) for c in columns)):
        raise AuditInputError(f"{folder.where}/{MANIFEST} lists no file and no columns: "
                              "not a snapshot's manifest")
    return ", ".join("`" + c["name"].replace("`", "``") + "` " + c["type"] for c in columns)


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
