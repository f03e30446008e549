"""The loaded plugins, and safe ways to call their hooks.

Every hook is called one implementation at a time, so a result or a failure can be put down
to the plugin it came from: a hook that raises is reported once (``problems``, and the
``on_problem`` callback a face installs: stderr in the CLI, a notification in the console)
and its result dropped — except a put check, which refuses when it raises (fail safe).

A plugin's ``sys.exit`` or ``KeyboardInterrupt`` (any BaseException) is a failure of that
plugin like any other; only the operator's own stop passes through a plugin call: the
exception a face's signal handler raises, marked ``mqconsole_stop = True``
(:func:`operators_stop`). :func:`plugin_running` tells such a handler whether a plugin's
hook is running in this thread, so that a stop need not wait for a plugin that never
returns.

A put check or a decoder gets a message of its own (:func:`private_copy`, one per plugin):
whatever it changes in it, what is put (and journaled) is what the operation planned.
"""

from __future__ import annotations

import contextvars
import copy
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TextIO

import pluggy

from mqconsole.mq.message import Message

from . import hookspecs
from .types import (
    SCOPES,
    Action,
    AuditColumn,
    Decoded,
    DecodedResult,
    PluginInfo,
    RegisteredAction,
    RegisteredColumn,
)

HOOK_NAMES: tuple[str, ...] = tuple(
    name for name in vars(hookspecs) if name.startswith("mqconsole_")
)


# (host, plugin, "plugin NAME's HOOK") while a plugin's code runs in this context
_RUNNING: contextvars.ContextVar[tuple[PluginHost, str, str] | None] = \
    contextvars.ContextVar("mqconsole_plugin_running", default=None)


def plugin_settings() -> dict[str, Any]:
    """The running plugin's own ``plugins.settings.<name>``, for a hook to call.

    Hooks get only the arguments of the contract, so a check, decoder, column or rule reads
    its settings here (an action also has ``context.settings``). Raises LookupError when no
    plugin hook is running (a plugin's import-time code, a thread the hook started).
    """
    running = _RUNNING.get()
    if running is None:
        raise LookupError("plugin_settings() is only known while mqconsole runs one of the "
                          "plugin's hooks")
    host, name, _ = running
    return host.settings_of(name)


def operators_stop(exc: BaseException) -> bool:
    """Whether ``exc`` is the operator's stop (Ctrl-C, SIGTERM: raised by a face's signal
    handler, marked ``mqconsole_stop``), which passes through a plugin call, rather than
    something a plugin raised (its ``sys.exit``, its KeyboardInterrupt), which is its
    failure."""
    return bool(getattr(exc, "mqconsole_stop", False))


def plugin_running() -> str | None:
    """"plugin NAME's HOOK" while one of a plugin's hooks (or a failure rule, an audit
    column, an action) runs in this thread, else None: a signal handler (which runs in the
    main thread) asks it to stop at once rather than wait for the plugin to return."""
    running = _RUNNING.get()
    return None if running is None else running[2]


def private_copy(message: Message) -> Message:
    """A copy of ``message`` for one plugin to look at: a check or decoder that changes it
    (its body, a field of its MD) changes only its copy, never what is put (issue 28 #2).
    The MD's fields are immutable values (bytes, str, int), so a shallow copy of it is whole;
    the body is made ``bytes`` (a ``bytearray`` could be changed in place)."""
    return Message(copy.copy(message.md), bytes(message.body), token=message.token,
                   truncated_from=message.truncated_from)


class _Private:
    """An argument each implementation gets its own copy of (``copier``: a message's
    :func:`private_copy` by default)."""

    __slots__ = ("copier", "value")

    def __init__(self, value: Any, copier: Callable[[Any], Any] = private_copy) -> None:
        self.value = value
        self.copier = copier

    def copy(self) -> Any:
        return self.copier(self.value)


def describe(exc: BaseException) -> str:
    """What a plugin raised, in a few words: ``ValueError: bad layout`` (its first line),
    ``it called sys.exit(3)``."""
    if isinstance(exc, SystemExit):
        return f"it called sys.exit({'' if exc.code is None else repr(exc.code)})"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class _Manager(pluggy.PluginManager):
    """Takes a function named like a hook (``mqconsole_...``) as an implementation even
    without ``@hookimpl``, so a misspelt or unmarked hook is reported, not silently unused."""

    def parse_hookimpl_opts(self, plugin: object, name: str):
        opts = super().parse_hookimpl_opts(plugin, name)
        if opts is None and name.startswith("mqconsole_") \
                and callable(getattr(plugin, name, None)):
            return {}  # pluggy fills in the defaults
        return opts


