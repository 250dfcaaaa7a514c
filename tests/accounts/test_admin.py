"""Staff tools in the admin: ban and lift with a reason and a confirmation, adjust a wallet once
however often the form is sent, a read-only ledger."""

from __future__ import annotations

import pytest
from django.db import transaction
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import Ban, LedgerAccount, LedgerEntry, LedgerTransaction, StaffAction, User
from accounts.services import ban_user, grant_signup_bonus, wallet_balance
from tests.staff_pages import confirm, list_action, messages_of, open_own_page, own_page_data, preview

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


def test_ban_action_asks_for_a_reason_confirms_then_bans(admin_client, target, staff, make_user):
    other = make_user()
    data = list_action(admin_client, CHANGELIST, "ban_users", [target.pk, other.pk])
    assert not Ban.objects.exists()

    empty = preview(admin_client, CHANGELIST, {**data, "reason": "  "})
    assert "This field is required" in empty.content.decode()
    empty = confirm(admin_client, CHANGELIST, {**data, "reason": "  "})
    assert "This field is required" in empty.content.decode()
    assert not Ban.objects.exists() and not StaffAction.objects.exists()

    data["reason"] = "colluding at table 4"
    page = preview(admin_client, CHANGELIST, data)
    assert page.status_code == 200 and page.context["confirming"]
    assert page.context["summary"] == [f"Ban {other}, {target}."]  # the list's order: by name
    assert not Ban.objects.exists()  # the confirmation page changes nothing

    done = confirm(admin_client, CHANGELIST, data)
    assert done.status_code == 302
    bans = Ban.objects.order_by("user_id")
    assert [(b.user, b.reason, b.staff_user) for b in bans] == [
        (target, "colluding at table 4", staff),
        (other, "colluding at table 4", staff),
    ]
    logged = StaffAction.objects.order_by("user_id")
    assert [(a.kind, a.user, a.staff_user, a.reason) for a in logged] == [
        ("ban", target, staff, "colluding at table 4"),
        ("ban", other, staff, "colluding at table 4"),
    ]


def test_a_ban_form_sent_again_after_the_ban_was_lifted_bans_nobody(admin_client, target, staff):
    data = {**list_action(admin_client, CHANGELIST, "ban_users", [target.pk]), "reason": "bot play"}
    confirm(admin_client, CHANGELIST, data)
    lift = {**list_action(admin_client, CHANGELIST, "lift_bans", [target.pk]), "reason": "appeal granted"}
    confirm(admin_client, CHANGELIST, lift)
    assert not Ban.objects.filter(lifted_at__isnull=True).exists()

    again = confirm(admin_client, CHANGELIST, data, follow=True)  # Back, and the form sent again
    assert any("This form was already sent" in m for m in messages_of(again))
    assert Ban.objects.count() == 1 and not Ban.objects.filter(lifted_at__isnull=True).exists()
    assert StaffAction.objects.filter(kind="ban").count() == 1


def test_lifting_asks_for_a_reason_and_confirms(admin_client, target, staff):
    ban_user(user=target, reason="x", staff_user=staff)
    data = list_action(admin_client, CHANGELIST, "lift_bans", [target.pk])
    missing = confirm(admin_client, CHANGELIST, {**data, "reason": ""})
    assert "This field is required" in missing.content.decode()
    assert Ban.objects.get().lifted_at is None and not StaffAction.objects.filter(kind="lift_ban").exists()

    data["reason"] = "appeal granted"
    page = preview(admin_client, CHANGELIST, data)
    assert "Lift the ban of target." in page.content.decode()
    assert Ban.objects.get().lifted_at is None

    confirm(admin_client, CHANGELIST, data)
    ban = Ban.objects.get()
    assert ban.lifted_at is not None and ban.lifted_by == staff and ban.lift_reason == "appeal granted"
    action = StaffAction.objects.get(kind="lift_ban")
    assert (action.user, action.staff_user, action.reason) == (target, staff, "appeal granted")


def test_ban_and_lift_on_a_users_own_page(admin_client, target, staff):
    url, token = open_own_page(admin_client, reverse("admin:accounts_user_ban", args=[target.pk]))
    assert "Ban target" in admin_client.get(url).content.decode()
    assert admin_client.post(url, own_page_data(token, reason="", confirm=1)).status_code == 200
    assert not Ban.objects.exists()
    assert preview(admin_client, url, own_page_data(token, reason="bot play")).context["confirming"]
    assert not Ban.objects.exists()
    assert confirm(admin_client, url, own_page_data(token, reason="bot play")).status_code == 302
    assert Ban.objects.get().reason == "bot play"
    change_page = admin_client.get(reverse("admin:accounts_user_change", args=[target.pk])).content.decode()
    assert "bot play" in change_page  # the ban inline
    assert reverse("admin:accounts_user_lift_ban", args=[target.pk]) in change_page

    url, token = open_own_page(admin_client, reverse("admin:accounts_user_lift_ban", args=[target.pk]))
    confirm(admin_client, url, own_page_data(token, reason="served its time"))
    assert Ban.objects.get().lift_reason == "served its time"


