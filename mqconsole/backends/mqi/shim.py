"""The import shim: IBM's ``ibmmq`` first, ``pymqi`` second (docs/real-mq.md, "Which library").

Nothing here imports either library at import time: :func:`load` does, when an ``mq``
profile is opened. Both libraries are thin Python over one C extension that needs IBM's MQ
C client library (``libmqm_r.so``); when it is missing, ``ibmmq`` reports only
``No module named 'ibmmqc'`` (its fallback import hides the loader's error). :func:`load`
digs the real cause out of the exception chain (and by asking the dynamic loader itself)
and raises :class:`MQLibraryMissing` with one sentence saying what to install.

Constants come from the library that loaded (``CMQC``, ``CMQCFC``, ``CMQXC``), never from a
hand-copied table. ``MQCHT_*``, ``MQXPT_*`` and ``MQCD_VERSION_*`` are taken from ``CMQXC``:
ibmmq has them only there (portability rule 3).
"""

from __future__ import annotations

import ctypes
import importlib
import os
import sys
import threading
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from mqconsole.mq.errors import MQError
from mqconsole.mq.reasons import MQRC_Q_MGR_NOT_AVAILABLE

LIBRARIES = ("ibmmq", "pymqi")

_lock = threading.Lock()
_loaded: dict[str, MQLibrary] = {}


@dataclass(frozen=True)
class MQLibrary:
    """The Python MQ library that loaded, and what the backend needs from it."""

    name: str  # "ibmmq" or "pymqi"
    module: ModuleType
    CMQC: ModuleType
    CMQCFC: ModuleType
    CMQXC: ModuleType
    MQMIError: type[Any]  # the library's exception: has .comp and .reason
    PYIFError: type[Exception]
    version: str

    @property
    def pcf_collects_errors(self) -> bool:
        """ibmmq's PCF calls accept ``responses=[]`` and keep reading after an error reply;
        pymqi stops at the first one."""
        return self.name == "ibmmq"

    def __repr__(self) -> str:
        return f"<MQLibrary {self.name} {self.version}>"


class MQLibraryMissing(MQError):
    """Neither ibmmq nor pymqi could be used: one sentence saying what is missing.

    An MQError (reason 2059, so the CLI exits with 3, "cannot connect") whose text is the
    sentence alone.
    """

    def __init__(self, sentence: str, causes: dict[str, BaseException]) -> None:
        super().__init__(MQRC_Q_MGR_NOT_AVAILABLE, sentence)
        self.causes = causes

    def __str__(self) -> str:
        return self.detail


def _client_library_names() -> tuple[str, ...]:
    if sys.platform.startswith("win"):
        return ("mqm.dll",)
    if sys.platform == "darwin":
        return ("libmqm_r.dylib",)
    return ("libmqm_r.so",)


def probe_client_library() -> str | None:
    """Ask the dynamic loader for IBM's MQ C library the way the extension does.

    None when it loads; otherwise the loader's own message (``libmqm_r.so: cannot open
    shared object file: No such file or directory``).
    """
    errors: list[str] = []
    for name in _client_library_names():
        candidates = [name]
        home = os.environ.get("MQ_FILE_PATH")
        if home:
            for sub in ("lib64", "lib", "bin64", "bin"):
                candidates.append(os.path.join(home, sub, name))
        for path in candidates:
            try:
                ctypes.CDLL(path)
            except OSError as exc:
                errors.append(str(exc))
            else:
                return None
    return errors[0] if errors else "no MQ client library name is known for this platform"


_LOADER_WORDS = ("shared object", ".so", ".dll", ".dylib", "Library not loaded",
                 "DLL load", "cannot open", "image not found", "undefined symbol")


def root_cause(exc: BaseException) -> str:
    """The most telling message in an exception chain: the loader's, when there is one."""
    chain: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and not any(e is c for c in chain):
        chain.append(e)
        e = e.__cause__ or e.__context__
    for c in chain:
        if any(word in str(c) for word in _LOADER_WORDS):
            return str(c)
    return str(chain[-1])


def _installed_version(name: str) -> str | None:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover - Python >= 3.8 has it
        return None
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def missing_sentence(causes: dict[str, BaseException]) -> str:
    """One sentence: what is missing, how to install it, and the underlying error."""
    lib_dir = "lib64" if not sys.platform.startswith("win") else "bin64"
    path_var = "PATH" if sys.platform.startswith("win") else (
        "DYLD_LIBRARY_PATH" if sys.platform == "darwin" else "LD_LIBRARY_PATH")
    client = _client_library_names()[0]
    installed = {n: _installed_version(n) for n in LIBRARIES}
    have = [f"{n} {v}" for n, v in installed.items() if v]
    if not have:
        return ("the real IBM MQ backend needs IBM's Python package and MQ client library, "
                "and neither is installed: run pip install 'mqconsole[mq]' (ibmmq) and install "
                f"the IBM MQ redistributable client, with {path_var} pointing at its {lib_dir} "
                "folder and MQ_FILE_PATH at its top folder (import said: "
                + "; ".join(f"{n}: {root_cause(e)}" for n, e in causes.items()) + ")")
    loader = probe_client_library()
    reasons = []
    for n, e in causes.items():
        cause = root_cause(e)
        shown = str(e)
        if installed.get(n) and cause != shown:
            reasons.append(f"{n}: {cause}, which {n} reports only as {shown!r}")
        elif installed.get(n):
            reasons.append(f"{n}: {cause}")
    if loader and not any(loader in r for r in reasons):
        reasons.append(f"loader: {loader}")
    return (f"the real IBM MQ backend cannot load IBM's MQ C client library ({client}) that "
            f"{' and '.join(have)} needs ({'; '.join(reasons)}): install the IBM MQ "
            f"redistributable client (or an MQ client installation) and set {path_var} to its "
            f"{lib_dir} folder and MQ_FILE_PATH to its top folder, then run again")


def _load_one(name: str) -> MQLibrary:
    with _lock:
        if name in _loaded:
            return _loaded[name]
        mod = importlib.import_module(name)
        lib = MQLibrary(
            name=name, module=mod, CMQC=mod.CMQC, CMQCFC=mod.CMQCFC, CMQXC=mod.CMQXC,
            MQMIError=mod.MQMIError, PYIFError=mod.PYIFError,
            version=str(getattr(mod, "__version__", "?")))
        _loaded[name] = lib  # only success is remembered: a later attempt may succeed
        return lib


def load(prefer: str = "auto") -> MQLibrary:
    """The MQ library to use: ``"auto"`` tries ibmmq then pymqi; ``"ibmmq"``/``"pymqi"``
    insist on one. Raises :class:`MQLibraryMissing` with one sentence when none loads."""
    if prefer not in ("auto", *LIBRARIES):
        raise ValueError(f"library must be 'auto', 'ibmmq' or 'pymqi', not {prefer!r}")
    order = LIBRARIES if prefer == "auto" else (prefer,)
    causes: dict[str, BaseException] = {}
    for name in order:
        try:
            return _load_one(name)
        except (ImportError, OSError) as exc:  # ibmmq raises EnvironmentError on mismatch
            causes[name] = exc
    raise MQLibraryMissing(missing_sentence(causes), causes)


def available() -> MQLibrary | None:
    """The library :func:`load` would give, or None (never raises)."""
    try:
        return load()
    except MQLibraryMissing:
        return None
