import SwitchboardCore

/// One of the five subscriptions of the legacy GraphQL schema (contract.md §4).
package struct LegacySubscription: Hashable, Sendable {
    /// Which identity value the subscription's single argument takes.
    package enum Argument: String, Sendable {
        case userId, orgId
    }

    /// The root field, such as `subscribeDeviceState`; results arrive under it in `data`.
    package let field: String
    /// The argument name and where its value comes from.
    package let argument: Argument
    /// The selection set: every field of the result type.
    package let selection: String

    /// The subscription document, selecting every field.
    package var document: String {
        let name = field.prefix(1).uppercased() + field.dropFirst()
        return "subscription \(name)($\(argument.rawValue): ID!) { \(field)(\(argument.rawValue): $\(argument.rawValue)) { \(selection) } }"
    }

    /// The operation for one identity.
    package func operation(for identity: TransportIdentity) -> GraphQLOperation {
        let value = argument == .userId ? identity.userId : identity.orgId
        let name = field.prefix(1).uppercased() + field.dropFirst()
        return GraphQLOperation(query: document, variables: [argument.rawValue: value], operationName: String(name))
    }

    package static let deviceState = LegacySubscription(
        field: "subscribeDeviceState",
        argument: .userId,
        selection: "deviceGroupID orgId thingName derivant mac online recording fwUpdateState"
    )
    package static let organizationState = LegacySubscription(
        field: "subscribeOrganizationState",
        argument: .orgId,
        selection: "orgId licensePhase isFreePlan AIControlSetting { uuid termsAgreement options { key enabled } }"
    )
    package static let archiveState = LegacySubscription(
        field: "subscribeArchiveState",
        argument: .userId,
        selection: "deviceGroupID orgId thingName derivant mac archiveId status videoLength videoSize cloudSize hasH265 createdAt"
    )
    package static let roleChange = LegacySubscription(
        field: "subscribeRoleChange",
        argument: .userId,
        selection: "reason"
    )
    package static let userTokenRevoke = LegacySubscription(
        field: "subscribeUserTokenRevoke",
        argument: .userId,
        selection: "userId revokedAt reason requestId"
    )

    /// All five, in schema order.
    package static let all: [LegacySubscription] = [deviceState, organizationState, archiveState, roleChange, userTokenRevoke]

    /// The contract `eventType`s this subscription's results carry (``LegacyResults`` names them).
    package var eventTypes: Set<String> {
        guard let root = LegacyResults.rootField(named: field) else { return [] }
        return Set(root.changes.map(\.eventType) + (root.always.map { [$0] } ?? []))
    }

    /// The subscription whose results carry every `eventType` of `stream`; nil when none does (a
    /// stream the legacy schema has no subscription for).
    package static func covering(_ stream: StreamAddress) -> LegacySubscription? {
        all.first { !stream.eventTypes.isEmpty && stream.eventTypes.isSubset(of: $0.eventTypes) }
    }
}