def test_adjusting_a_wallet_confirms_and_the_form_sent_twice_adjusts_once(admin_client, target, staff):
    url, token = open_own_page(admin_client, reverse("admin:accounts_user_adjust_wallet", args=[target.pk]))
    data = own_page_data(token, amount=-300, reason="refund of a bug payout")
    page = preview(admin_client, url, data)
    assert "Take 300 chips from the wallet of target, back to the house." in page.content.decode()
    assert "The wallet holds 1000 now and will hold 700." in page.content.decode()
    assert not LedgerTransaction.objects.filter(kind="adjust").exists()

    assert confirm(admin_client, url, data).status_code == 302
    # Back and the form sent again; a double click; Back to the form page itself: once.
    again = confirm(admin_client, url, data, follow=True)
    assert any("This form was already sent" in m for m in messages_of(again))
    back = admin_client.get(url, follow=True)
    assert any("This form was already sent" in m for m in messages_of(back))
    assert wallet_balance(user=target) == 700
    txn = LedgerTransaction.objects.get(kind="adjust")
    assert (txn.created_by, txn.memo, txn.amount) == (staff, "refund of a bug payout", 300)
    action = StaffAction.objects.get(kind="wallet_adjust")
    assert (action.user, action.staff_user, action.ledger_transaction, action.detail) == (
        target,
        staff,
        txn,
        {"amount": -300},
    )

    # A new form is a new adjustment.
    url, token = open_own_page(admin_client, reverse("admin:accounts_user_adjust_wallet", args=[target.pk]))
    confirm(admin_client, url, own_page_data(token, amount=-300, reason="refund of a bug payout"))
    assert wallet_balance(user=target) == 400


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"amount": "-5000", "reason": "too much"}, "Not enough chips in the wallet of target"),
        ({"amount": "0", "reason": "nothing"}, "must not be zero"),
        ({"amount": "abc", "reason": "nothing"}, "Enter a whole number"),
        ({"amount": "10", "reason": ""}, "This field is required"),
        ({"amount": "10", "reason": "   "}, "This field is required"),
        ({"amount": str(10**13), "reason": "huge"}, "less than or equal to"),
        ({"amount": str(-(10**13)), "reason": "huge"}, "greater than or equal to"),
    ],
)
@pytest.mark.parametrize("step", ["preview", "confirm"])
def test_adjust_wallet_form_refuses_bad_input(admin_client, target, fields, error, step, snapshot):
    url, token = open_own_page(admin_client, reverse("admin:accounts_user_adjust_wallet", args=[target.pk]))
    before = snapshot()
    response = admin_client.post(url, {**own_page_data(token, **fields), step: "1"})
    assert response.status_code == 200
    assert error in response.content.decode()
    assert not response.context["confirming"]
    assert snapshot() == before
    assert not StaffAction.objects.exists()


@pytest.mark.parametrize("page", ["adjust_wallet", "ban", "lift_ban"])
def test_a_player_that_does_not_exist_is_refused_with_a_message(admin_client, target, page, snapshot):
    before = snapshot()
    response = admin_client.post(
        reverse(f"admin:accounts_user_{page}", args=[999999]) + "?token=abc",
        {"amount": "10", "reason": "r", "token": "abc", "confirm": "1"},
        follow=True,
    )
    assert "There is no player #999999; nothing was changed." in messages_of(response)
    assert snapshot() == before and not Ban.objects.exists() and not StaffAction.objects.exists()


def test_players_cannot_reach_the_admin(client, target):
    client.force_login(target)
    response = client.get(reverse("admin:accounts_user_adjust_wallet", args=[target.pk]))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


@pytest.mark.parametrize("model", [LedgerAccount, LedgerTransaction, LedgerEntry, Ban, StaffAction])
def test_the_ledger_and_the_staff_log_are_read_only(admin_client, target, staff, model, snapshot):
    ban_user(user=target, reason="x", staff_user=staff)
    name = model._meta.model_name
    obj = model.objects.first()
    assert admin_client.get(reverse(f"admin:accounts_{name}_changelist")).status_code == 200
    change = admin_client.get(reverse(f"admin:accounts_{name}_change", args=[obj.pk]))
    assert change.status_code == 200
    assert 'name="_save"' not in change.content.decode()
    assert admin_client.get(reverse(f"admin:accounts_{name}_add")).status_code == 403
    assert admin_client.get(reverse(f"admin:accounts_{name}_delete", args=[obj.pk])).status_code == 403
    before = (snapshot(), list(StaffAction.objects.values()))
    admin_client.post(reverse(f"admin:accounts_{name}_change", args=[obj.pk]), {"balance": "999999"})
    admin_client.post(reverse(f"admin:accounts_{name}_delete", args=[obj.pk]), {"post": "yes"})
    assert (snapshot(), list(StaffAction.objects.values())) == before


