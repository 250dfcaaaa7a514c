"""The player's address behind trusted proxies (svara_site/proxy.py): counted from the right."""

from __future__ import annotations

import ipaddress

from hypothesis import given
from hypothesis import strategies as st

from svara_site.proxy import RealClient, proxy_networks, real_client

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


@given(written=client_written, peer=addresses)
def test_a_client_that_reaches_the_server_directly_is_its_own_address(written, peer) -> None:
    """Issue 37: connecting to a Daphne process directly with a spoofed X-Forwarded-For got round
    the per-address log-in limit. Only a proxy (by default one on this machine) is believed."""
    if ipaddress.ip_address(peer).is_loopback:
        return
    assert real_client(scope([*written, "198.51.100.4"], peer=peer), trusted=1) is None


def test_a_proxy_on_another_machine_is_believed_when_its_network_is_named() -> None:
    chain = scope(["198.51.100.4"], peer="10.0.0.5")
    assert real_client(chain, trusted=1) is None
    assert real_client(chain, trusted=1, networks=proxy_networks("10.0.0.0/24")) == "198.51.100.4"
    assert real_client(scope(["198.51.100.4"], peer="::1"), trusted=1) == "198.51.100.4"


async def test_the_application_keeps_the_peer_of_a_direct_connection() -> None:
    seen = {}

    async def app(scope, receive, send):
        seen.update(scope)

    await RealClient(app, trusted=1)(scope(["198.51.100.4"], peer="203.0.113.50"), None, None)
    assert seen["client"][0] == "203.0.113.50"
    await RealClient(app, trusted=1)(scope(["198.51.100.4"]), None, None)
    assert seen["client"][0] == "198.51.100.4"
