from google.protobuf import descriptor_pb2, descriptor_pool
from lore_runtime.channels import is_idempotent, retry_service_config


def _service(*methods: str):
    file = descriptor_pb2.FileDescriptorProto(name="t/example.proto", package="t.v1")
    file.message_type.add(name="M")
    service = file.service.add(name="ExampleService")
    for name in methods:
        service.method.add(name=name, input_type=".t.v1.M", output_type=".t.v1.M")
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(file.SerializeToString())
    return pool.FindServiceByName("t.v1.ExampleService")


def test_only_reads_are_idempotent():
    assert all(
        is_idempotent(n)
        for n in ("GetMemory", "ListMemories", "Recall", "QueryObservations", "SearchObservations", "Prime")
    )
    assert not any(is_idempotent(n) for n in ("Remember", "ProcessTurn", "ForgetSubject", "AppendTurn", "RunDecay"))


def test_retry_policy_names_only_idempotent_methods():
    service = _service("GetThing", "ListThings", "CreateThing", "DeleteThing")
    config = retry_service_config([service])
    (method_config,) = config["methodConfig"]
    assert method_config["name"] == [
        {"service": "t.v1.ExampleService", "method": "GetThing"},
        {"service": "t.v1.ExampleService", "method": "ListThings"},
    ]
    assert method_config["retryPolicy"]["retryableStatusCodes"] == ["UNAVAILABLE"]


def test_no_policy_when_nothing_is_idempotent():
    assert retry_service_config([_service("CreateThing")]) == {"methodConfig": []}
