"""How the console looks and answers keys: themes, banner colours, the keymap, ``tui:``."""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field, field_validator

from .checks import Model, err

# the audit's Spark masters (audit.session checks them exactly; config may not import it)
_MASTER = re.compile(r"^(local(\[[^\]]+\])?|spark://\S+|yarn|k8s://\S+|sc://\S+)$")
# the Spark settings tui.audit_conf does not take, and why (audit.session.NOT_CONF, as the
# audit commands' --conf says it)
_NOT_CONF = {
    "spark.master": "name the master with tui.audit_master",
    "spark.submit.deployMode": "mqconsole's own process is the Spark driver (client mode); in "
                               "cluster mode the driver would run on the cluster, without "
                               "mqconsole",
}

DEFAULT_THEME = "mqconsole-dark"

_HEX_COLOUR = re.compile(r"^#[0-9A-Fa-f]{6}$")

# CSS colour names (as Textual accepts them) and the ANSI names.
_CSS_COLOUR_TEXT = """
    aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue
    blueviolet brown burlywood cadetblue chartreuse chocolate coral cornflowerblue cornsilk
    crimson cyan darkblue darkcyan darkgoldenrod darkgray darkgreen darkgrey darkkhaki
    darkmagenta darkolivegreen darkorange darkorchid darkred darksalmon darkseagreen
    darkslateblue darkslategray darkslategrey darkturquoise darkviolet deeppink deepskyblue
    dimgray dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro ghostwhite
    gold goldenrod gray green greenyellow grey honeydew hotpink indianred indigo ivory khaki
    lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan
    lightgoldenrodyellow lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen
    lightskyblue lightslategray lightslategrey lightsteelblue lightyellow lime limegreen linen
    magenta maroon mediumaquamarine mediumblue mediumorchid mediumpurple mediumseagreen
    mediumslateblue mediumspringgreen mediumturquoise mediumvioletred midnightblue mintcream
    mistyrose moccasin navajowhite navy oldlace olive olivedrab orange orangered orchid
    palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru pink plum
    powderblue purple rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown
    seagreen seashell sienna silver skyblue slateblue slategray slategrey snow springgreen
    steelblue tan teal thistle tomato turquoise violet wheat white whitesmoke yellow
    yellowgreen"""
_CSS_COLOURS = frozenset(_CSS_COLOUR_TEXT.split())
_ANSI_BASE = ("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white")
_ANSI_COLOURS = frozenset(
    [f"bright_{c}" for c in _ANSI_BASE]
    + [f"ansi_{c}" for c in _ANSI_BASE]
    + [f"ansi_bright_{c}" for c in _ANSI_BASE]
)
COLOUR_NAMES = _CSS_COLOURS | _ANSI_COLOURS


def check_colour(value: str | None) -> str | None:
    """A banner colour, normalised: ``#rrggbb`` in lower case, or a known colour name."""
    if value is None:
        return None
    if _HEX_COLOUR.match(value):
        return value.lower()
    name = value.strip().lower().replace("-", "_")
    if name in COLOUR_NAMES:
        return name
    raise err(
        "colour",
        f"{value!r} is not a colour: use a colour name (red, orange, darkred, ...) or #rrggbb",
    )


def check_keymap(value: dict[str, str]) -> dict[str, str]:
    """Binding id -> key, neither of them empty."""
    for binding, key in value.items():
        if not binding.strip():
            raise err("empty", "a binding id must not be empty")
        if not key.strip():
            raise err("empty", f"the key for {binding} must not be empty", at=(binding,))
    return value


class TuiConfig(Model):
    """The interactive console."""

    refresh_seconds: float = Field(
        default=5.0, ge=0, le=3600, description="queue list refresh; 0 = only on demand"
    )
    page_size: int = Field(default=200, ge=1, le=100_000, description="messages per page")
    audit_master: str | None = Field(
        default=None,
        description="where the audit screen runs Spark: local[N], spark://HOST:PORT, yarn, "
        "k8s://URL or sc://HOST:PORT (Spark Connect); default local[*]",
    )

    @field_validator("audit_master")
    @classmethod
    def _master(cls, value: str | None) -> str | None:
        if value is not None and not _MASTER.match(value.strip()):
            raise err("master", f"{value!r} is not a Spark master: local[N], spark://HOST:PORT, "
                      "yarn, k8s://URL or sc://HOST:PORT")
        return None if value is None else value.strip()

    audit_conf: dict[str, str] = Field(
        default_factory=dict,
        description="Spark settings of the audit screen's session, spark.KEY: VALUE (as the "
        "audit commands' --conf spark.KEY=VALUE); over the site's spark-defaults.conf",
    )

    @field_validator("audit_conf", mode="before")
    @classmethod
    def _conf(cls, value: Any) -> dict[str, str]:
        """``spark.KEY: VALUE`` pairs, each value as Spark reads it (``false``, ``4``);
        the console gives them to ``audit.session.parse_conf`` as ``--conf`` lines (config
        may not import it: the same rule, said here with the line of the setting)."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise err("conf", "must be a mapping of Spark settings, spark.KEY: VALUE")
        out: dict[str, str] = {}
        for key, setting in value.items():
            name = str(key).strip()
            if not isinstance(key, str) or not name.startswith("spark.") or "=" in name \
                    or any(c.isspace() for c in name):
                raise err("conf", f"{str(key)!r} is not a Spark setting: name it spark.KEY "
                          "(as --conf spark.KEY=VALUE does)", at=(key,))
            if name in _NOT_CONF:
                raise err("conf", f"{name} is not taken here: {_NOT_CONF[name]}", at=(key,))
            if isinstance(setting, bool):
                out[name] = "true" if setting else "false"
            elif isinstance(setting, str | int | float):
                out[name] = str(setting).strip()
            else:
                raise err("conf", f"{name} needs one value (a word, a number, true or false)",
                          at=(key,))
        return out
