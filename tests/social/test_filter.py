"""The word filter: the staff's words masked with asterisks in either alphabet and any case,
whole words only, and the list reloaded only after an edit (which every process notices)."""

# ruff: noqa: RUF001, RUF003

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import given
from hypothesis import strategies as st

from games.models import ChatWord
from games.social.filter import compile_words, folded, mask_words

pytestmark = pytest.mark.django_db(transaction=True)


def test_words_are_masked_in_any_case_latin_and_cyrillic():
    ChatWord.objects.create(word="darn")
    ChatWord.objects.create(word="глупак")
    assert mask_words("Darn it, ГЛУПАК!") == "**** it, ******!"
    assert mask_words("Ти си Глупак") == "Ти си ******"


def test_look_alike_letters_of_the_other_alphabet_do_not_slip_through():
    ChatWord.objects.create(word="глупак")
    ChatWord.objects.create(word="scam")
    # A Latin "a" in the Cyrillic word; Cyrillic "с", "а" in the Latin one.
    assert mask_words("ти си глупaк, это sсаm") == "ти си ******, это ****"


def test_only_whole_words_are_masked():
    ChatWord.objects.create(word="ass")
    assert mask_words("a class act, you ass") == "a class act, you ***"


def test_the_list_is_read_once_and_again_after_an_edit():
    ChatWord.objects.create(word="darn")
    assert mask_words("darn") == "****"
    with CaptureQueriesContext(connection) as queries:
        mask_words("darn again")
        mask_words("and again")
    assert len(queries) == 0, "the list was read again without an edit"
    ChatWord.objects.create(word="heck")
    assert mask_words("darn heck") == "**** ****"
    ChatWord.objects.filter(word="darn").delete()
    assert mask_words("darn heck") == "darn ****"


def test_no_words_no_change():
    assert mask_words("anything <at> all") == "anything <at> all"


@given(st.text(alphabet="abcABCабвБВ ,.!", max_size=40))
def test_masking_keeps_the_length_and_leaves_no_filtered_word(text):
    pattern = compile_words(["abc", "Бва"])
    masked = mask_words(text, pattern=pattern)
    assert len(masked) == len(text)
    assert pattern.search(folded(masked)) is None
    assert all(m == t or m == "*" for m, t in zip(masked, text, strict=True))
