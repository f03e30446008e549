"""The scenario file as pydantic models (replay-format.md): what an operator may write in
each section, each field's type and range, unknown fields refused.

These models hold what the file says; a field left out stays unset (``model_fields_set``)
and takes delivery-model.md's default in the scenario's dataclasses (``scenario.py``), which
also checks what refers to what (a queue, message or endpoint that must be defined).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from mqconsole.mq.queue import is_valid_name

from .checks import (
    BINDINGS,
    KINDS,
    PLATFORMS,
    PROVIDERS,
    TRANSACTIONS,
    checked,
    listing,
    mapping,
    problem,
    t_between,
    t_bool,
    t_enum,
    t_grant,
    t_id,
    t_int,
    t_list,
    t_name,
    t_profile,
    t_text,
    t_then,
    t_true,
)

# a field left out is None (unset); one written as null is checked like any other value
Name = Annotated[str, checked(t_name())]
Id = Annotated[str, checked(t_id)]
Whole = Annotated[int, checked(t_int(0))]


class FileModel(BaseModel):
    """A section of the file: unknown fields are errors."""

    model_config = ConfigDict(extra="forbid")

    #: what an unknown field's sentence says instead of the fields known there
    unknown_hint: ClassVar[str | None] = None

    def given(self) -> dict[str, Any]:
        """The fields the file sets, with their values."""
        return {k: getattr(self, k) for k in type(self).model_fields if k in self.model_fields_set}


class QueueManagerIn(FileModel):
    name: Annotated[str | None, checked(t_name())] = None
    platform: Annotated[str | None, checked(t_enum(*PLATFORMS))] = None
    dead_letter_queue: Annotated[str | None, checked(t_name(blank_ok=True))] = None
    messaging_engine: Annotated[str | None, checked(t_name())] = None
    blocked_retry_interval_ms: Annotated[int | None, checked(t_int(0))] = None


class QueueIn(FileModel):
    name: Name
    bothresh: Annotated[int | None, checked(t_int(0, 999_999_999))] = None
    boqname: Annotated[str | None, checked(t_name(blank_ok=True))] = None
    hardenbo: Annotated[bool | None, checked(t_bool)] = None
    put_inhibited: Annotated[bool | None, checked(t_bool)] = None
    max_depth: Annotated[int | None, checked(t_int(0, 999_999_999))] = None
    max_failed_deliveries: Annotated[int | None, checked(t_int(1))] = None
    # system | none | a queue name
    exception_destination: Annotated[str | None, checked(t_name())] = None
    blocked_retry_timeout_ms: Annotated[int | None, checked(t_int(-1))] = None


class SetQueueIn(QueueIn):
    """An action's ``set_queue:``: the queue's name and the attributes it changes."""

    @model_validator(mode="after")
    def _changes_something(self) -> SetQueueIn:
        if self.model_fields_set <= {"name"}:
            raise problem("set_queue needs at least one attribute to change")
        return self


class AuthorityIn(FileModel):
    principal: Id
    queue: Annotated[str, checked(t_profile)]
    grant: Annotated[frozenset[str], checked(t_grant)]


class MessageIn(FileModel):
    id: Id
    queue: Name
    payload: Annotated[str | None, checked(t_text)] = None
    backout_count: Annotated[int | None, checked(t_int(0, 999_999_999))] = None
    persistent: Annotated[bool | None, checked(t_bool)] = None


class EndpointIn(FileModel):
    name: Id
    queue: Name
    provider: Annotated[str, checked(t_enum(*PROVIDERS))]
    run_as: Annotated[str | None, checked(t_id)] = None
    transaction: Annotated[str | None, checked(t_enum(*TRANSACTIONS))] = None
    syncpoint: Annotated[bool | None, checked(t_bool)] = None
    stop_endpoint_on_failure: Annotated[bool | None, checked(t_bool)] = None
    sequential_failures_before_suspend: Annotated[int | None, checked(t_int(0))] = None
    max_server_sessions: Annotated[int | None, checked(t_int(1, 10_000))] = None
    max_retries: Annotated[int | None, checked(t_int(0))] = None
    max_sessions: Annotated[int | None, checked(t_int(1, 10_000))] = None
    non_asf_receive_timeout_ms: Annotated[int | None, checked(t_int(0))] = None
    total_transaction_lifetime_timeout_s: Annotated[int | None, checked(t_int(0))] = None
    processing_ms: Annotated[int | None, checked(t_int(1))] = None
    arrival_wait_ms: Annotated[int | None, checked(t_int(0))] = None
    binding: Annotated[str | None, checked(t_enum(*BINDINGS))] = None
    module_destination: Annotated[str | None, checked(t_name())] = None
    failed_event_queue: Annotated[str | None, checked(t_name())] = None

    @model_validator(mode="after")
    def _module_destination(self) -> EndpointIn:
        if self.module_destination is None and not is_valid_name(f"{self.queue}.SCA"):
            raise problem(f"the default module destination {self.queue}.SCA is longer than 48 "
                          "characters: give module_destination", at=("queue",))
        return self


SELECTORS = ("messages", "first", "between_ms", "endpoints", "plugin")


class FailureIn(FileModel):
    messages: Annotated[tuple[str, ...] | None, checked(t_list(t_id, min_len=1))] = None
    first: Annotated[int | None, checked(t_int(1))] = None
    between_ms: Annotated[tuple[int, int] | None, checked(t_between)] = None
    endpoints: Annotated[tuple[str, ...] | None, checked(t_list(t_id, min_len=1))] = None
    plugin: Annotated[str | None, checked(t_id)] = None
    kind: Annotated[str | None, checked(t_enum(*KINDS))] = None
    then: Annotated[tuple[str, str | None] | None, checked(t_then)] = None

    @model_validator(mode="after")
    def _selector(self) -> FailureIn:
        if not self.model_fields_set & set(SELECTORS):
            raise problem("a failure rule needs a selector: messages, first, between_ms, "
                          "endpoints or plugin")
        return self


ACTIONS = ("restart_endpoint", "restart_queue_manager", "set_queue")


class ActionIn(FileModel):
    at_ms: Whole
    restart_endpoint: Annotated[str | None, checked(t_id)] = None
    restart_queue_manager: Annotated[bool | None, checked(t_true)] = None
    set_queue: Annotated[SetQueueIn | None, mapping("set_queue")] = None

    @model_validator(mode="after")
    def _one_thing(self) -> ActionIn:
        what = [k for k in ACTIONS if k in self.model_fields_set]
        if len(what) != 1:
            raise problem("an action does one of restart_endpoint, restart_queue_manager, "
                          "set_queue" + (f" (this one has {', '.join(what)})" if what else ""))
        return self


class LimitsIn(FileModel):
    max_events: Annotated[int | None, checked(t_int(1))] = None
    until_ms: Annotated[int | None, checked(t_int(0))] = None


class ScenarioIn(FileModel):
    queue_manager: Annotated[QueueManagerIn, mapping("queue manager")] = Field(
        default_factory=QueueManagerIn)
    queues: Annotated[tuple[Annotated[QueueIn, mapping("queue")], ...],
                      listing("queues")] = ()
    authorities: Annotated[tuple[Annotated[AuthorityIn, mapping("authority")], ...] | None,
                           listing("authority records")] = None
    messages: Annotated[tuple[Annotated[MessageIn, mapping("message")], ...],
                        listing("messages")] = ()
    endpoints: Annotated[tuple[Annotated[EndpointIn, mapping("endpoint")], ...],
                         listing("endpoints")] = ()
    failures: Annotated[tuple[Annotated[FailureIn, mapping("failure rule")], ...],
                        listing("failure rules")] = ()
    actions: Annotated[tuple[Annotated[ActionIn, mapping(
        "action", "an action must be a mapping (at_ms: and what to do)")], ...],
        listing("actions")] = ()
    limits: Annotated[LimitsIn, mapping("limits")] = Field(default_factory=LimitsIn)


class EndpointsFileIn(FileModel):
    """An endpoints file (``replay --queue``, ``doctor``): endpoints and authorities only."""

    unknown_hint = "an endpoints file holds endpoints: and authorities:"

    endpoints: Annotated[tuple[Annotated[EndpointIn, mapping("endpoint")], ...],
                         listing("endpoints")]
    authorities: Annotated[tuple[Annotated[AuthorityIn, mapping("authority")], ...] | None,
                           listing("authority records")] = None
