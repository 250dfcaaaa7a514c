"""What every socket of the room reads from its scope: its viewer's language.

Channels activates none, so each socket picks its viewer's at connect, the way Django's
LocaleMiddleware does for a page, and words everything it sends inside ``translation.override``
of it. Django's active language is context-local, so sockets in one process never see each other's.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http.cookie import parse_cookie
from django.utils import translation
from django.utils.translation.trans_real import parse_accept_lang_header


def language_from_scope(scope: dict[str, Any]) -> str:
    """The socket's language: the ``django_language`` cookie the switcher sets, else the best
    supported language of the Accept-Language header, else LANGUAGE_CODE (as LocaleMiddleware)."""
    headers = {name.lower(): value for name, value in scope.get("headers") or []}
    cookies = scope.get("cookies")
    if cookies is None:
        cookies = parse_cookie(headers.get(b"cookie", b"").decode("latin-1"))
    candidates = [cookies.get(settings.LANGUAGE_COOKIE_NAME) or ""]
    accept = headers.get(b"accept-language", b"").decode("latin-1")
    candidates += [code for code, _quality in parse_accept_lang_header(accept) if code != "*"]
    for code in candidates:
        if not code:
            continue
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE
