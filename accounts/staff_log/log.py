"""The rights each staff action needs, and the one audit log of staff actions.

Every staff action (banning, lifting a ban, adjusting a wallet, closing a table, removing a player,
changing a table, changing someone's staff rights, deleting a chat message, muting in chat, closing
a report) needs its own permission, checked here by the
service that does it, whatever page or command asked: a page only hides what the service refuses.
The service writes the action to the log (``StaffAction``) in the same transaction as the action,
so what is logged was done and what was refused is not logged.

A staff form carries a token naming it; the log keeps it unique, so a form sent twice (Back and
resubmit, a double click) acts once and the second time is told it was done already.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from accounts import staff_kinds
from accounts.models import LedgerTransaction, StaffAction, User
from accounts.staff_log.errors import AlreadyDone, BadStaffForm, NotPermitted
from accounts.staff_log.kinds import StaffKind

MAX_TOKEN_LENGTH = 100


def may(*, staff_user: Any, kind: StaffKind) -> bool:
    """Whether ``staff_user`` may do this kind of action (pages ask it to offer only what is allowed)."""
    if not isinstance(staff_user, User) or not staff_user.is_active or not staff_user.is_staff:
        return False
    if kind.permission is None:
        return staff_user.is_superuser
    return staff_user.has_perm(kind.permission)


def check_right(*, staff_user: Any, kind: StaffKind) -> User:
    if not may(staff_user=staff_user, kind=kind):
        raise NotPermitted(_(kind.refusal))
    return staff_user


def check_reason(reason: Any, *, message: str) -> str:
    """The reason, stripped; ``message`` (translated) when it is missing."""
    if not isinstance(reason, str) or not reason.strip():
        raise BadStaffForm(message)
    return reason.strip()


def check_token(token: Any) -> str | None:
    if token is None:
        return None
    if not isinstance(token, str) or not token.strip() or len(token) > MAX_TOKEN_LENGTH:
        raise BadStaffForm(_("This form is damaged (its token is missing or too long); open it again."))
    return token


def action_of_token(token: str | None) -> StaffAction | None:
    return StaffAction.objects.filter(token=token).first() if token else None


def already_done(action: StaffAction) -> AlreadyDone:
    when = formats.date_format(timezone.localtime(action.created_at), "DATETIME_FORMAT")
    return AlreadyDone(
        _(
            "This form was already sent: %(what)s at %(when)s (staff action #%(number)s); "
            "nothing more was done."
        )
        % {"what": action.get_kind_display(), "when": when, "number": action.pk}
    )


def check_not_done(token: str | None) -> None:
    """Refuse a form that was already acted on, before doing anything."""
    action = action_of_token(token)
    if action is not None:
        raise already_done(action)


def check_staff_form(
    *, staff_user: Any, kind: StaffKind, reason: Any, token: Any, missing_reason: str
) -> tuple[User, str, str | None]:
    """What every staff action checks before it acts, in this order: the right, the reason
    (``missing_reason`` when there is none) and the form's token, not acted on yet. A StaffRefusal
    names the first that fails; the callers turn it into their own refusal."""
    staff_user = check_right(staff_user=staff_user, kind=kind)
    reason = check_reason(reason, message=missing_reason)
    token = check_token(token)
    check_not_done(token)
    return staff_user, reason, token


def record_staff_action(
    *,
    staff_user: User,
    kind: StaffKind,
    reason: str = "",
    user: User | None = None,
    table_id: int | None = None,
    detail: dict[str, Any] | None = None,
    token: str | None = None,
    ledger_transaction: LedgerTransaction | None = None,
) -> StaffAction:
    """Write one line of the log; call it inside the action's own transaction.

    A token already in the log means the same form was acted on meanwhile (two requests at once):
    ``AlreadyDone``, and the caller's transaction rolls back with it.
    """
    try:
        with transaction.atomic():
            return StaffAction.objects.create(
                staff_user=staff_user,
                kind=kind.name,
                reason=reason,
                user=user,
                table_id=table_id,
                detail=detail or {},
                token=token,
                ledger_transaction=ledger_transaction,
            )
    except IntegrityError:
        existing = action_of_token(token)
        if existing is None:
            raise
        raise already_done(existing) from None


def user_rights(*, user: User) -> dict[str, Any]:
    """What a user may do as staff, as stored: for the log of a change to it."""
    fresh = User.objects.get(pk=user.pk)
    return {
        "is_active": fresh.is_active,
        "is_staff": fresh.is_staff,
        "is_superuser": fresh.is_superuser,
        "groups": sorted(fresh.groups.values_list("name", flat=True)),
        "user_permissions": sorted(
            f"{app}.{codename}"
            for app, codename in fresh.user_permissions.values_list("content_type__app_label", "codename")
        ),
    }


def log_rights_change(*, staff_user: User, user: User, before: dict[str, Any]) -> StaffAction | None:
    """Log what a superuser changed in someone's rights (nothing changed: nothing logged).

    The admin shows these fields to superusers only, and never on their own account; this refuses
    anyone else, so a change that got past a page is still not made silently.
    """
    if not staff_user.is_superuser or staff_user.pk == user.pk:
        raise NotPermitted(_(staff_kinds.RIGHTS.refusal))
    after = user_rights(user=user)
    changed = {field: [before[field], after[field]] for field in after if before.get(field) != after[field]}
    if not changed:
        return None
    return record_staff_action(staff_user=staff_user, kind=staff_kinds.RIGHTS, user=user, detail=changed)


def log_account_change(*, staff_user: User, user: User, changed: dict[str, Any]) -> StaffAction | None:
    """Log what a staff member changed in someone's account (its details, or ``{"password": "set"}``
    for a staff account's password, which superusers alone may set); nothing changed, nothing logged.
    Call it inside the change's own transaction."""
    check_right(staff_user=staff_user, kind=staff_kinds.ACCOUNT)
    if not changed:
        return None
    return record_staff_action(staff_user=staff_user, kind=staff_kinds.ACCOUNT, user=user, detail=changed)
