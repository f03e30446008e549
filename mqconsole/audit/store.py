"""Where a snapshot lives: a URI, and the few file operations the audit does there.

A snapshot is named by a URI Spark's Hadoop reaches: ``file:``, ``hdfs:``, and ``s3a:``,
``abfss:``, ``gs:`` where the site adds the connector. A path without a scheme is made an
absolute ``file:`` URI here, on the client (:func:`to_uri`), before it reaches Spark, so a
relative ``--in`` means the client's folder, never the server's working folder. A URI is a
Hadoop path string, literal as Spark takes it (``a%20b`` names the folder ``a%20b``); only a
data file's URI as Spark lists it is decoded, once (:func:`spark_path`).

The export and the report do their file operations (the manifest, the commit marker, the
stored aggregates' ``summary.json``, listing, publishing) through a :class:`Store` chosen by
:func:`mqconsole.audit.stores.store_for`:

- :class:`LocalStore` — a ``file:`` snapshot with a classic session: the driver is this
  process, and its local file system is what Hadoop's ``file:`` means to it. Claims and
  publishes with an atomic ``mkdir`` and ``rename``; holds its staging folder with a lock.
- :class:`HadoopStore` — any other URI with a classic session: Hadoop's ``FileSystem`` in
  the driver's JVM (the site's Hadoop settings and connectors). Publishes by a rename that
  refuses an existing target (``FileContext``, ``Options.Rename.NONE``: atomic on HDFS)
  where the file system renames folders atomically; on an object store (no atomic rename)
  the snapshot is written in place and committed by its marker, written last.
- :class:`ServerStore` (``serverstore.py``) — Spark Connect: the operations run on the
  server's side (a ``file:`` snapshot's in small Spark jobs on its executors, another URI's
  by mqconsole's plugin on its driver: ``storeplugin.py``); the client never opens a file
  of the snapshot.
"""

from __future__ import annotations

import contextlib
import json
import os
import posixpath
import re
import shutil
import time
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
# file systems whose folder rename is atomic and refuses an existing target
ATOMIC_RENAME = ("file", "hdfs", "viewfs", "webhdfs", "swebhdfs", "o3fs", "ofs")
LOCK = ".lock"

# A running export proves it lives by a heartbeat (heartbeat.py): the file HEARTBEAT in its
# staging folder (or, writing in place, in --out beside its claim), written again through
# its store every BEAT_SECONDS. Another export, or `audit clean`, takes the folder for a
# killed export's once the heartbeat's own modification time (the file system's clock, as
# Store.age reads it: no time written by the exporting machine is trusted) is older than
# the bound the heartbeat declares: STALE_SECONDS (20 missed beats: a few late ones, and a
# few minutes of clock difference between the judging machine and the file system, cost
# nothing) where beats are written by the driver itself, QUEUED_STALE_SECONDS where they are
# Spark jobs that can wait for an executor (serverstore.py). A folder without a heartbeat
# (an older version's, or a beat being rewritten) falls back to its own age against
# LEFTOVER_SECONDS. LocalStore (the driver's own disk) holds a lock, which is exact.
HEARTBEAT = "_HEARTBEAT"
BEAT_SECONDS = 30.0
STALE_SECONDS = 10 * 60
QUEUED_STALE_SECONDS = 6 * 3600
LEFTOVER_SECONDS = 24 * 3600  # a folder without a heartbeat (or a lock) this old was abandoned


class OutTaken(FileExistsError):
    """The name a snapshot is published under was taken meanwhile."""


def has_scheme(text: str) -> bool:
    return bool(_SCHEME.match(text)) and not re.match(r"^[A-Za-z]:[\\/]", text)


def _parts(uri: str) -> tuple[str, str | None, str]:
    """``uri``'s scheme (lower case, "" for none), authority (None for none) and path, as
    Hadoop's ``Path`` reads the string: every character after the authority is the path's
    own (a ``%`` is a ``%``, a ``?`` or ``#`` is part of a name), nothing is decoded."""
    scheme, rest = "", uri
    if has_scheme(uri):
        scheme, _, rest = uri.partition(":")
    authority = None
    if rest.startswith("//") and len(rest) > 2:
        end = rest.find("/", 2)
        end = len(rest) if end < 0 else end
        authority, rest = rest[2:end], rest[end:]
    return scheme.lower(), authority, rest


