"""The rules table of IBM's dead-letter queue handler (``runmqdlq``), parsed.

The syntax is IBM's (``docs/dlq-handler.md``): an optional first entry of control
data, then rules; ``*`` comment lines and blank lines; keywords in any order, at most once
per entry, separated by blanks or commas, values in parentheses, quoted with ``'`` (a
doubled ``''`` inside is one quote); a trailing ``+`` continues an entry from the first
non-blank character of the next line, a trailing ``-`` from the start of the next line.
While an entry is continued, the next line is part of it even when it starts with ``*``.

Keywords, action values (``FWD``, ``NO``, ``CTX``...), ``&DESTQ`` and friends and symbolic
names (``MQRC_Q_FULL``) are read in any case; queue names and string patterns are kept as
written (MQ names are case-sensitive). Every problem names its line and column and what was
expected; the parser reads all entries so that every bad line is reported, and it never
raises anything but :class:`RulesError` whatever the text.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from string import ascii_letters, digits

from mqconsole.mq import _generated_constants as g
from mqconsole.mq.payload import first_of, located
from mqconsole.mq.queue import MAX_NAME_LENGTH, is_valid_name

CONTROL_KEYWORDS = ("INPUTQ", "INPUTQM", "RETRYINT", "WAIT")
# String patterns and the length of the field each is matched against.
STRING_PATTERNS = {"APPLIDAT": 32, "APPLNAME": 28, "DESTQ": 48, "DESTQM": 48, "FORMAT": 8,
                   "REPLYQ": 48, "REPLYQM": 48, "USERID": 12}
# Numeric patterns and the families of symbolic names each accepts.
NUMERIC_PATTERNS = {"APPLTYPE": ("MQAT_",), "FEEDBACK": ("MQFB_", "MQRC_"),
                    "MSGTYPE": ("MQMT_",), "PERSIST": ("MQPER_",),
                    "REASON": ("MQRC_", "MQFB_")}
PATTERN_KEYWORDS = tuple(sorted([*STRING_PATTERNS, *NUMERIC_PATTERNS]))
ACTION_KEYWORDS = ("ACTION", "FWDQ", "FWDQM", "HEADER", "PUTAUT", "RETRY")
RULE_KEYWORDS = frozenset(PATTERN_KEYWORDS + ACTION_KEYWORDS)
ALL_KEYWORDS = tuple(sorted(RULE_KEYWORDS | set(CONTROL_KEYWORDS)))
ACTIONS = ("DISCARD", "IGNORE", "RETRY", "FWD")
MAX_NUMBER = 999_999_999
DEFAULT_RETRY_INTERVAL = 60

_SYMBOLS: dict[str, dict[str, int]] = {"MQAT_": g.MQAT, "MQFB_": g.MQFB, "MQRC_": g.MQRC,
                                       "MQMT_": g.MQMT, "MQPER_": g.MQPER}
_BLANKS = " \t"
_KEYWORD_CHARS = frozenset(ascii_letters + digits)
_UNQUOTED_END = frozenset(" \t,()'")


@dataclass(frozen=True, slots=True)
class Problem:
    """What is wrong with a table and where (line and column count from 1)."""

    line: int
    column: int
    text: str

    def sentence(self, file: str | None = None) -> str:
        return located(self.text, file=file, line=self.line, column=self.column)


class RulesError(ValueError):
    """A rules table that cannot be used; ``str()`` is one sentence (the first problem, and
    how many more there are)."""

    def __init__(self, problems: list[Problem], file: str | None = None) -> None:
        self.problems = problems
        self.file = file
        super().__init__(first_of([p.sentence(file) for p in problems]))


@dataclass(frozen=True, slots=True)
class Control:
    """The control data. ``wait``: None is WAIT(YES) (run until stopped), 0 is WAIT(NO),
    n waits n seconds for something processable before ending."""

    input_q: str = ""  # blank: the queue manager's dead-letter queue
    input_qm: str = ""  # blank: the queue manager connected to
    retry_interval: int = DEFAULT_RETRY_INTERVAL
    wait: int | None = None
    line: int = 0  # where the control data starts (0: the table has none)


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule. ``strings`` and ``numbers`` hold the patterns other than ``*``; ``fwd_q``
    and ``fwd_qm`` may be ``&DESTQ``, ``&REPLYQ``, ``&DESTQM``, ``&REPLYQM`` (upper case)."""

    number: int  # 1: the first rule after the control data
    line: int
    text: str  # the entry as written, continuations joined
    action: str
    strings: dict[str, str] = field(default_factory=dict)
    numbers: dict[str, int] = field(default_factory=dict)
    fwd_q: str = ""
    fwd_qm: str = ""
    header: bool = True
    put_aut: str = "DEF"
    retry: int = 1
    pattern: str = ""  # the pattern keywords as written ("" matches every message)

    def describe(self) -> str:
        """The rule's action in a few words: ``FWD to APP.DEADQ (header removed)``."""
        if self.action == "FWD":
            where = self.fwd_q + (f" on {self.fwd_qm}" if self.fwd_qm.strip() else "")
            return f"FWD to {where}" + ("" if self.header else " (header removed)")
        if self.action == "RETRY":
            return "RETRY to the header's destination"
        return self.action

    def to_dict(self) -> dict[str, object]:
        return {"rule": self.number, "line": self.line, "pattern": self.pattern or "*",
                "action": self.action, "fwdq": self.fwd_q or None,
                "fwdqm": self.fwd_qm or None,
                "header": self.header if self.action == "FWD" else None,
                "putaut": self.put_aut, "retry": self.retry}


