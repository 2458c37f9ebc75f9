"""The memory browser: the static page at ``/ui`` (docs/browser.md).

Plain HTML, CSS and JavaScript modules shipped inside this package (``gateway_svc/ui``), served as
they are: no build step, no template, nothing of the request echoed. The page reads everything
through the public REST API with the key its user enters, so these routes need no credential and
hold no data. Every answer carries a strict Content-Security-Policy (scripts, styles and fetches
from this origin only, no inline code, no framing), ``nosniff`` and ``no-referrer``: the page
shows user-supplied memory text while holding an admin key, so a script smuggled into that text
must have nowhere to run and nowhere to send the key.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import PurePosixPath

from fastapi import APIRouter, FastAPI
from fastapi.responses import RedirectResponse, Response

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",  # revalidate: a new gateway's page replaces the old one at once
}
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}


def files() -> dict[str, bytes]:
    """Every file of the page by its path under /ui/, read once: the set is fixed when the
    package is installed, so no request path ever reaches the file system."""
    root = resources.files("gateway_svc") / "ui"
    found: dict[str, bytes] = {}

    def walk(folder: Traversable, prefix: str) -> None:
        for entry in folder.iterdir():
            name = f"{prefix}{entry.name}"
            if entry.is_dir():
                walk(entry, f"{name}/")
            elif PurePosixPath(name).suffix in _TYPES:
                found[name] = entry.read_bytes()

    walk(root, "")
    return found


def _answer(body: bytes, path: str) -> Response:
    media_type = _TYPES[PurePosixPath(path).suffix]
    return Response(body, media_type=media_type, headers=SECURITY_HEADERS)


def install(app: FastAPI) -> None:
    shipped = files()
    router = APIRouter(include_in_schema=False)

    @router.get("/ui")
    async def ui_root() -> Response:
        return RedirectResponse("/ui/", status_code=308, headers=SECURITY_HEADERS)

    @router.get("/ui/{path:path}")
    async def ui_file(path: str) -> Response:
        name = path or "index.html"
        if name not in shipped:
            return Response(b"not found\n", status_code=404, media_type="text/plain", headers=SECURITY_HEADERS)
        return _answer(shipped[name], name)

    app.include_router(router)
