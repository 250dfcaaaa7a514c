"""Free chips from the house: the sign-up bonus, the daily bonus and the refill.

A claim must grant once even when a double click or two browser tabs send it at the same
moment. Two things make sure of it:

* the claim reads the last grant of its kind while holding the wallet's row lock (PostgreSQL) or
  the database's write lock (SQLite, ``BEGIN IMMEDIATE``), so claims queue and the second sees the
  first;
* the idempotency key names the grant it follows (``...:after:<last grant id>``), so even two
  claims that both read "no grant yet" collide on the unique key, and only one posts.

The interval is rolling (24 hours after the last bonus), not a calendar day.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from accounts.ledger.errors import GrantNotAvailable
from accounts.ledger.posting import (
    check_user,
    house_account,
    lock_accounts,
    open_wallet_account,
    post,
    wallet_account,
)
from accounts.models import LedgerAccount, LedgerTransaction, User
from accounts.services.bans import ensure_not_banned

SIGNUP_BONUS = 1_000
DAILY_BONUS = 500
DAILY_BONUS_INTERVAL = timedelta(hours=24)
REFILL_TARGET = 1_000
REFILL_BELOW = 200
REFILL_INTERVAL = timedelta(hours=1)

Kind = LedgerTransaction.Kind


def grant_signup_bonus(*, user: User) -> LedgerTransaction:
    """Give a new user their first chips. Idempotent: a second call returns the first grant."""
    user = check_user(user)
    with transaction.atomic():
        house = house_account()
        wallet = open_wallet_account(user=user)
        txn, _ = post(
            kind=Kind.SIGNUP_BONUS,
            idempotency_key=f"grant:signup:{user.pk}",
            params={"user": user.pk},
            accounts=[house, wallet],
            legs_for=lambda _locked: {house.pk: -SIGNUP_BONUS, wallet.pk: SIGNUP_BONUS},
            memo="welcome chips",
            created_by=user,
        )
    return txn


def _last_grant(*, kind: str, wallet: LedgerAccount) -> LedgerTransaction | None:
    return (
        LedgerTransaction.objects.filter(kind=kind, entries__account=wallet)
        .order_by("-created_at", "-pk")
        .first()
    )


def _wait_text(delta: timedelta) -> str:
    minutes = max(1, -(-int(delta.total_seconds()) // 60))  # round up: "in 0 minutes" would be a lie
    hours, minutes = divmod(minutes, 60)
    if hours:
        return _("%(hours)s h %(minutes)s min") % {"hours": hours, "minutes": minutes}
    return _("%(minutes)s min") % {"minutes": minutes}


def _grant_after(
    *,
    kind: str,
    user: User,
    last: LedgerTransaction | None,
    house: LedgerAccount,
    wallet: LedgerAccount,
    amount: int,
    memo: str,
    now: datetime,
) -> LedgerTransaction:
    after = last.pk if last else 0
    txn, created = post(
        kind=kind,
        idempotency_key=f"grant:{kind}:{user.pk}:after:{after}",
        params={"user": user.pk, "after": after},
        accounts=[house, wallet],
        legs_for=lambda _locked: {house.pk: -amount, wallet.pk: amount},
        memo=memo,
        created_by=user,
        at=now,
    )
    if not created:
        if kind == Kind.DAILY_BONUS:
            raise GrantNotAvailable(_("The daily bonus was just granted by another request."))
        if kind == Kind.REFILL:
            raise GrantNotAvailable(_("The refill was just granted by another request."))
        raise GrantNotAvailable(f"The {txn.get_kind_display()} was just granted by another request.")
    return txn


def wallet_claim_daily_bonus(*, user: User, now: datetime | None = None) -> LedgerTransaction:
    """Grant the daily bonus if the last one is at least 24 hours old."""
    user = check_user(user)
    ensure_not_banned(user=user)
    now = now or timezone.now()
    with transaction.atomic():
        house = house_account()
        wallet = open_wallet_account(user=user)
        lock_accounts([house, wallet])
        last = _last_grant(kind=Kind.DAILY_BONUS, wallet=wallet)
        if last is not None and now < last.created_at + DAILY_BONUS_INTERVAL:
            wait = last.created_at + DAILY_BONUS_INTERVAL - now
            raise GrantNotAvailable(
                _("You already claimed today's bonus; the next one is in %(wait)s.")
                % {"wait": _wait_text(wait)}
            )
        return _grant_after(
            kind=Kind.DAILY_BONUS,
            user=user,
            last=last,
            house=house,
            wallet=wallet,
            amount=DAILY_BONUS,
            memo="daily bonus",
            now=now,
        )


def wallet_claim_refill(*, user: User, now: datetime | None = None) -> LedgerTransaction:
    """Top the user's chips (wallet plus all seats) back up to 1,000 when below 200; once an hour at most."""
    user = check_user(user)
    ensure_not_banned(user=user)
    now = now or timezone.now()
    with transaction.atomic():
        house = house_account()
        wallet = open_wallet_account(user=user)
        seats = list(LedgerAccount.objects.filter(kind=LedgerAccount.Kind.SEAT, user=user))
        # Seats are locked too: chips at a table count, and a settling hand must not slip in between.
        locked = lock_accounts([house, wallet, *seats])
        held = sum(account.balance for account in locked.values() if account.kind != LedgerAccount.Kind.HOUSE)
        if held >= REFILL_BELOW:
            raise GrantNotAvailable(
                _(
                    "A refill is for players with fewer than %(below)s chips in wallet and seats together; "
                    "you have %(held)s."
                )
                # Grouped as every page writes chips (1,500; 1 500 in Bulgarian).
                % {
                    "below": number_format(REFILL_BELOW, force_grouping=True),
                    "held": number_format(held, force_grouping=True),
                }
            )
        last = _last_grant(kind=Kind.REFILL, wallet=wallet)
        if last is not None and now < last.created_at + REFILL_INTERVAL:
            wait = last.created_at + REFILL_INTERVAL - now
            raise GrantNotAvailable(
                _("You had a refill less than an hour ago; the next one is in %(wait)s.")
                % {"wait": _wait_text(wait)}
            )
        return _grant_after(
            kind=Kind.REFILL,
            user=user,
            last=last,
            house=house,
            wallet=wallet,
            amount=REFILL_TARGET - held,
            memo=f"refill from {held} to {REFILL_TARGET}",
            now=now,
        )


