"""Authorities of the embedded queue manager: the checks every call makes (``_require``)
and their administration (setmqaut / dspmqaut, not themselves checked).
"""

from __future__ import annotations

from collections.abc import Iterable

from mqconsole.mq.queue import (
    is_valid_name,
)

from ..base import Context
from . import auth
from .auth import QMGR, QUEUE, AuthorityRecord
from .calls import api
from .session import _UNSET
from .storage import Storage


class Authorities(Storage):
    """Who may do what: records read once per write transaction."""

    def _auth_records(self) -> list[AuthorityRecord] | None:
        s = self._s
        if s.held and s.auth is not _UNSET:
            return s.auth  # type: ignore[return-value]
        rows = self._db.execute(
            "SELECT principal, object_type, profile, auths FROM authorities").fetchall()
        records = None if not rows else [
            AuthorityRecord(r[0], r[1], r[2], frozenset(r[3].split())) for r in rows]
        if s.held:
            s.auth = records
        return records

    def _require(self, records: list[AuthorityRecord] | None, what: str, object_type: str,
                 name: str, principal: str = "") -> None:
        if records is None:
            return
        who = principal or self._principal
        if what not in auth.granted(records, who, object_type, name):
            raise auth.refuse(who, what, object_type, name)

    def _require_context(self, records: list[AuthorityRecord] | None, context: Context,
                         name: str, principal: str = "") -> None:
        need = {Context.SET_ALL: "setall", Context.SET_IDENTITY: "setid"}.get(context)
        if need:
            self._require(records, need, QUEUE, name, principal)
            self._require(records, need, QMGR, self._name, principal)
        elif context is Context.PASS_ALL:
            # +passall on the queue alone: IBM ("Authorizations for context"), set context
            # needs the queue manager object too, passing it does not
            self._require(records, "passall", QUEUE, name, principal)


    # -- authorities (setmqaut / dspmqaut; not themselves checked) --------------------------
    def _profile(self, object_name: str, object_type: str) -> str:
        if object_type not in auth.OBJECT_TYPES:
            raise ValueError(f"object_type must be 'queue' or 'qmgr', not {object_type!r}")
        if object_type == QMGR:
            return object_name or self._name
        if not object_name or not is_valid_name(object_name.replace("*", "A")):
            raise ValueError(f"{object_name!r} is not a queue name or generic profile")
        return object_name

    @api
    def set_authority(self, principal: str, object_name: str,
                      authorities: Iterable[str] | str, *, object_type: str = QUEUE
                      ) -> AuthorityRecord:
        """Grant exactly ``authorities`` (MQ names, ``+`` optional; ``all``/``none``) to
        ``principal`` on a queue, a generic profile (``APP.*``) or the queue manager
        (``object_type="qmgr"``). Replaces that record; an empty set still counts as
        defined (everyone else is then checked too)."""
        if not principal:
            raise ValueError("principal must not be empty")
        profile = self._profile(object_name, object_type)
        auths = auth.normalize(authorities)
        with self._write(durable=True) as db:
            db.execute("INSERT OR REPLACE INTO authorities (principal, object_type, profile, "
                       "auths) VALUES (?, ?, ?, ?)",
                       (principal, object_type, profile, " ".join(sorted(auths))))
        return AuthorityRecord(principal, object_type, profile, auths)

    @api
    def delete_authority(self, principal: str, object_name: str, *,
                         object_type: str = QUEUE) -> bool:
        profile = self._profile(object_name, object_type)
        with self._write(durable=True) as db:
            cur = db.execute("DELETE FROM authorities WHERE principal = ? AND object_type = ? "
                             "AND profile = ?", (principal, object_type, profile))
        return cur.rowcount > 0

    @api
    def clear_authorities(self) -> None:
        """Remove every record: everyone may do everything again."""
        with self._write(durable=True) as db:
            db.execute("DELETE FROM authorities")

    @api
    def authorities(self, principal: str | None = None) -> list[AuthorityRecord]:
        records = self._auth_records() or []
        return sorted((r for r in records if principal is None or r.principal == principal),
                      key=lambda r: (r.principal, r.object_type, r.profile))

    @api
    def effective_authorities(self, principal: str, object_name: str, *,
                              object_type: str = QUEUE) -> frozenset[str] | None:
        """What ``principal`` may do on one object; None when no authority is defined at
        all (then everyone may do everything)."""
        records = self._auth_records()
        if records is None:
            return None
        return auth.granted(records, principal, object_type,
                            self._profile(object_name, object_type))