def to_uri(text: str | os.PathLike[str]) -> str:
    """``text`` as an absolute URI: a URI with a scheme as given (``file:`` ones made
    ``file:///abs``), a path made absolute against this process's folder, as ``file:``.

    A URI here is a Hadoop path string, read as Spark reads it (``Path``): literal, no
    escapes (``/data/a%20b`` is the folder named ``a%20b``, as Spark writes it); so
    ``to_uri(to_uri(x)) == to_uri(x)``."""
    raw = os.fspath(text)
    if has_scheme(raw):
        scheme, _authority, path = _parts(raw)
        if scheme != "file":
            return raw.rstrip("/") if raw.rstrip("/").count("/") > 2 else raw
        raw = path or "/"
    path = os.path.normpath(os.path.abspath(os.path.expanduser(raw)))
    return "file://" + path


def scheme_of(uri: str) -> str:
    return urlparse(uri).scheme.lower()


def local_path(uri: str) -> str | None:
    """The path of a ``file:`` URI (literal: :func:`to_uri`), else None."""
    scheme, _authority, path = _parts(uri)
    return path if scheme == "file" else None


def display(uri: str) -> str:
    """How a sentence names ``uri``: a ``file:`` URI by its path."""
    return local_path(uri) or uri


def join(uri: str, *parts: str) -> str:
    return "/".join([uri.rstrip("/"), *(p.strip("/") for p in parts if p)])


def parent(uri: str) -> str:
    scheme, authority, path = _parts(uri)
    folder = posixpath.dirname(path.rstrip("/")) or "/"
    if scheme == "file":
        return "file://" + folder
    return f"{scheme}:" + ("" if authority is None else f"//{authority}") + folder


def name_of(uri: str) -> str:
    return posixpath.basename(_parts(uri)[2].rstrip("/"))


def _under(inner: str, root: str) -> str | None:
    inner, base = posixpath.normpath(inner), posixpath.normpath(_parts(root)[2])
    if inner == base or not inner.startswith(base.rstrip("/") + "/"):
        return None
    return inner[len(base.rstrip("/")) + 1:]


def relative(uri: str, root: str) -> str | None:
    """``uri`` relative to the folder ``root``, or None when it is not under it; both this
    module's URIs (literal Hadoop path strings, as :func:`to_uri` gives them and Hadoop's
    ``Path.toString()`` does)."""
    return _under(_parts(uri)[2], root)


def spark_path(file_uri: str) -> str:
    """The path of a data file's URI as Spark lists it (``input_file_name()``,
    ``DataFrame.inputFiles()``: ``Path.toUri()``, a real URI whose ``%`` is written
    ``%25``), decoded once: the file's literal path (a partition folder ``queue=A%2FB``,
    Spark's own escape of the queue ``A/B``, stays ``queue=A%2FB``)."""
    return unquote(urlparse(file_uri).path)


def spark_relative(file_uri: str, root: str) -> str | None:
    """A data file Spark listed (``file_uri``, :func:`spark_path`) relative to the folder
    ``root`` (one of this module's URIs, literal), or None when it is not under it."""
    return _under(spark_path(file_uri), root)


OPERATIONS = ("read_text", "exists", "is_dir", "write_new", "write_bytes", "mkdirs", "remove",
              "children", "sizes", "age", "make_private", "publish")
"""The operations :meth:`Store.many` takes, by the name of their method."""

Op = tuple[str, dict[str, Any]]
"""One operation for :meth:`Store.many`: its method's name and keyword arguments."""


def op(name: str, **args: Any) -> Op:
    """``op("read_text", uri=...)``: one of :data:`OPERATIONS` for :meth:`Store.many`."""
    if name not in OPERATIONS:
        raise ValueError(f"{name} is not a store operation")
    return name, args


