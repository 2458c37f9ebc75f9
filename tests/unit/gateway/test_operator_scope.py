"""The operator scope (store-wide operations such as reindex): admin does not imply it, a JWT never
carries it, and it implies nothing else."""

import time

import jwt
import pytest
from gateway_svc.api.auth.jwt_verifier import JwtVerifier
from gateway_svc.domain.credentials import ALL_SCOPES, OPERATOR, Caller
from lore_runtime import errors

SECRET = "s" * 40


def test_admin_stands_for_every_scope_of_its_org_but_not_for_operator():
    admin = Caller("org-b", "ops", frozenset({"admin"}))
    for scope in ALL_SCOPES:
        if scope != OPERATOR:
            admin.require(scope)
    with pytest.raises(errors.PermissionDenied) as refused:
        admin.require(OPERATOR)
    assert (refused.value.reason, refused.value.metadata) == ("SCOPE_MISSING", {"scope": "operator"})


def test_operator_alone_grants_nothing_else():
    operator = Caller("org-a", "ops", frozenset({OPERATOR}))
    operator.require(OPERATOR)
    with pytest.raises(errors.PermissionDenied):
        operator.require("admin")


def test_a_jwt_asking_for_operator_does_not_get_it():
    verifier = JwtVerifier(audience="lore", hs256_secret=SECRET)
    claims = {"sub": "idp-admin", "org_id": "org-b", "aud": "lore", "exp": int(time.time()) + 60}
    caller = verifier.verify(jwt.encode({**claims, "scope": "admin operator"}, SECRET, algorithm="HS256"))
    assert caller.scopes == frozenset({"admin"})
