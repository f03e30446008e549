"""The delivery model (delivery-model.md) and replay scenarios (replay-format.md).

Depends only on ``mq/`` (and yaml for reading scenarios)::

    from mqconsole.model import load_scenario, replay
    result = replay(load_scenario("examples/scenarios/poison-stops-endpoint.yaml"))
    result.to_json()          # the document of `mqconsole replay --json`
"""

from .engine import Engine, FailurePlugin, replay, unknown_plugin_rule
from .result import EVENT_TYPES, MessageState, ReplayResult, Step, Timeline
from .scenario import (
    ActionSpec,
    AuthoritySpec,
    EndpointsFile,
    EndpointSpec,
    FailureRule,
    Limits,
    MessageSpec,
    QueueManagerSpec,
    QueueSpec,
    Scenario,
    ScenarioError,
    load_endpoints,
    load_scenario,
    parse_endpoints,
    parse_scenario,
    scenario_from_data,
)

__all__ = [
    "EVENT_TYPES", "ActionSpec", "AuthoritySpec", "EndpointSpec", "EndpointsFile", "Engine",
    "FailurePlugin", "FailureRule", "Limits", "MessageSpec", "MessageState",
    "QueueManagerSpec", "QueueSpec", "ReplayResult", "Scenario", "ScenarioError", "Step",
    "Timeline", "load_endpoints", "load_scenario", "parse_endpoints", "parse_scenario",
    "replay", "scenario_from_data", "unknown_plugin_rule",
]
