"""People, a table and its chat for the social tests."""

from __future__ import annotations

from accounts.models import User
from accounts.services.computer import computer_account
from games.models import ChatMessage, Table
from tests.live.tablekit import make_player, make_table


def chat_room() -> tuple[User, User, Table, ChatMessage]:
    """ann and bob at a table; bob said something rude in hand 3."""
    ann, bob = make_player("ann"), make_player("bob")
    table = make_table(name="Talk")
    line = ChatMessage.objects.create(table=table, user=bob, hand_number=3, text="you play like a fish")
    return ann, bob, table, line


def say(table: Table, user: User, text: str, hand: int = 1) -> ChatMessage:
    return ChatMessage.objects.create(table=table, user=user, hand_number=hand, text=text)


def a_computer() -> User:
    return computer_account(level="easy", name="Computer (easy)")
