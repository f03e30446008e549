"""Every key of the console, with the id a ``keymap`` in the config can remap it by.

Keys are limited to what terminals send reliably over SSH and tmux: letters, digits,
punctuation, ``enter``, ``escape``, ``space``, arrows, ``home``/``end``, ``pageup``/
``pagedown`` and a few ``ctrl`` letters; ``f1`` and ``ctrl+q`` only as second keys for
help and quit where a text field takes ``?`` and ``q`` (``ctrl+q`` is flow control on
some terminals); no ``alt``, no ``ctrl+shift``. docs/tui.md's key table is made from
:data:`SECTIONS` (``tools/gen_docs.py``; a test keeps them equal).

An action is *changing* when it alters a queue or a message on the queue manager. A
read-only profile removes every changing binding from the screens (not just greys it out),
from the command palette and from the action menus; :data:`CHANGING` is that list.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from textual.binding import Binding, BindingType


@dataclass(frozen=True)
class Key:
    id: str  # binding id (the keymap's key) and, usually, the action name
    key: str
    description: str
    action: str = ""
    show: bool = True
    changing: bool = False
    help: str = ""
    priority: bool = False
    system: bool = False  # left out of the help list and the palette (Textual's meaning)

    @property
    def action_name(self) -> str:
        return self.action or self.id

    def binding(self) -> Binding:
        return Binding(self.key, self.action_name, self.description, show=self.show,
                       id=self.id, priority=self.priority, tooltip=self.help,
                       system=self.system)


# -- the console as a whole ----------------------------------------------------------------
# q and ? are typed into a focused text field (Textual then leaves them out of the footer):
# ctrl+q and f1 do the same there, so the footer always shows help and quit
QUIT = Key("quit", "q,ctrl+q", "Quit",
          help="Leave the console (running operations stop at their next unit of work); "
               "where a text field has the focus q is typed into it: ctrl+q then")
HELP = Key("help", "question_mark,f1", "Keys",
          help="Show the keys of this screen (f1 where a text field takes the ?)")
PALETTE = Key("palette", "colon", "Commands", action="command_palette",
              help="Every action and screen, searchable")
JOURNAL = Key("journal", "J", "Journal", show=False, help="The journal of changes")
PROFILES = Key("profiles", "P", "Profile", show=False, help="Choose another profile")

# ctrl+c says how to quit, as Textual's does
HELP_QUIT = Key("help_quit", "ctrl+c", "How to quit", show=False, system=True,
                help="Say which key quits")

APP_KEYS = [QUIT, HELP, PALETTE, JOURNAL, PROFILES, HELP_QUIT]

BACK = Key("back", "escape", "Back", help="Back to the previous screen")
FILTER = Key("filter", "slash", "Filter", help="Filter the list")
REFRESH = Key("refresh", "r", "Refresh", help="Read the list again")

# -- queues --------------------------------------------------------------------------------
OPEN_QUEUE = Key("open", "enter", "Messages", help="Browse the messages of the queue")
SORT = Key("sort", "s", "Sort", help="Sort by the next column")
SORT_REVERSE = Key("sort_reverse", "S", "Reverse", show=False, help="Reverse the sort order")
QUEUE_INFO = Key("queue_info", "i", "Info", help="Every attribute and the status of the queue")
SET_ATTRS = Key("set_attrs", "a", "Attributes", changing=True,
                help="Set BOTHRESH, BOQNAME, HARDENBO, put/get inhibit")
LOAD = Key("load", "l", "Load", changing=True, show=False,
           help="Put the messages of a dmpmqmsg file on the queue")
PUT = Key("put", "p", "Put", changing=True, show=False,
          help="Put new messages (a text payload, a new context) on the queue")
DEFINE_QUEUE = Key("define_queue", "N", "New queue", changing=True, show=False,
                   help="Define a local queue")
DOCTOR = Key("doctor", "D", "Doctor", show=False, help="What a poison message would do here")
REPLAY = Key("replay", "M", "Replay", show=False, help="Replay the delivery model")
DLQ_HANDLER = Key("dlq_handler", "H", "DLQ handler", show=False,
                  help="Plan and run a runmqdlq rules table on this queue")

AUDIT = Key("audit", "A", "Audit", show=False,
            help="Audit queues on Spark: export a snapshot, then the report")

QUEUE_KEYS = [OPEN_QUEUE, FILTER, REFRESH, SORT, SORT_REVERSE, QUEUE_INFO, SET_ATTRS, LOAD,
              PUT, DEFINE_QUEUE, DOCTOR, REPLAY, DLQ_HANDLER, AUDIT]

# -- messages ------------------------------------------------------------------------------
OPEN_MESSAGE = Key("open_message", "enter", "Detail", action="open",
                   help="Every field, header and the payload")
MARK = Key("mark", "space", "Mark", help="Mark or unmark the message under the cursor")
MARK_ALL = Key("mark_all", "asterisk", "Mark all", show=False,
               help="Mark every message the filter matches")
UNMARK_ALL = Key("unmark_all", "U", "Unmark", show=False, help="Clear the marks")
CLEAR_FILTER = Key("clear_filter", "F", "Clear filter", show=False,
                   help="Clear the filter, and the one remembered for this queue")
SUMMARY = Key("summary", "z", "Summary", show=False, help="Show or hide the summary panel")
READ_ALL = Key("read_all", "E", "Read all", show=False,
               help="Read the queue to its end (index, summary, marks); a deep queue read "
                    "page by page: count its whole summary")
MENU = Key("menu", "x", "Actions", help="What can be done with the marked messages")
MOVE = Key("move", "m", "Move", changing=True, show=False,
           help="Move the messages to another queue")
COPY = Key("copy", "c", "Copy", changing=True, show=False,
           help="Copy the messages to another queue")
RESUBMIT = Key("resubmit", "R", "Resubmit", changing=True, show=False,
               help="Send each message back to its destination")
DELETE = Key("delete", "d", "Delete", changing=True, show=False,
             help="Delete the messages (saved to a file first)")
EDIT = Key("edit", "e", "Edit", changing=True, show=False,
           help="Edit the payload and chosen MQMD fields")
EDIT_EXTERNAL = Key("edit_external", "v", "Edit in $EDITOR", changing=True, show=False,
                    help="Edit the payload in $EDITOR")
SAVE = Key("save", "w", "Save messages", show=False,
           help="Save the messages to a dmpmqmsg file (they stay on the queue)")
COPY_MSGID = Key("copy_msgid", "y", "Copy id", show=False,
                 help="Copy the MsgId to the clipboard (OSC 52)")
COPY_PAYLOAD = Key("copy_payload", "Y", "Copy payload", show=False,
                   help="Copy the payload to the clipboard (OSC 52)")
SAVE_PAYLOAD = Key("save_payload", "W", "Save payload to a file", show=False,
                   help="Save the payload to a file: its bytes as they are")
LOAD_HERE = Key("load_here", "l", "Load", action="load", changing=True, show=False,
                help="Put the messages of a dmpmqmsg file on this queue")

MESSAGE_ACTIONS = [MOVE, COPY, RESUBMIT, DELETE, EDIT, EDIT_EXTERNAL, SAVE, COPY_MSGID,
                   COPY_PAYLOAD, SAVE_PAYLOAD, LOAD_HERE, PUT]
# The footer shows few keys, so `?` and quit always fit at 80 columns; `?` lists them all.
MESSAGE_KEYS = [OPEN_MESSAGE, FILTER, CLEAR_FILTER, replace(REFRESH, show=False), MARK, MARK_ALL,
                UNMARK_ALL, SUMMARY, READ_ALL, MENU, *MESSAGE_ACTIONS, DLQ_HANDLER]

# -- message detail ------------------------------------------------------------------------
DETAIL_TABS = [Key(f"tab_{n}", str(n), label, action=f"tab({n})", show=False,
                   help=f"Show the {label} tab")
               for n, label in enumerate(("Summary", "MQMD", "Headers", "Text", "Hex",
                                          "Pretty", "Decoded"), 1)]
LOAD_ALL = Key("load_all", "L", "Load all", show=False,
               help="Show all of a large payload (it opens with its first 64 KB)")
HEX_HEADERS = Key("hex_headers", "h", "Hex with headers", show=False,
                  help="Show the MQ headers' bytes in the Hex tab too, or the payload's only")
DETAIL_KEYS = [*DETAIL_TABS, LOAD_ALL, HEX_HEADERS, MENU, MOVE, COPY, RESUBMIT, DELETE, EDIT,
               EDIT_EXTERNAL, SAVE, COPY_MSGID, COPY_PAYLOAD, SAVE_PAYLOAD]

# -- doctor and replay (read only: they inquire and browse) ---------------------------------
ENDPOINTS = Key("endpoints", "o", "Endpoints", help="Judge with an endpoints file")
COPY_FIXES = Key("copy_fixes", "y", "Copy fixes", help="Copy every fixing command (OSC 52)")
SHOW = Key("show", "enter", "Details", show=False, help="The finding and its fixes")
DOCTOR_KEYS = [SHOW, REFRESH, ENDPOINTS, COPY_FIXES]
RUN_REPLAY = Key("run_replay", "ctrl+o", "Run", help="Run the replay")
NEXT_EVENT = Key("next_event", "n", "Next", show=False, help="The next event that moves a "
                 "message or stops an endpoint")
PREVIOUS_EVENT = Key("previous_event", "p", "Previous", show=False,
                     help="The previous such event")
STOP_REPLAY = Key("stop_replay", "ctrl+x", "Stop", priority=True,
                  help="Stop the replay running (escape stops it too, and goes back)")
REPLAY_KEYS = [RUN_REPLAY, STOP_REPLAY, NEXT_EVENT, PREVIOUS_EVENT]

# -- a journal record: its MsgIds a page at a time ---------------------------------------------
NEXT_PAGE = Key("next_page", "n", "Next ids", help="The next page of the record's MsgIds")
PREVIOUS_PAGE = Key("previous_page", "p", "Previous ids",
                    help="The previous page of the record's MsgIds")
RECORD_KEYS = [NEXT_PAGE, PREVIOUS_PAGE]

# -- the dead-letter handler (its plan is read only; running it changes queues) --------------
DLQ_PLAN = Key("dlq_plan", "r", "Plan again", action="plan",
               help="Read the rules file again and plan it")
DLQ_RUN = Key("dlq_run", "ctrl+o", "Run", action="run_handler", changing=True,
              help="Run one pass of the planned rules table")
DLQ_RULES = Key("dlq_rules", "f", "Rules file", action="focus_rules",
                help="Put the cursor in the rules file's field (enter there plans it)")
DLQ_KEYS = [DLQ_PLAN, DLQ_RUN, DLQ_RULES]

# -- the audit (read only: an export browses, the report reads a snapshot) -------------------
# priority: they work while the queue or folder field has the focus (over its ctrl+e/ctrl+x)
AUDIT_EXPORT = Key("audit_export", "ctrl+e", "Export", action="export", priority=True,
                   help="Export the queues to a snapshot, then show its report")
AUDIT_REPORT = Key("audit_report", "ctrl+r", "Report", action="report", priority=True,
                   help="The report of the snapshot folder")
AUDIT_OPEN = Key("audit_open", "enter", "Messages", action="open_row", show=False,
                 help="Open the messages behind the row under the cursor")
AUDIT_CANCEL = Key("audit_cancel", "ctrl+x", "Cancel", action="cancel", priority=True,
                   help="Cancel the export or report running")
AUDIT_KEYS = [AUDIT_EXPORT, AUDIT_REPORT, AUDIT_OPEN, AUDIT_CANCEL]

# -- lists: the queue list, the message list, the journal, tables ---------------------------
# one id per movement, whichever list has the focus (the message list also takes less's keys)
LIST_UP = Key("list_up", "up,k", "Up", action="cursor(-1)", show=False,
              help="Move the cursor up")
LIST_DOWN = Key("list_down", "down,j", "Down", action="cursor(1)", show=False,
                help="Move the cursor down")
LIST_PAGE_UP = Key("list_page_up", "pageup", "Page up", action="page(-1)", show=False,
                   help="Up a page")
LIST_PAGE_DOWN = Key("list_page_down", "pagedown", "Page down", action="page(1)", show=False,
                     help="Down a page")
LIST_FIRST = Key("list_first", "home,ctrl+home", "First", action="first", show=False,
                 help="The first row")
LIST_LAST = Key("list_last", "end,ctrl+end", "Last", action="last", show=False,
                help="The last row (a queue read to its end)")
LIST_OPEN = Key("list_open", "enter", "Open", action="select", show=False,
                help="Open the row under the cursor")
ROW_LIST_KEYS = [LIST_UP, LIST_DOWN, LIST_PAGE_UP, LIST_PAGE_DOWN, LIST_FIRST, LIST_LAST,
                 LIST_OPEN]
MESSAGE_LIST_KEYS = [LIST_UP, LIST_DOWN, replace(LIST_PAGE_UP, key="pageup,b"),
                     replace(LIST_PAGE_DOWN, key="pagedown,f"),
                     replace(LIST_FIRST, key="home,g"), replace(LIST_LAST, key="end,G")]
# the tables (queue list, reports, help) are Textual DataTables: the same ids on its actions
TABLE_KEYS = [replace(LIST_UP, action="cursor_up"), replace(LIST_DOWN, action="cursor_down"),
              replace(LIST_PAGE_UP, action="page_up"),
              replace(LIST_PAGE_DOWN, action="page_down"),
              replace(LIST_FIRST, key="home,ctrl+home", action="scroll_top"),
              replace(LIST_LAST, key="end,ctrl+end", action="scroll_bottom"),
              replace(LIST_OPEN, action="select_cursor")]

# -- dialogs, the editor, the filter bar, help, profiles --------------------------------------
DIALOG_CANCEL = Key("dialog_cancel", "escape", "Cancel", action="cancel",
                    help="Close the dialog; nothing is done")
DIALOG_YES = Key("dialog_yes", "y", "Yes", action="confirm", help="Answer yes")
DIALOG_NO = Key("dialog_no", "n", "No", action="cancel", help="Answer no")
DIALOG_SUBMIT = Key("dialog_submit", "ctrl+o,enter", "OK", action="submit",
                    help="Accept the form (as its OK button; enter in a text field too)")
DIALOG_TOGGLE = Key("dialog_toggle", "space", "Toggle", action="toggle_button", show=False,
                    help="Tick or untick the checkbox that has the focus")
DIALOG_CLOSE = Key("dialog_close", "enter,q", "Close", action="cancel",
                   help="Close the text")
DIALOG_STOP = Key("dialog_stop", "escape", "Stop", action="cancel",
                  help="Stop the operation at its next unit of work (the open one is backed "
                       "out)")
EDIT_APPLY = Key("edit_apply", "ctrl+o", "Check and apply", action="apply",
                 help="Check the edit, then apply it")
EDIT_FORCE = Key("edit_force", "ctrl+f", "Apply anyway", action="force",
                 help="Apply an edit the check refused")
EDIT_CANCEL = Key("edit_cancel", "escape", "Cancel", action="cancel",
                  help="Leave the editor (asks when something changed)")
FILTER_CLOSE = Key("filter_close", "escape", "Close filter", action="close",
                   help="Close the filter bar")
HELP_CLOSE = Key("help_close", "escape,question_mark,q,enter", "Close", action="close",
                 help="Close the list of keys")
PROFILES_BACK = Key("profiles_back", "escape", "Back", action="leave",
                    help="Back without choosing a profile")
TOO_SMALL_QUIT = Key("too_small_quit", "q", "Quit", action="app.quit",
                     help="Quit (the terminal is too small for the console)")
DIALOG_KEYS = [DIALOG_CANCEL, DIALOG_YES, DIALOG_NO, DIALOG_SUBMIT, DIALOG_TOGGLE, DIALOG_CLOSE,
               DIALOG_STOP, EDIT_APPLY, EDIT_FORCE, EDIT_CANCEL, FILTER_CLOSE, HELP_CLOSE,
               PROFILES_BACK, TOO_SMALL_QUIT]

CHANGING: frozenset[str] = frozenset(
    k.action_name for k in [*QUEUE_KEYS, *MESSAGE_KEYS, *DETAIL_KEYS, *DLQ_KEYS] if k.changing)
ALL_KEYS: list[Key] = [*APP_KEYS, BACK, *QUEUE_KEYS, *MESSAGE_KEYS, *DETAIL_KEYS,
                       *DOCTOR_KEYS, *REPLAY_KEYS, *RECORD_KEYS, *DLQ_KEYS, *AUDIT_KEYS,
                       *ROW_LIST_KEYS, *DIALOG_KEYS]
KNOWN_IDS: frozenset[str] = frozenset(k.id for k in ALL_KEYS)

# where each key works, in the order docs/tui.md lists them (its key table is made from this)
SECTIONS: list[tuple[str, list[Key]]] = [
    ("everywhere", [*APP_KEYS, BACK, FILTER, REFRESH]),
    ("queues", [k for k in QUEUE_KEYS if k not in (FILTER, REFRESH)]),
    ("messages", [k for k in MESSAGE_KEYS if k.id not in (FILTER.id, REFRESH.id)]),
    ("message detail", [k for k in DETAIL_KEYS if k not in MESSAGE_KEYS]),
    ("doctor", [k for k in DOCTOR_KEYS if k is not REFRESH]),
    ("replay", REPLAY_KEYS),
    ("journal record", RECORD_KEYS),
    ("dead-letter handler", DLQ_KEYS),
    ("audit", AUDIT_KEYS),
    ("lists", [*ROW_LIST_KEYS, *MESSAGE_LIST_KEYS]),  # one row per id: the keys of both
    ("dialogs", DIALOG_KEYS),
]
_SHOWN = {"question_mark": "?", "slash": "/", "colon": ":", "asterisk": "*",
          "full_stop": "."}


def key_names(key: Key) -> list[str]:
    """The keys of ``key`` as an operator types them (``?`` for question_mark)."""
    return [_SHOWN.get(k.strip(), k.strip()) for k in key.key.split(",")]


def markdown_table() -> str:
    """docs/tui.md's key table: every key of the console, its id and what it does."""
    out = ["| where | key | id | what |", "|---|---|---|---|"]
    for section, keys in SECTIONS:
        names: dict[str, list[str]] = {}
        first: dict[str, Key] = {}
        for k in keys:  # the same id twice in a section (both lists): its keys together
            first.setdefault(k.id, k)
            shown = names.setdefault(k.id, [])
            shown.extend(n for n in key_names(k) if n not in shown)
        for kid, k in first.items():
            keys_text = ", ".join(f"`{n}`" for n in names[kid])
            flag = " (changes queues: not on a read-only profile)" if k.changing else ""
            out.append(f"| {section} | {keys_text} | `{kid}` | {k.help or k.description}{flag} |")
    return "\n".join(out) + "\n"


