"""The responsible play page's help lines (issue 36): the checked numbers, in both languages."""

from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", ["Bulgaria, run by the Fracarita Bulgaria association", "free, 24 hours a day"]),
        ("bg", ["България, поддържана от сдружение", "безплатно, 24 часа в денонощието"]),
    ],
)
def test_the_help_lines_are_on_the_page_in_both_languages(client, language, words) -> None:
    page = client.get(reverse("responsible_play"), headers={"accept-language": language}).content.decode()
    help_part = page.split('class="help-lines"')[1].split("</ul>")[0]
    for number, link in (("0888 99 18 66", "tel:+359888991866"), ("0808 8020 133", "tel:+448088020133")):
        assert f'href="{link}">{number}</a>' in help_part
    assert "http://www.drugsinfo-bg.org/" in help_part and "https://www.gamcare.org.uk/" in help_part
    for word in words:
        assert word in help_part
