"""Command line: ``python -m games.engine score|replay|deck`` (HAND_FORMAT.md)."""

from __future__ import annotations

import argparse
import json
import sys

from games.engine.cards import CardError, card_text
from games.engine.handfile import HandFileError, replay
from games.engine.scoring import score


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _cmd_score(args: argparse.Namespace) -> int:
    try:
        print(score(args.cards))
    except (CardError, ValueError) as exc:
        return _fail(str(exc))
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as fh:
                text = fh.read()
    except OSError as exc:
        return _fail(f"cannot read {args.file}: {exc.strerror}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return _fail(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
    try:
        result = replay(data)
    except HandFileError as exc:
        return _fail(str(exc))
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


def _cmd_deck(args: argparse.Namespace) -> int:
    from games.engine.fairness import shuffled_deck

    try:
        deck = shuffled_deck(
            server_seed=args.server_seed,
            client_seeds=args.client_seed or [],
            nonce=args.nonce,
            deal=args.deal,
        )
    except ValueError as exc:
        return _fail(str(exc))
    print(" ".join(card_text(c) for c in deck))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.engine", description="The Svara rules engine.")
    sub = parser.add_subparsers(dest="command", required=True)
    p_score = sub.add_parser("score", help="points of a three-card hand, e.g. score 7C 8C 8D")
    p_score.add_argument("cards", nargs="+")
    p_score.set_defaults(func=_cmd_score)
    p_replay = sub.add_parser("replay", help="play back a hand file (- for standard input)")
    p_replay.add_argument("file")
    p_replay.set_defaults(func=_cmd_replay)
    p_deck = sub.add_parser("deck", help="the deck for a server seed, client seeds and nonce")
    p_deck.add_argument("--server-seed", required=True)
    p_deck.add_argument("--client-seed", action="append")
    p_deck.add_argument("--nonce", type=int, required=True)
    p_deck.add_argument(
        "--deal", type=int, default=0, help="0 for the hand, 1 for the first svara replay, ..."
    )
    p_deck.set_defaults(func=_cmd_deck)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
