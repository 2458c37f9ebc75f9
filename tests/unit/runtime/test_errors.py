import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from lore_runtime import errors, grpc_errors

CASES = [
    (errors.NotFound("no such memory"), grpc.StatusCode.NOT_FOUND),
    (errors.AlreadyExists("exists"), grpc.StatusCode.ALREADY_EXISTS),
    (errors.InvalidArgument("memories[0].content", "must not be empty"), grpc.StatusCode.INVALID_ARGUMENT),
    (errors.FailedPrecondition("session ended"), grpc.StatusCode.FAILED_PRECONDITION),
    (errors.Conflict("version race"), grpc.StatusCode.ABORTED),
    (errors.PermissionDenied("admin scope needed"), grpc.StatusCode.PERMISSION_DENIED),
    (errors.Unauthenticated("no key"), grpc.StatusCode.UNAUTHENTICATED),
    (errors.DependencyUnavailable("redis down"), grpc.StatusCode.UNAVAILABLE),
    (errors.Unimplemented("later"), grpc.StatusCode.UNIMPLEMENTED),
    (errors.DeadlineExceeded("slow"), grpc.StatusCode.DEADLINE_EXCEEDED),
    (errors.QuotaExceeded("too many"), grpc.StatusCode.RESOURCE_EXHAUSTED),
    (errors.LoreError("boom"), grpc.StatusCode.INTERNAL),
]


@pytest.mark.parametrize(("error", "code"), CASES)
def test_every_domain_error_maps_to_the_documented_grpc_code(error, code):
    assert grpc_errors.grpc_code_for(error) is code
    assert grpc_errors.to_status(error).code is code


def _status_proto(status: grpc.Status):
    (value,) = [v for k, v in status.trailing_metadata if k == "grpc-status-details-bin"]
    from google.rpc import status_pb2

    return status_pb2.Status.FromString(value)


def test_status_carries_error_info_with_reason_domain_and_metadata():
    status = grpc_errors.to_status(
        errors.NotFound("memory m-1 not found", reason="MEMORY_NOT_FOUND", metadata={"id": "m-1"})
    )
    proto = _status_proto(status)
    assert proto.message == "memory m-1 not found"
    info = error_details_pb2.ErrorInfo()
    assert proto.details[0].Unpack(info)
    assert (info.reason, info.domain, dict(info.metadata)) == ("MEMORY_NOT_FOUND", "lore.dev", {"id": "m-1"})


def test_invalid_argument_names_the_field_in_error_info_and_bad_request():
    proto = _status_proto(grpc_errors.to_status(errors.InvalidArgument("memories[0].content", "must not be empty")))
    info = error_details_pb2.ErrorInfo()
    bad_request = error_details_pb2.BadRequest()
    assert proto.details[0].Unpack(info) and proto.details[1].Unpack(bad_request)
    assert info.metadata["field"] == "memories[0].content"
    assert bad_request.field_violations[0].field == "memories[0].content"
    assert bad_request.field_violations[0].description == "must not be empty"
    assert proto.message == "invalid memories[0].content: must not be empty"


def test_internal_status_hides_detail():
    status = grpc_errors.internal_status()
    assert status.code is grpc.StatusCode.INTERNAL
    assert status.details == "internal error"


def test_rpc_status_module_round_trips_our_status():
    status = grpc_errors.to_status(errors.Conflict("stale fencing token"))
    assert rpc_status is not None
    assert status.code is grpc.StatusCode.ABORTED


@pytest.mark.parametrize(
    ("error", "code"),
    [(error, code) for error, code in CASES if error.__class__ is not errors.InvalidArgument],
)
def test_a_status_reported_inside_an_answer_reads_back_as_its_domain_error(error, code):
    """A part of a batched answer carries its code and message: read back as a failed call's is."""
    read = grpc_errors.error_for_code(code.value[0], error.message, error.reason)

    assert type(read) is type(error) and (read.message, read.reason) == (error.message, error.reason)


def test_an_unknown_code_or_an_invalid_argument_inside_an_answer_reads_back_as_a_plain_error():
    unknown = grpc_errors.error_for_code(99, "", "")
    invalid = grpc_errors.error_for_code(grpc.StatusCode.INVALID_ARGUMENT.value[0], "invalid k: too big", "BAD_K")

    assert type(unknown) is errors.LoreError and unknown.reason == "UNKNOWN"
    assert type(invalid) is errors.LoreError and invalid.message == "invalid k: too big" and invalid.reason == "BAD_K"
