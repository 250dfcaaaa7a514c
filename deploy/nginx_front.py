"""Render the front balancer's site (deploy/nginx/svara-front.conf): one address in front of
several machines, each running the kit's own site rendered with ``--front-proxies``.

    python -m deploy.nginx_front --public-url https://svara.example \\
        --machines 10.0.0.11:443,10.0.0.12:443 --certificate FULLCHAIN.pem --key PRIVKEY.pem
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

TEMPLATE = Path(__file__).resolve().parent / "nginx" / "svara-front.conf"


@dataclass(frozen=True)
class Front:
    public_url: str  # https://host[:port]: the one address players use
    machines: tuple[str, ...]  # each machine's nginx, "host:port" (its https port)
    certificate: Path
    key: Path
    http_port: int = 80
    bind: str = ""  # listen on this address only, or on all


def render_front(front: Front) -> str:
    parts = urlsplit(front.public_url)
    if parts.scheme != "https" or not parts.hostname:
        raise ValueError(f"the public URL must be https://host[:port], not {front.public_url!r}")
    bad = [m for m in front.machines if not re.fullmatch(r"[\w.\-\[\]:]+:\d+", m)]
    if not front.machines or bad:
        raise ValueError(f"machines must be host:port entries, not {bad or 'none'}")
    https_port = parts.port or 443
    at = f"{front.bind}:" if front.bind else ""
    values = {
        "MACHINES": "\n".join(f"    server {machine} max_fails=0;" for machine in front.machines),
        "HTTP_LISTEN": f"{at}{front.http_port}",
        "HTTPS_LISTEN": f"{at}{https_port}",
        "HTTPS_PORT_SUFFIX": "" if https_port == 443 else f":{https_port}",
        "PUBLIC_HOST": parts.hostname,
        "CERTIFICATE": str(front.certificate),
        "KEY": str(front.key),
    }
    text = TEMPLATE.read_text()
    for name, value in values.items():
        text = text.replace(f"@@{name}@@", value)
    if re.search(r"@@[A-Z_]+@@", text):
        raise ValueError("the front template names a value render_front() does not fill")
    return text


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--public-url", required=True)
    parser.add_argument("--machines", required=True, help="each machine's nginx: host:443,host:443")
    parser.add_argument("--certificate", type=Path, required=True)
    parser.add_argument("--key", type=Path, required=True)
    parser.add_argument("--http-port", type=int, default=80)
    args = parser.parse_args(argv)
    machines = tuple(m.strip() for m in args.machines.split(",") if m.strip())
    front = Front(args.public_url, machines, args.certificate, args.key, args.http_port)
    try:
        text = render_front(front)
    except ValueError as exc:  # a bad URL or machine: one line, nothing written
        parser.error(str(exc))
    print(text, end="")


if __name__ == "__main__":
    main()
