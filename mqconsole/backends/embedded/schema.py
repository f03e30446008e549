"""The embedded queue manager's SQLite file: its schema, version and identity.

One file holds one queue manager. ``PRAGMA application_id`` marks it as mqconsole's and
``PRAGMA user_version`` is the schema version (also kept in ``meta``).

Message rows keep the packed MQMD (324 or 364 bytes, as put) and the body bytes exactly;
the other columns are what queries need. ``npri`` is ``9 - priority`` (clamped to 0..9) so
that ascending ``(npri, id)`` is MQ's delivery order: priority, then arrival (``id`` grows
with every put and is never reused: AUTOINCREMENT). A message in a unit of work carries
the owning connection in ``put_by`` (an uncommitted put) or ``got_by`` (an uncommitted
get); either makes it invisible to every browse and get. ``queues.curdepth`` counts every
message not got (uncommitted puts included), as MQ's CURDEPTH, and ``queues.last_put``
the last arrival.

Schema 2 keeps ``curdepth`` and ``last_put`` in the code that changes messages, written
once per transaction (session.py), instead of in triggers run for every row (schema 1),
which cost a third of a put's or get's time in SQLite; it also drops the CorrelId index,
which no query used. A schema-1 file is upgraded when a connection opens it while no
other process uses it; until then its triggers keep the figures (``has_triggers``).
"""

from __future__ import annotations

APPLICATION_ID = 0x4D51434E  # "MQCN"
SCHEMA_VERSION = 2
OLDEST_READABLE = 1  # schema 1 is read (with its triggers) and upgraded when possible
#: the rows every browse and get sees: neither put nor got in an open unit of work
VISIBLE = "put_by IS NULL AND got_by IS NULL"

DDL = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE queues (
    name                TEXT PRIMARY KEY,
    type                TEXT NOT NULL,
    max_depth           INTEGER NOT NULL,
    max_msg_length      INTEGER NOT NULL,
    put_inhibited       INTEGER NOT NULL,
    get_inhibited       INTEGER NOT NULL,
    bothresh            INTEGER NOT NULL,
    boqname             TEXT NOT NULL,
    hardenbo            INTEGER NOT NULL,
    description         TEXT NOT NULL,
    usage               TEXT NOT NULL,
    default_persistence INTEGER NOT NULL,
    default_priority    INTEGER NOT NULL,
    target_q            TEXT NOT NULL,
    remote_q_name       TEXT NOT NULL,
    remote_qmgr_name    TEXT NOT NULL,
    xmit_q              TEXT NOT NULL,
    create_time         REAL NOT NULL,
    alter_time          REAL NOT NULL,
    curdepth            INTEGER NOT NULL DEFAULT 0,
    last_get            REAL,
    last_put            REAL
);

CREATE TABLE messages (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    queue         TEXT NOT NULL,
    npri          INTEGER NOT NULL,
    priority      INTEGER NOT NULL,
    backout_count INTEGER NOT NULL DEFAULT 0,
    expires_at    REAL,
    msg_id        BLOB NOT NULL,
    correl_id     BLOB NOT NULL,
    put_time      REAL NOT NULL,
    length        INTEGER NOT NULL,
    put_by        INTEGER,
    got_by        INTEGER,
    md            BLOB NOT NULL,
    body          BLOB NOT NULL,
    f_reason      INTEGER,
    f_dest        TEXT,
    f_format      TEXT,
    f_put         INTEGER,
    f_dest_qm     TEXT
);
CREATE INDEX messages_visible ON messages(queue, npri, id)
    WHERE put_by IS NULL AND got_by IS NULL;
