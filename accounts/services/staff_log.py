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
from django.utils.translation import gettext_noop

from accounts.models import LedgerTransaction, StaffAction, User
from accounts.services.errors import InvalidRequest, LedgerError

Kind = StaffAction.Kind

# The permission of each action; the table ones are the games app's (by name: no import of games).
PERMISSIONS: dict[str, str | None] = {
    Kind.BAN: "accounts.add_ban",
    Kind.LIFT_BAN: "accounts.lift_ban",
    Kind.WALLET_ADJUST: "accounts.adjust_wallet",
    Kind.TABLE_CLOSE: "games.close_table",
    Kind.SEAT_REMOVE: "games.remove_player",
    Kind.TABLE_EDIT: "games.change_table",
    Kind.RIGHTS: None,  # superusers only
    Kind.CHAT_DELETE: "games.delete_chatmessage",
    Kind.CHAT_MUTE: "games.add_chatmute",
    Kind.REPORT_CLOSE: "games.change_report",
    Kind.ACCOUNT: "accounts.change_user",
    # A player's own break protects them from themselves: only the highest right lifts one.
    Kind.LIFT_BREAK: None,  # superusers only
}

_REFUSALS: dict[str, str] = {
    Kind.BAN: gettext_noop("You do not have the right to ban players; nothing was changed."),
    Kind.LIFT_BAN: gettext_noop("You do not have the right to lift bans; nothing was changed."),
    Kind.WALLET_ADJUST: gettext_noop("You do not have the right to adjust wallets; nothing was changed."),
    Kind.TABLE_CLOSE: gettext_noop("You do not have the right to close tables; nothing was changed."),
    Kind.SEAT_REMOVE: gettext_noop(
        "You do not have the right to remove players from their seats; nothing was changed."
    ),
    Kind.TABLE_EDIT: gettext_noop("You do not have the right to change tables; nothing was changed."),
    Kind.RIGHTS: gettext_noop("Only superusers may change staff rights; nothing was changed."),
    Kind.CHAT_DELETE: gettext_noop("You do not have the right to delete chat messages; nothing was changed."),
    Kind.CHAT_MUTE: gettext_noop("You do not have the right to mute players in chat; nothing was changed."),
    Kind.REPORT_CLOSE: gettext_noop("You do not have the right to close reports; nothing was changed."),
    Kind.ACCOUNT: gettext_noop("You do not have the right to change accounts; nothing was changed."),
    Kind.LIFT_BREAK: gettext_noop(
        "Only superusers may end a player's time-out or self-exclusion early; nothing was changed."
    ),
}

MAX_TOKEN_LENGTH = 100


class NotPermitted(LedgerError):
    """The staff member lacks the permission for this action."""


class AlreadyDone(LedgerError):
    """The form naming this token was already acted on."""


def may(*, staff_user: Any, kind: str) -> bool:
    """Whether ``staff_user`` may do this kind of action (pages ask it to offer only what is allowed)."""
    if not isinstance(staff_user, User) or not staff_user.is_active or not staff_user.is_staff:
        return False
    permission = PERMISSIONS[kind]
    return staff_user.is_superuser if permission is None else staff_user.has_perm(permission)


def check_right(*, staff_user: Any, kind: str) -> User:
    if not may(staff_user=staff_user, kind=kind):
        raise NotPermitted(_(_REFUSALS[kind]))
    return staff_user


def check_reason(reason: Any, *, message: str) -> str:
    """The reason, stripped; ``message`` (translated) when it is missing."""
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidRequest(message)
    return reason.strip()


def check_token(token: Any) -> str | None:
    if token is None:
        return None
    if not isinstance(token, str) or not token.strip() or len(token) > MAX_TOKEN_LENGTH:
        raise LedgerError(_("This form is damaged (its token is missing or too long); open it again."))
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
    *, staff_user: Any, kind: str, reason: Any, token: Any, missing_reason: str
) -> tuple[User, str, str | None]:
    """What every staff action checks before it acts, in this order: the right, the reason
    (``missing_reason`` when there is none) and the form's token, not acted on yet. A LedgerError
    names the first that fails; the callers turn it into their own refusal."""
    staff_user = check_right(staff_user=staff_user, kind=kind)
    reason = check_reason(reason, message=missing_reason)
    token = check_token(token)
    check_not_done(token)
    return staff_user, reason, token


def record_staff_action(
    *,
    staff_user: User,
    kind: str,
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
                kind=kind,
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
        raise NotPermitted(_(_REFUSALS[Kind.RIGHTS]))
    after = user_rights(user=user)
    changed = {field: [before[field], after[field]] for field in after if before.get(field) != after[field]}
    if not changed:
        return None
    return record_staff_action(staff_user=staff_user, kind=Kind.RIGHTS, user=user, detail=changed)


def log_account_change(*, staff_user: User, user: User, changed: dict[str, Any]) -> StaffAction | None:
    """Log what a staff member changed in someone's account (its details, or ``{"password": "set"}``
    for a staff account's password, which superusers alone may set); nothing changed, nothing logged.
    Call it inside the change's own transaction."""
    check_right(staff_user=staff_user, kind=Kind.ACCOUNT)
    if not changed:
        return None
    return record_staff_action(staff_user=staff_user, kind=Kind.ACCOUNT, user=user, detail=changed)
