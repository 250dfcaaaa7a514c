"""Friends between two real browsers: ann asks, bob accepts, bob sees ann online at her table, ann
invites him, bob gets the notice (and the browser's notification, which he allowed) and follows
its link to the table. axe on the friends page in its states."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.axe_kit import violations
from tests.e2e.conftest import LiveServer
from tests.e2e.test_play_in_browser import DESKTOP, Person, open_person, shot, sign_up
from tests.e2e.test_table_chat import sit

pytestmark = pytest.mark.browser

NOTICE_MS = 25_000  # every page asks for its notices every 15 s

# Bob's browser remembers each notification it was asked to show (and shows it: the real one).
RECORD_NOTIFICATIONS = """(() => {
  const Real = window.Notification;
  if (!Real) return;
  window.__shown = [];
  function Recorded(title, options) { window.__shown.push(title); return new Real(title, options); }
  Recorded.requestPermission = Real.requestPermission.bind(Real);
  Object.defineProperty(Recorded, "permission", { get: () => Real.permission });
  window.Notification = Recorded;
})();"""


def test_friends_find_each_other_and_one_invites_the_other(site_server: LiveServer, browser: Browser) -> None:
    expect.set_options(timeout=10_000)
    url = site_server.url
    ann = open_person(browser, "ann", DESKTOP)
    context = browser.new_context(viewport=DESKTOP)
    context.grant_permissions(["notifications"], origin=url)
    context.add_init_script(RECORD_NOTIFICATIONS)
    bob = Person(name="bob", page=context.new_page())
    for person in (ann, bob):
        sign_up(person, url)

    # ---- ann wears a face (issue 35's avatars), which bob will see at her seat.
    ann.page.goto(url + "/profile/#face")
    ann.page.locator(".face-choice", has_text="owl").click()
    ann.page.locator("#save-face").click()
    expect(ann.page.locator(".face-choice:has(input[value=owl]) input")).to_be_checked()
    ann.page.goto(url + "/lobby/")

    # ---- ann asks bob, by name, from the friends page (linked from the header).
    ann.page.get_by_role("link", name="Friends").click()
    expect(ann.page).to_have_url(url + "/friends/")
    # Her browser was never asked: the page offers to, and asks only when she clicks.
    assert ann.page.evaluate("Notification.permission") == "default"
    expect(ann.page.locator("#notify-row")).to_be_visible()
    assert violations(ann.page) == []  # the empty page
    ann.page.fill("#friend-name", "bob")
    ann.page.get_by_role("button", name="Send a friend request").click()
    expect(ann.page.locator(".messages")).to_contain_text("Friend request sent to bob.")
    expect(ann.page.locator("#outgoing li[data-to=bob]")).to_have_count(1)
    # ... asking again is refused with a reason, and nothing changes.
    ann.page.fill("#friend-name", "bob")
    ann.page.get_by_role("button", name="Send a friend request").click()
    expect(ann.page.locator(".messages .error")).to_contain_text("You have already asked bob")
    expect(ann.page.locator("#outgoing li")).to_have_count(1)

    # ---- bob sees the request waiting (the corner, on any page) and accepts it.
    bob.page.goto(url + "/lobby/")
    notice = bob.page.locator("#friend-requests-notice")
    expect(notice).to_contain_text("1 friend request waits for your answer.", timeout=NOTICE_MS)
    notice.get_by_role("link").click()
    expect(bob.page).to_have_url(url + "/friends/")
    bob.page.get_by_role("button", name="Accept ann").click()
    expect(bob.page.locator(".messages")).to_contain_text("You and ann are friends now.")
    expect(bob.page.locator("#friend-list li[data-friend=ann]")).to_have_count(1)
    # bob's browser already allows notifications: nothing to ask him.
    expect(bob.page.locator("#notify-row")).to_be_hidden()

    # ---- ann opens a table and sits down; bob sees her online, at that table.
    ann.page.goto(url + "/lobby/")
    ann.page.locator("#new-table summary").click()
    ann.page.fill("#id_name", "Friends table")
    ann.page.select_option("#id_seat_count", "2")
    ann.page.get_by_role("button", name="Open the table").click()
    ann.page.wait_for_url(re.compile(r"/table/\d+/$"))
    table_url = ann.page.url
    sit(ann, 0)
    bob.page.reload()
    friend = bob.page.locator("#friend-list li[data-friend=ann]")
    expect(friend.locator(".presence")).to_have_text("online")
    expect(friend.locator(".friend-table a")).to_have_text("Friends table")
    assert url + friend.locator(".friend-table a").get_attribute("href") == table_url

    # ---- ann invites bob from the friends page, in another tab (her table stays open).
    ann_friends = ann.page.context.new_page()
    ann_friends.goto(url + "/friends/")
    expect(ann_friends.locator("#friend-list li[data-friend=bob] .presence")).to_have_text("online")
    ann_friends.get_by_role("button", name="Invite bob to Friends table").click()
    expect(ann_friends.locator(".messages")).to_contain_text("bob is invited to Friends table.")
    assert violations(ann_friends) == []  # a friend, a table to invite to, a notice

    # ---- bob's page shows the invitation (and the browser's notification), and its link leads there.
    invitation = bob.page.locator("#friend-notices .friend-notice[data-invitation]")
    expect(invitation).to_contain_text("ann invites you to the table Friends table.", timeout=NOTICE_MS)
    shown = bob.page.evaluate("window.__shown || []")
    assert shown == ["ann invites you to the table Friends table."]
    assert violations(bob.page) == []  # the friends page with an invitation in its corner
    shot(bob, "friends-invitation.png")
    invitation.get_by_role("link", name="Go to the table").click()
    expect(bob.page).to_have_url(table_url)
    expect(bob.page.locator("#table-connection")).to_have_text("connected")
    # In bob's browser, ann's seat wears the face she chose in hers.
    expect(bob.page.locator("#table-seats .seat img.face")).to_have_attribute("src", re.compile(r"faces/owl"))
    # Followed: the invitation is put away.
    bob.page.goto(url + "/friends/")
    bob.page.wait_for_timeout(1500)
    expect(bob.page.locator("#friend-notices .friend-notice[data-invitation]")).to_have_count(0)
    context.close()
    ann.page.context.close()
