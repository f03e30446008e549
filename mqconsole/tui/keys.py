"""Every key of the console, with the id a ``keymap`` in the config can remap it by.

Keys are limited to what terminals send reliably over SSH and tmux: letters, digits,
punctuation, ``enter``, ``escape``, ``space``, arrows, ``home``/``end``, ``pageup``/
``pagedown`` and a few ``ctrl`` letters that are not flow control (never ``ctrl+s``/
``ctrl+q``) — no function keys, no ``alt``, no ``ctrl+shift``.

An action is *changing* when it alters a queue or a message on the queue manager. A
read-only profile removes every changing binding from the screens (not just greys it out),
from the command palette and from the action menus; :data:`CHANGING` is that list.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from textual.binding import Binding, BindingsMap, BindingType


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

    @property
    def action_name(self) -> str:
        return self.action or self.id

    def binding(self) -> Binding:
        return Binding(self.key, self.action_name, self.description, show=self.show,
                       id=self.id, priority=self.priority, tooltip=self.help)


# -- the console as a whole ----------------------------------------------------------------
# q and ? are typed into a focused text field (Textual then leaves them out of the footer):
# ctrl+q and f1 do the same there, so the footer always shows help and quit
QUIT = Key("quit", "q,ctrl+q", "Quit", help="Leave the console")
HELP = Key("help", "question_mark,f1", "Keys", help="Show the keys of this screen")
PALETTE = Key("palette", "colon", "Commands", action="command_palette",
              help="Every action and screen, searchable")
JOURNAL = Key("journal", "J", "Journal", show=False, help="The journal of changes")
PROFILES = Key("profiles", "P", "Profile", show=False, help="Choose another profile")

APP_KEYS = [QUIT, HELP, PALETTE, JOURNAL, PROFILES]

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
MESSAGE_KEYS = [OPEN_MESSAGE, FILTER, replace(REFRESH, show=False), MARK, MARK_ALL, UNMARK_ALL,
                SUMMARY, READ_ALL, MENU, *MESSAGE_ACTIONS, DLQ_HANDLER]

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
REPLAY_KEYS = [RUN_REPLAY, NEXT_EVENT, PREVIOUS_EVENT]

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
DLQ_KEYS = [DLQ_PLAN, DLQ_RUN]

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

CHANGING: frozenset[str] = frozenset(
    k.action_name for k in [*QUEUE_KEYS, *MESSAGE_KEYS, *DETAIL_KEYS, *DLQ_KEYS] if k.changing)
ALL_KEYS: list[Key] = [*APP_KEYS, BACK, *QUEUE_KEYS, *MESSAGE_KEYS, *DETAIL_KEYS,
                       *DOCTOR_KEYS, *REPLAY_KEYS, *RECORD_KEYS, *DLQ_KEYS, *AUDIT_KEYS]
KNOWN_IDS: frozenset[str] = frozenset(k.id for k in ALL_KEYS)


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


def without_changing(bindings_map: BindingsMap) -> BindingsMap:
    """A copy of ``bindings_map`` with every changing action removed."""
    keys: dict[str, list[Binding]] = {}
    for key, binding in bindings_map:
        if _action_name(binding.action) in CHANGING:
            continue
        keys.setdefault(key, []).append(binding)
    return BindingsMap.from_keys(keys)


def _action_name(action: str) -> str:
    return action.split("(", 1)[0].rsplit(".", 1)[-1]


def is_changing(action: str) -> bool:
    return _action_name(action) in CHANGING


def unknown_keymap_ids(keymap: dict[str, str]) -> list[str]:
    return sorted(k for k in keymap if k not in KNOWN_IDS)


__all__ = ["ALL_KEYS", "CHANGING", "KNOWN_IDS", "Command", "Key", "bindings", "is_changing",
           "unknown_keymap_ids", "without_changing"]