class PluginHost:
    """A pluggy manager of the ``mqconsole`` project with its plugins' facts."""

    def __init__(self, settings: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.pm = _Manager(hookspecs.PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self._settings = {k: dict(v) for k, v in (settings or {}).items()}
        self._infos: dict[str, PluginInfo] = {}
        self.problems: list[str] = []
        self._reported: set[tuple[str, str]] = set()
        self._lock = threading.Lock()
        self.on_problem: Callable[[str], None] | None = None
        self._actions: list[RegisteredAction] | None = None
        #: where plugins' prints go while their code runs in the main thread (None: stdout)
        self.stdout_aside: TextIO | None = None

    # -- registration ----------------------------------------------------------------------
    def register(self, plugin: object, name: str, *, version: str = "", source: str = "")\
            -> bool:
        """Register one plugin (a module or object); False (and a problem) when pluggy
        refuses it (an unknown ``mqconsole_`` hook, wrong arguments)."""
        try:
            self.pm.register(plugin, name=name)
            unknown = [hook for hook in self._hooks_of(name) if hook not in HOOK_NAMES]
            if unknown:
                raise pluggy.PluginValidationError(
                    plugin, f"unknown hook {unknown[0]} (known: {', '.join(HOOK_NAMES)})")
        except BaseException as e:
            if operators_stop(e):
                raise
            if self.pm.is_registered(plugin):
                self.pm.unregister(plugin)
            self.record(name, version=version, source=source,
                        status=f"error: {name} could not be registered: {describe(e)}")
            return False
        hooks = tuple(sorted(self._hooks_of(name)))
        self._infos[name] = PluginInfo(name, version, source, hooks, "loaded")
        self._actions = None
        return True

    def unregister(self, name: str) -> None:
        plugin = self.pm.get_plugin(name)
        if plugin is not None:
            self.pm.unregister(plugin, name=name)
        self._infos.pop(name, None)
        self._actions = None

    def record(self, name: str, *, version: str = "", source: str = "", status: str) -> None:
        """Note a plugin that is not loaded (disabled, or an error, which is reported)."""
        self._infos[name] = PluginInfo(name, version, source, (), status)
        if status.startswith("error: "):
            self._problem(name, "load", status.removeprefix("error: "))

    def _hooks_of(self, name: str) -> list[str]:
        plugin = self.pm.get_plugin(name)
        if plugin is None:
            return []
        return [caller.name for caller in self.pm.get_hookcallers(plugin) or []]

    # -- facts -----------------------------------------------------------------------------
    def infos(self) -> list[PluginInfo]:
        return sorted(self._infos.values(), key=lambda i: i.name)

    def names(self) -> list[str]:
        """The loaded plugins' names."""
        return sorted(n for n, i in self._infos.items() if i.status == "loaded")

    def settings_of(self, name: str) -> dict[str, Any]:
        return dict(self._settings.get(name, {}))

    @property
    def has_checks(self) -> bool:
        return bool(self.pm.hook.mqconsole_check_put.get_hookimpls())

    @property
    def has_decoders(self) -> bool:
        """Whether a plugin decodes payloads (the console shows a Decoded tab then)."""
        return bool(self.pm.hook.mqconsole_decode_payload.get_hookimpls())

    def _problem(self, plugin: str, hook: str, sentence: str) -> None:
        with self._lock:
            if (plugin, hook) in self._reported:
                return
            self._reported.add((plugin, hook))
            self.problems.append(sentence)
        if self.on_problem is not None:
            self.on_problem(sentence)

    @contextmanager
    def running(self, plugin: str, what: str = "code") -> Iterator[None]:
        """While this block runs, :func:`plugin_settings` answers ``plugin``'s settings and
        :func:`plugin_running` says "plugin ``plugin``'s ``what``". The operator's stop
        raised meanwhile (:func:`operators_stop`) says where it stopped
        (``exc.plugin_running``)."""
        token = _RUNNING.set((self, plugin, f"plugin {plugin}'s {what}"))
        try:
            with self.output_aside():
                yield
        except BaseException as exc:
            if operators_stop(exc) and getattr(exc, "plugin_running", None) is None:
                exc.plugin_running = f"plugin {plugin}'s {what}"  # type: ignore[attr-defined]
            raise
        finally:
            _RUNNING.reset(token)

    @contextmanager
    def output_aside(self) -> Iterator[None]:
        """While a plugin's code runs in the main thread, what it prints goes to
        ``stdout_aside`` (the CLI: stderr), so stdout carries only the command's own output
        (``--json``). Other threads (the console's workers) are left alone: swapping
        ``sys.stdout`` is global, and the console captures prints itself."""
        target = self.stdout_aside
        if target is None or threading.current_thread() is not threading.main_thread():
            yield
            return
        saved = sys.stdout
        sys.stdout = target
        try:
            yield
        finally:
            sys.stdout = saved

    def _calls(self, hook: str, *, only: str | None = None, **kwargs: Any):
        """(plugin name, result or exception) of each implementation, in pluggy's order
        (``only``: that plugin's alone)."""
        for impl in reversed(getattr(self.pm.hook, hook).get_hookimpls()):
            if only is not None and impl.plugin_name != only:
                continue
            args = [kwargs[a] for a in impl.argnames]
            args = [a.copy() if isinstance(a, _Private) else a for a in args]
            try:
                with self.running(impl.plugin_name, hook):
                    result = impl.function(*args)
            except BaseException as e:  # its sys.exit, its KeyboardInterrupt: its failure
                if operators_stop(e):
                    raise
                yield impl.plugin_name, e
            else:
                yield impl.plugin_name, result

    def _raised(self, plugin: str, hook: str, exc: BaseException) -> None:
        self._problem(plugin, hook, f"plugin {plugin} failed in {hook}: {describe(exc)}; "
                                    "its result is ignored")

    # -- the hooks -------------------------------------------------------------------------
    def decoder_names(self) -> list[str]:
        """The plugins that decode payloads, in the order their results are shown."""
        return [impl.plugin_name for impl in
                reversed(self.pm.hook.mqconsole_decode_payload.get_hookimpls())]

    def decode(self, message: Message, payload: bytes, *, only: str | None = None
               ) -> list[DecodedResult]:
        """Every decoder's result for this payload (the first is the one to show first);
        ``only``: that plugin's alone."""
        out: list[DecodedResult] = []
        for plugin, result in self._calls("mqconsole_decode_payload", only=only,
                                          message=_Private(message), payload=bytes(payload)):
            if isinstance(result, BaseException):
                self._raised(plugin, "mqconsole_decode_payload", result)
            elif isinstance(result, Decoded):
                out.append(DecodedResult(plugin, str(result.title), str(result.text)))
            elif result is not None:
                self._problem(plugin, "mqconsole_decode_payload",
                              f"plugin {plugin}'s mqconsole_decode_payload returned "
                              f"{type(result).__name__}, not Decoded; ignored")
        return out

    def decode_in_background(self, message: Message, payload: bytes, *, limit: float,
                             done: Callable[[list[DecodedResult], list[str]], Any]
                             ) -> threading.Thread:
        """The decoders' results without waiting for one that never returns (the console):
        each decoder runs in a daemon thread of its own, given ``limit`` seconds, one after
        the other; then ``done(results, timed_out)`` is called (in a daemon thread), where
        ``timed_out`` names the decoders that did not answer in time. Those are reported
        once and left running: nothing waits for them, not even the process's exit."""
        names = self.decoder_names()

        def decode_one(name: str, box: list[DecodedResult]) -> None:
            box.extend(self.decode(message, payload, only=name))

        def supervise() -> None:
            results: list[DecodedResult] = []
            timed_out: list[str] = []
            for name in names:
                box: list[DecodedResult] = []
                worker = threading.Thread(target=decode_one, args=(name, box), daemon=True,
                                          name=f"mqconsole decoder {name}")
                worker.start()
                worker.join(limit)
                if worker.is_alive():
                    timed_out.append(name)
                    self._problem(name, "mqconsole_decode_payload:time",
                                  f"plugin {name}'s decoder did not answer within "
                                  f"{limit:g} s; its result is not shown")
                else:
                    results.extend(box)
            done(results, timed_out)

        thread = threading.Thread(target=supervise, daemon=True, name="mqconsole decoders")
        thread.start()
        return thread

    def check_put(self, operation: str, message: Message, destination: str) -> str | None:
        """The first refusal (all checks run), or None. A check that raises refuses. Each
        check is given a copy of ``message`` (:func:`private_copy`): the caller puts
        ``message`` as it planned, whatever a check did to its copy."""
        refusal: str | None = None
        for plugin, result in self._calls("mqconsole_check_put", operation=operation,
                                          message=_Private(message), destination=destination):
            if isinstance(result, BaseException):
                sentence = (f"plugin {plugin}'s check failed ({describe(result)}), so the "
                            "put is refused")
            elif result is None:
                continue
            else:
                sentence = f"refused by plugin {plugin}: {result}"
            if refusal is None:
                refusal = sentence
        return refusal

    def actions(self) -> list[RegisteredAction]:
        """Every plugin's actions, asked once; a duplicate id or a bad scope is reported."""
        if self._actions is not None:
            return list(self._actions)
        seen: dict[str, str] = {}
        found: list[RegisteredAction] = []
        for plugin, result in self._calls("mqconsole_actions"):
            if isinstance(result, BaseException):
                self._raised(plugin, "mqconsole_actions", result)
                continue
            for action in result or []:
                if not isinstance(action, Action) or action.scope not in SCOPES:
                    self._problem(plugin, "mqconsole_actions",
                                  f"plugin {plugin} offered an action that is not an Action "
                                  f"with a scope of {', '.join(SCOPES)}; ignored")
                    continue
                if action.id in seen:
                    self._problem(plugin, f"action:{action.id}",
                                  f"plugin {plugin}'s action {action.id} has the id of one "
                                  f"from {seen[action.id]}; ignored")
                    continue
                seen[action.id] = plugin
                found.append(RegisteredAction(plugin, action))
        self._actions = found
        return list(found)

    def action(self, action_id: str) -> RegisteredAction | None:
        return next((a for a in self.actions() if a.id == action_id), None)

    def offered_actions(self, *, read_only: bool) -> list[RegisteredAction]:
        """The actions a profile offers (both faces): a dangerous one is absent — not
        greyed — from a read-only profile."""
        return [a for a in self.actions() if not (read_only and a.action.dangerous)]

    def offered_action(self, action_id: str, *, read_only: bool, profile: str
                       ) -> RegisteredAction:
        """The action ``action_id`` this profile offers; else a LookupError whose sentence
        names why (no such action, or a dangerous one in a read-only profile) and the
        actions offered."""
        offered = self.offered_actions(read_only=read_only)
        found = next((a for a in offered if a.id == action_id), None)
        if found is not None:
            return found
        known = ", ".join(sorted(a.id for a in offered))
        known = (f"known actions: {known}" if known
                 else "no plugin offers an action here (see 'mqconsole plugins')")
        if self.action(action_id) is not None:
            raise LookupError(f"action {action_id!r} is not available in profile {profile}: "
                              f"it is dangerous and the profile is read-only; {known}")
        raise LookupError(f"no action {action_id!r}; {known}")

    def audit_columns(self) -> list[RegisteredColumn]:
        out: list[RegisteredColumn] = []
        for plugin, result in self._calls("mqconsole_audit_columns"):
            if isinstance(result, BaseException):
                self._raised(plugin, "mqconsole_audit_columns", result)
                continue
            for column in result or []:
                if isinstance(column, AuditColumn):
                    out.append(RegisteredColumn(plugin, column))
                else:
                    self._problem(plugin, "mqconsole_audit_columns",
                                  f"plugin {plugin} offered an audit column that is not an "
                                  "AuditColumn; ignored")
        return out

    def failure_rules(self) -> dict[str, Callable[[Mapping[str, Any]], bool]]:
        """Every plugin's failure rules by name (``plugin: NAME`` in a replay scenario),
        each guarded (a raising rule is reported once and counts as no failure); a name
        offered twice, or a rule that cannot be called, is reported and left out."""
        rules: dict[str, Callable[[Mapping[str, Any]], bool]] = {}
        owners: dict[str, str] = {}
        for plugin, result in self._calls("mqconsole_failure_rules"):
            if isinstance(result, BaseException):
                self._raised(plugin, "mqconsole_failure_rules", result)
                continue
            try:
                offered = dict(result or {})
            except (TypeError, ValueError):
                self._problem(plugin, "mqconsole_failure_rules",
                              f"plugin {plugin}'s mqconsole_failure_rules returned "
                              f"{type(result).__name__}, not a mapping; ignored")
                continue
            for key, rule in offered.items():
                name = str(key)
                if name in owners:
                    self._problem(plugin, f"failure rule:{name}",
                                  f"plugin {plugin}'s failure rule {name} has the name of "
                                  f"one from {owners[name]}; ignored")
                    continue
                if not callable(rule):
                    self._problem(plugin, f"failure rule:{name}",
                                  f"plugin {plugin}'s failure rule {name} is not callable; "
                                  "ignored")
                    continue
                owners[name] = plugin
                rules[name] = _guarded_rule(self, plugin, name, rule)
        return rules

    def operation_done(self, summary: Any) -> None:
        """Each implementation gets its own deep copy of the summary: a plugin that changes
        the counts, the failures or the exit code changes nothing the faces report."""
        for plugin, result in self._calls("mqconsole_operation_done",
                                          summary=_Private(summary, copy.deepcopy)):
            if isinstance(result, BaseException):
                self._raised(plugin, "mqconsole_operation_done", result)


def _guarded_rule(host: PluginHost, plugin: str, name: str,
                  rule: Callable[[Mapping[str, Any]], bool]
                  ) -> Callable[[Mapping[str, Any]], bool]:
    """A failure rule that, when it raises, is reported once and counts as no failure."""
    def guarded(facts: Mapping[str, Any]) -> bool:
        try:
            with host.running(plugin, f"failure rule {name}"):
                return bool(rule(facts))
        except BaseException as e:
            if operators_stop(e):
                raise
            host._raised(plugin, f"failure rule {name}", e)
            return False
    guarded.__name__ = f"{plugin}.{name}"
    return guarded
