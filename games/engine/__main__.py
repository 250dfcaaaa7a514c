"""Command line: ``python -m games.engine score|replay|deck|verify`` (HAND_FORMAT.md).

Whatever it is given, it answers with exit 0 and its output, or exit 2 and one line on standard
error: never a traceback. ``verify`` also answers exit 1 when a file it read does not check out.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import NoReturn

from games.engine.cards import CardError, card_text
from games.engine.handfile import HandFileError, replay
from games.engine.scoring import score

# An error line quotes what it was given; a 10 MB card must not make a 10 MB line.
_MAX_ERROR_CHARS = 300


def _fail(message: str) -> int:
    line = " ".join(message.split())
    if len(line) > _MAX_ERROR_CHARS:
        line = line[: _MAX_ERROR_CHARS - 1] + "…"
    _write(sys.stderr, f"error: {line}\n")
    return 2


def _write(stream, text: str) -> None:
    # Bytes, not the locale's encoding: a name with a lone surrogate (valid JSON) or a C locale
    # must not turn an answer into a UnicodeEncodeError.
    stream.flush()
    stream.buffer.write(text.encode("utf-8", errors="backslashreplace"))
    stream.buffer.flush()


class _Parser(argparse.ArgumentParser):
    """Usage mistakes are bad input too: exit 2 with one line, as for a bad hand file."""

    def error(self, message: str) -> NoReturn:
        _fail(f"{message} (see {self.prog} --help)")
        sys.exit(2)


def _cmd_score(args: argparse.Namespace) -> int:
    try:
        print(score(args.cards))
    except (CardError, ValueError) as exc:
        return _fail(str(exc))
    return 0


def _read_text(name: str) -> str:
    raw = sys.stdin.buffer.read() if name == "-" else _read_file(name)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HandFileError(f"not UTF-8 text: byte {exc.start} is {raw[exc.start]:#04x}") from None


def _read_file(name: str) -> bytes:
    try:
        with open(name, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise HandFileError(f"cannot read {name}: {exc.strerror}") from None


def _read_json(name: str) -> object:
    text = _read_text(name)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise HandFileError(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise HandFileError("not a hand file: JSON nested too deep") from None
    except ValueError as exc:  # a number longer than Python reads (sys.get_int_max_str_digits)
        raise HandFileError(f"not JSON that can be read: {exc}") from None


def _cmd_replay(args: argparse.Namespace) -> int:
    try:
        data = _read_json(args.file)
        result = replay(data, strict=args.strict)
        output = _result_json(result)
    except HandFileError as exc:
        return _fail(str(exc))
    except RecursionError:
        # Deeply nested values inside a valid JSON file (a card that is a list of lists...).
        return _fail("not a hand file: a value is nested too deep")
    _write(sys.stdout, output + "\n")
    return 0


def _result_json(result: dict) -> str:
    try:
        return json.dumps(result, indent=2, ensure_ascii=False)
    except ValueError as exc:  # an integer too long to print
        raise HandFileError(f"the result cannot be written: {exc}") from None


def _cmd_deck(args: argparse.Namespace) -> int:
    from games.engine.fairness import shuffled_deck

    try:
        deck = shuffled_deck(
            server_seed=args.server_seed,
            client_seeds=args.client_seeds,
            nonce=args.nonce,
            deal=args.deal,
        )
    except ValueError as exc:
        return _fail(str(exc))
    print(" ".join(card_text(c) for c in deck))
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from games.engine.chain import check_chain
    from games.engine.verify import check_file, check_hand, hand_name

    try:
        files = [(name, _read_json(name)) for name in args.files]
    except HandFileError as exc:
        return _fail(str(exc))
    lines: list[str] = []
    failed = False
    try:
        if len(files) == 1:
            what, problems = check_file(files[0][1], head=args.head)
            checked = [(what, problems)]
        else:
            # Several hand files of one table: each hand, then the chain between them in hand order.
            records = sorted((data for _name, data in files), key=_nonce_key)
            checked = [(hand_name(r), check_hand(r)) for r in records]
            checked.append(("the chain between them", check_chain(records, head=args.head)))
    except RecursionError:
        return _fail("not a hand file: a value is nested too deep")
    for what, problems in checked:
        failed = failed or bool(problems)
        lines.append(f"{'FAIL' if problems else 'ok'}  {what}")
        lines += [f"      {problem}" for problem in problems]
    lines.append("does NOT check out" if failed else "everything checks out")
    _write(sys.stdout, "\n".join(lines) + "\n")
    return 1 if failed else 0


def _nonce_key(record: object) -> int:
    nonce = record.get("nonce") if isinstance(record, dict) else None
    return nonce if isinstance(nonce, int) and not isinstance(nonce, bool) else -1


_SEED_OPTION = "--client-seed"


def _take_client_seeds(argv: list[str]) -> tuple[list[str], list[str]]:
    """Split ``deck``'s client seeds off its other arguments, keeping their order.

    A seed is any text, ``--`` or ``-x`` included, which argparse would read as an option (or,
    on Python 3.11, drop): ``--client-seed VALUE`` takes the next argument whatever it is,
    ``--client-seed=VALUE`` the rest of the word, and every argument after ``--`` is a seed.
    """
    seeds: list[str] = []
    rest: list[str] = []
    words = iter(argv)
    for word in words:
        if word == "--":
            seeds.extend(words)
        elif word == _SEED_OPTION:
            value = next(words, None)
            if value is None:
                rest.append(word)  # argparse says the value is missing
            else:
                seeds.append(value)
        elif word.startswith(_SEED_OPTION + "="):
            seeds.append(word[len(_SEED_OPTION) + 1 :])
        else:
            rest.append(word)
    return rest, seeds


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m games.engine", description="The Svara rules engine.", allow_abbrev=False)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p_score = sub.add_parser("score", help="points of a three-card hand, e.g. score 7C 8C 8D")
    p_score.add_argument("cards", nargs="+")
    p_score.set_defaults(func=_cmd_score)
    p_replay = sub.add_parser("replay", help="play back a hand file (- for standard input)")
    p_replay.add_argument("file")
    p_replay.add_argument(
        "--strict",
        action="store_true",
        help="a refused action is an error (exit 2): a hand the site stored holds only accepted moves",
    )
    p_replay.set_defaults(func=_cmd_replay)
    p_deck = sub.add_parser(
        "deck",
        help="the deck for a server seed, client seeds and nonce",
        allow_abbrev=False,
        epilog="A client seed may be any text: --client-seed=-x, --client-seed '', "
        "or every seed after --, e.g. deck --server-seed HEX --nonce 7 -- ann -x ''.",
    )
    p_deck.add_argument("--server-seed", required=True)
    p_deck.add_argument(
        _SEED_OPTION, metavar="SEED", help="a client seed, in seat order; repeat it for each player"
    )
    p_deck.add_argument("--nonce", type=int, required=True)
    p_deck.add_argument(
        "--deal", type=int, default=0, help="0 for the hand, 1 for the first svara replay, ..."
    )
    p_deck.set_defaults(func=_cmd_deck)
    p_verify = sub.add_parser(
        "verify",
        help="check downloaded files: one series file, or hand files of one table (exit 1 if not fair)",
    )
    p_verify.add_argument("files", nargs="+", metavar="FILE")
    p_verify.add_argument("--head", help="the chain head the site showed, to check the last hand against")
    p_verify.set_defaults(func=_cmd_verify)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    seeds: list[str] = []
    if argv[:1] == ["deck"]:
        rest, seeds = _take_client_seeds(argv[1:])
        argv = ["deck", *rest]
    args = _parser().parse_args(argv)
    args.client_seeds = seeds
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