@dataclass(frozen=True, slots=True)
class RulesTable:
    control: Control
    rules: tuple[Rule, ...]

    def to_dict(self) -> dict[str, object]:
        c = self.control
        wait = "YES" if c.wait is None else "NO" if c.wait == 0 else c.wait
        return {"control": {"inputq": c.input_q, "inputqm": c.input_qm,
                            "retryint": c.retry_interval, "wait": wait, "line": c.line or None},
                "rules": [rule.to_dict() for rule in self.rules]}


# -- reading entries -----------------------------------------------------------------------


@dataclass(slots=True)
class _Entry:
    """One entry with its continuations joined; ``where[i]`` is the (line, column) of
    ``text[i]``, ``end`` the place just after the last character."""

    chars: list[str]
    where: list[tuple[int, int]]
    end: tuple[int, int]

    @property
    def text(self) -> str:
        return "".join(self.chars)

    def at(self, i: int) -> tuple[int, int]:
        return self.where[i] if i < len(self.where) else self.end


def _entries(text: str, problems: list[Problem]) -> list[_Entry]:
    lines = re.split(r"\r\n|\r|\n", text)
    entries: list[_Entry] = []
    current: _Entry | None = None
    pending: str | None = None
    for lineno, raw in enumerate(lines, 1):
        line = raw.rstrip(_BLANKS)
        body_start = len(line) - len(line.lstrip(_BLANKS))
        if current is None:
            if not line or line[body_start] == "*":
                continue
            current = _Entry([], [], (lineno, 1))
        elif pending == "-":
            body_start = 0
        body = line[body_start:]
        pending = body[-1] if body and body[-1] in "+-" else None
        if pending:
            body = body[:-1]
        current.chars.extend(body)
        current.where.extend((lineno, body_start + i + 1) for i in range(len(body)))
        current.end = (lineno, body_start + len(body) + 1)
        if pending is None:
            entries.append(current)
            current = None
    if current is not None:
        problems.append(Problem(*current.end, f"expected a line after the continuation "
                                f"'{pending}' at the end of the table"))
        entries.append(current)
    return entries


@dataclass(frozen=True, slots=True)
class _Item:
    keyword: str  # upper case
    value: str  # unquoted
    quoted: bool
    at: tuple[int, int]  # the keyword
    value_at: tuple[int, int]


def _shown(ch: str) -> str:
    return repr(ch)


