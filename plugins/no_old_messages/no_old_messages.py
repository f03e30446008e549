"""A check that refuses putting back messages older than N days.

Settings (``plugins.settings.no_old_messages`` in the mqconsole config)::

    days: 7                        # required: the oldest a message may be, in days
    operations: [move, resubmit]   # optional: only these kinds (default: every put)
    unknown_age: refuse            # or allow: a message whose put time cannot be read

A message's age runs from the put time in its dead-letter header (when the queue manager
put it on the dead-letter queue: the time it failed) if it has one, else from the MQMD's
PutDate/PutTime. A resubmit is checked after its dead-letter header is removed, so there the
MQMD's put time counts.
"""

from __future__ import annotations

from datetime import UTC, datetime

from mqconsole.mq.chain import dead_letter_header
from mqconsole.ops.timefmt import age_seconds, iso_utc, parse_put_datetime
from mqconsole.plugins import hookimpl, plugin_settings

__version__ = "1.0.0"
MQCONSOLE_API_VERSION = 1

DAY = 86_400.0


def put_time(message) -> tuple[datetime | None, str]:
    """The time the message's age runs from, and where it came from."""
    dlh = dead_letter_header(message.md, message.body)
    if dlh is not None:
        when = parse_put_datetime(dlh.put_date, dlh.put_time)
        if when is not None:
            return when, "dead-letter header"
    return parse_put_datetime(message.md.put_date, message.md.put_time), "MQMD"


def _days(settings: dict) -> float:
    days = settings.get("days")
    if isinstance(days, bool) or not isinstance(days, int | float) or days <= 0:
        raise ValueError("plugins.settings.no_old_messages.days must be a number of days "
                         f"above 0, not {days!r}")
    return float(days)


def refusal(operation: str, message, settings: dict, now: datetime | None = None
            ) -> str | None:
    """The sentence refusing this put, or None."""
    days = _days(settings)
    only = settings.get("operations")
    if only and operation not in only:
        return None
    when, source = put_time(message)
    if when is None:
        if settings.get("unknown_age", "refuse") == "allow":
            return None
        return ("its put time cannot be read, so its age is unknown (set unknown_age: allow "
                "to let such messages go)")
    age = age_seconds(when, now or datetime.now(UTC))
    if age is None or age <= days * DAY:
        return None
    return (f"the message is {age / DAY:.1f} days old (put {iso_utc(when)}, from its "
            f"{source}), older than the {days:g} days allowed")


@hookimpl
def mqconsole_check_put(operation: str, message, destination: str) -> str | None:
    return refusal(operation, message, plugin_settings())
