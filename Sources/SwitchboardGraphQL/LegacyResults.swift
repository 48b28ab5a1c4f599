import Foundation
import SwitchboardCore

/// How a result of the legacy schema (contract.md §4) becomes a transport-neutral
/// ``EventEnvelope``: unwrapped from under its root field, with the new contract's field names,
/// and named by the contract `eventType`s of the changes it carries.
///
/// A `DeviceState` carries a presence change when `online` is set (present and not null), a
/// recording change when `recording` is, a firmware change when `fwUpdateState` is; an
/// `OrganizationState` likewise carries license, plan and AI settings changes. The other three
/// subscriptions carry one kind of event each. A result of another root field (an operation
/// outside the schema) is handed on as the `data` object, with no `eventType`.
package enum LegacyResults {
    /// One root field of the legacy schema.
    struct RootField {
        /// The `eventType` every result carries, for a subscription of one kind of event.
        var always: String?
        /// `(field, eventType)`: the result carries `eventType` when `field` is set.
        var changes: [(field: String, eventType: String)] = []
        /// Legacy field names and their names in the new contract.
        var renames: [String: String] = [:]
    }

    static let schema: [String: RootField] = [
        "subscribeDeviceState": RootField(
            changes: [("online", "device/presenceChanged"), ("recording", "device/recordingStateChanged"),
                      ("fwUpdateState", "device/firmwareUpdated")],
            renames: ["deviceGroupID": "siteId"]),
        "subscribeOrganizationState": RootField(
            changes: [("licensePhase", "organization/licensePhaseChanged"), ("isFreePlan", "organization/planChanged"),
                      ("aiControlSetting", "organization/aiSettingsChanged")],
            renames: ["AIControlSetting": "aiControlSetting"]),
        "subscribeArchiveState": RootField(always: "archive/stateChanged", renames: ["deviceGroupID": "siteId"]),
        "subscribeRoleChange": RootField(always: "user/roleChanged"),
        "subscribeUserTokenRevoke": RootField(always: "user/tokenRevoked"),
    ]

    /// What one result becomes.
    package enum Outcome: Equatable {
        /// An event to deliver.
        case event(EventEnvelope)
        /// The result under the root field is null, or sets none of the fields that name a kind
        /// of change: nothing happened that the new contract has an event for.
        case nothing(reason: String)
    }

    /// Turns the `data` object of a result into what the notifier reads.
    /// - Parameters:
    ///   - data: The result's `data` object, as it arrived.
    ///   - parsed: The frame's parse of `data`, if the codec made one: then `data` is not parsed again.
    ///   - subscription: The subscription that received it.
    ///   - receivedAt: When the frame arrived.
    package static func envelope(
        from data: Data, parsed: ParsedData = ParsedData(), subscription: SubscriptionKey, receivedAt: Date
    ) -> Outcome {
        let unchanged = EventEnvelope(
            subscription: subscription, eventTypes: [], payload: data, receivedAt: receivedAt, transport: .graphql)
        let document: JSONDocument
        let root: JSONDocument.Index
        if let frame = parsed.frame, let index = parsed.data {
            (document, root) = (frame, index)
        } else if let parsedData = JSONDocument(data) {
            (document, root) = (parsedData, parsedData.root)
        } else {
            return slowPath(data, subscription: subscription, receivedAt: receivedAt)
        }
        guard let member = document.onlyMember(of: root), let field = schema[member.key] else { return .event(unchanged) }
        let (name, result) = member
        switch document.kind(result) {
        case .null: return .nothing(reason: "\(name) is null")
        case .object: break
        default: return .event(unchanged)
        }
        var eventTypes: [String] = []
        if let always = field.always { eventTypes.append(always) }
        var renamed = false
        let fields = document.members(of: result) ?? []
        for (key, value) in fields {
            let newName = field.renames[key] ?? key
            if newName != key { renamed = true }
            if document.kind(value) != .null, let change = field.changes.first(where: { $0.field == newName }),
               !eventTypes.contains(change.eventType) {
                eventTypes.append(change.eventType)
            }
        }
        guard !eventTypes.isEmpty else {
            return .nothing(reason: "\(name) sets none of \(field.changes.map(\.field).joined(separator: ", "))")
        }
        // Ordered as the contract lists them, whatever order the server wrote the fields in.
        eventTypes.sort { lhs, rhs in
            (field.changes.firstIndex { $0.eventType == lhs } ?? 0) < (field.changes.firstIndex { $0.eventType == rhs } ?? 0)
        }
        // Either way the frame's nodes are reused, not parsed again: renamed, the members are
        // written out compactly with the new names; otherwise the result is kept as it arrived.
        let payload = renamed ? document.renamingMembers(of: result, { field.renames[$0] }) : document.subdocument(result)
        return .event(EventEnvelope(
            subscription: subscription, eventTypes: eventTypes, document: payload,
            payload: Data(payload.bytes), receivedAt: receivedAt, transport: .graphql))
    }

    /// A result the fast parser leaves alone (an exponent, an escaped key): the same mapping
    /// through ``JSONValue``.
    private static func slowPath(_ data: Data, subscription: SubscriptionKey, receivedAt: Date) -> Outcome {
        let unchanged = EventEnvelope(
            subscription: subscription, eventTypes: [], payload: data, receivedAt: receivedAt, transport: .graphql)
        guard case .object(let object)? = try? JSONValue.parse(data),
              object.count == 1, let (name, result) = object.first, let field = schema[name] else { return .event(unchanged) }
        if result.isNull { return .nothing(reason: "\(name) is null") }
        guard case .object(let fields) = result else { return .event(unchanged) }
        var renamed: [String: JSONValue] = [:]
        for (key, value) in fields { renamed[field.renames[key] ?? key] = value }
        var eventTypes: [String] = field.always.map { [$0] } ?? []
        for change in field.changes where renamed[change.field].map({ !$0.isNull }) ?? false {
            eventTypes.append(change.eventType)
        }
        guard !eventTypes.isEmpty else {
            return .nothing(reason: "\(name) sets none of \(field.changes.map(\.field).joined(separator: ", "))")
        }
        guard let payload = try? JSONValue.object(renamed).serialized() else { return .event(unchanged) }
        return .event(EventEnvelope(
            subscription: subscription, eventTypes: eventTypes, payload: payload, receivedAt: receivedAt, transport: .graphql))
    }
}