def _items(entry: _Entry, problems: list[Problem]) -> list[_Item] | None:
    """The entry's ``KEYWORD(value)`` items; None (and a problem) when it cannot be read."""
    s, n, i = entry.text, len(entry.chars), 0
    items: list[_Item] = []

    def fail(at: int, text: str) -> None:
        problems.append(Problem(*entry.at(at), text))

    def skip_blanks(j: int) -> int:
        while j < n and s[j] in _BLANKS:
            j += 1
        return j

    while True:
        while i < n and s[i] in " \t,":
            i += 1
        if i >= n:
            return items
        if s[i] not in _KEYWORD_CHARS:
            fail(i, f"expected a keyword such as ACTION(...), found {_shown(s[i])}")
            return None
        start = i
        while i < n and s[i] in _KEYWORD_CHARS:
            i += 1
        keyword = s[start:i].upper()
        i = skip_blanks(i)
        if i >= n or s[i] != "(":
            found = "the end of the rule" if i >= n else _shown(s[i])
            fail(i, f"expected '(' after {keyword}, found {found}")
            return None
        i = skip_blanks(i + 1)
        value_start = i
        if i < n and s[i] == "'":
            quoted, parts, i = True, [], i + 1
            while True:
                close = s.find("'", i)
                if close < 0:
                    fail(value_start, f"expected a closing quote for the value of {keyword}")
                    return None
                parts.append(s[i:close])
                if close + 1 < n and s[close + 1] == "'":
                    parts.append("'")
                    i = close + 2
                    continue
                i = close + 1
                break
            value = "".join(parts)
        else:
            quoted = False
            while i < n and s[i] not in _UNQUOTED_END:
                i += 1
            value = s[value_start:i]
        i = skip_blanks(i)
        if i >= n or s[i] != ")":
            if i >= n:
                fail(i, f"expected ')' to close {keyword}(, found the end of the rule")
            elif not quoted and value and s[i - 1] in _BLANKS:
                fail(i, f"expected ')' after the value of {keyword}, found {_shown(s[i])} "
                     f"(quote a value with blanks: {keyword}('{value} ...'))")
            else:
                fail(i, f"expected ')' after the value of {keyword}, found {_shown(s[i])}")
            return None
        if value == "":
            fail(value_start, f"expected a value for {keyword} (at least one character; "
                 f"{keyword}(' ') is a blank)")
            return None
        odd = next((c for c in value if c == "\ufffd" or not (c.isprintable() or c == "\t")),
                   None)
        if odd is not None:
            fail(value_start, f"expected printable text in the value of {keyword}, found "
                 f"{_shown(odd)}" + (" (not UTF-8)" if odd == "\ufffd" else ""))
            return None
        i += 1
        if i < n and s[i] not in " \t,":
            fail(i, f"expected a blank or comma after {keyword}(...), found {_shown(s[i])}")
            return None
        items.append(_Item(keyword, value, quoted, entry.at(start), entry.at(value_start)))


# -- values --------------------------------------------------------------------------------


class _Bad(Exception):
    """A value problem (the text of the sentence); the caller knows where."""


def _number(keyword: str, value: str, *, low: int = 0) -> int:
    text = value.strip()
    if not text.isdigit() or not text.isascii():
        raise _Bad(f"expected a whole number for {keyword}, found {value!r}")
    number = int(text)
    if not low <= number <= MAX_NUMBER:
        raise _Bad(f"expected {keyword} between {low} and {MAX_NUMBER:,}, found {number:,}")
    return number


def _symbol(keyword: str, value: str) -> int | None:
    """A numeric pattern: None for ``*``, else the number or symbolic name's value."""
    text = value.strip()
    families = NUMERIC_PATTERNS[keyword]
    names = "an " + "/".join(families) + " name"
    if text == "*":
        return None
    if "*" in text or "?" in text:
        raise _Bad(f"expected a number, {names} or '*' alone for {keyword}: a numeric "
                   f"pattern takes no wildcards within it, found {value!r}")
    if text.isdigit() and text.isascii():
        return _number(keyword, text)
    upper = text.upper()
    for family in families:
        if upper.startswith(family):
            table = _SYMBOLS[family]
            if upper in table:
                return table[upper]
            near = difflib.get_close_matches(upper, table, n=1)
            hint = f" (did you mean {near[0]}?)" if near else ""
            raise _Bad(f"expected a known {family} name, found {text}{hint}")
    other = next((f for f in _SYMBOLS if upper.startswith(f)), None)
    if other:
        raise _Bad(f"expected a number, {names} or '*' for {keyword}, found {text} "
                   f"(an {other} name)")
    raise _Bad(f"expected a number, {names} or '*' for {keyword}, found {value!r}")


def _string_pattern(keyword: str, value: str) -> str | None:
    """A string pattern: None for ``*``; trailing blanks are not significant."""
    if value == "*":
        return None
    length = STRING_PATTERNS[keyword]
    significant = value.rstrip(" ")
    if len(significant.replace("*", "")) > length:
        raise _Bad(f"expected at most {length} characters (besides '*') for {keyword}: "
                   f"the field is {length} long, found {len(significant.replace('*', ''))}")
    return significant


