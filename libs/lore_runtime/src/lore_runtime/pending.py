"""Honest answers for RPCs whose capability an open issue still owns.

The generated base servicers answer "Method not implemented!" with no hint of why. For
every RPC a servicer does not implement itself, ``fill_pending`` installs a handler that
raises ``Unimplemented`` with a message naming the capability still to come, so the error
interceptor reports UNIMPLEMENTED with an ErrorInfo (reason CAPABILITY_PENDING). A fake
success is never an option.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor

from lore_runtime import errors


def is_pending(servicer: object, method_name: str) -> bool:
    implementation = getattr(type(servicer), method_name, None)
    return implementation is None or implementation.__module__.endswith("_pb2_grpc")


def pending_methods(servicer: object, service: ServiceDescriptor) -> list[str]:
    return [method.name for method in service.methods if is_pending(servicer, method.name)]


def fill_pending(servicer: object, service: ServiceDescriptor, capability: str) -> list[str]:
    """Install UNIMPLEMENTED handlers naming ``capability``; returns the methods filled."""
    filled = []
    for method in service.methods:
        if is_pending(servicer, method.name):
            setattr(servicer, method.name, _pending_handler(method, capability))
            filled.append(method.name)
    return filled


def _pending_handler(method: MethodDescriptor, capability: str) -> Any:
    message = f"{method.containing_service.name}.{method.name} is not available yet: it arrives with {capability}"

    def failure() -> errors.Unimplemented:
        return errors.Unimplemented(message, metadata={"method": method.full_name})

    if method.server_streaming:

        async def streaming(request: Any, context: Any) -> AsyncIterator[Any]:
            raise failure()
            yield  # pragma: no cover - makes this an async generator

        return streaming

    async def unary(request: Any, context: Any) -> Any:
        raise failure()

    return unary