@dataclass(frozen=True)
class Command:
    """A command of the palette and the menus: a title and what it runs (made from a
    screen's keys: ``ConsoleScreen.commands``)."""

    title: str
    help: str
    action: str  # an action of the screen ("move") or of the app ("app.journal")
    changing: bool = False


def bindings(keys: list[Key]) -> list[BindingType]:
    return [k.binding() for k in keys]


def binding(key: Key) -> list[BindingType]:
    """The BINDINGS of a widget or dialog with one key."""
    return [key.binding()]


#: the action a read-only screen binds each changing key to (refused by its check_action)
REFUSED = "read_only_refused"


def changing_keys_refused(classes: Iterable[type]) -> list[BindingType]:
    """BINDINGS that take over every key ``classes`` bind to a changing action: in a
    subclass, Textual's bindings of a key replace its bases' (a read-only screen's class), so
    the key reaches no changing action; the stand-in is hidden and refused. Each has the id
    of the binding it stands in for, so the keymap moves it with that binding: the key the
    operator gave ``delete`` is the one refused on a read-only screen."""
    out: list[BindingType] = []
    seen: set[str] = set()
    for cls in classes:
        for item in vars(cls).get("BINDINGS", ()):
            binding = item if isinstance(item, Binding) else Binding(*item)
            if not is_changing(binding.action):
                continue
            for key in (k.strip() for k in binding.key.split(",")):
                if key and key not in seen:
                    seen.add(key)
                    out.append(Binding(key, REFUSED, show=False, id=binding.id))
    return out


def _action_name(action: str) -> str:
    return action.split("(", 1)[0].rsplit(".", 1)[-1]


def is_changing(action: str) -> bool:
    return _action_name(action) in CHANGING


def unknown_keymap_ids(keymap: dict[str, str]) -> list[str]:
    return sorted(k for k in keymap if k not in KNOWN_IDS)


__all__ = [
    "ALL_KEYS",
    "CHANGING",
    "KNOWN_IDS",
    "REFUSED",
    "SECTIONS",
    "Command",
    "Key",
    "binding",
    "bindings",
    "changing_keys_refused",
    "is_changing",
    "key_names",
    "markdown_table",
    "unknown_keymap_ids",
]