def _name_or_blank(keyword: str, value: str, symbols: tuple[str, ...] = ()) -> str:
    """A queue or queue manager name, ``' '`` (returned as ""), or one of ``symbols``."""
    if "*" in value or "?" in value:
        raise _Bad(f"expected a name for {keyword}: wildcards are patterns, and {keyword} "
                   f"is not a pattern (found {value!r})")
    if value.upper() in symbols:
        return value.upper()
    if value.strip() == "":
        return ""
    if value.startswith("&"):
        raise _Bad(f"expected {' or '.join(symbols) or 'a name'} for {keyword}, "
                   f"found {value!r}")
    if not is_valid_name(value):
        raise _Bad(f"expected an MQ name for {keyword} (1 to {MAX_NAME_LENGTH} of "
                   f"A-Z a-z 0-9 . / _ %), found {value!r}")
    return value


def _choice(keyword: str, value: str, choices: tuple[str, ...]) -> str:
    upper = value.strip().upper()
    if upper not in choices:
        raise _Bad(f"expected {keyword}({'|'.join(choices)}), found {keyword}({value})")
    return upper


def _wait(value: str) -> int | None:
    upper = value.strip().upper()
    if upper == "YES":
        return None
    if upper == "NO":
        return 0
    if upper.isdigit() and upper.isascii():
        return _number("WAIT", upper)
    raise _Bad(f"expected WAIT(YES), WAIT(NO) or WAIT(seconds), found WAIT({value})")


# -- entries to control data and rules -----------------------------------------------------


def _unknown(keyword: str) -> str:
    near = difflib.get_close_matches(keyword, ALL_KEYWORDS, n=1)
    hint = f"did you mean {near[0]}?" if near else (
        "expected a pattern keyword (" + ", ".join(PATTERN_KEYWORDS) + "), an action keyword ("
        + ", ".join(ACTION_KEYWORDS) + ") or control data (" + ", ".join(CONTROL_KEYWORDS)
        + ")")
    return f"{keyword} is not a rules-table keyword: {hint}"


def _control(items: list[_Item], line: int, problems: list[Problem]) -> Control:
    values: dict[str, object] = {}
    for item in items:
        try:
            if item.keyword == "INPUTQ":
                values["input_q"] = _name_or_blank("INPUTQ", item.value)
            elif item.keyword == "INPUTQM":
                values["input_qm"] = _name_or_blank("INPUTQM", item.value)
            elif item.keyword == "RETRYINT":
                values["retry_interval"] = _number("RETRYINT", item.value)
            else:
                values["wait"] = _wait(item.value)
        except _Bad as bad:
            problems.append(Problem(*item.value_at, str(bad)))
    return Control(line=line, **values)  # type: ignore[arg-type]


