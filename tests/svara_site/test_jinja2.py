"""The Jinja2 environment of the table's regions (svara_site/jinja2.py)."""

from __future__ import annotations

from django.template import engines
from django.utils import translation

from svara_site.jinja2 import render_in_language


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
