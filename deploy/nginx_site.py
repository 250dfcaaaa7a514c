"""Render the kit's nginx site (deploy/nginx/svara.conf) for one machine.

    python -m deploy.nginx_site --public-url https://svara.example --web-ports 8001,8002 \\
        --static-root /srv/svara/static --certificate FULLCHAIN.pem --key PRIVKEY.pem

``python -m deploy.local`` renders the same file for its throwaway certificate and free ports.
"""

from __future__ import annotations

import argparse
import ipaddress
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

TEMPLATE = Path(__file__).resolve().parent / "nginx" / "svara.conf"


@dataclass(frozen=True)
class Site:
    public_url: str  # https://host[:port]: the port nginx listens on for TLS (443 by default)
    web_ports: tuple[int, ...]  # the Daphne processes on 127.0.0.1
    static_root: Path
    certificate: Path
    key: Path
    http_port: int = 80  # plain http: redirected to https
    bind: str = ""  # listen on this address only ("127.0.0.1" for a local trial), or on all
    # Networks of a front balancer whose X-Forwarded-For this machine believes (several machines
    # behind one address, deploy/nginx_front.py); empty: no front, the peer is the client.
    front_proxies: tuple[str, ...] = ()


def front_lines(networks: tuple[str, ...]) -> str:
    """nginx's realip settings for ``networks`` (each checked: a typo would trust nobody, or all)."""
    if not networks:
        return "    # (no front balancer)"
    checked = [str(ipaddress.ip_network(n.strip(), strict=False)) for n in networks]
    lines = [f"    set_real_ip_from {network};" for network in checked]
    return "\n".join([*lines, "    real_ip_header X-Forwarded-For;", "    real_ip_recursive off;"])


def render(site: Site) -> str:
    parts = urlsplit(site.public_url)
    if parts.scheme != "https" or not parts.hostname:
        raise ValueError(f"the public URL must be https://host[:port], not {site.public_url!r}")
    https_port = parts.port or 443
    at = f"{site.bind}:" if site.bind else ""
    upstreams = "\n".join(f"    server 127.0.0.1:{port} max_fails=0;" for port in site.web_ports)
    values = {
        "UPSTREAM_SERVERS": upstreams,
        "HTTP_LISTEN": f"{at}{site.http_port}",
        "HTTPS_LISTEN": f"{at}{https_port}",
        "HTTPS_PORT_SUFFIX": "" if https_port == 443 else f":{https_port}",
        "PUBLIC_HOST": parts.hostname,
        "CERTIFICATE": str(site.certificate),
        "KEY": str(site.key),
        "STATIC_ROOT": str(site.static_root).rstrip("/"),
        "FRONT_PROXIES": front_lines(site.front_proxies),
    }
    text = TEMPLATE.read_text()
    for name, value in values.items():
        text = text.replace(f"@@{name}@@", value)
    if re.search(r"@@[A-Z_]+@@", text):
        raise ValueError("the site template names a value render() does not fill")
    return text


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--public-url", required=True)
    parser.add_argument("--web-ports", default="8001,8002", help="the Daphne processes' ports")
    parser.add_argument("--static-root", type=Path, required=True, help="STATIC_ROOT of the room")
    parser.add_argument("--certificate", type=Path, required=True)
    parser.add_argument("--key", type=Path, required=True)
    parser.add_argument("--http-port", type=int, default=80)
    parser.add_argument(
        "--front-proxies",
        default="",
        help="networks of a front balancer in front of several machines (10.0.0.5/32,...): "
        "its X-Forwarded-For names the client (docs/deploy.md, several machines)",
    )
    args = parser.parse_args(argv)
    ports = tuple(int(p) for p in args.web_ports.split(",") if p.strip())
    fronts = tuple(n.strip() for n in args.front_proxies.split(",") if n.strip())
    site = Site(
        args.public_url,
        ports,
        args.static_root,
        args.certificate,
        args.key,
        args.http_port,
        front_proxies=fronts,
    )
    try:
        text = render(site)
    except ValueError as exc:  # a bad URL or network: one line, nothing written
        parser.error(str(exc))
    print(text, end="")


if __name__ == "__main__":
    main()
