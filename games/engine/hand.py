"""One hand of Svara as a state machine (RULES.md §3-§5).

The pattern follows a well-tested poker engine: every move has a check that says, in words a
player can read, why it is not allowed (``refusal``), and the move itself (``act``), which runs
the check first and only then changes anything. A refused move leaves the state untouched, so
no copy is needed to undo it.

Seats are indices into the player list (clockwise order). The state is plain lists and ints so
that ``to_json``/``from_json`` round-trip exactly and a hand runs in tens of microseconds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import compress, repeat
from operator import add, ge
from typing import Any, NamedTuple, TypeGuard

from games.engine.cards import Card
from games.engine.events import (
    CALL,
    DECLINE,
    FOLD,
    PASS,
    RAISE,
    SKIP,
    WON,
    CalledOff,
    Event,
    Outcome,
    ReplayDealt,
    Split,
    SvaraOpened,
)
from games.engine.events import DARK as DARK_BET
from games.engine.events import JOIN as JOINED
from games.engine.fairness import shuffled_deck
from games.engine.rules import RULES_V1, Rules, rules_of_version
from games.engine.scoring import score_cards

DARK, BETTING, JOIN, FINISHED, AWAITING_DECK = "dark", "betting", "join", "finished", "awaiting_deck"
VERB_ORDER = ("dark", "decline", "fold", "call", "raise", "join", "skip")
# The moves a player sends: the verbs and PASS, FOLD's other name when nothing is to call
# ("timeout" is the clock's and "leave" the table's: neither is a move a player sends).
PLAYER_VERBS = (*VERB_ORDER, "pass")
TIMEOUT_MEANS = {DARK: "decline", BETTING: "fold", JOIN: "skip"}


# The betting verbs in VERB_ORDER, indexed by "something to call" (a bool), when a raise is
# possible and when it is not.
_VERBS_CAN_RAISE = (("fold", "raise"), ("fold", "call", "raise"))
_VERBS_NO_RAISE = (("fold",), ("fold", "call"))
_DARK_VERBS = ("dark", "decline")
_JOIN_VERBS = ("join", "skip")
# Every verb ``act`` takes: VERB_ORDER, the two aliases, and ``leave``: a player who leaves the
# table folds at once, out of turn if need be (RULES.md §5), so it is never among the legal verbs.
LEAVE = "leave"
_ALL_VERBS = (*VERB_ORDER, "pass", "timeout", LEAVE)


def _rotations(n: int) -> tuple[tuple[int, ...], ...]:
    """For each dealer seat, all n seats clockwise from the one left of the dealer (dealer last)."""
    return tuple(tuple((dealer + k) % n for k in range(1, n + 1)) for dealer in range(n))


_ROTATIONS: dict[int, tuple[tuple[int, ...], ...]] = {}


def _rotation(n: int, dealer: int) -> tuple[int, ...]:
    """The dealing and showdown order of a hand: made once per table size."""
    table = _ROTATIONS.get(n)
    if table is None:
        table = _ROTATIONS[n] = _rotations(n)
    return table[dealer]


class IllegalAction(ValueError):
    """A move the rules do not allow now; the message is for the player.

    ``code`` and ``params`` name the same refusal for a caller that words it in another language
    (the site translates by code); the English message itself is what the hand file records.
    """

    def __init__(self, message: str, *, code: str = "", params: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.params = params or {}


# Each refusal's English wording, by code; ``Hand.refusal_code`` gives the code and its params.
REFUSALS = {
    "hand_over": "the hand is over",
    "unknown_move": "unknown move {verb!r}: use one of {verbs}",
    "no_such_seat": "no such seat",
    "nobody_to_act": "nobody can act now",
    "not_your_turn": "not your turn: it is {name}'s",
    "timeout_no_amount": "a timeout takes no amount",
    "dark_round": "the cards are not dealt yet: bet dark or decline",
    "no_amount": "{verb} takes no amount",
    "amount_not_whole": "an amount must be a whole number of chips",
    "dark_amount": "a dark bet now is {due}, not {amount}",
    "join_or_skip": "it is time to join the svara (fee {fee}) or skip",
    "dark_round_over": "the dark round is over",
    "no_svara": "there is no svara to join",
    "nothing_to_call": "nothing to call: pass or raise",
    "raise_amount_missing": "say how much to raise to",
    "raise_not_whole": "a raise must be a whole number of chips",
    "no_raise_possible": "no raise is possible: the cap is {cap}",
    "raise_too_small": "the smallest raise is to {low}",
    "raise_above_cap": "the most you can raise to is {cap} (the cap)",
    "not_in_hand": "{name} is not in this hand",
}


class DeckError(ValueError):
    """A deck that cannot be dealt from (too short, repeated cards)."""


class Legal(NamedTuple):
    """What the player to act may do: verbs in VERB_ORDER, and the raise range if any.

    A NamedTuple rather than a frozen dataclass: it is built at every decision, and a tuple
    is several times cheaper to make.
    """

    seat: int
    verbs: tuple[str, ...]
    raise_range: tuple[int, int] | None = None
    dark_amount: int | None = None
    join_fee: int | None = None
    to_call: int = 0


# ``Legal(...)`` runs the Python ``__new__`` that NamedTuple generates (keywords, defaults);
# ``_new_legal(Legal, (all six fields))`` makes the same tuple in one C call.
_new_legal = _new_tuple = tuple.__new__

# What ``act`` returns for the moves that put no chips in, made once per seat: every decision of
# every hand returns its events, and a tuple not made is the cheapest (bench.engine measured 6 %
# for the events made at each move). The seats a hand may have are far fewer than 64.
_DECLINED, _FOLDED, _PASSED, _SKIPPED, _LEFT = (
    tuple(((kind, seat, None),) for seat in range(64)) for kind in (DECLINE, FOLD, PASS, SKIP, LEAVE)
)


class Hand:
    """A hand in play. Build with ``Hand.start``; drive with ``act``; read with ``legal``."""

    # The state: exactly what to_json writes and from_json reads.
    _STATE = (
        "acted",
        "actions",
        "bets",
        "cards",
        "chips",
        "dark_bets",
        "dark_play",
        "dealer",
        "decks",
        "first_dark",
        "in_hand",
        "join_fee",
        "join_queue",
        "joined",
        "last_dark",
        "names",
        "phase",
        "points",
        "pot",
        "seeds",
        "showdowns",
        "stake",
        "starting_chips",
        "svaras",
        "target",
        "tied",
        "to_act",
        "winner",
    )
    # Not state, derived from it: the cap, remembered between the moves that can change it
    # (see ``_cap``), and the seats clockwise from left of the dealer (``_rotation``). ``left``,
    # the seats whose players left the table, is state too but written only when there are any,
    # so the JSON of every hand without a leave is what it always was.
    # ``rules`` is the hand's Rules (RULES_V1 unless given): the state names it (``to_json``) only
    # when it is not RULES_V1, so a hand under the first rules writes what it always wrote.
    # ``_next_dark`` (the next dark bet) and ``_raise_step`` (the smallest raise over T) follow
    # from the rules, the stake and ``dark_bets``: kept so that the hot paths do no arithmetic.
    # ``_news`` gathers what a move led to (a svara, a replay, the award: events.Outcome) for
    # ``act`` to return after the move's own event; empty between moves. ``opening`` is what
    # ``start`` led to (a hand whose deal goes straight to its showdown: nobody can bet).
    __slots__ = (
        *_STATE,
        "left",
        "rules",
        "opening",
        "_cap_memo",
        "_rotation",
        "_next_dark",
        "_raise_step",
        "_news",
    )

    # The state's types (annotations only: with __slots__ they make no class attributes).
    acted: list[bool]
    actions: list[list[Any]]  # [seat, verb] or [seat, verb, amount]
    bets: list[int]
    cards: list[list[Card]]
    chips: list[int]
    dark_bets: int
    dark_play: bool
    dealer: int
    decks: list[list[Card]]
    first_dark: int | None
    in_hand: list[bool]
    join_fee: int
    join_queue: list[int]
    joined: list[int]
    last_dark: int | None
    names: list[str]
    phase: str
    points: dict[int, int]
    pot: int
    seeds: dict[str, Any] | None
    showdowns: list[dict[str, list[Any]]]  # per showdown: str(seat) -> [points, cards]
    stake: int
    starting_chips: list[int]
    svaras: int
    target: int
    tied: list[int]
    to_act: int | None
    winner: int | None
    left: list[int]
    rules: Rules
    opening: tuple[Outcome, ...]
    _news: list[Outcome]
    _cap_memo: int | None
    _rotation: tuple[int, ...]
    _next_dark: int
    _raise_step: int

    # ------------------------------------------------------------------ construction

    @classmethod
    def start(
        cls,
        *,
        stake: int,
        names: Sequence[str],
        chips: Sequence[int],
        dealer: int,
        dark_play: bool = True,
        decks: Sequence[Sequence[Card]] = (),
        seeds: dict[str, Any] | None = None,
        rules: Rules = RULES_V1,
    ) -> Hand:
        """Seat the players, take the antes and open the dark round (or deal).

        ``decks`` are used in order, one per deal; when they run out and ``seeds`` is given
        (``server_seed``, ``client_seeds``, ``nonce``), the next deck is computed from the seeds.
        ``rules``: the numbers the hand is played by (RULES_V1: the game as the site has always
        played it).
        """
        if not isinstance(rules, Rules):
            raise ValueError("rules must be a Rules value")
        if isinstance(stake, bool) or not isinstance(stake, int) or stake <= 0:
            raise ValueError("the stake must be a positive whole number")
        n = len(names)
        if n != len(chips) or n < 2:
            raise ValueError("a hand needs at least two players, each with a chip count")
        if len(set(names)) != n:
            raise ValueError("player names must be different")
        # The type check in C first (every hand of the benchmark starts here); the generator
        # decides only for chips that are not all plain ints.
        if not (set(map(type, chips)) <= _INT_ONLY and min(chips) >= 0) and any(
            isinstance(c, bool) or not isinstance(c, int) or c < 0 for c in chips
        ):
            raise ValueError("chips must be whole numbers, not negative")
        if not 0 <= dealer < n:
            raise ValueError("the dealer must be one of the players")
        hand = cls.__new__(cls)
        hand.stake = stake
        hand.rules = rules
        hand._next_dark = stake * rules.dark_first
        hand._raise_step = stake * rules.raise_step
        hand.dark_play = bool(dark_play)
        hand.names = list(names)
        hand.starting_chips = list(chips)
        hand.dealer = dealer
        hand.decks = list(map(list, decks))
        hand.seeds = dict(seeds) if seeds else None
        for deck in hand.decks:
            _check_deck(deck, 0)
        # A player with fewer than 2 S chips (the rules' deal_in_stakes) is not dealt in (RULES.md §3);
        # in a sit-and-go any chip deals a player in (§8). c >= that for each c, in C.
        need = 1 if rules.short_antes else stake * rules.deal_in_stakes
        in_hand = hand.in_hand = list(map(ge, chips, repeat(need)))
        dealt_in = sum(in_hand)
        if dealt_in < 2:
            raise ValueError(f"fewer than two players have the {need} chips needed to be dealt in")
        if hand.decks:
            _check_deck_length(hand.decks[0], dealt_in)
        hand.bets = [0] * n
        hand.cards = list(map(list, repeat((), n)))  # n empty lists, made in C
        hand.acted = [False] * n
        hand.target = 0
        hand.dark_bets = 0
        hand.first_dark = None
        hand.last_dark = None
        hand.svaras = 0
        hand.join_fee = 0
        hand.join_queue = []
        hand.joined = []
        hand.tied = []
        hand.points = {}
        hand.showdowns = []
        hand.winner = None
        hand.actions = []
        hand.left = []
        hand._rotation = _rotation(n, dealer)
        hand._news = []
        # The antes; a short stack antes all it has (a sit-and-go, §8).
        left = hand.chips = list(chips)
        pot = 0
        for seat in compress(range(n), in_hand):
            ante = stake if left[seat] >= stake else left[seat]
            left[seat] -= ante
            pot += ante
        hand.pot = pot
        hand._cap_memo = min(compress(left, in_hand))  # nobody has bet yet: the cap is the least left
        if hand.dark_play:
            hand.phase = DARK
            hand.to_act = hand._next_in(dealer)
            hand._offer_dark_or_deal()
        else:
            hand.to_act = None
            hand._deal()
        hand.opening = ()
        if hand._news:
            hand.opening, hand._news = tuple(hand._news), []
        return hand

    # ------------------------------------------------------------------ reading

    @property
    def finished(self) -> bool:
        return self.phase == FINISHED

    def cap(self) -> int:
        """The smallest "bet + chips left" among the hands still in: no raise may pass it."""
        in_hand = self.in_hand
        return min(map(add, compress(self.bets, in_hand), compress(self.chips, in_hand)))

    def _cap(self) -> int:
        """``cap()``, remembered. A bet moves chips from "chips left" to "bet", so "bet + chips
        left" stays the same through a deal's betting; only a fold, a join fee, a new deal and the
        award change the cap, and each of those forgets it (``_cap_memo = None``)."""
        cap = self._cap_memo
        if cap is None:
            cap = self._cap_memo = self.cap()
        return cap

    def dark_amount(self) -> int:
        """What the next dark bet would be: S, then double the one before (the rules' chain)."""
        return self._next_dark

    def legal(self) -> Legal | None:
        """Who must decide now and what they may do; None when nobody can act."""
        seat = self.to_act
        if seat is None:
            return None
        phase = self.phase
        if phase == DARK:
            return _new_legal(Legal, (seat, _DARK_VERBS, None, self._next_dark, None, 0))
        if phase == JOIN:
            return _new_legal(Legal, (seat, _JOIN_VERBS, None, None, self.join_fee, 0))
        target = self.target
        low, cap = target + self._raise_step, self._cap_memo
        if cap is None:
            cap = self._cap()
        to_call = target - self.bets[seat]
        if to_call < 0:
            to_call = 0
        if low <= cap:
            return _new_legal(Legal, (seat, _VERBS_CAN_RAISE[target > 0], (low, cap), None, None, to_call))
        return _new_legal(Legal, (seat, _VERBS_NO_RAISE[target > 0], None, None, None, to_call))

    def refusal(self, seat: int, verb: str, amount: object = None) -> str | None:
        """Why ``seat`` may not make this move now, in English words, or None when it may."""
        found = self.refusal_code(seat, verb, amount)
        return None if found is None else REFUSALS[found[0]].format(**found[1])

    def refusal_code(self, seat: int, verb: str, amount: object = None) -> tuple[str, dict[str, Any]] | None:
        """Why ``seat`` may not make this move now, as a code of REFUSALS and its params, or None."""
        phase = self.phase
        if phase == FINISHED:
            return "hand_over", {}
        if verb not in _ALL_VERBS:
            return "unknown_move", {"verb": verb, "verbs": ", ".join(VERB_ORDER)}
        # A seat is a whole number (a bool counts, as everywhere in Python); 1.0 equals seat 1
        # but cannot index the seats, and would fail half-way through the move.
        if not isinstance(seat, int) or not 0 <= seat < len(self.names):
            return "no_such_seat", {}
        if verb == LEAVE:
            if amount is not None:
                return "no_amount", {"verb": LEAVE}
            return None if self._involved(seat) else ("not_in_hand", {"name": self.names[seat]})
        to_act = self.to_act
        if to_act is None:
            return "nobody_to_act", {}
        if seat != to_act:
            return "not_your_turn", {"name": self.names[to_act]}
        if verb == "timeout":
            return None if amount is None else ("timeout_no_amount", {})
        if verb == "pass":
            verb = "fold"
        if phase == DARK:
            if verb not in _DARK_VERBS:
                return "dark_round", {}
            if verb == "decline":
                return None if amount is None else ("no_amount", {"verb": "decline"})
            if amount is None:
                return None
            if not is_whole_number(amount):
                return "amount_not_whole", {}
            due = self._next_dark
            return None if amount == due else ("dark_amount", {"due": due, "amount": amount})
        if phase == JOIN:
            if verb not in _JOIN_VERBS:
                return "join_or_skip", {"fee": self.join_fee}
            return None if amount is None else ("no_amount", {"verb": verb})
        # Betting.
        if verb == "fold":
            return None if amount is None else ("no_amount", {"verb": "fold"})
        if verb == "call":
            if amount is not None:
                return "no_amount", {"verb": "call"}
            return None if self.target > 0 else ("nothing_to_call", {})
        if verb in _DARK_VERBS:
            return "dark_round_over", {}
        if verb in _JOIN_VERBS:
            return "no_svara", {}
        # Raise.
        if amount is None:
            return "raise_amount_missing", {}
        if not is_whole_number(amount):
            return "raise_not_whole", {}
        low, cap = self.target + self._raise_step, self._cap()
        if low > cap:
            return "no_raise_possible", {"cap": cap}
        if amount < low:
            return "raise_too_small", {"low": low}
        if amount > cap:
            return "raise_above_cap", {"cap": cap}
        return None

    # ------------------------------------------------------------------ moves

    def act(self, seat: int, verb: str, amount: int | None = None) -> tuple[Event, ...]:
        """Make a move and say what happened (games.engine.events): the move's own event, then
        what it led to (a svara opened, a replay dealt, the pot won...). Or raise IllegalAction
        (and change nothing)."""
        # The usual moves in a few steps, as every decision of every hand comes here: the player
        # to act (a plain int seat) with a move the phase always allows without an amount, a
        # call with something to call, or a raise (a plain int) within range. refusal_code
        # decides everything else and words the refusals.
        move = None
        if seat == self.to_act and seat.__class__ is int and verb.__class__ is str:
            phase = self.phase
            if amount is None:
                move = _FREE_MOVES.get(phase, _NO_MOVES).get(verb)
                if move is None and verb == "call" and phase == BETTING and self.target > 0:
                    move = Hand._call
            elif verb == "raise" and phase == BETTING and amount.__class__ is int:
                cap = self._cap_memo
                if cap is None:
                    cap = self._cap()
                if self.target + self._raise_step <= amount <= cap:
                    move = Hand._raise
        if move is None:
            found = self.refusal_code(seat, verb, amount)
            if found is not None:
                code, params = found
                raise IllegalAction(REFUSALS[code].format(**params), code=code, params=params)
            move = _MOVES[
                TIMEOUT_MEANS[self.phase] if verb == "timeout" else "fold" if verb == "pass" else verb
            ]
        self.actions.append([seat, verb] if amount is None else [seat, verb, amount])
        events = move(self, seat, amount)
        if self._news:  # rare: the move ended a deal
            events = (*events, *self._news)
            self._news = []
        return events

    # Each move checked by ``act``, by verb (``_MOVES``): all take the seat and the amount.

    # A bet moves chips from "chips left" to "bet" and the pot, which leaves "bet + chips left"
    # and so the cap as they were.

    def _dark(self, seat: int, amount: object = None) -> tuple[Event, ...]:
        due = self._next_dark
        self._next_dark = due * self.rules.dark_growth
        self.chips[seat] -= due
        self.pot += due
        self.bets[seat] += due
        self.dark_bets += 1
        if self.first_dark is None:
            self.first_dark = seat
        self.last_dark = seat
        nxt = self.to_act = self._next_in(seat)
        if nxt == self.first_dark:
            self._deal()  # the turn came back to the first dark bettor: the round is over
        else:
            self._offer_dark_or_deal()
        return ((DARK_BET, seat, due),)

    def _decline(self, seat: int, amount: object = None) -> tuple[Event, ...]:
        self._deal()  # the first decline ends the dark round
        return _DECLINED[seat]

    def _fold(self, seat: int, amount: object = None) -> tuple[Event, ...]:
        # The cards stay in the state (the stored hand needs them); views never show them.
        events = _FOLDED[seat] if self.target else _PASSED[seat]
        in_hand = self.in_hand
        in_hand[seat] = False
        self._cap_memo = None
        if sum(in_hand) == 1:
            self._award(in_hand.index(True))
            return events
        self._advance_betting(seat)
        return events

    def _call(self, seat: int, amount: object = None) -> tuple[Event, ...]:
        bets, target = self.bets, self.target
        cost = target - bets[seat]
        self.chips[seat] -= cost
        self.pot += cost
        bets[seat] = target
        self.acted[seat] = True
        self._advance_betting(seat)
        return ((CALL, seat, cost),)

    def _raise(self, seat: int, amount: object = None) -> tuple[Event, ...]:
        assert isinstance(amount, int)  # checked by refusal_code
        bets = self.bets
        cost = amount - bets[seat]
        self.chips[seat] -= cost
        self.pot += cost
        bets[seat] = amount
        self.target = amount
        acted = self.acted = [False] * len(self.names)
        acted[seat] = True
        self._advance_betting(seat)
        return ((RAISE, seat, amount),)

    def _join(self, seat: int, amount: object = None) -> tuple[Event, ...]:
        fee = self.join_fee
        self.chips[seat] -= fee
        self.pot += fee
        self._cap_memo = None
        self.joined.append(seat)
        self._next_join()
        return ((JOINED, seat, fee),)

    def _skip(self, seat: int, amount: object = None) -> tuple[Event, ...]:
        self._next_join()
        return _SKIPPED[seat]

    def _involved(self, seat: int) -> bool:
        """Whether leaving changes anything: a hand still in, or a part in an open svara."""
        if seat in self.left:
            return False
        if self.phase == JOIN:
            return seat == self.to_act or seat in self.join_queue or seat in self.tied or seat in self.joined
        return bool(self.in_hand[seat]) and self.phase in (DARK, BETTING)

    def _leave(self, seat: int, amount: object = None) -> tuple[Event, ...]:
        """The player left the table: their hand is folded now, whoever's turn it is; in an open
        svara they drop out of the replay (a join fee paid stays in the pot). Chips they bet stay
        in the pot; if one hand is left, it wins."""
        self.left.append(seat)  # never asked to join a svara of this hand
        if self.phase == JOIN:
            # A joiner who leaves stays in ``joined``: the fee they paid is theirs if the svara is
            # called off; ``_replay`` deals only to those who are still here.
            was_tied = seat in self.tied
            for waiting in (self.join_queue, self.tied):
                if seat in waiting:
                    waiting.remove(seat)
            self.in_hand[seat] = False
            if was_tied and not self.tied:
                self._call_off()  # every tied player has gone: nobody is left to play for the pot
            elif seat == self.to_act:
                self._next_join()  # the leaver's answer: not joining
            return _LEFT[seat]
        if self.phase == BETTING and seat == self.to_act:
            self._fold(seat)
            return _LEFT[seat]
        in_hand = self.in_hand
        in_hand[seat] = False
        self._cap_memo = None
        if sum(in_hand) == 1:
            self._award(in_hand.index(True))
            return _LEFT[seat]
        if self.phase == DARK:
            if seat == self.first_dark:
                # The round ends when the turn comes back to where the first dark bettor sat.
                self.first_dark = self._next_in(seat)
            if seat == self.to_act:
                nxt = self.to_act = self._next_in(seat)
                if nxt == self.first_dark:
                    self._deal()
                else:
                    self._offer_dark_or_deal()
        return _LEFT[seat]

    # ------------------------------------------------------------------ internals

    def _next_in(self, seat: int) -> int:
        """The next seat clockwise after ``seat`` whose hand is still in."""
        n, in_hand = len(self.names), self.in_hand
        nxt = seat + 1 if seat + 1 < n else 0
        while not in_hand[nxt]:
            nxt = nxt + 1 if nxt + 1 < n else 0
        return nxt

    def _offer_dark_or_deal(self) -> None:
        # A dark bet X is offered only while 2X (the rules' dark_cap x X) is within the cap
        # (RULES.md §4 step 2).
        cap = self._cap_memo
        if cap is None:
            cap = self._cap()
        if self.rules.dark_cap * self._next_dark > cap:
            self._deal()

    def _deal(self, deal: int = 0) -> None:
        """Deal ``deal`` (0: the hand, k: the k-th svara replay) and open its betting.

        Its deck is ``decks[deal]`` when given, else computed from the seeds and kept; without
        either the hand waits for a deck.
        """
        decks = self.decks
        if deal < len(decks):
            deck = decks[deal]
        elif self.seeds is not None:
            seeds = self.seeds
            deck = shuffled_deck(
                server_seed=seeds["server_seed"],
                client_seeds=seeds["client_seeds"],
                nonce=seeds["nonce"],
                deal=deal,
            )
            decks.append(deck)
        else:
            self.phase, self.to_act = AWAITING_DECK, None
            return
        self.svaras = deal  # counts replays dealt, not a join window still open
        if deal:
            self._news.append(_new_tuple(ReplayDealt, ("replay", deal, self.pot)))
        n, in_hand, order = len(self.names), self.in_hand, self._rotation
        if not all(in_hand):
            order = tuple(compress(order, map(in_hand.__getitem__, order)))
        count = len(order)
        if len(deck) < 3 * max(count, 2):
            _check_deck_length(deck, count)  # raises
        # Card i goes to the (i mod count)-th player from left of the dealer: a stride slice.
        cards: list[list[Card]] = list(map(list, repeat((), n)))  # n empty lists, made in C
        for k, seat in enumerate(order):
            cards[seat] = deck[k : 3 * count : count]
        self.cards = cards
        self.phase = BETTING
        self.points = {}
        self.acted = [False] * n
        # Twice the last dark bet (the rules' target_after_dark), the one before the next.
        rules = self.rules
        self.target = rules.target_after_dark * self._next_dark // rules.dark_growth if self.dark_bets else 0
        self.to_act = self._next_in(self.last_dark if self.last_dark is not None else self.dealer)
        if (
            self.target == 0
            and (self._cap_memo if self._cap_memo is not None else self._cap()) < self._raise_step
        ):
            # Someone still in has nothing left (a svara replay): nobody can bet.
            self._showdown()

    def _advance_betting(self, seat: int) -> None:
        # Betting ends when every hand still in has bet exactly T and acted since the last raise.
        target = self.target
        for in_hand, bet, acted in zip(self.in_hand, self.bets, self.acted):
            if in_hand and (bet != target or not acted):
                self.to_act = self._next_in(seat)
                return
        self._showdown()

    def _showdown(self) -> None:
        # In dealing order (left of the dealer first), which is also how hands are shown.
        cards, in_hand = self.cards, self.in_hand
        points: dict[int, int] = {}
        shown: dict[str, list[Any]] = {}
        best, tied = -1, []
        for s in self._rotation:
            if in_hand[s]:
                held = cards[s]
                p = points[s] = score_cards(held)
                shown[str(s)] = [p, list(held)]
                if p > best:
                    best, tied = p, [s]
                elif p == best:
                    tied.append(s)
        self.points = points
        self.showdowns.append(shown)
        if len(tied) == 1:
            self._award(tied[0])
            return
        self._open_join_window(tied)

    def _award(self, seat: int) -> None:
        self._news.append((WON, seat, self.pot))
        self.chips[seat] += self.pot
        self._cap_memo = None
        self.winner = seat
        self.phase = FINISHED
        self.to_act = None

    def _open_join_window(self, tied: list[int]) -> None:
        """Svara: the pot is replayed; others may join for half the pot, rounded up (§4 step 6)."""
        self.tied = tied
        self.joined = []
        rules = self.rules
        self.join_fee = rules.join_fee(pot=self.pot)
        need = self.join_fee + self.stake * rules.join_reserve_stakes
        # Left of the dealer, dealer last.
        left = self.left
        self.join_queue = [
            s for s in self._rotation if s not in tied and self.chips[s] >= need and s not in left
        ]
        fee = self.join_fee if self.join_queue else None  # nobody may join: the replay comes at once
        self._news.append(SvaraOpened("svara", tuple(tied), self.points[tied[0]], self.pot, fee))
        self.phase = JOIN
        self._next_join()

    def _next_join(self) -> None:
        if self.join_queue:
            self.to_act = self.join_queue.pop(0)
            return
        self._replay()

    def _call_off(self) -> None:
        """Every tied player left before the replay (RULES.md §5): the join fees go back, and the
        pot is split among the tied players, a remainder chip at a time clockwise from the dealer's
        left (the showdown's own order). No winner; the hand ends here, whoever was still to answer."""
        fee = self.join_fee
        for seat in self.joined:
            self.chips[seat] += fee
            self.pot -= fee
        showdown = self.showdowns[-1]  # the tie: its hands in order from the dealer's left
        best = max(points for points, _cards in showdown.values())
        tied = [int(s) for s, (points, _cards) in showdown.items() if points == best]
        share, odd = divmod(self.pot, len(tied))
        shares = tuple((seat, share + (k < odd)) for k, seat in enumerate(tied))
        for seat, chips in shares:
            self.chips[seat] += chips
        self._news.append(CalledOff("called_off", self.pot, tuple((seat, fee) for seat in self.joined)))
        self._news.append(Split("split", shares))
        self.join_queue, self.joined, self.join_fee = [], [], 0
        self._cap_memo = None
        self.winner = None
        self.phase = FINISHED
        self.to_act = None

    def _replay(self) -> None:
        left = self.left
        players = set(self.tied) | {s for s in self.joined if s not in left}
        if len(players) == 1:  # the others left: nobody to replay against
            self.in_hand = [s in players for s in range(len(self.names))]
            self.tied, self.joined, self.join_fee = [], [], 0
            self._award(players.pop())
            return
        self.in_hand = [s in players for s in range(len(self.names))]
        self.bets = [0] * len(self.names)
        self._cap_memo = None
        self.dark_bets = 0
        self._next_dark = self.stake * self.rules.dark_first
        self.first_dark = self.last_dark = None
        self.tied, self.joined, self.join_fee = [], [], 0
        self._deal(self.svaras + 1)

    # ------------------------------------------------------------------ serialisation

    def to_json(self) -> dict[str, Any]:
        """The whole state as JSON-ready data; ``Hand.from_json`` gives it back exactly."""
        return {
            "v": 1,
            "stake": self.stake,
            "dark_play": self.dark_play,
            "names": list(self.names),
            "starting_chips": list(self.starting_chips),
            "chips": list(self.chips),
            "dealer": self.dealer,
            "decks": [list(d) for d in self.decks],
            "seeds": dict(self.seeds) if self.seeds else None,
            "phase": self.phase,
            "in_hand": list(self.in_hand),
            "bets": list(self.bets),
            "cards": [list(c) for c in self.cards],
            "acted": list(self.acted),
            "pot": self.pot,
            "target": self.target,
            "dark_bets": self.dark_bets,
            "first_dark": self.first_dark,
            "last_dark": self.last_dark,
            "svaras": self.svaras,
            "join_fee": self.join_fee,
            "join_queue": list(self.join_queue),
            "joined": list(self.joined),
            "tied": list(self.tied),
            "points": {str(s): p for s, p in self.points.items()},
            "showdowns": [{k: [v[0], list(v[1])] for k, v in s.items()} for s in self.showdowns],
            "winner": self.winner,
            "to_act": self.to_act,
            "actions": [list(a) for a in self.actions],
            **({"left": list(self.left)} if self.left else {}),
            **({"rules": self.rules.to_json()} if self.rules is not RULES_V1 else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Hand:
        if data.get("v") != 1:
            raise ValueError("unknown hand state version")
        hand = cls.__new__(cls)
        for key in cls._STATE:
            if key not in data:
                raise ValueError(f"hand state lacks {key!r}")
            value = data[key]
            if isinstance(value, list):
                value = [list(v) if isinstance(v, list) else v for v in value]
            setattr(hand, key, value)
        hand.left = list(data.get("left") or ())
        # A hand under the first rules names none (see __slots__); others carry the whole value.
        rules = hand.rules = Rules.from_json(data["rules"]) if "rules" in data else rules_of_version(1)
        hand._next_dark = rules.dark_bet(stake=hand.stake, count=hand.dark_bets)
        hand._raise_step = hand.stake * rules.raise_step
        hand.seeds = dict(data["seeds"]) if data["seeds"] else None
        hand.points = {int(s): p for s, p in data["points"].items()}
        hand.showdowns = [{k: [v[0], list(v[1])] for k, v in s.items()} for s in data["showdowns"]]
        hand._cap_memo = None
        hand._rotation = _rotation(len(hand.names), hand.dealer)
        hand._news = []
        hand.opening = ()
        return hand

    # ------------------------------------------------------------------ views

    def view_for(self, seat: int | None) -> dict[str, Any]:
        """What one seat (or a spectator, ``None``) may see.

        Own cards always; another player's cards only once shown at a showdown of the current
        deal; folded hands never. Decks, seeds and undealt cards never.
        """
        shown = set(self.points)  # filled at a showdown, emptied when the next deal starts
        legal = self.legal()
        players = []
        for s, name in enumerate(self.names):
            visible = s == seat or s in shown
            players.append(
                {
                    "seat": s,
                    "name": name,
                    "chips": self.chips[s],
                    "bet": self.bets[s],
                    "in_hand": self.in_hand[s],
                    "has_cards": bool(self.cards[s]),
                    "cards": list(self.cards[s]) if visible and self.cards[s] else None,
                    "points": self.points.get(s) if s in shown else None,
                }
            )
        own_points = score_cards(self.cards[seat]) if seat is not None and self.cards[seat] else None
        return {
            "stake": self.stake,
            "phase": self.phase,
            "dealer": self.dealer,
            "pot": self.pot,
            "target": self.target,
            "cap": self.cap() if self.phase == BETTING else None,
            "players": players,
            "to_act": self.to_act,
            "legal": _legal_json(legal) if legal is not None and legal.seat == seat else None,
            "own_points": own_points,
            "svaras": self.svaras,
            "showdowns": [{k: [v[0], list(v[1])] for k, v in s.items()} for s in self.showdowns],
            "join_fee": self.join_fee or None,
            "tied": list(self.tied),
            "winner": self.winner,
            "actions": [list(a) for a in self.actions],
        }


# The move of each verb; "pass" and "timeout" (what the clock does) are other names for these.
_MOVES: dict[str, Callable[[Hand, int, Any], tuple[Event, ...]]] = {
    "dark": Hand._dark,
    "decline": Hand._decline,
    "fold": Hand._fold,
    "call": Hand._call,
    "raise": Hand._raise,
    "join": Hand._join,
    "skip": Hand._skip,
    LEAVE: Hand._leave,
}
# By phase, the moves the player to act may always make without an amount, aliases included.
_FREE_MOVES: dict[str, dict[str, Callable[[Hand, int, Any], tuple[Event, ...]]]] = {
    DARK: {"dark": Hand._dark, "decline": Hand._decline, "timeout": _MOVES[TIMEOUT_MEANS[DARK]]},
    JOIN: {"join": Hand._join, "skip": Hand._skip, "timeout": _MOVES[TIMEOUT_MEANS[JOIN]]},
    BETTING: {"fold": Hand._fold, "pass": Hand._fold, "timeout": _MOVES[TIMEOUT_MEANS[BETTING]]},
}
_NO_MOVES: dict[str, Callable[[Hand, int, Any], tuple[Event, ...]]] = {}


def legal_json(legal: Legal | None) -> dict[str, Any] | None:
    """The ``legal`` object of HAND_FORMAT.md's output."""
    return None if legal is None else _legal_json(legal)


def _legal_json(legal: Legal) -> dict[str, Any]:
    out: dict[str, Any] = {"verbs": list(legal.verbs)}
    if legal.raise_range is not None:
        out["raise"] = list(legal.raise_range)
    return out


def is_whole_number(value: object) -> TypeGuard[int]:
    """An int that is not a bool: what an amount, a stake or a count of chips must be."""
    return isinstance(value, int) and not isinstance(value, bool)


_CARD_SET = frozenset(range(32))
_INT_ONLY = frozenset({int})


def _check_deck(deck: Sequence[Card], players: int) -> None:
    # Set operations run in C: this check is on the path of every hand (bench/engine.py).
    cards = set(deck)
    if len(cards) != len(deck):
        raise DeckError("a deck holds a card twice")
    if not cards <= _CARD_SET or set(map(type, deck)) - {int}:
        raise DeckError("a deck holds something that is not a card")
    _check_deck_length(deck, players)


def _check_deck_length(deck: Sequence[Card], players: int) -> None:
    if len(deck) < 3 * max(players, 2):
        raise DeckError(f"a deck needs at least {3 * max(players, 2)} cards, this one has {len(deck)}")
