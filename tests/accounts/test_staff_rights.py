"""Each staff action on players needs its own permission, checked on the server: posted straight
to the admin by staff without it, it is refused and changes nothing. Staff rights are changed by
superusers only, never on their own account. Real groups with real permissions (tests.staff_roles).
"""

from __future__ import annotations

from datetime import datetime

import pytest
from django.contrib.auth.models import Group, Permission
from django.urls import reverse
from django.utils import timezone

from accounts.models import Ban, StaffAction, User
from accounts.services import NotPermitted, ban_user, lift_ban, wallet_adjust
from tests.staff_pages import confirm, list_action, messages_of, open_own_page, own_page_data
from tests.staff_roles import group_with, help_desk, moderator, staff_with, superuser

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/accounts/user/"


@pytest.fixture
def target(player):
    return player


@pytest.fixture
def banned(make_user):
    user = make_user(username="banned")
    ban_user(user=user, reason="bot play", staff_user=superuser())
    return user


def state(snapshot) -> tuple:
    """Everything a refused staff action must leave as it was."""
    return (
        snapshot(),
        list(Ban.objects.order_by("pk").values()),
        list(StaffAction.objects.order_by("pk").values()),
        list(User.objects.order_by("pk").values("pk", "email", "is_staff", "is_superuser", "is_active")),
    )


def login(client, user):
    client.force_login(user)
    return client


def offered_actions(client) -> list[str]:
    page = client.get(CHANGELIST)
    form = page.context["action_form"] if page.context else None
    return [] if form is None else [name for name, _ in form.fields["action"].choices if name]


# --- each action, posted straight to the server without its permission ---

# (who, the action on the list, its data); a None action means the page of one player.
LIST_ACTIONS = {
    "ban": ("ban_users", {"reason": "r"}),
    "lift": ("lift_bans", {"reason": "r"}),
}
OWN_PAGES = {
    "ban": ("accounts_user_ban", {"reason": "r"}),
    "lift": ("accounts_user_lift_ban", {"reason": "r"}),
    "adjust": ("accounts_user_adjust_wallet", {"amount": "500", "reason": "r"}),
}


@pytest.mark.parametrize(
    ("role", "action"),
    [
        (help_desk, "ban"),  # view and change user only
        (help_desk, "lift"),
        (moderator, "lift"),  # view and add ban only
        (lambda: staff_with("accounts.lift_ban"), "ban"),
    ],
)
def test_a_list_action_without_its_permission_is_refused_and_changes_nothing(
    client, role, action, target, banned, snapshot
):
    login(client, role())
    name, fields = LIST_ACTIONS[action]
    offered = offered_actions(client)
    assert name not in offered
    before = state(snapshot)
    selected = {"action": name, "_selected_action": [target.pk, banned.pk], "apply": "1", "token": "t1"}
    response = client.post(CHANGELIST, {**selected, **fields, "confirm": "1"}, follow=True)
    assert response.status_code == 200
    if offered:  # with no action at all the list shows no action box, and ignores one posted
        assert "No action selected." in messages_of(response)
    assert state(snapshot) == before


@pytest.mark.parametrize(
    ("role", "page"),
    [
        (help_desk, "ban"),
        (help_desk, "lift"),
        (help_desk, "adjust"),
        (moderator, "lift"),
        (moderator, "adjust"),
        (lambda: staff_with("accounts.add_ban", "accounts.lift_ban", "accounts.change_user"), "adjust"),
    ],
)
def test_an_own_page_action_without_its_permission_is_forbidden_and_changes_nothing(
    client, role, page, target, banned, snapshot
):
    login(client, role())
    name, fields = OWN_PAGES[page]
    before = state(snapshot)
    for user in (target, banned):
        url = reverse(f"admin:{name}", args=[user.pk])
        assert client.get(url).status_code == 403
        assert client.post(f"{url}?token=t1", {"token": "t1", "confirm": "1", **fields}).status_code == 403
    assert state(snapshot) == before


