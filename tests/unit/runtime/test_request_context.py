import pytest
from lore_runtime import errors, request_context
from lore_runtime.request_context import ORG_ID_KEY, PRINCIPAL_KEY, REQUEST_ID_KEY, USER_KEY, RequestContext


def test_reads_tenant_principal_and_request_id_from_metadata():
    caller = request_context.from_metadata(
        [(ORG_ID_KEY, "org-a"), (PRINCIPAL_KEY, "key:abc"), (REQUEST_ID_KEY, "req-1"), ("other", "x")]
    )
    assert caller == RequestContext(org_id="org-a", principal="key:abc", request_id="req-1")


@pytest.mark.parametrize("user", ["alice", "josé dupont", "u/1 %20", "é" * 128])
def test_the_pinned_user_travels_percent_encoded_and_reads_back(user):
    caller = RequestContext(org_id="org-a", principal="app", user_id=user)
    [value] = [value for key, value in caller.metadata() if key == USER_KEY]

    assert value.isascii() and value.isprintable()
    assert request_context.from_metadata(caller.metadata()) == caller


@pytest.mark.parametrize("value", ["%ff", "%C3", "x" * 129])
def test_a_malformed_pinned_user_is_refused(value):
    with pytest.raises(errors.Unauthenticated) as raised:
        request_context.from_metadata([(ORG_ID_KEY, "org-a"), (PRINCIPAL_KEY, "p"), (USER_KEY, value)])
    assert raised.value.reason == "MALFORMED_TENANT"


@pytest.mark.parametrize(
    "metadata",
    [None, [], [(ORG_ID_KEY, "org-a")], [(PRINCIPAL_KEY, "p")], [(ORG_ID_KEY, ""), (PRINCIPAL_KEY, "p")]],
)
def test_missing_tenant_or_principal_is_unauthenticated(metadata):
    with pytest.raises(errors.Unauthenticated) as raised:
        request_context.from_metadata(metadata)
    assert raised.value.reason == "MISSING_TENANT"


@pytest.mark.parametrize("org", ["org a", "org\nb", "x" * 200, "../etc", "ä"])
def test_malformed_tenant_is_refused(org):
    with pytest.raises(errors.Unauthenticated) as raised:
        request_context.from_metadata([(ORG_ID_KEY, org), (PRINCIPAL_KEY, "p")])
    assert raised.value.reason == "MALFORMED_TENANT"


def test_current_requires_a_bound_context_and_bound_restores_it():
    with pytest.raises(errors.Unauthenticated):
        request_context.current()
    with request_context.bound(RequestContext("org-a", "system")) as caller:
        assert request_context.current() is caller
        assert caller.metadata() == ((ORG_ID_KEY, "org-a"), (PRINCIPAL_KEY, "system"))
    assert request_context.current_or_none() is None
