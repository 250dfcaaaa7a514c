"""The Jinja2 environment for the table's regions and the card they draw (templates/jinja2/).

Why Jinja2 there and the Django template language everywhere else: the regions of a table are
rendered for every viewer on every change of every table, the hottest path of a busy server
(bench/load.py). The same markup rendered about eight times slower in the Django language. Pages
rendered once per request stay in the Django language.

Translation: ``{% trans %}`` blocks and ``_()`` give the same message ids as Django's
``{% blocktranslate %}`` and ``{% translate %}`` (``Seat %(number)s``), so both share one
catalogue. The callables are plain functions (Jinja's "old style" gettext: one call per string,
measured a third faster than the new style's wrappers) that look the message up in the
active language's ``Words``, found once per render (``render_in_language``), instead of walking
Django's context-local active language and every app's catalogue for each string.
"""

from __future__ import annotations

import contextvars
import functools
import weakref
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from typing import Any

from django.templatetags.static import static
from django.utils import translation
from django.utils.translation import trans_real
from jinja2 import Environment, Template, Undefined, nodes
from jinja2.ext import Extension, InternationalizationExtension
from jinja2.lexer import Token, TokenStream
from markupsafe import Markup

from accounts.faces import face_path


class Words:
    """One language's catalogue with its answers remembered: a lookup in Django's catalogue
    walks every app's catalogue (and the fallback's) for each string, and a render asks for the
    same few dozen strings every time."""

    def __init__(self, catalog: Any) -> None:
        self.catalog = catalog
        self.plain: dict[str, str] = {}
        self.in_context: dict[tuple[str, str], str] = {}
        self.environment: Environment | None = None  # templates compiled in this language
        self.fragments: dict[tuple[str, Hashable], Markup] = {}  # cards drawn (cards.card_html)
        self.thousands: str | None = None  # the separator of chip counts, see ``chips``

    def gettext(self, message: str) -> str:
        word = self.plain.get(message)
        if word is None:
            word = self.plain[message] = self.catalog.gettext(message)
        return word

    def pgettext(self, message_context: str, message: str) -> str:
        key = (message_context, message)
        word = self.in_context.get(key)
        if word is None:
            word = self.in_context[key] = self.catalog.pgettext(message_context, message)
        return word


# One Words per catalogue object: Django makes a new catalogue when the locale settings change
# (tests), and the old one's words go with it.
_words: weakref.WeakKeyDictionary[Any, Words] = weakref.WeakKeyDictionary()
# The words of the render in progress; None outside ``render_in_language``.
_current_words: contextvars.ContextVar[Words | None] = contextvars.ContextVar("jinja2_words", default=None)


def active_catalog() -> Any:
    """The translation catalogue of the active language (Django caches one per language)."""
    return trans_real.translation(translation.get_language() or "en")


def active_words() -> Words:
    """The active language's catalogue, with remembered answers."""
    catalog = active_catalog()
    words = _words.get(catalog)
    if words is None:
        words = _words[catalog] = Words(catalog)
    return words


@contextmanager
def render_in_language() -> Iterator[None]:
    """Word the templates rendered inside in the active language, looked up once."""
    token = _current_words.set(active_words())
    try:
        yield
    finally:
        _current_words.reset(token)


def current_words() -> Words:
    """The words of the render in progress, else the active language's."""
    return _current_words.get() or active_words()


def _gettext(message: str) -> str:
    return current_words().gettext(message)


def _ngettext(singular: str, plural: str, number: int) -> str:
    return current_words().catalog.ngettext(singular, plural, number)


def _pgettext(message_context: str, message: str) -> str:
    return current_words().pgettext(message_context, message)


def _npgettext(message_context: str, singular: str, plural: str, number: int) -> str:
    return current_words().catalog.npgettext(message_context, singular, plural, number)


def chips(amount: Any) -> Any:
    """A chip count as the pages write it (Django's ``floatformat:"0g"``): 1,000 in English, 1 000
    in Bulgarian (svara_site/formats/). Counts under 1,000, most of a table's, pass unchanged.
    Only for text: a form's value stays plain digits."""
    if type(amount) is not int or -1000 < amount < 1000:
        return amount
    words = current_words()
    if words.thousands is None:
        from django.utils.formats import number_format

        words.thousands = number_format(1000, force_grouping=True)[1:-3]
    return f"{amount:,}".replace(",", words.thousands)


