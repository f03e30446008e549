"""Textual themes from YAML files (the shipped ``themes/`` folder and the user's folder).

A theme file holds the fields of ``textual.theme.Theme``::

    name: mqconsole-dark          # required; how the config and the palette name it
    dark: true
    primary: "#4EA1F3"            # required
    secondary: "#7C8FA6"
    accent: "#F0A04B"
    foreground: "#E0E6EE"
    background: "#10151C"
    surface: "#18202A"
    panel: "#223041"
    warning: "#F0C04B"
    error: "#F0605B"
    success: "#5BC98C"
    boost: ...                    # optional, like luminosity_spread and text_alpha
    variables:                    # optional Textual CSS variables
      footer-key-foreground: "#F0A04B"

A file that cannot be read or used is reported (one sentence naming the file and the
problem) and skipped; the console keeps its default theme. Later folders override themes of
the same name from earlier ones (the user's folder wins over the shipped one).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.color import Color, ColorParseError
from textual.theme import Theme

COLOUR_FIELDS = ("primary", "secondary", "warning", "error", "success", "accent", "foreground",
                 "background", "surface", "panel", "boost")
OTHER_FIELDS = ("name", "dark", "luminosity_spread", "text_alpha", "variables")
MAX_FILE_BYTES = 256 * 1024


class ThemeFileError(ValueError):
    """A theme file that cannot be used (one sentence naming the file)."""


@dataclass
class LoadedThemes:
    themes: dict[str, Theme] = field(default_factory=dict)
    sources: dict[str, Path] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _colour(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{key} must be a colour in quotes, like \"#4EA1F3\"")
    try:
        Color.parse(value)
    except ColorParseError:
        raise ValueError(f"{key}: {value!r} is not a colour") from None
    return value


def theme_from_data(data: Any, *, source: str = "<theme>") -> Theme:
    """A ``Theme`` from the parsed YAML of one file; raises :class:`ThemeFileError`."""
    try:
        if not isinstance(data, dict):
            raise ValueError("must be a mapping of theme settings (name:, primary:, ...)")
        unknown = sorted(str(k) for k in data if k not in COLOUR_FIELDS + OTHER_FIELDS)
        if unknown:
            raise ValueError(f"unknown setting {unknown[0]} (known: "
                             f"{', '.join(OTHER_FIELDS + COLOUR_FIELDS)})")
        name = data.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ValueError("name: is missing")
        if "primary" not in data:
            raise ValueError("primary: is missing")
        kw: dict[str, Any] = {"name": name.strip()}
        for key in COLOUR_FIELDS:
            if data.get(key) is not None:
                kw[key] = _colour(data[key], key)
        if "dark" in data:
            if not isinstance(data["dark"], bool):
                raise ValueError("dark must be true or false")
            kw["dark"] = data["dark"]
        for key in ("luminosity_spread", "text_alpha"):
            if key in data:
                value = data[key]
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise ValueError(f"{key} must be a number")
                kw[key] = float(value)
        variables = data.get("variables") or {}
        if not isinstance(variables, dict):
            raise ValueError("variables must be a mapping of CSS variable names to values")
        kw["variables"] = {str(k): str(v) for k, v in variables.items()}
        theme = Theme(**kw)
        theme.to_color_system()  # proves every colour combines
        return theme
    except ValueError as exc:
        raise ThemeFileError(f"{source}: {exc}") from None
    except Exception as exc:  # a theme Textual itself refuses
        raise ThemeFileError(f"{source}: {type(exc).__name__}: {exc}") from None


def _parse(text: str) -> Any:
    """``yaml.safe_load`` through libyaml where PyYAML has it (a theme file read at each
    start: a tenth of the time). A file libyaml refuses is read again by PyYAML's own
    parser, so a broken theme is reported in the same words either way."""
    import yaml

    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None:
        try:
            return yaml.load(text, Loader=fast)  # the safe loader, in C
        except yaml.YAMLError:
            pass
    return yaml.safe_load(text)


def load_theme_file(path: Path) -> Theme:
    import yaml

    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ThemeFileError(f"{path}: larger than {MAX_FILE_BYTES // 1024} KB")
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ThemeFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ThemeFileError(f"{path}: not UTF-8 text") from None
    try:
        data = _parse(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "not valid YAML"
        raise ThemeFileError(f"{path}{line}: {problem}") from None
    return theme_from_data(data, source=str(path))


def load_themes(folders: Iterable[Path | None]) -> LoadedThemes:
    """Every ``*.yaml``/``*.yml`` theme of the folders (missing folders are skipped)."""
    out = LoadedThemes()
    for folder in folders:
        if folder is None:
            continue
        folder = Path(folder).expanduser()
        if not folder.is_dir():
            continue
        files = sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")])
        for path in files:
            try:
                theme = load_theme_file(path)
            except ThemeFileError as exc:
                out.problems.append(str(exc))
                continue
            out.themes[theme.name] = theme
            out.sources[theme.name] = path
    return out


__all__ = ["LoadedThemes", "ThemeFileError", "load_theme_file", "load_themes",
           "theme_from_data"]
