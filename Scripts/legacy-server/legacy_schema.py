"""The legacy GraphQL schema of contract §4, code-first in strawberry.

`schema.graphql` beside this file is contract §4's SDL verbatim; `test_server.py` checks that this
module prints the same schema. Field names are the contract's (no automatic camel-casing), and the
resolvers are plain pub/sub over `PubSub`: each subscription yields what `POST /publish` sends to its
field and argument. Values are kept as published, so the GraphQL executor (graphql-core) serialises
them: an enum value outside the schema, an `Int` out of range or a `null` in a non-null field fail the
way a real server fails them.
"""

from __future__ import annotations

import enum
from collections.abc import AsyncGenerator
from typing import Any, Optional

import strawberry
from strawberry.schema.config import StrawberryConfig
from strawberry.types import Info

from pubsub import PubSub


@strawberry.enum
class LicensePhase(enum.Enum):
    SetupStatus = "SetupStatus"
    Valid = "Valid"
    NoticePeriod = "NoticePeriod"
    GracePeriod = "GracePeriod"
    RenewalOverdue = "RenewalOverdue"
    Invalid = "Invalid"


@strawberry.enum
class ArchiveStatus(enum.Enum):
    Pending = "Pending"
    Uploading = "Uploading"
    Processing = "Processing"
    Ready = "Ready"
    Failed = "Failed"
    Deleted = "Deleted"


@strawberry.enum
class TokenRevokeReason(enum.Enum):
    PASSWORD_CHANGED = "PASSWORD_CHANGED"


@strawberry.type
class DeviceState:
    deviceGroupID: Optional[str] = None
    orgId: Optional[str] = None
    thingName: Optional[str] = None
    derivant: Optional[str] = None
    mac: Optional[str] = None
    online: Optional[bool] = None
    recording: Optional[bool] = None
    fwUpdateState: Optional[int] = None


@strawberry.type
class ArchiveState:
    deviceGroupID: Optional[str] = None
    orgId: Optional[str] = None
    thingName: Optional[str] = None
    derivant: Optional[str] = None
    mac: Optional[str] = None
    archiveId: Optional[str] = None
    status: Optional[ArchiveStatus] = None
    videoLength: Optional[float] = None
    videoSize: Optional[float] = None
    cloudSize: Optional[float] = None
    hasH265: Optional[bool] = None
    createdAt: Optional[str] = None


@strawberry.type
class AIOption:
    key: str
    enabled: bool


@strawberry.type
class AIControlSetting:
    uuid: Optional[str] = None
    termsAgreement: Optional[bool] = None
    options: Optional[list[AIOption]] = None


@strawberry.type
class OrganizationState:
    orgId: Optional[str] = None
    licensePhase: Optional[LicensePhase] = None
    isFreePlan: Optional[bool] = None
    # The field has the type's name in the contract; the Python attribute cannot.
    ai_control_setting: Optional[AIControlSetting] = strawberry.field(name="AIControlSetting", default=None)


@strawberry.type
class RoleChange:
    reason: Optional[str] = None


@strawberry.type
class UserTokenRevoke:
    userId: strawberry.ID
    revokedAt: str
    reason: Optional[TokenRevokeReason] = None
    requestId: Optional[str] = None


@strawberry.type
class Query:
    @strawberry.field
    def health(self) -> Optional[str]:
        return "ok"


class PayloadError(ValueError):
    """A published payload names a field its type does not have."""


def _build(cls: type, payload: Any, path: str) -> Any:
    """The object of type `cls` for a published JSON object; values stay as published."""
    if payload is None:
        return None
    if not isinstance(payload, dict):
        raise PayloadError(f"{path}: expected an object, got {type(payload).__name__}")
    definition = cls.__strawberry_definition__
    by_graphql_name = {field.graphql_name or field.python_name: field for field in definition.fields}
    unknown = sorted(set(payload) - set(by_graphql_name))
    if unknown:
        raise PayloadError(f"{path}: {definition.name} has no field {', '.join(unknown)}")
    values: dict[str, Any] = {field.python_name: None for field in definition.fields}
    for name, value in payload.items():
        field = by_graphql_name[name]
        nested = NESTED.get((cls, name))
        if nested is not None and isinstance(value, list):
            value = [_build(nested, item, f"{path}.{name}[{index}]") for index, item in enumerate(value)]
        elif nested is not None and isinstance(value, dict):
            value = _build(nested, value, f"{path}.{name}")
        values[field.python_name] = value
    instance = cls.__new__(cls)
    for name, value in values.items():
        object.__setattr__(instance, name, value)
    return instance


NESTED: dict[tuple[type, str], type] = {
    (OrganizationState, "AIControlSetting"): AIControlSetting,
    (AIControlSetting, "options"): AIOption,
}

# Each subscription field: the type it yields.
SUBSCRIPTIONS: dict[str, type] = {
    "subscribeDeviceState": DeviceState,
    "subscribeOrganizationState": OrganizationState,
    "subscribeArchiveState": ArchiveState,
    "subscribeRoleChange": RoleChange,
    "subscribeUserTokenRevoke": UserTokenRevoke,
}


def build_payload(field: str, payload: Any) -> Any:
    """The object a subscription on `field` yields for a published payload; `PayloadError` if it does not fit."""
    cls = SUBSCRIPTIONS.get(field)
    if cls is None:
        raise PayloadError(f"no subscription field {field}")
    return _build(cls, payload, field)


async def _stream(info: Info, field: str, argument: str) -> AsyncGenerator[Any, None]:
    pubsub: PubSub = info.context["pubsub"]
    async with pubsub.subscription(field, argument, info.context["connection"]) as queue:
        while True:
            yield await queue.get()


@strawberry.type
class Subscription:
    @strawberry.subscription
    async def subscribeDeviceState(self, info: Info, userId: strawberry.ID) -> AsyncGenerator[Optional[DeviceState], None]:
        async for item in _stream(info, "subscribeDeviceState", userId):
            yield item

    @strawberry.subscription
    async def subscribeOrganizationState(
        self, info: Info, orgId: strawberry.ID
    ) -> AsyncGenerator[Optional[OrganizationState], None]:
        async for item in _stream(info, "subscribeOrganizationState", orgId):
            yield item

    @strawberry.subscription
    async def subscribeArchiveState(self, info: Info, userId: strawberry.ID) -> AsyncGenerator[Optional[ArchiveState], None]:
        async for item in _stream(info, "subscribeArchiveState", userId):
            yield item

    @strawberry.subscription
    async def subscribeRoleChange(self, info: Info, userId: strawberry.ID) -> AsyncGenerator[Optional[RoleChange], None]:
        async for item in _stream(info, "subscribeRoleChange", userId):
            yield item

    @strawberry.subscription
    async def subscribeUserTokenRevoke(
        self, info: Info, userId: strawberry.ID
    ) -> AsyncGenerator[Optional[UserTokenRevoke], None]:
        async for item in _stream(info, "subscribeUserTokenRevoke", userId):
            yield item


schema = strawberry.Schema(
    query=Query, subscription=Subscription, config=StrawberryConfig(auto_camel_case=False)
)