def test_each_service_refuses_staff_without_the_permission_whatever_page_asks(target, banned, snapshot):
    helper, mod, inactive = help_desk(), moderator(), superuser()
    User.objects.filter(pk=inactive.pk).update(is_active=False)
    inactive.is_active = False
    before = state(snapshot)
    with pytest.raises(NotPermitted, match="do not have the right to ban"):
        ban_user(user=target, reason="r", staff_user=helper)
    with pytest.raises(NotPermitted, match="do not have the right to lift bans"):
        lift_ban(user=banned, reason="r", staff_user=mod)
    with pytest.raises(NotPermitted, match="do not have the right to adjust wallets"):
        wallet_adjust(user=target, amount=10, reason="r", staff_user=mod)
    with pytest.raises(NotPermitted, match="do not have the right to adjust wallets"):
        wallet_adjust(user=target, amount=10, reason="r", staff_user=inactive)
    assert state(snapshot) == before


def test_a_moderator_cannot_ban_a_staff_account(client, snapshot):
    boss, other_moderator, mod = superuser(), moderator(), moderator()
    login(client, mod)
    before = state(snapshot)
    data = {**list_action(client, CHANGELIST, "ban_users", [boss.pk, other_moderator.pk]), "reason": "coup"}
    response = confirm(client, CHANGELIST, data, follow=True)
    refusal = "Only superusers may ban a staff account; nothing was changed."
    assert messages_of(response) == [refusal, refusal]
    assert state(snapshot) == before


def test_each_action_works_for_staff_holding_just_its_permission(client, target, banned):
    login(client, moderator())
    assert offered_actions(client) == ["ban_users"]
    confirm(client, CHANGELIST, {**list_action(client, CHANGELIST, "ban_users", [target.pk]), "reason": "r"})
    assert Ban.objects.filter(user=target, lifted_at__isnull=True).exists()

    login(client, staff_with("accounts.lift_ban"))
    assert offered_actions(client) == ["lift_bans"]
    confirm(client, CHANGELIST, {**list_action(client, CHANGELIST, "lift_bans", [banned.pk]), "reason": "r"})
    assert not Ban.objects.filter(user=banned, lifted_at__isnull=True).exists()

    cashier = staff_with("accounts.adjust_wallet")
    login(client, cashier)
    assert offered_actions(client) == []
    url, token = open_own_page(client, reverse("admin:accounts_user_adjust_wallet", args=[target.pk]))
    confirm(client, url, own_page_data(token, amount=250, reason="tournament prize"))
    assert StaffAction.objects.get(kind="wallet_adjust").staff_user == cashier


def test_a_players_page_offers_only_what_the_staff_member_may_do(client, target, banned):
    def links(user):
        page = client.get(reverse("admin:accounts_user_change", args=[user.pk]))
        shown = [label for _, label in page.context["staff_links"]]
        # With view rights, everyone sees the whole picture and what the player did at tables.
        assert shown[0] == "The whole picture"
        assert shown[-3:] == ["Hands played", "Seats", "At tables"]
        return shown[1:-3]

    login(client, superuser())
    assert links(target) == ["Adjust the wallet", "Ban this user", "Staff actions on this user"]
    assert links(banned) == ["Adjust the wallet", "Lift the ban", "Staff actions on this user"]
    login(client, moderator())
    assert links(target) == ["Ban this user", "Staff actions on this user"]
    assert links(banned) == ["Staff actions on this user"]
    login(client, staff_with())  # view rights only: the log, nothing to do
    assert links(target) == ["Staff actions on this user"]


# --- staff rights ---

RIGHTS = {"is_superuser": "on", "is_staff": "on", "is_active": "on"}


