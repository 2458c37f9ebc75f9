"""Bearer JWTs: verified with the configured HS256 secret or RS256 public keys (``LORE_JWT_*``),
turned into the caller they name."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey
from lore_runtime import errors

from gateway_svc.domain.credentials import (
    ALL_SCOPES,
    MAX_PRINCIPAL_LENGTH,
    MAX_USER_ID_LENGTH,
    OPERATOR,
    ORG_ID,
    Caller,
)

JWT_ALGORITHMS = ("HS256", "RS256")
_PEM_PUBLIC_KEY = re.compile(r"-----BEGIN ((?:RSA )?)PUBLIC KEY-----.+?-----END \1PUBLIC KEY-----", re.DOTALL)


def rs256_public_keys(pem: str) -> list[RSAPublicKey]:
    """Every RSA public key in ``pem`` (``PUBLIC KEY`` or ``RSA PUBLIC KEY`` blocks, 2048 bits or more)."""
    blocks = [match.group(0) for match in _PEM_PUBLIC_KEY.finditer(pem)]
    if not blocks:
        raise ValueError("no PEM public key found (expected -----BEGIN PUBLIC KEY----- blocks)")
    keys = []
    for number, block in enumerate(blocks, start=1):
        try:
            key = serialization.load_pem_public_key(block.encode("ascii"))
        except (ValueError, UnicodeEncodeError):
            raise ValueError(f"public key {number} is not a valid PEM public key") from None
        if not isinstance(key, RSAPublicKey):
            raise ValueError(f"public key {number} is not an RSA key (RS256 needs one)")
        if key.key_size < 2048:
            raise ValueError(f"public key {number} has {key.key_size} bits; RS256 keys need at least 2048")
        keys.append(key)
    return keys


class JwtVerifier:
    """Bearer JWTs signed with the configured HS256 secret or one of the configured RS256 public keys.

    The token's ``alg`` header only chooses among the configured algorithms: ``none``, any other
    algorithm and any algorithm without a configured key are refused before anything else is
    read. ``exp`` and ``sub`` are required, ``aud`` must name the configured audience and ``iss``
    the configured issuer (when one is set), with ``leeway_seconds`` of clock skew. The caller's
    org is the ``org_claim`` claim, its principal ``sub``, its scopes those of ``scope`` (a
    space-separated string) and ``scopes`` (a list) that Lore knows; unknown scopes are ignored.
    A token carrying the ``user_claim`` claim is pinned to that user (``gateway_svc.api.auth.user_pin``).
    """

    def __init__(
        self,
        *,
        audience: str,
        hs256_secret: str | None = None,
        rs256_keys: Sequence[RSAPublicKey] = (),
        issuer: str | None = None,
        org_claim: str = "org_id",
        user_claim: str = "user_id",
        leeway_seconds: float = 30.0,
    ) -> None:
        self._keys: dict[str, list[Any]] = {}
        if hs256_secret:
            self._keys["HS256"] = [hs256_secret.encode("utf-8")]
        if rs256_keys:
            self._keys["RS256"] = list(rs256_keys)
        if not self._keys:
            raise ValueError("JWT verification needs an HS256 secret or RS256 public keys")
        if not audience:
            raise ValueError("JWT verification needs an audience")
        self._audience = audience
        self._issuer = issuer or None
        self._org_claim = org_claim
        self._user_claim = user_claim
        self._leeway = leeway_seconds
        self._required = ["exp", "sub", *(["iss"] if self._issuer else [])]

    def verify(self, token: str) -> Caller:
        try:
            algorithm = jwt.get_unverified_header(token).get("alg")
        except jwt.PyJWTError:
            raise _token_error("the bearer token is not a well-formed JWT") from None
        keys = self._keys.get(algorithm) if isinstance(algorithm, str) else None
        if not keys:
            accepted = ", ".join(self._keys)
            raise _token_error(f"tokens signed with {algorithm!r} are not accepted (accepted: {accepted})")
        return self._caller(self._decode(token, algorithm, keys))

    def _decode(self, token: str, algorithm: str, keys: list[Any]) -> dict[str, Any]:
        for index, key in enumerate(keys):
            try:
                return jwt.decode(
                    token,
                    key,
                    algorithms=[algorithm],
                    audience=self._audience,
                    issuer=self._issuer,
                    leeway=self._leeway,
                    options={"require": self._required},
                )
            except jwt.InvalidSignatureError:
                if index == len(keys) - 1:
                    raise _token_error("the token's signature does not verify") from None
            except jwt.ExpiredSignatureError:
                raise _token_error("the token has expired", reason="TOKEN_EXPIRED") from None
            except jwt.InvalidAudienceError:
                raise _token_error("the token is meant for another audience", reason="WRONG_AUDIENCE") from None
            except jwt.MissingRequiredClaimError as error:
                raise _missing_claim(error.claim) from None
            except jwt.InvalidIssuerError:
                raise _token_error("the token's issuer is not accepted", claim="iss") from None
            except jwt.PyJWTError as error:
                raise _token_error(f"the token is not valid: {error}") from None
        raise AssertionError("unreachable: the last key either verifies or raises")

    def _caller(self, claims: dict[str, Any]) -> Caller:
        subject = claims["sub"]  # required, and a string (PyJWT checks both)
        if not subject:
            raise _missing_claim("sub")
        if len(subject) > MAX_PRINCIPAL_LENGTH:
            raise _token_error(f"the sub claim is longer than {MAX_PRINCIPAL_LENGTH} characters", claim="sub")
        org_id = claims.get(self._org_claim)
        if org_id is None or org_id == "":
            raise _missing_claim(self._org_claim)
        if not isinstance(org_id, str) or not ORG_ID.fullmatch(org_id):
            raise _token_error(f"the {self._org_claim} claim is not a valid org id", claim=self._org_claim)
        return Caller(
            org_id=org_id,
            principal=subject,
            scopes=_token_scopes(claims),
            credential=f"jwt:{subject}",
            user_id=self._pinned_user(claims),
        )

    def _pinned_user(self, claims: dict[str, Any]) -> str:
        if self._user_claim not in claims:
            return ""
        # Present, it must name a user: null is refused like any other value that is not a user id,
        # never read as "no claim" (an org-wide token).
        user_id = claims[self._user_claim]
        if (
            not isinstance(user_id, str)
            or not user_id
            or len(user_id) > MAX_USER_ID_LENGTH
            or user_id != user_id.strip()
        ):
            raise _token_error(f"the {self._user_claim} claim is not a valid user id", claim=self._user_claim)
        return user_id


def _token_scopes(claims: dict[str, Any]) -> frozenset[str]:
    names: list[str] = []
    scope = claims.get("scope")
    if isinstance(scope, str):
        names.extend(scope.split())
    elif scope is not None:
        raise _token_error("the scope claim must be a space-separated string", claim="scope")
    scopes = claims.get("scopes")
    if isinstance(scopes, list) and all(isinstance(name, str) for name in scopes):
        names.extend(scopes)
    elif scopes is not None:
        raise _token_error("the scopes claim must be a list of strings", claim="scopes")
    # An identity provider shared by tenants must not mint store-wide power: operator is for API keys only.
    return frozenset(names).intersection(ALL_SCOPES) - {OPERATOR}


def _token_error(message: str, *, reason: str = "INVALID_TOKEN", claim: str = "") -> errors.Unauthenticated:
    return errors.Unauthenticated(message, reason=reason, metadata={"claim": claim} if claim else None)


def _missing_claim(claim: str) -> errors.Unauthenticated:
    return _token_error(f"the token has no {claim} claim", reason="MISSING_CLAIM", claim=claim)