class Store:
    """The file operations of a snapshot; URIs in, URIs out."""

    def many(self, ops: Sequence[Op]) -> list[Any]:
        """Do ``ops`` in order, each as its method does it, and give their results; one that
        raises stops the rest (the error is its method's). A store whose every operation is
        a round trip (:class:`~.serverstore.ServerStore`: a Spark job each) does them in one:
        the snapshot's small files read in one go when it is opened, the commit's writes in
        one."""
        return [getattr(self, name)(**args) for name, args in ops]

    def renames(self, uri: str) -> bool:
        """Whether a staged folder can be published by an atomic rename here."""
        return scheme_of(uri) in ATOMIC_RENAME

    def read_text(self, uri: str) -> str | None:
        """The file's text, or None when there is no such file."""
        raise NotImplementedError

    def exists(self, uri: str) -> bool:
        raise NotImplementedError

    def is_dir(self, uri: str) -> bool:
        raise NotImplementedError

    def write_new(self, uri: str, text: str) -> None:
        """Create the file with ``text``, 0600; FileExistsError when it exists."""
        raise NotImplementedError

    def write_bytes(self, uri: str, data: bytes) -> None:
        """Create the file (and its folders) with ``data``, 0600; FileExistsError when it
        exists: the stored aggregates' Parquet files, written by the driver."""
        raise NotImplementedError

    def mkdirs(self, uri: str) -> None:
        raise NotImplementedError

    def remove(self, uri: str) -> None:
        """Remove a file or a folder tree; nothing when it is not there."""
        raise NotImplementedError

    def children(self, uri: str) -> list[str]:
        """The names in a folder (none when it is not there)."""
        raise NotImplementedError

    def sizes(self, uri: str) -> dict[str, int]:
        """Every file under the folder ``uri`` (path relative to it) with its bytes; none
        when it is not there. A listing, no content read."""
        raise NotImplementedError

    def age(self, uri: str) -> float | None:
        """Seconds since the entry last changed, or None when it is not there."""
        raise NotImplementedError

    def make_private(self, uri: str) -> None:
        """Folders 0700 and files 0600 under ``uri``, checksum litter (``.*.crc``) gone."""
        raise NotImplementedError

    def publish(self, staged: str, out: str, replace: bool) -> None:
        """Put the committed folder ``staged`` at ``out``: :class:`OutTaken` when ``out``
        exists and not ``replace``."""
        raise NotImplementedError

    # a staging folder is held while its export runs, so the next export can tell a
    # killed export's leftovers from a running one's
    def hold(self, staged: str) -> Any:
        return None

    def release(self, held: Any, staged: str) -> None:
        return None

    def beat_bound(self, uri: str) -> float:
        """How long after its last beat an export writing its heartbeat to ``uri`` through
        this store may be taken for gone: written by this process itself (the driver's
        disk, its Hadoop), a beat is late only by a stall of the writing machine."""
        return STALE_SECONDS

    def abandoned(self, staged: str) -> bool:
        """Whether the export that staged ``staged`` is gone: its heartbeat older than the
        bound it declares, or (no heartbeat: an older version's folder) the folder older
        than :data:`LEFTOVER_SECONDS`; one round trip (:meth:`many`)."""
        beat = join(staged, HEARTBEAT)
        beat_age, beat_text, age = self.many([op("age", uri=beat), op("read_text", uri=beat),
                                              op("age", uri=staged)])
        return gone(beat_age, beat_text, age)


def heartbeat_text(stale_after: float, every: float = BEAT_SECONDS) -> str:
    """What a heartbeat holds: who writes it (host, process), when by the writer's clock
    (for a person reading it: the judgement reads the file's modification time), how
    often it is written and after how long without a beat its export may be taken for
    gone (``stale_after``, :meth:`Store.beat_bound`)."""
    import socket
    from datetime import UTC, datetime

    return json.dumps({"host": socket.gethostname(), "pid": os.getpid(),
                       "time": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
                       "every": every, "stale_after": stale_after}) + "\n"


