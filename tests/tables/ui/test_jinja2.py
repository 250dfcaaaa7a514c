"""The Jinja2 environment of the table's regions (games/tables/ui/jinja2.py)."""

from __future__ import annotations

import random

from django.template import engines
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.cards import parse_card
from games.live import transitions as t
from games.live.document import hand_of, new_table_doc, seat_entry
from games.live.views import build_view
from games.tables.ui import jinja2 as ui_jinja2
from games.tables.ui.cards import card_html
from games.tables.ui.jinja2 import FixedBlocks, FixedWords, Words, fixed_template, render_in_language
from games.tables.ui.log import worded_log, worded_notice
from games.tables.ui.regions import _CLOSE, _MARKS, MOVE_KEYS


def render(source: str, language: str = "en", **context: object) -> str:
    with translation.override(language), render_in_language():
        return engines["jinja2"].from_string(source).render(context)


def test_dots_read_dict_keys_and_a_missing_one_renders_nothing():
    view = {"hand": {"pot": 40}, "items": 3}
    assert render("{{ v.hand.pot }}|{{ v.items }}|{{ v.nope }}|", v=view) == "40|3||"


def test_words_come_from_the_catalogue_of_the_active_language():
    source = '{{ _("Seats") }} · {% trans name=who %}{{ name }} to act{% endtrans %}'
    assert render(source, who="ann") == "Seats · ann to act"
    assert render(source, "bg", who="ann") == "Места · ann е на ход"  # noqa: RUF001
    # Each render looks in its own language, whatever was rendered before.
    assert render(source, who="bob") == "Seats · bob to act"


def test_values_are_escaped_inside_translated_blocks_and_out():
    html = render("{% trans name=who %}{{ name }} to act{% endtrans %}<i>{{ who }}</i>", who="<b>x</b>")
    assert html == "&lt;b&gt;x&lt;/b&gt; to act<i>&lt;b&gt;x&lt;/b&gt;</i>"


def test_words_outside_a_render_helper_still_follow_the_active_language():
    with translation.override("bg"):
        assert engines["jinja2"].from_string('{{ _("Seats") }}').render({}) == "Места"


# ---------------------------------------------------------------- fixed words (FixedWords)

REGIONS = "games/table/_regions.html"


def played_states(seed: int) -> list[tuple[dict, int]]:
    """Every state of a few heads-up hands with random legal moves: (document, version)."""
    rng = random.Random(seed)
    doc = new_table_doc(
        table={"id": 1, "name": "t", "stake": 10, "seat_count": 3, "dark_play": True, "turn_seconds": 30}
        | {"status": "open", "private": False, "kind": "cash"},
        seats=[
            seat_entry(user_id=1, name="<ann>", chips=500),
            seat_entry(user_id=2, name="bo & co", chips=500),
            None,
        ],
    )
    states, version = [(doc, 1)], 1
    for number in range(1, 4):
        doc = t.start_hand(
            doc,
            number=number,
            now=0.0,
            started_at="2026-01-01T00:00:00",
            server_seed=f"{rng.getrandbits(256):064x}",
        )
        states.append((doc, version := version + 1))
        while doc["hand"]:
            if t.in_svara_pause(doc):  # a tie: the regions show its tied hands, then the replay
                doc = t.end_svara_pause(doc, now=0.0)
                states.append((doc, version := version + 1))
                continue
            hand = hand_of(doc)
            legal = hand.legal()
            verb = rng.choice(legal.verbs)
            amount = (
                rng.randint(*legal.raise_range)
                if verb == "raise"
                else legal.dark_amount
                if verb == "dark"
                else None
            )
            user = doc["seats"][doc["hand"]["positions"][legal.seat]]["user_id"]
            doc = t.apply_move(doc, user_id=user, verb=verb, amount=amount, now=0.0, action_id=f"a{version}")
            states.append((doc, version := version + 1))
        doc = t.mark_settled(doc, now=0.0, left=[])
        states.append((doc, version := version + 1))
    return states


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), language=st.sampled_from(["en", "bg"]))
def test_regions_with_fixed_words_render_exactly_as_with_words_looked_up_each_time(seed, language):
    """A differential check: the compiled-for-one-language template against the plain one, for
    players and a spectator in every state of random hands."""
    with translation.override(language), render_in_language():
        plain, fixed = engines["jinja2"].env.get_template(REGIONS), fixed_template(REGIONS)
        for doc, version in played_states(seed):
            for user_id in (1, 2, None):
                view = build_view(doc, user_id=user_id, version=version)
                my_seat = view["seats"][view["my_position"]] if view["my_position"] is not None else None
                context = {
                    "v": view,
                    "notice": worded_notice(view["notice"]),
                    "log_html": worded_log(table_id=1, entries=view["log"]).html,
                    "card": card_html,
                    "my_seat": my_seat,
                    "action_id": "x",
                    "keys": MOVE_KEYS,
                    "server_now": 0,
                }
                context |= {"user_is_authenticated": True, "buy_in": {"min": 200, "max": 1000}}
                # Each part the template renders (regions.py): the page, and the shared and
                # personal parts with their slots marked.
                context |= {"seated": view["seated"], "o": _MARKS, "c": _CLOSE}
                for part in ("page", "shared", "personal"):
                    assert fixed.render(context | {"part": part}) == plain.render(context | {"part": part})


