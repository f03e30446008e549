"""What each messaging provider does (delivery-model.md §2-4 and §7), as small pure rules.

An endpoint of the scenario becomes one or more *consumers*, each a :class:`Role` reading
one queue with its own browse cursor and server sessions:

==================== ======================================================================
provider             consumers
==================== ======================================================================
sib                  one SIB consumer: poison control on the destination (§2), never stops
mq_activation_spec   one MQ consumer: BOTHRESH at detection, the shared rollback counter (§3)
mq_listener_port     one MQ consumer: BOTHRESH at detection, ``max_retries`` per message (§4)
sca_export, mq       the export's listener port (``max_retries`` 1) on the MQ queue, which
                     moves a message the component failed to the module destination; and
                     the SCA dispatcher on that destination, under SIB rules (§7)
sca_export, jms      one SIB consumer on the export's queue (a generated destination)
==================== ======================================================================

The engine (``engine.py``) applies these rules; nothing here keeps state.
"""

from __future__ import annotations

from dataclasses import dataclass

from .scenario import EndpointSpec, QueueManagerSpec

# §5: authorities the consumer's user needs on the backout queue.
BOQ_AUTHORITIES = frozenset({"get", "inq", "passall", "put", "setall"})
# A put with a dead-letter header and the original context (documented choice: §5 only
# says "not authorized").
DLQ_AUTHORITIES = frozenset({"put", "setall"})
# What the consumer needs to move a message itself (`then: {move: Q}`).
MOVE_AUTHORITIES = frozenset({"put"})


GENERATED_MAX_FAILED_DELIVERIES = 5  # §7: generated SIB destinations
ENGINE_DEFAULT_BLOCKED_RETRY_MS = 5000  # §2


def system_exception_destination(qm: QueueManagerSpec) -> str:
    return f"_SYSTEM.Exception.Destination.{qm.messaging_engine}"


@dataclass(frozen=True, slots=True)
class Role:
    """One consumer of an endpoint: which queue it reads and which rules apply."""

    kind: str  # activation_spec | listener_port | sib | sca_export | sca_module
    queue: str
    sessions: int
    bothresh_at_detection: bool  # §3 step 1 applies
    sib_rules: bool  # §2 applies on rollback
    module_destination: str | None = None  # sca_export (mq): the hop target
    generated_exception_destination: str | None = None  # generated SIB destinations (§7)

    @property
    def stops(self) -> bool:
        return self.kind in ("activation_spec", "listener_port", "sca_export")


def roles(ep: EndpointSpec) -> list[Role]:
    """The consumers an endpoint consists of, in the order they take messages."""
    if ep.provider == "sib":
        return [Role("sib", ep.queue, ep.max_server_sessions, False, True)]
    if ep.provider == "mq_activation_spec":
        return [Role("activation_spec", ep.queue, ep.max_server_sessions, True, False)]
    if ep.provider == "mq_listener_port":
        return [Role("listener_port", ep.queue, ep.max_sessions, True, False)]
    # sca_export
    if ep.binding == "jms":
        return [Role("sib", ep.queue, ep.max_sessions, False, True,
                     generated_exception_destination=ep.failed_event_queue)]
    return [
        Role("sca_export", ep.queue, ep.max_sessions, True, False,
             module_destination=ep.module_destination),
        Role("sca_module", ep.module_destination, ep.max_sessions, False, True,
             generated_exception_destination=ep.failed_event_queue),
    ]


def counter_rises(role: Role, ep: EndpointSpec) -> bool:
    """§3: a failure raises the endpoint's rollback counter (activation specs that stop)."""
    return role.kind == "activation_spec" and ep.stop_endpoint_on_failure


def stops_after_failure(role: Role, ep: EndpointSpec, counter: int, backout_count: int) -> bool:
    """Whether a failed delivery stops the endpoint (§3 step 3, §4, §7).

    ``counter`` is the rollback counter after it rose; ``backout_count`` the message's
    count after it rose (or would have, for a message lost with no syncpoint).
    """
    if role.kind == "activation_spec":
        return ep.stop_endpoint_on_failure and counter >= ep.sequential_failures_before_suspend
    if role.kind in ("listener_port", "sca_export"):
        return backout_count > ep.max_retries  # ">" (delivery-model.md §4)
    return False  # SIB never stops on poison messages


def moves_to_module_destination(role: Role, backout_count: int, last_failure: str | None
                                ) -> bool:
    """§7: on detection, a message delivered before whose last failure was in the component."""
    return role.kind == "sca_export" and backout_count > 0 and last_failure != "export"


def requeue_at_detection(role: Role, bothresh: int, backout_count: int) -> bool:
    """§3 step 1."""
    return role.bothresh_at_detection and bothresh > 0 and backout_count >= bothresh


def non_asf_wait(role: Role, ep: EndpointSpec) -> int:
    """§4: how long receive() waited inside the transaction before the message came."""
    if role.kind in ("listener_port", "sca_export") and ep.non_asf:
        return min(ep.arrival_wait_ms, ep.non_asf_receive_timeout_ms)
    return 0


def transaction_times_out(role: Role, ep: EndpointSpec, wait_ms: int) -> bool:
    """§4: wait + processing strictly greater than the total transaction lifetime."""
    if not (role.kind in ("listener_port", "sca_export") and ep.non_asf):
        return False
    if not ep.under_syncpoint or ep.total_transaction_lifetime_timeout_s <= 0:
        return False
    return wait_ms + ep.processing_ms > ep.total_transaction_lifetime_timeout_s * 1000


def sib_max_failed(role: Role, queue_max: int, given: bool) -> int:
    if role.generated_exception_destination is not None and not given:
        return GENERATED_MAX_FAILED_DELIVERIES
    return queue_max


def sib_exception_setting(role: Role, queue_setting: str, given: bool) -> str:
    """``system``, ``none`` or a destination name (§2; generated destinations §7)."""
    if role.generated_exception_destination is not None and not given:
        return role.generated_exception_destination
    return queue_setting


def blocked_retry_ms(queue_timeout: int, engine_default: int) -> int:
    """§2: -1 means the engine default; >= 0 overrides it for the destination."""
    return engine_default if queue_timeout < 0 else queue_timeout