def change_form(client, user: User, **overrides) -> dict:
    """The user's change form as the page would post it, with ``overrides``."""
    page = client.get(reverse("admin:accounts_user_change", args=[user.pk]))
    assert page.status_code == 200
    form = page.context["adminform"].form
    data = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        if isinstance(value, datetime):  # the admin's split date and time boxes
            local = timezone.localtime(value)
            data[f"{name}_0"], data[f"{name}_1"] = local.date().isoformat(), local.strftime("%H:%M:%S")
        elif isinstance(value, bool):
            if value:
                data[name] = "on"
        elif isinstance(value, list | tuple):
            data[name] = [getattr(v, "pk", v) for v in value]
        elif value is not None:
            data[name] = value
    for inline in page.context["inline_admin_formsets"]:  # bans, breaks from play, loss limits (read-only)
        prefix = inline.formset.prefix
        data.update({f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"})
    data.update(overrides)
    return data


def rights_of(user: User) -> tuple:
    user = User.objects.get(pk=user.pk)
    return (
        user.is_superuser,
        user.is_staff,
        user.is_active,
        sorted(user.groups.values_list("name", flat=True)),
        sorted(user.user_permissions.values_list("codename", flat=True)),
    )


def test_a_help_desk_user_cannot_make_themselves_superuser(client, snapshot):
    helper = help_desk()
    login(client, helper)
    everything = list(Permission.objects.values_list("pk", flat=True))
    boss_group = group_with("bosses", "accounts.adjust_wallet")
    before, rights = state(snapshot), rights_of(helper)
    data = change_form(client, helper, **RIGHTS, groups=[boss_group.pk], user_permissions=everything)
    data["email"] = "helper@example.com"
    response = client.post(reverse("admin:accounts_user_change", args=[helper.pk]), data)
    assert response.status_code == 302
    assert rights_of(helper) == rights  # the e-mail changed, the rights did not
    assert User.objects.get(pk=helper.pk).email == "helper@example.com"
    # The staff log has the e-mail (every change to an account is there), not the rights.
    logged = StaffAction.objects.exclude(pk__in=[row["id"] for row in before[2]])
    assert [(a.kind, list(a.detail)) for a in logged] == [("account", ["email"])]


def test_a_help_desk_user_changes_a_players_details_but_not_their_rights(client, target):
    login(client, help_desk())
    rights = rights_of(target)
    data = change_form(client, target, **RIGHTS, user_permissions=[Permission.objects.first().pk])
    data["first_name"] = "Ann"
    assert client.post(reverse("admin:accounts_user_change", args=[target.pk]), data).status_code == 302
    assert rights_of(target) == rights
    assert User.objects.get(pk=target.pk).first_name == "Ann"


def test_a_help_desk_user_cannot_change_a_staff_account_nor_its_password(client, snapshot):
    boss = superuser()
    login(client, help_desk())
    before = state(snapshot)
    password = User.objects.get(pk=boss.pk).password
    url = reverse("admin:accounts_user_change", args=[boss.pk])
    page = client.get(url)
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()  # view only
    assert client.post(url, {"username": boss.username, "email": "mine@example.com"}).status_code == 403
    password_url = reverse("admin:auth_user_password_change", args=[boss.pk])
    new_password = {"password1": "x-Long-pass-1", "password2": "x-Long-pass-1"}
    assert client.post(password_url, new_password).status_code == 403
    assert state(snapshot) == before and User.objects.get(pk=boss.pk).password == password


def test_only_superusers_change_groups(client):
    group = group_with("moderator", "accounts.add_ban")
    login(client, staff_with("auth.change_group", "auth.view_group"))
    url = reverse("admin:auth_group_change", args=[group.pk])
    everything = list(Permission.objects.values_list("pk", flat=True))
    assert client.post(url, {"name": "moderator", "permissions": everything}).status_code == 403
    assert Group.objects.get(pk=group.pk).permissions.count() < len(everything)


def test_a_superuser_changes_others_rights_logged_but_never_their_own(client):
    boss = superuser()
    login(client, boss)
    mod_group = group_with("moderator", "accounts.add_ban")
    player = User.objects.create_user(username="promoted", password=None)
    data = change_form(client, player, is_staff="on", groups=[mod_group.pk])
    assert client.post(reverse("admin:accounts_user_change", args=[player.pk]), data).status_code == 302
    assert rights_of(player) == (False, True, True, ["moderator"], [])
    action = StaffAction.objects.get(kind="rights")
    assert (action.user, action.staff_user) == (player, boss)
    assert action.detail == {"is_staff": [False, True], "groups": [[], ["moderator"]]}

    # Their own page: the rights are not in the form, so unticking them changes nothing.
    data = change_form(client, boss)
    for field in ("is_superuser", "is_staff", "is_active"):
        data.pop(field, None)
    assert client.post(reverse("admin:accounts_user_change", args=[boss.pk]), data).status_code == 302
    assert rights_of(boss)[:3] == (True, True, True)
    assert StaffAction.objects.filter(kind="rights").count() == 1


# --- accounts: staff never set a player's password, and every change is in the staff log ---

NEW_PASSWORD = {"password1": "x-Long-pass-1", "password2": "x-Long-pass-1", "set_usable_password": "true"}


@pytest.mark.parametrize("role", [help_desk, superuser])
def test_no_staff_member_sets_a_players_password(client, target, snapshot, role):
    """Issue 37: the help desk's "change user" set a player's password and the login worked."""
    login(client, role())
    before, password = state(snapshot), User.objects.get(pk=target.pk).password
    url = reverse("admin:auth_user_password_change", args=[target.pk])
    assert client.get(url).status_code == 403
    assert client.post(url, NEW_PASSWORD).status_code == 403
    assert state(snapshot) == before and User.objects.get(pk=target.pk).password == password
    client.logout()
    assert not client.login(username=target.username, password=NEW_PASSWORD["password1"])


def test_the_players_page_offers_no_password_form(client, target):
    login(client, superuser())
    page = client.get(reverse("admin:accounts_user_change", args=[target.pk])).content.decode()
    assert "../password/" not in page
    assert reverse("admin:auth_user_password_change", args=[target.pk]) not in page


def test_a_superuser_sets_a_staff_accounts_password_logged(client):
    boss, helper = superuser(), help_desk()
    login(client, boss)
    url = reverse("admin:auth_user_password_change", args=[helper.pk])
    assert client.post(url, NEW_PASSWORD).status_code == 302
    action = StaffAction.objects.get(kind="account", user=helper)
    assert action.staff_user == boss and action.detail == {"password": "set"}


def test_a_help_desk_change_to_a_player_is_in_the_staff_log(client, target):
    helper = help_desk()
    login(client, helper)
    data = change_form(client, target, first_name="Ann", last_name="Lee")
    assert client.post(reverse("admin:accounts_user_change", args=[target.pk]), data).status_code == 302
    action = StaffAction.objects.get(kind="account")
    assert (action.staff_user, action.user) == (helper, target)
    assert action.detail == {"first_name": ["", "Ann"], "last_name": ["", "Lee"]}
    # Saving the page with nothing changed logs nothing.
    data = change_form(client, target)
    assert client.post(reverse("admin:accounts_user_change", args=[target.pk]), data).status_code == 302
    assert StaffAction.objects.filter(kind="account").count() == 1


def test_the_help_desk_cannot_move_a_players_email_to_reset_their_password(client, target):
    """The e-mail is where the player's own reset goes: changing it would be a takeover too."""
    login(client, help_desk())
    email = User.objects.get(pk=target.pk).email
    data = change_form(client, target, email="thief@example.com")
    assert client.post(reverse("admin:accounts_user_change", args=[target.pk]), data).status_code == 302
    assert User.objects.get(pk=target.pk).email == email
    assert not StaffAction.objects.filter(kind="account").exists()