def test_fixed_words_are_translated_once_and_escaped_like_any_value():
    class Catalogue:
        def gettext(self, message):
            return {"Seats": "<Места & co>"}.get(message, message)

        def pgettext(self, context, message):
            return f"[{context}] {message}"

    env = engines["jinja2"].env.overlay(extensions=[FixedWords])
    env.fixed_words = Words(Catalogue())
    template = env.from_string('{{ _("Seats") }}|{{ pgettext("dealer button", "D") }}|{{ _(word) }}')

    # The words are in the compiled code: the catalogue the render would ask is not asked.
    assert '"Seats"' not in template.environment.compile('{{ _("Seats") }}', raw=True)
    with translation.override("en"):
        assert template.render(word="Seats") == "&lt;Места &amp; co&gt;|[dealer button] D|Seats"


class _Shouting:
    """A catalogue that makes every translated word visible."""

    def gettext(self, message):
        return {"%(name)s to act": "<%(name)s> TO ACT", "100% sure": "FULLY & SURE"}.get(message, message)

    def pgettext(self, context, message):
        return f"[{context}] {message}"

    def ngettext(self, singular, plural, number):
        return singular.upper() if number == 1 else plural.upper()


def _fixed_environment():
    env = engines["jinja2"].env.overlay(extensions=[FixedWords, FixedBlocks])
    env.fixed_words = Words(_Shouting())
    return env


def test_trans_blocks_are_translated_once_and_their_values_escaped():
    env = _fixed_environment()
    source = "{% trans name=who %}{{ name }} to act{% endtrans %}|{% trans %}100% sure{% endtrans %}"
    code = env.compile(source, raw=True)
    # The words are in the compiled code; the render asks no catalogue for them.
    assert "gettext" not in code and "TO ACT" in code
    with translation.override("en"):
        # The translation is markup (as the i18n extension makes it), the value is escaped.
        assert env.from_string(source).render(who="<b>") == "<&lt;b&gt;> TO ACT|FULLY & SURE"


def test_trans_blocks_with_a_plural_are_left_to_the_render():
    env = _fixed_environment()
    source = "{% trans count=n %}{{ count }} chip{% pluralize %}{{ count }} chips{% endtrans %}"
    assert "ngettext" in env.compile(source, raw=True)
    with translation.override("en"):  # the render's words: the active language's catalogue
        assert [env.from_string(source).render(n=n) for n in (1, 2)] == ["1 chip", "2 chips"]


def test_compiling_for_a_language_leaves_the_shared_underscore_alone():
    # The overlay shares its base's globals: the i18n extension's set-up would put Jinja's
    # own ``_`` there, one more call per word for every template of the base environment.
    with translation.override("bg"), render_in_language():
        fixed_template(REGIONS)
    _fixed_environment()
    assert engines["jinja2"].env.globals["_"] is ui_jinja2._gettext


EMPTY = {"v": {"seats": [], "table": {}, "log": []}, "part": "page", "o": _MARKS, "c": _CLOSE}


def test_each_language_has_its_own_compiled_template():
    with translation.override("bg"), render_in_language():
        bulgarian = fixed_template(REGIONS)
        assert 'aria-label="Места"' in bulgarian.render(EMPTY)
    with translation.override("en"), render_in_language():
        english = fixed_template(REGIONS)
        assert 'aria-label="Seats"' in english.render(EMPTY)
    assert bulgarian is not english


def test_a_card_is_drawn_once_per_language_and_card():
    with translation.override("en"), render_in_language():
        ace = card_html(parse_card("AS"))
        assert card_html(parse_card("AS")) is ace  # remembered, not drawn again
        assert 'aria-label="ace of spades"' in ace and 'data-card="AS"' in ace
        assert '<span class="rank" aria-hidden="true">A</span>' in ace
        assert 'class="card black wild"' in card_html(parse_card("7C"))  # the wild 7 of clubs
        english_back = card_html(None)
    with translation.override("bg"), render_in_language():
        bulgarian_back = card_html(None)
    assert 'class="card back"' in english_back and "face-down card" in english_back
    assert "face-down card" not in bulgarian_back  # each language has its own
