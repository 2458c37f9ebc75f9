"""A credential pinned to one user acts only for that user.

Inside an org, the services keep one user's memory out of another user's contexts
(ARCHITECTURE.md §2). An org-wide credential may still name any user — that is what an app serving
many people does. A JWT carrying the user claim (``LORE_JWT_USER_CLAIM``, ``user_id`` by default) and
an API key made for one user (``lore keys create --user U``) are pinned to that user, so the wall
holds even against a buggy or compromised app:

- every ``Scope`` and ``user_id`` a request carries is the pinned user: left empty, it is filled in;
  naming another user is refused (403 ``USER_PINNED``, naming the field);
- a record addressed by id (memory, belief, session) must be the user's own; the organisation's
  shared records (no user) may be read, not changed. Another user's record answers 404, as if absent.

Org-wide credentials (API keys made without a user, tokens without the claim) are not affected. Engagement state is the
organisation's (one per org) and the admin routes act on the org: their scopes govern them.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from lore_runtime import errors

from gateway_svc.domain.credentials import Caller

SCOPE_MESSAGE = "lore.common.v1.Scope"


def pin_request(caller: Caller, message: Message) -> Message:
    """``message`` with every user it names checked against, or set to, the caller's pinned user."""
    if caller.user_id:
        _pin(message, caller.user_id, "")
    return message


def _pin(message: Message, user_id: str, prefix: str) -> None:
    for field in message.DESCRIPTOR.fields:
        path = f"{prefix}{field.json_name}"
        if field.message_type is None:
            if field.name == "user_id" and field.type == FieldDescriptor.TYPE_STRING and not field.is_repeated:
                _pin_user(message, user_id, path)
        elif field.message_type.full_name == SCOPE_MESSAGE:
            for child, child_path in _children(message, field, path, create=True):
                _pin_user(child, user_id, f"{child_path}.userId")
        elif field.message_type.full_name.startswith("lore.") and not field.message_type.GetOptions().map_entry:
            for child, child_path in _children(message, field, path, create=False):
                _pin(child, user_id, f"{child_path}.")


def _children(message: Message, field: FieldDescriptor, path: str, *, create: bool) -> list[tuple[Any, str]]:
    if field.is_repeated:
        return [(child, f"{path}[{index}]") for index, child in enumerate(getattr(message, field.name))]
    if create or message.HasField(field.name):
        return [(getattr(message, field.name), path)]  # reading an unset message field and writing it sets it
    return []


def _pin_user(holder: Any, user_id: str, path: str) -> None:
    if not holder.user_id:
        holder.user_id = user_id
    elif holder.user_id != user_id:
        raise errors.PermissionDenied(
            f"{path}: this credential acts only for its own user",
            reason="USER_PINNED",
            metadata={"field": path},
        )


def check_readable(caller: Caller, owner: str, kind: str, record_id: str) -> None:
    """A pinned caller reads its own records and the organisation's shared ones (no user)."""
    if caller.user_id and owner not in ("", caller.user_id):
        raise _absent(kind, record_id)


def check_writable(caller: Caller, owner: str, kind: str, record_id: str) -> None:
    """A pinned caller changes only its own records."""
    if not caller.user_id or owner == caller.user_id:
        return
    if owner:
        raise _absent(kind, record_id)
    raise errors.PermissionDenied(
        f"{kind} {record_id} is shared by the organisation: this credential changes only its own user's",
        reason="USER_PINNED",
        metadata={"id": record_id},
    )


def _absent(kind: str, record_id: str) -> errors.NotFound:
    """What the service answers for an id it does not hold, so another user's ids reveal nothing."""
    return errors.NotFound(f"{kind} {record_id} not found", reason=f"{kind.upper()}_NOT_FOUND")