@dataclass(frozen=True)
class GrantStatus:
    daily_bonus_at: datetime | None  # None: can be claimed now
    refill_possible: bool
    refill_at: datetime | None
    chips_held: int


def grant_status(*, user: User, now: datetime | None = None) -> GrantStatus:
    """What the profile page shows next to the claim buttons (advisory; the claims re-check)."""
    user = check_user(user)
    now = now or timezone.now()
    wallet = wallet_account(user=user)
    held = sum(
        LedgerAccount.objects.filter(user=user)
        .exclude(kind=LedgerAccount.Kind.HOUSE)
        .values_list("balance", flat=True)
    )
    daily_at = refill_at = None
    if wallet is not None:
        last_bonus = _last_grant(kind=Kind.DAILY_BONUS, wallet=wallet)
        if last_bonus and now < last_bonus.created_at + DAILY_BONUS_INTERVAL:
            daily_at = last_bonus.created_at + DAILY_BONUS_INTERVAL
        last_refill = _last_grant(kind=Kind.REFILL, wallet=wallet)
        if last_refill and now < last_refill.created_at + REFILL_INTERVAL:
            refill_at = last_refill.created_at + REFILL_INTERVAL
    return GrantStatus(
        daily_bonus_at=daily_at,
        refill_possible=held < REFILL_BELOW and refill_at is None,
        refill_at=refill_at,
        chips_held=held,
    )