def declared_bound(text: str | None) -> float:
    """The bound a heartbeat's text declares, kept between :data:`STALE_SECONDS` and
    :data:`LEFTOVER_SECONDS`; :data:`LEFTOVER_SECONDS` when the text cannot be read (gone
    or being rewritten between two looks, half written, not ours)."""
    try:
        declared = float(json.loads(text or "")["stale_after"])
    except (ValueError, TypeError, KeyError):
        return LEFTOVER_SECONDS
    if declared != declared:  # NaN
        return LEFTOVER_SECONDS
    return min(max(declared, STALE_SECONDS), LEFTOVER_SECONDS)


def gone(beat_age: float | None, beat_text: str | None, age: float | None) -> bool:
    """Whether an export is gone, from its heartbeat's age and text (as the store read
    them) or, without a heartbeat, the age of what it left (its staging folder, or its
    claim on an ``--out`` written in place) against :data:`LEFTOVER_SECONDS`."""
    if beat_age is None:
        return age is not None and age > LEFTOVER_SECONDS
    return beat_age > declared_bound(beat_text)


def _text(data: bytes, uri: str) -> str:
    """``data`` as UTF-8 text; else the OSError every store raises for it (the Connect
    plugin's too: ``EILSEQ``, "not UTF-8 text", the file), which the CLI says as "cannot use
    FILE: not UTF-8 text" (exit 2), not a decoding error's traceback."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        import errno

        raise OSError(errno.EILSEQ, "not UTF-8 text", display(uri)) from None


def _create(path: str, data: bytes) -> None:
    """A new local file holding ``data``, 0600 (FileExistsError where one is there)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                 0o600)
    with os.fdopen(fd, "wb") as fp:
        fp.write(data)