CREATE INDEX messages_msg_id ON messages(queue, msg_id);
CREATE INDEX messages_put_by ON messages(put_by) WHERE put_by IS NOT NULL;
CREATE INDEX messages_got_by ON messages(got_by) WHERE got_by IS NOT NULL;
CREATE INDEX messages_expiry ON messages(queue, expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE authorities (
    principal   TEXT NOT NULL,
    object_type TEXT NOT NULL,
    profile     TEXT NOT NULL,
    auths       TEXT NOT NULL,
    PRIMARY KEY (principal, object_type, profile)
) WITHOUT ROWID;

CREATE TABLE connections (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    pid        INTEGER NOT NULL,
    proc_start TEXT,
    host       TEXT NOT NULL,
    principal  TEXT NOT NULL,
    appl       TEXT NOT NULL,
    started    REAL NOT NULL
);

CREATE TABLE handles (
    id     INTEGER PRIMARY KEY AUTOINCREMENT,
    conn   INTEGER NOT NULL,
    queue  TEXT NOT NULL,
    browse INTEGER NOT NULL,
    input  INTEGER NOT NULL,
    output INTEGER NOT NULL,
    opened REAL NOT NULL
);
CREATE INDEX handles_queue ON handles(queue);
CREATE INDEX handles_conn ON handles(conn);
"""

#: The facts of a message (mq/facts.py) kept when it is put, so that summaries and most
#: selections run inside SQLite: the dead-letter reason, destination queue and its queue
#: manager (NULL without a readable header; the queue manager "" when blank), the format
#: it carries, the put time in microseconds since 1970 (NULL when PutDate/PutTime are not
#: a time). ``f_format`` NULL: not known (a row written by an older mqconsole, or put back
#: by a backout), and ``f_dest_qm`` NULL beside a destination: not known (a row written
#: before that column was); such rows are filled in when asked for.
FACT_COLUMNS = (("f_reason", "INTEGER"), ("f_dest", "TEXT"), ("f_format", "TEXT"),
                ("f_put", "INTEGER"), ("f_dest_qm", "TEXT"))
FACTS_UNKNOWN = "(f_format IS NULL OR (f_dest IS NOT NULL AND f_dest_qm IS NULL))"
"""A row whose facts are to be filled in (see ``FACT_COLUMNS``)."""
ADD_FACT_COLUMNS = [f"ALTER TABLE messages ADD COLUMN {n} {t}" for n, t in FACT_COLUMNS]
"""Run when a file lacks them (a file made by an older mqconsole; older code writes rows
with its own column list, so the columns harm nothing there)."""

QUEUE_COLUMNS = (
    "name", "type", "max_depth", "max_msg_length", "put_inhibited", "get_inhibited",
    "bothresh", "boqname", "hardenbo", "description", "usage", "default_persistence",
    "default_priority", "target_q", "remote_q_name", "remote_qmgr_name", "xmit_q",
    "create_time", "alter_time",
)

#: Messages that can expire, found without reading the queue (positions.py: a page at a
#: position counts as a browse does, which discards expired messages). Only rows with an
#: expiry are in it. Files made before it get it when a page at a position is first read
#: (``positions.Positioning``), not at every connect: on a large queue it is one scan.
EXPIRY_INDEX = ("CREATE INDEX IF NOT EXISTS messages_expiry ON messages(queue, expires_at) "
                "WHERE expires_at IS NOT NULL")

V1_TRIGGERS = ("depth_put", "depth_delete", "depth_get", "depth_backout")

UPGRADE_1_TO_2 = """
DROP TRIGGER IF EXISTS depth_put;
DROP TRIGGER IF EXISTS depth_delete;
DROP TRIGGER IF EXISTS depth_get;
DROP TRIGGER IF EXISTS depth_backout;
DROP INDEX IF EXISTS messages_correl_id;
UPDATE queues SET curdepth = (SELECT count(*) FROM messages
    WHERE messages.queue = queues.name AND messages.got_by IS NULL);
UPDATE meta SET value = '2' WHERE key = 'schema_version';
PRAGMA user_version = 2;
"""
"""Run inside a write transaction by the only connection using a schema-1 file."""
