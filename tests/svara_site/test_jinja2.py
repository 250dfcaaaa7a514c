"""The Jinja2 environment of the table's regions (svara_site/jinja2.py)."""

from __future__ import annotations

import random

from django.template import engines
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from games.consumers import MOVE_KEYS
from games.live import table as t
from games.live.views import build_view
from svara_site.jinja2 import FixedWords, Words, fixed_template, render_in_language


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
    doc = t.new_table_doc(
        table={"id": 1, "name": "t", "stake": 10, "seat_count": 3, "dark_play": True, "turn_seconds": 30}
        | {"status": "open", "private": False, "practice": False},
        seats=[
            t.seat_entry(user_id=1, name="<ann>", chips=500),
            t.seat_entry(user_id=2, name="bo & co", chips=500),
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
            hand = t.hand_of(doc)
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
                    "my_seat": my_seat,
                    "action_id": "x",
                    "keys": MOVE_KEYS,
                    "server_now": 0,
                }
                context |= {"user_is_authenticated": True, "buy_in": {"min": 200, "max": 1000}}
                assert fixed.render(context) == plain.render(context)


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


def test_each_language_has_its_own_compiled_template():
    with translation.override("bg"), render_in_language():
        bulgarian = fixed_template(REGIONS)
        assert 'aria-label="Места"' in bulgarian.render({"v": {"seats": [], "table": {}, "log": []}})
    with translation.override("en"), render_in_language():
        english = fixed_template(REGIONS)
        assert 'aria-label="Seats"' in english.render({"v": {"seats": [], "table": {}, "log": []}})
    assert bulgarian is not english