class LocalStore(Store):
    """A ``file:`` snapshot on the driver's own disk (a classic session)."""

    @staticmethod
    def _p(uri: str) -> str:
        path = local_path(uri)
        if path is None:
            raise ValueError(f"{uri} is not a file: URI")
        return path

    def read_text(self, uri: str) -> str | None:
        try:
            with open(self._p(uri), "rb") as fp:
                return _text(fp.read(), uri)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None

    def exists(self, uri: str) -> bool:
        return os.path.lexists(self._p(uri))

    def is_dir(self, uri: str) -> bool:
        return os.path.isdir(self._p(uri))

    def write_new(self, uri: str, text: str) -> None:
        _create(self._p(uri), text.encode("utf-8"))

    def write_bytes(self, uri: str, data: bytes) -> None:
        path = self._p(uri)
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        _create(path, data)

    def mkdirs(self, uri: str) -> None:
        os.makedirs(self._p(uri), mode=0o700, exist_ok=True)

    def remove(self, uri: str) -> None:
        path = self._p(uri)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)

    def children(self, uri: str) -> list[str]:
        try:
            return sorted(os.listdir(self._p(uri)))
        except OSError:
            return []

    def sizes(self, uri: str) -> dict[str, int]:
        root = self._p(uri)
        out = {}
        for folder, _dirs, names in os.walk(root):
            for name in names:
                path = os.path.join(folder, name)
                with contextlib.suppress(FileNotFoundError):
                    out[os.path.relpath(path, root).replace(os.sep, "/")] = os.path.getsize(path)
        return out

    def age(self, uri: str) -> float | None:
        try:
            return time.time() - os.lstat(self._p(uri)).st_mtime
        except OSError:
            return None

    def make_private(self, uri: str) -> None:
        for folder, _dirs, names in os.walk(self._p(uri)):
            os.chmod(folder, 0o700)
            for name in names:
                with contextlib.suppress(FileNotFoundError):
                    if name.startswith(".") and name.endswith(".crc"):
                        os.unlink(os.path.join(folder, name))
                    else:
                        os.chmod(os.path.join(folder, name), 0o600)

    def publish(self, staged: str, out: str, replace: bool) -> None:
        tmp, target = self._p(staged), self._p(out)
        if replace:
            _move_into_place(tmp, target)
            return
        try:  # claim the name atomically, then rename onto the empty folder claimed
            os.mkdir(target, 0o700)
        except FileExistsError:
            raise OutTaken(target) from None
        try:
            os.rename(tmp, target)
        except OSError:
            with contextlib.suppress(OSError):
                os.rmdir(target)
            raise

    def hold(self, staged: str) -> int:
        import fcntl

        fd = os.open(os.path.join(self._p(staged), LOCK),
                     os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        return fd

    def release(self, held: Any, staged: str) -> None:
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(self._p(staged), LOCK))
        if held is not None:
            with contextlib.suppress(OSError):
                os.close(held)

    def abandoned(self, staged: str) -> bool:
        """Its lock can be taken (the export holding it is gone); without a lock, its
        heartbeat has stopped (:meth:`Store.abandoned`: an export whose process is on
        another machine, a Connect server's executors writing to a shared folder, holds no
        lock here and its process cannot be asked); without either, the process its name
        carries is gone."""
        import fcntl

        folder = self._p(staged)
        try:
            fd = os.open(os.path.join(folder, LOCK), os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            if os.path.lexists(os.path.join(folder, HEARTBEAT)):
                return super().abandoned(staged)
            pid = os.path.basename(folder).rsplit(".tmp-", 1)[-1].split("-", 1)[0]
            if not pid.isdigit() or len(pid) == 12:
                return True  # an older version's folder (no lock, no pid in the name)
            try:
                os.kill(int(pid), 0)
            except ProcessLookupError:
                return True
            except OSError:
                return False
            return False
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # a running export holds it
        finally:
            os.close(fd)
        return True


def _move_into_place(tmp: str, out: str) -> None:
    """``--replace``: the old snapshot goes only once the new one is in place."""
    if not os.path.lexists(out):
        os.rename(tmp, out)
        return
    old = os.path.join(os.path.dirname(out),
                       f".{os.path.basename(out)}.old-{uuid.uuid4().hex[:12]}")
    os.rename(out, old)
    try:
        os.rename(tmp, out)
    except OSError:
        os.rename(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)


class HadoopStore(Store):
    """Hadoop's ``FileSystem`` in the driver's JVM (a classic session)."""

    def __init__(self, spark: SparkSession) -> None:
        self.jvm: Any = spark._jvm
        self.gateway: Any = spark.sparkContext._gateway
        self.conf: Any = spark._jsc.hadoopConfiguration()

    def _fs(self, uri: str) -> tuple[Any, Any]:
        path = self.jvm.org.apache.hadoop.fs.Path(uri)
        fs = path.getFileSystem(self.conf)
        if fs.getClass().getName() == "org.apache.hadoop.fs.LocalFileSystem":
            fs = fs.getRawFileSystem()  # no .crc files beside ours
        return fs, path

    def _perm(self, text: str) -> Any:
        return self.jvm.org.apache.hadoop.fs.permission.FsPermission.valueOf(text)

    @staticmethod
    def _missing(error: Exception) -> bool:
        java = getattr(error, "java_exception", None)
        name = java.getClass().getName() if java is not None else ""
        return name.endswith("FileNotFoundException")

    def read_text(self, uri: str) -> str | None:
        fs, path = self._fs(uri)
        try:
            stream = fs.open(path)
        except Exception as e:
            if self._missing(e):
                return None
            raise
        try:
            data = self.jvm.org.apache.commons.io.IOUtils.toByteArray(stream)
        finally:
            stream.close()
        return _text(bytes(data), uri)

    def exists(self, uri: str) -> bool:
        fs, path = self._fs(uri)
        return bool(fs.exists(path))

    def is_dir(self, uri: str) -> bool:
        fs, path = self._fs(uri)
        try:
            return bool(fs.getFileStatus(path).isDirectory())
        except Exception as e:
            if self._missing(e):
                return False
            raise

    def write_new(self, uri: str, text: str) -> None:
        self._create(uri, text.encode("utf-8"))

    def write_bytes(self, uri: str, data: bytes) -> None:
        fs, path = self._fs(uri)
        fs.mkdirs(path.getParent(), self._perm("drwx------"))
        self._create(uri, data)

    def _create(self, uri: str, data: bytes) -> None:
        """A new file holding ``data`` (FileExistsError where one is there), private."""
        fs, path = self._fs(uri)
        try:
            out = fs.create(path, False)
        except Exception as e:
            java = getattr(e, "java_exception", None)
            if java is not None and "AlreadyExists" in java.getClass().getName():
                raise FileExistsError(uri) from None
            raise
        try:
            out.write(bytearray(data))
        finally:
            out.close()
        with contextlib.suppress(Exception):  # an object store has no permissions
            fs.setPermission(path, self._perm("-rw-------"))

    def mkdirs(self, uri: str) -> None:
        fs, path = self._fs(uri)
        fs.mkdirs(path, self._perm("drwx------"))

    def remove(self, uri: str) -> None:
        fs, path = self._fs(uri)
        with contextlib.suppress(Exception):
            fs.delete(path, True)

    def children(self, uri: str) -> list[str]:
        fs, path = self._fs(uri)
        try:
            return sorted(str(s.getPath().getName()) for s in fs.listStatus(path))
        except Exception as e:
            if self._missing(e):
                return []
            raise

    def sizes(self, uri: str) -> dict[str, int]:
        fs, root = self._fs(uri)
        try:
            found = fs.listFiles(root, True)
        except Exception as e:
            if self._missing(e):
                return {}
            raise
        out = {}
        while found.hasNext():
            status = found.next()
            # Path.toString(): the literal path, as Spark's writer named the folders
            inner = relative(str(status.getPath().toString()), uri)
            if inner is not None:
                out[inner] = int(status.getLen())
        return out

    def age(self, uri: str) -> float | None:
        fs, path = self._fs(uri)
        try:
            return time.time() - fs.getFileStatus(path).getModificationTime() / 1000
        except Exception as e:
            if self._missing(e):
                return None
            raise

    def make_private(self, uri: str) -> None:
        fs, root = self._fs(uri)
        files = self._perm("-rw-------")
        folders = self._perm("drwx------")
        pending = [root]
        while pending:
            folder = pending.pop()
            with contextlib.suppress(Exception):
                fs.setPermission(folder, folders)
            for status in fs.listStatus(folder):
                path = status.getPath()
                name = str(path.getName())
                if status.isDirectory():
                    pending.append(path)
                elif name.startswith(".") and name.endswith(".crc"):
                    fs.delete(path, False)
                else:
                    with contextlib.suppress(Exception):
                        fs.setPermission(path, files)

    def publish(self, staged: str, out: str, replace: bool) -> None:
        fs, target = self._fs(out)
        _fs, source = self._fs(staged)
        old = None
        if replace and fs.exists(target):
            old = self.jvm.org.apache.hadoop.fs.Path(
                join(parent(out), f".{name_of(out)}.old-{uuid.uuid4().hex[:12]}"))
            self._rename(source.getParent(), target, old)
        try:
            self._rename(source.getParent(), source, target)
        except OutTaken:
            raise
        except Exception:
            if old is not None:
                self._rename(source.getParent(), old, target)
            raise
        if old is not None:
            fs.delete(old, True)

    def _rename(self, where: Any, source: Any, target: Any) -> None:
        """Rename refusing an existing target (Hadoop's ``FileSystem.rename`` would move
        ``source`` inside an existing folder instead)."""
        hadoop = self.jvm.org.apache.hadoop.fs
        context = hadoop.FileContext.getFileContext(where.toUri(), self.conf)
        options = self.gateway.new_array(hadoop.Options.Rename, 1)
        options[0] = hadoop.Options.Rename.NONE
        try:
            context.rename(source, target, options)
        except Exception as e:
            java = getattr(e, "java_exception", None)
            if java is not None and "AlreadyExists" in java.getClass().getName():
                raise OutTaken(str(target.toString())) from None
            raise


__all__ = ["ATOMIC_RENAME", "BEAT_SECONDS", "HEARTBEAT", "LEFTOVER_SECONDS", "OPERATIONS",
           "QUEUED_STALE_SECONDS", "STALE_SECONDS", "HadoopStore", "LocalStore", "Op",
           "OutTaken", "Store", "declared_bound", "display", "gone", "has_scheme",
           "heartbeat_text", "join", "local_path", "name_of", "op", "parent", "relative",
           "scheme_of", "spark_path", "spark_relative", "to_uri"]
