"""The player's address behind trusted proxies (svara_site/proxy.py): counted from the right."""

from __future__ import annotations

import ipaddress

from hypothesis import given
from hypothesis import strategies as st

from svara_site.proxy import real_client

addresses = st.ip_addresses().map(str)
# Whatever a client may write in its own X-Forwarded-For: addresses, names, garbage, nothing.
client_written = st.lists(st.one_of(addresses, st.text(alphabet="abc.:1-_ ", max_size=12)), max_size=5)


def scope(xff: list[str], peer: str = "127.0.0.1") -> dict:
    headers = [(b"x-forwarded-for", ", ".join(xff).encode())] if xff else []
    return {"type": "http", "client": (peer, 5000), "headers": headers}


@given(written=client_written, player=addresses, proxies=st.lists(addresses, max_size=2))
def test_what_a_client_writes_never_becomes_its_address(written, player, proxies) -> None:
    # Each of our proxies appends the address it saw: the player's, then each proxy's before it.
    chain = [*written, player, *proxies]
    trusted = 1 + len(proxies)
    assert real_client(scope(chain), trusted=trusted) == str(ipaddress.ip_address(player))


def test_without_trusted_proxies_the_peer_is_the_client() -> None:
    assert real_client(scope(["203.0.113.9"]), trusted=0) is None


def test_a_request_that_came_past_fewer_proxies_keeps_its_peer() -> None:
    assert real_client(scope([]), trusted=1) is None
    assert real_client(scope(["203.0.113.9"]), trusted=2) is None


def test_a_proxy_entry_that_is_no_address_is_not_taken() -> None:
    assert real_client(scope(["unknown"]), trusted=1) is None
    # Repeated headers count as one list, as HTTP joins them.
    repeated = {"headers": [(b"x-forwarded-for", b"6.6.6.6"), (b"x-forwarded-for", b"198.51.100.4")]}
    assert real_client(repeated, trusted=1) == "198.51.100.4"
