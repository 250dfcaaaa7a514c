"""Staff tools in the admin: ban with a reason, adjust a wallet, a read-only ledger."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from accounts.models import Ban, LedgerAccount, LedgerEntry, LedgerTransaction
from accounts.services import ban_user, grant_signup_bonus, wallet_balance

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/accounts/user/"


@pytest.fixture
def admin_client(client, staff):
    client.force_login(staff)
    return client


@pytest.fixture
def target(make_user):
    user = make_user(username="target")
    grant_signup_bonus(user=user)
    return user


def test_user_list_shows_wallet_and_ban(admin_client, target, staff):
    ban_user(user=target, reason="x", staff_user=staff)
    page = admin_client.get(CHANGELIST).content.decode()
    assert "target" in page
    assert '<td class="field-wallet">1000</td>' in page
    assert 'class="field-banned"><img src="/static/admin/img/icon-yes.svg" alt="True">' in page


def test_ban_action_asks_for_a_reason_then_bans(admin_client, target, staff, make_user):
    other = make_user()
    selected = {"action": "ban_users", "_selected_action": [target.pk, other.pk]}
    form = admin_client.post(CHANGELIST, selected)
    assert form.status_code == 200 and "reason" in form.content.decode()
    assert not Ban.objects.exists()

    empty = admin_client.post(CHANGELIST, {**selected, "apply": "1", "reason": "  "})
    assert "This field is required" in empty.content.decode()
    assert not Ban.objects.exists()

    done = admin_client.post(CHANGELIST, {**selected, "apply": "1", "reason": "colluding at table 4"})
    assert done.status_code == 302
    bans = Ban.objects.order_by("user_id")
    assert [(b.user, b.reason, b.staff_user) for b in bans] == [
        (target, "colluding at table 4", staff),
        (other, "colluding at table 4", staff),
    ]


def test_lift_action(admin_client, target, staff):
    ban_user(user=target, reason="x", staff_user=staff)
    admin_client.post(CHANGELIST, {"action": "lift_bans", "_selected_action": [target.pk]})
    ban = Ban.objects.get()
    assert ban.lifted_at is not None and ban.lifted_by == staff


def test_ban_form_on_a_users_page(admin_client, target, staff):
    url = reverse("admin:accounts_user_ban", args=[target.pk])
    assert "Ban target" in admin_client.get(url).content.decode()
    assert admin_client.post(url, {"reason": ""}).status_code == 200
    assert not Ban.objects.exists()
    response = admin_client.post(url, {"reason": "bot play"})
    assert response.status_code == 302
    assert Ban.objects.get().reason == "bot play"
    change_page = admin_client.get(reverse("admin:accounts_user_change", args=[target.pk])).content.decode()
    assert "bot play" in change_page  # the ban inline


def test_adjust_wallet_form_records_a_transaction_by_the_staff_user(admin_client, target, staff):
    url = reverse("admin:accounts_user_adjust_wallet", args=[target.pk])
    page = admin_client.get(url)
    key = page.context["form"].initial["idempotency_key"]
    data = {"amount": "-300", "reason": "refund of a bug payout", "idempotency_key": key}
    assert admin_client.post(url, data).status_code == 302
    # The same form submitted twice (double click, back button) adjusts once.
    assert admin_client.post(url, data).status_code == 302
    assert wallet_balance(user=target) == 700
    txn = LedgerTransaction.objects.get(kind="adjust")
    assert (txn.created_by, txn.memo, txn.amount) == (staff, "refund of a bug payout", 300)


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({"amount": "-5000", "reason": "too much"}, "Not enough chips in the wallet of target"),
        ({"amount": "0", "reason": "nothing"}, "must not be zero"),
        ({"amount": "abc", "reason": "nothing"}, "Enter a whole number"),
        ({"amount": "10", "reason": ""}, "This field is required"),
        ({"amount": str(10**13), "reason": "huge"}, "less than or equal to"),
    ],
)
def test_adjust_wallet_form_refuses_bad_input(admin_client, target, data, error, snapshot):
    url = reverse("admin:accounts_user_adjust_wallet", args=[target.pk])
    before = snapshot()
    response = admin_client.post(url, {**data, "idempotency_key": "form-x"})
    assert response.status_code == 200
    assert error in response.content.decode()
    assert snapshot() == before


def test_staff_without_permission_cannot_adjust_or_ban(client, make_user, target):
    clerk = make_user(is_staff=True)
    clerk.user_permissions.add(Permission.objects.get(codename="view_user"))
    client.force_login(clerk)
    assert client.get(reverse("admin:accounts_user_adjust_wallet", args=[target.pk])).status_code == 403
    assert (
        client.post(reverse("admin:accounts_user_ban", args=[target.pk]), {"reason": "x"}).status_code == 403
    )
    assert not Ban.objects.exists() and wallet_balance(user=target) == 1000


def test_players_cannot_reach_the_admin(client, target):
    client.force_login(target)
    response = client.get(reverse("admin:accounts_user_adjust_wallet", args=[target.pk]))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


@pytest.mark.parametrize("model", [LedgerAccount, LedgerTransaction, LedgerEntry, Ban])
def test_the_ledger_is_read_only_in_the_admin(admin_client, target, staff, model, snapshot):
    ban_user(user=target, reason="x", staff_user=staff)
    name = model._meta.model_name
    obj = model.objects.first()
    assert admin_client.get(reverse(f"admin:accounts_{name}_changelist")).status_code == 200
    change = admin_client.get(reverse(f"admin:accounts_{name}_change", args=[obj.pk]))
    assert change.status_code == 200
    assert 'name="_save"' not in change.content.decode()
    assert admin_client.get(reverse(f"admin:accounts_{name}_add")).status_code == 403
    assert admin_client.get(reverse(f"admin:accounts_{name}_delete", args=[obj.pk])).status_code == 403
    before = snapshot()
    admin_client.post(reverse(f"admin:accounts_{name}_change", args=[obj.pk]), {"balance": "999999"})
    assert snapshot() == before


def test_the_panel_is_the_rooms_and_names_its_models_in_good_english(admin_client):
    page = admin_client.get(reverse("admin:index")).content.decode()
    assert "Svara room: staff" in page and "Running the room" in page
    assert "Django administration" not in page
    assert "Ledger entries" in page and "Ledger entrys" not in page
    bg = admin_client.get(reverse("admin:index"), HTTP_ACCEPT_LANGUAGE="bg").content.decode()
    assert "Свара: персонал" in bg
