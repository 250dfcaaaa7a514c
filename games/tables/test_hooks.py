"""Test-only HTTP endpoints for the browser tests: stack the decks of a table's next hand; delete a
chat line as the staff's moderation does (mark it, then tell the table's sockets after the commit).

svara_site/urls.py includes these URLs only when settings.SVARA_TEST_HOOKS is true (only
svara_site/test_settings.py sets it), so under the production settings the path does not exist;
and the view itself refuses when the setting is off, whoever asks (staff included).
"""

from __future__ import annotations

import json

from asgiref.sync import async_to_sync
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.urls import path
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from games.engine.cards import CardError
from games.engine.hand import DeckError
from games.live import service, testing
from games.models import ChatMessage
from games.social.moderation import announce_deleted


@csrf_exempt  # called by the test process, not from a page
@require_POST
def stack_decks(request: HttpRequest, table_id: int) -> HttpResponse:
    if not testing.hooks_enabled():
        raise Http404("test hooks are off")
    try:
        body = json.loads(request.body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return JsonResponse({"error": "the body is not JSON"}, status=400)
    decks = body.get("decks") if isinstance(body, dict) else None
    if not isinstance(decks, list) or not all(isinstance(d, list) for d in decks):
        return JsonResponse({"error": 'expected {"decks": [[card, ...], ...]}'}, status=400)
    try:
        state = async_to_sync(testing.stack_decks)(table_id=table_id, decks=decks)
    except (CardError, DeckError) as exc:
        return JsonResponse({"error": str(exc)}, status=400)
    except service.Refused as exc:
        return JsonResponse({"error": str(exc)}, status=404)
    return JsonResponse({"table": table_id, "version": state.version})


@csrf_exempt  # called by the test process, not from a page
@require_POST
def delete_chat_message(request: HttpRequest, message_id: int) -> HttpResponse:
    if not testing.hooks_enabled():
        raise Http404("test hooks are off")
    message = ChatMessage.objects.filter(pk=message_id).first()
    if message is None:
        raise Http404("no such message")
    ChatMessage.objects.filter(pk=message_id).update(deleted_at=timezone.now())
    announce_deleted(table_id=message.table_id, message_id=message_id)  # as the staff's deletion does
    return JsonResponse({"deleted": message_id})


urlpatterns = [
    path("tables/<int:table_id>/decks/", stack_decks, name="test_stack_decks"),
    path("chat/<int:message_id>/deleted/", delete_chat_message, name="test_delete_chat_message"),
]
