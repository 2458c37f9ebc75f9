"""HEAD is served as the GET it mirrors, with no body however the GET's body is sent."""

from __future__ import annotations

from gateway_svc.api.http.head_requests import HeadMiddleware


async def _answer(method: str) -> tuple[list[str], list[dict]]:
    seen_methods: list[str] = []
    sent: list[dict] = []

    async def app(scope, receive, send):  # a GET answered in two parts, as a streamed body is
        seen_methods.append(scope["method"])
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"10")]})
        await send({"type": "http.response.body", "body": b"hello", "more_body": True})
        await send({"type": "http.response.body", "body": b"world", "more_body": False})

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": method, "path": "/v1/memories", "headers": []}
    await HeadMiddleware(app)(scope, receive, send)
    assert scope["method"] == method, "the server's own scope is left as it was"
    return seen_methods, sent


async def test_a_head_reaches_the_app_as_a_get_and_no_part_of_the_body_is_sent():
    seen, sent = await _answer("HEAD")

    assert seen == ["GET"]
    assert sent[0] == {"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"10")]}
    assert sent[1:] == [{"type": "http.response.body", "body": b"", "more_body": False}]


async def test_other_methods_pass_untouched():
    seen, sent = await _answer("GET")

    assert seen == ["GET"]
    assert b"".join(message.get("body", b"") for message in sent) == b"helloworld"
