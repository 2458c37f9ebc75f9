"""GET /v1/whoami (what the calling credential is) and the memory browser's files at /ui.

whoami answers only about the credential that calls it: an org-wide key, a key pinned to a user
and a JWT with the user claim each see their own org, principal, user and scopes, never another
credential's, whatever the request says. The /ui files need no credential, hold no data, and
carry the page's security headers; no path outside the shipped files is served.
"""

from __future__ import annotations

import re
import time
import uuid

import jwt
import pytest
from gateway_svc.adapters.postgres_key_admin import create_api_key
from gateway_svc.api.ui.browser import CONTENT_SECURITY_POLICY
from gateway_svc.api.ui.browser import files as ui_files
from gateway_svc.server import create_app

from tests.integration.gateway.conftest import _create_key, asgi_client, gateway_settings

SECRET = "whoami-test-secret-" + "y" * 40
AUDIENCE = "lore-whoami-test"


@pytest.fixture(scope="module")
async def jwt_gateway(services, migrated_pg, redis_url):
    settings = gateway_settings(
        services, migrated_pg, redis_url, LORE_JWT_HS256_SECRET=SECRET, LORE_JWT_AUDIENCE=AUDIENCE
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield app


def _org() -> str:
    return f"org-whoami-{uuid.uuid4().hex[:10]}"


async def test_an_org_wide_key_learns_its_org_principal_and_scopes(gateway, migrated_pg):
    org_id = _org()
    key = await _create_key(migrated_pg.owner_dsn, org_id, ["sessions:read", "memories:read"], principal="viewer")
    async with asgi_client(gateway, key) as client:
        answer = await client.get("/v1/whoami")
    assert answer.status_code == 200, answer.text
    # In the order Lore lists its scopes, not as stored.
    assert answer.json() == {
        "orgId": org_id,
        "principal": "viewer",
        "userId": "",
        "scopes": ["memories:read", "sessions:read"],
    }


async def test_a_key_pinned_to_a_user_and_another_orgs_key_each_see_only_themselves(gateway, migrated_pg):
    ours, theirs = _org(), _org()
    _, pinned = await create_api_key(
        migrated_pg.owner_dsn, org_id=ours, principal="tutor-app", scopes=["memories:read"], user_id="u-ines"
    )
    other = await _create_key(migrated_pg.owner_dsn, theirs, ["admin"], principal="their-admin")
    async with asgi_client(gateway, pinned) as client:
        # Nothing in a request names another credential: headers and queries are ignored.
        mine = await client.get("/v1/whoami", params={"orgId": theirs}, headers={"Lore-User": "u-else"})
    async with asgi_client(gateway, other) as client:
        foreign = await client.get("/v1/whoami")
    assert mine.json() == {"orgId": ours, "principal": "tutor-app", "userId": "u-ines", "scopes": ["memories:read"]}
    assert foreign.json() == {"orgId": theirs, "principal": "their-admin", "userId": "", "scopes": ["admin"]}


async def test_a_jwt_with_the_user_claim_sees_its_user_and_only_the_scopes_lore_knows(jwt_gateway):
    now = int(time.time())
    claims = {"sub": "web", "org_id": "acme-whoami", "user_id": "u-42", "aud": AUDIENCE, "iat": now, "exp": now + 60}
    token = jwt.encode({**claims, "scope": "sessions:read memories:write made-up"}, SECRET, algorithm="HS256")
    async with asgi_client(jwt_gateway, token) as client:
        answer = await client.get("/v1/whoami")
    assert answer.json() == {
        "orgId": "acme-whoami",
        "principal": "web",
        "userId": "u-42",
        "scopes": ["memories:write", "sessions:read"],
    }


async def test_no_key_or_a_wrong_key_is_refused_with_the_reason(gateway):
    async with asgi_client(gateway) as client:
        missing = await client.get("/v1/whoami")
    async with asgi_client(gateway, "lore_no-such-key") as client:
        wrong = await client.get("/v1/whoami")
    assert missing.status_code == 401 and missing.json()["error"]["details"][0]["reason"] == "MISSING_CREDENTIAL"
    assert wrong.status_code == 401 and wrong.json()["error"]["details"][0]["reason"] == "INVALID_API_KEY"


async def test_the_page_is_served_without_a_credential_with_its_security_headers(gateway):
    async with asgi_client(gateway) as client:
        bare = await client.get("/ui")
        page = await client.get("/ui/")
        script = await client.get("/ui/js/app.js")
        style = await client.get("/ui/app.css")
    assert bare.status_code == 308 and bare.headers["location"] == "/ui/"
    assert page.status_code == 200 and page.headers["content-type"] == "text/html; charset=utf-8"
    assert script.headers["content-type"] == "text/javascript; charset=utf-8"
    assert style.headers["content-type"] == "text/css; charset=utf-8"
    for answer in (bare, page, script, style):
        assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["referrer-policy"] == "no-referrer"
    # No inline script or style for the policy to have to allow, and no HTML built from strings.
    assert "<script>" not in page.text and "style=" not in page.text
    scripts = [name for name in ui_files() if name.endswith(".js")]
    assert "js/app.js" in scripts and "js/dom.js" in scripts
    for name in scripts:
        text = ui_files()[name].decode()
        assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function", text), name


@pytest.mark.parametrize(
    "path", ["/ui/../app.py", "/ui/%2e%2e/app.py", "/ui/js/../../api/ui.py", "/ui/nothing.js", "/ui/..%2fapp.py"]
)
async def test_only_the_shipped_files_are_served(gateway, path):
    async with asgi_client(gateway) as client:
        answer = await client.get(path)
    assert answer.status_code == 404
    assert "import" not in answer.text