def _rule(items: list[_Item], number: int, entry: _Entry,
          problems: list[Problem]) -> Rule | None:
    given = {item.keyword: item for item in items}
    before = len(problems)
    strings: dict[str, str] = {}
    numbers: dict[str, int] = {}
    settings: dict[str, object] = {}
    for item in items:
        k, v = item.keyword, item.value
        try:
            if k in STRING_PATTERNS:
                pattern = _string_pattern(k, v)
                if pattern is not None:
                    strings[k] = pattern
            elif k in NUMERIC_PATTERNS:
                code = _symbol(k, v)
                if code is not None:
                    numbers[k] = code
            elif k in ("ACTION", "HEADER", "PUTAUT", "RETRY") and ("*" in v or "?" in v):
                raise _Bad(f"expected a value without wildcards for {k}, found {v!r}")
            elif k == "ACTION":
                settings["action"] = _choice(k, v, ACTIONS)
            elif k == "FWDQ":
                settings["fwd_q"] = _name_or_blank(k, v, ("&DESTQ", "&REPLYQ"))
                if not settings["fwd_q"]:
                    raise _Bad("expected a queue name, &DESTQ or &REPLYQ for FWDQ, "
                               "found a blank")
            elif k == "FWDQM":
                settings["fwd_qm"] = _name_or_blank(k, v, ("&DESTQM", "&REPLYQM"))
            elif k == "HEADER":
                settings["header"] = _choice(k, v, ("YES", "NO")) == "YES"
            elif k == "PUTAUT":
                settings["put_aut"] = _choice(k, v, ("DEF", "CTX"))
            elif k == "RETRY":
                settings["retry"] = _number(k, v)
        except _Bad as bad:
            problems.append(Problem(*item.value_at, str(bad)))
    if "ACTION" not in given:
        problems.append(Problem(*entry.at(0), "expected ACTION(DISCARD|IGNORE|RETRY|FWD) in "
                                "this rule: every rule needs one"))
        return None
    action = settings.pop("action", None)
    if action is not None and action != "FWD":
        for k in ("FWDQ", "FWDQM", "HEADER"):
            if k in given:
                problems.append(Problem(*given[k].at, f"{k} goes with ACTION(FWD) only, "
                                        f"and this rule's action is {action}"))
    if action == "FWD" and "FWDQ" not in given:
        problems.append(Problem(*given["ACTION"].at, "expected FWDQ(queue|&DESTQ|&REPLYQ) "
                                "with ACTION(FWD): where to forward to"))
    if len(problems) > before or action is None:
        return None
    pattern = " ".join(f"{i.keyword}({_quoted(i.value) if i.quoted else i.value})"
                       for i in items if i.keyword in PATTERN_KEYWORDS and i.value != "*")
    return Rule(number=number, line=entry.where[0][0], text=entry.text.strip(),
                action=str(action), strings=strings, numbers=numbers, pattern=pattern,
                **settings)  # type: ignore[arg-type]


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def check_table(text: str) -> tuple[RulesTable | None, list[Problem]]:
    """The table, or None and every problem found (sorted by line and column)."""
    problems: list[Problem] = []
    control = Control()
    rules: list[Rule] = []
    for index, entry in enumerate(_entries(text, problems)):
        items = _items(entry, problems)
        if items is None:
            continue
        seen: set[str] = set()
        clean = True
        for item in items:
            if item.keyword not in RULE_KEYWORDS and item.keyword not in CONTROL_KEYWORDS:
                problems.append(Problem(*item.at, _unknown(item.keyword)))
                clean = False
            elif item.keyword in seen:
                problems.append(Problem(*item.at, f"{item.keyword} is given twice in this "
                                        "entry: expected each keyword at most once"))
                clean = False
            seen.add(item.keyword)
        if not clean or not items:
            continue
        control_items = [item for item in items if item.keyword in CONTROL_KEYWORDS]
        if control_items and (index > 0 or len(control_items) < len(items)):
            where = ("the first entry of the table" if index > 0
                     else "an entry of its own, without rule keywords")
            problems.append(Problem(*control_items[0].at, f"{control_items[0].keyword} is "
                                    f"control data: expected it in {where}"))
            continue
        if control_items:
            control = _control(items, entry.where[0][0], problems)
            continue
        rule = _rule(items, len(rules) + 1, entry, problems)
        if rule is not None:
            rules.append(rule)
    if not rules and not problems:
        problems.append(Problem(1, 1, "expected at least one rule (such as "
                                "ACTION(IGNORE)) after the control data"))
    if problems:
        return None, sorted(problems, key=lambda p: (p.line, p.column))
    return RulesTable(control, tuple(rules)), []


def parse_table(text: str, *, file: str | None = None) -> RulesTable:
    """The table; :class:`RulesError` naming every problem (the sentence: the first)."""
    table, problems = check_table(text)
    if table is None:
        raise RulesError(problems, file)
    return table


MAX_FILE_BYTES = 1_000_000  # a rules table is a few dozen lines


def read_text(path: str) -> str:
    """A rules file's text: a UTF-8 byte order mark at its start dropped (Windows editors
    write one), undecodable bytes read as U+FFFD (reported where they stand).
    OSError when it cannot be read, is a folder, or is longer than MAX_FILE_BYTES (not a
    rules table: ``/dev/zero`` would be read forever); a FIFO, a socket or a folder is
    ``NotAFile`` naming it (never waiting for a FIFO's writer)."""
    from mqconsole.inputfile import open_input

    with open_input(path, "the rules table") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise OSError(27, f"more than {MAX_FILE_BYTES:,} bytes: not a rules table", path)
    return data.decode("utf-8-sig", errors="replace")


def read_table(path: str) -> RulesTable:
    """Read (:func:`read_text`) and parse a rules file."""
    return parse_table(read_text(path), file=path)