class ViewEnvironment(Environment):
    """Templates here read plain dicts (the views of games/live/views.py): ``v.hand.pot`` looks
    the key up first. Jinja's own order (attribute, then key) raises and catches an
    AttributeError for every dot on a dict, a hundred times a render; a dict's methods are never
    wanted in these templates."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


@functools.cache
def face_url(face: str) -> str:
    """The address of a face's file (hashed in production): found once per face and process, as
    every seat of every render asks for it."""
    return static(face_path(face))


def environment(**options: Any) -> Environment:
    # Missing values render as nothing, as in Django's language, in DEBUG too (Django's backend
    # would pick DebugUndefined there, which prints the expression into the page).
    options["undefined"] = Undefined
    env = ViewEnvironment(extensions=["jinja2.ext.i18n"], **options)
    env.install_gettext_callables(  # type: ignore[attr-defined]  # added by the i18n extension
        gettext=_gettext, ngettext=_ngettext, pgettext=_pgettext, npgettext=_npgettext, newstyle=False
    )
    # ``_`` straight to the function: the extension's alias is one more context call per string.
    env.globals["_"] = _gettext
    env.filters["chips"] = chips
    env.filters["face_url"] = face_url
    return env


# ---------------------------------------------------------------- words fixed when compiled


class FixedWords(Extension):
    """Translate a template's fixed words once, when it is compiled for one language.

    ``_("Seats")`` and ``pgettext("dealer button", "D")`` with literal arguments become the
    literal in the language of the environment's ``fixed_words``, which Jinja then escapes and
    folds into the compiled template: no call per word per render. The regions of a table have
    about forty of them, and calling them was a quarter of a render. ``{% trans %}`` blocks are
    ``FixedBlocks``'s; calls with other arguments are left to the render, which looks them up in
    the same language (``fixed_template`` picks the template by the active language's ``Words``,
    which ``render_in_language`` also uses).
    """

    def filter_stream(self, stream: TokenStream) -> Any:
        words: Words | None = getattr(self.environment, "fixed_words", None)
        tokens = list(stream)
        if words is None:
            return iter(tokens)
        out: list[Token] = []
        i = 0
        while i < len(tokens):
            fixed = _fixed_call(tokens, i, words)
            if fixed is None:
                out.append(tokens[i])
                i += 1
            else:
                word, length = fixed
                out.append(Token(tokens[i].lineno, "string", word))
                i += length
        return iter(out)


def _fixed_call(tokens: list[Token], i: int, words: Words) -> tuple[str, int] | None:
    """``(word, tokens used)`` when a call of literals to ``_`` or ``pgettext`` starts at ``i``."""
    kinds = [t.type for t in tokens[i : i + 6]]
    if tokens[i].type != "name" or (i > 0 and tokens[i - 1].type == "dot"):
        return None
    if tokens[i].value == "_" and kinds[:4] == ["name", "lparen", "string", "rparen"]:
        return words.gettext(tokens[i + 2].value), 4
    if tokens[i].value == "pgettext" and kinds == ["name", "lparen", "string", "comma", "string", "rparen"]:
        return words.pgettext(tokens[i + 2].value, tokens[i + 4].value), 6
    return None


def fixed_template(name: str) -> Template:
    """The template ``name`` compiled for the active language, its fixed words translated
    (``FixedWords``); render it inside ``render_in_language``, which words the rest alike
    (and whose words it takes, rather than looking the active language up again)."""
    words = current_words()
    if words.environment is None:
        from django.template import engines

        base = engines["jinja2"].env  # type: ignore[attr-defined]  # the Jinja2 backend's
        overlay = base.overlay(extensions=[FixedWords, FixedBlocks])
        overlay.fixed_words = words  # type: ignore[attr-defined]  # read by FixedWords
        words.environment = overlay
    return words.environment.get_template(name)


class FixedBlocks(InternationalizationExtension):
    """``{% trans %}`` blocks translated once, when compiled for one language (as ``FixedWords``).

    ``{% trans amount=a.to_call %}CALL {{ amount }}{% endtrans %}`` compiles to the message
    looked up at every render, then filled in: ``Markup(gettext("CALL %(amount)s")) % {...}``.
    Here the lookup is done at compile time and the filling stays in the render, so values are
    escaped as before. Blocks with a plural are left to the render (the number picks the form).
    The i18n extension's parser reads the block; this one's priority comes after it, so its
    ``trans`` tag is the one used. ``_make_node`` is that extension's own (private) hook: Jinja
    is pinned, and a property test renders the regions both ways and compares them.
    """

    priority = 101

    def __init__(self, environment: Environment) -> None:
        # Not the i18n extension's own set-up: the environment already has it, and it would put
        # Jinja's ``_`` back into the globals, which an overlay shares with its base.
        Extension.__init__(self, environment)

    def _make_node(
        self,
        singular: str,
        plural: str | None,
        context: str | None,
        variables: dict[str, nodes.Expr],
        plural_expr: nodes.Expr | None,
        vars_referenced: bool,
        num_called_num: bool,
    ) -> nodes.Output:
        words: Words | None = getattr(self.environment, "fixed_words", None)
        if words is None or plural_expr is not None or self.environment.newstyle_gettext:  # type: ignore[attr-defined]
            return super()._make_node(
                singular, plural, context, variables, plural_expr, vars_referenced, num_called_num
            )
        if not vars_referenced:
            singular = singular.replace("%%", "%")  # as the i18n extension asks the catalogue
        word = words.gettext(singular) if context is None else words.pgettext(context, singular)
        node: nodes.Expr = nodes.MarkSafeIfAutoescape(nodes.Const(word))
        if variables:
            pairs = [nodes.Pair(nodes.Const(key), value) for key, value in variables.items()]
            node = nodes.Mod(node, nodes.Dict(pairs))
        return nodes.Output([node])