def test_the_panel_is_the_rooms_and_names_its_models_in_good_english(admin_client):
    page = admin_client.get(reverse("admin:index")).content.decode()
    assert "Svara room: staff" in page and "Running the room" in page
    assert "Django administration" not in page
    assert "Ledger entries" in page and "Ledger entrys" not in page
    assert "Staff actions" in page
    bg = admin_client.get(reverse("admin:index"), HTTP_ACCEPT_LANGUAGE="bg").content.decode()
    assert "Свара: персонал" in bg


amount_texts = st.one_of(
    st.integers(-1500, 1500).map(str),
    st.sampled_from(["0", "", "abc", "1.5", " 12 ", str(10**12), str(10**12 + 1), str(-(10**13)), "-0"]),
)
reasons = st.one_of(st.sampled_from(["", "   ", "\n"]), st.text(min_size=1, max_size=30))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(amount=amount_texts, reason=reasons, sends=st.integers(1, 3), back=st.booleans())
def test_an_adjustment_form_applies_once_when_valid_and_never_otherwise(
    client, staff, amount, reason, sends, back
):
    """However the form is filled and however often it is sent (again, or from Back), the wallet
    moves once by the amount if the form is valid, not at all otherwise, and the log agrees."""
    with transaction.atomic():
        user = User.objects.create(username="pawn")
        grant_signup_bonus(user=user)
        client.force_login(staff)
        url, token = open_own_page(client, reverse("admin:accounts_user_adjust_wallet", args=[user.pk]))
        data = {"token": token, "amount": amount, "reason": reason}
        for _ in range(sends):
            if back:
                client.get(url)
            preview(client, url, data)
            confirm(client, url, data)
        try:
            value = int(amount.strip())
        except ValueError:
            value = None
        valid = value is not None and value != 0 and abs(value) <= 10**12 and 1000 + value >= 0
        valid = valid and bool(reason.strip()) and "\x00" not in reason  # Django refuses null characters
        expected = 1000 + value if valid else 1000
        assert wallet_balance(user=user) == expected
        adjustments = LedgerTransaction.objects.filter(kind="adjust", entries__account__user=user).count()
        assert (
            adjustments == StaffAction.objects.filter(kind="wallet_adjust", user=user).count() == int(valid)
        )
        transaction.set_rollback(True)


def test_a_players_breaks_from_play_and_loss_limits_show_on_their_staff_page(admin_client, target):
    from accounts.services import take_break
    from accounts.services.responsible import set_loss_limit

    take_break(user=target, period="year")
    set_loss_limit(user=target, period="week", amount=4321)
    page = admin_client.get(reverse("admin:accounts_user_change", args=[target.pk])).content.decode()
    assert "Breaks from play" in page and "self-exclusion" in page
    assert "Loss limits" in page and "4321" in page


def test_a_superuser_ends_a_self_exclusion_early_on_the_players_page_with_a_reason(
    admin_client, target, staff
):
    from accounts.services import active_break, take_break

    take_break(user=target, period="5years")
    change_page = admin_client.get(reverse("admin:accounts_user_change", args=[target.pk])).content.decode()
    lift_url = reverse("admin:accounts_user_lift_break", args=[target.pk])
    assert lift_url in change_page
    url, token = open_own_page(admin_client, lift_url)
    assert admin_client.post(url, own_page_data(token, reason="", confirm=1)).status_code == 200
    assert active_break(user=target) is not None
    assert (
        confirm(admin_client, url, own_page_data(token, reason="made by a relative, checked")).status_code
        == 302
    )
    assert active_break(user=target) is None
    assert StaffAction.objects.get(kind="lift_break").reason == "made by a relative, checked"


def test_staff_below_a_superuser_are_not_offered_the_early_end_of_a_break(client, target, make_user):
    from django.contrib.auth.models import Permission

    from accounts.services import take_break

    moderator = make_user(is_staff=True)
    moderator.user_permissions.add(*Permission.objects.all())
    client.force_login(moderator)
    take_break(user=target, period="year")
    change_page = client.get(reverse("admin:accounts_user_change", args=[target.pk])).content.decode()
    assert reverse("admin:accounts_user_lift_break", args=[target.pk]) not in change_page
    assert client.get(reverse("admin:accounts_user_lift_break", args=[target.pk])).status_code == 403
