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
    /// One root field of the legacy schema. Its names are static text, so that a result's keys
    /// are compared with them as bytes where they lie in the frame; what a key means (a rename, a
    /// change) and the `eventType`s of every set of changes are worked out once, here.
    struct RootField: Sendable {
        /// What a legacy key of this field's results means.
        struct Key: Sendable {
            /// The key as the legacy schema writes it.
            var name: StaticString
            /// Its name in the new contract, when that differs.
            var newName: StaticString?
            /// The index in ``RootField/changes`` of the change it names, if it names one.
            var change: Int?
        }

        /// The root field, such as `subscribeDeviceState`.
        let name: StaticString
        /// The `eventType` every result carries, for a subscription of one kind of event.
        let always: String?
        /// `(field, eventType)`: the result carries `eventType` when `field` (a new contract name)
        /// is set, in the contract's order.
        let changes: [(field: StaticString, eventType: String)]
        /// Legacy field names and their names in the new contract.
        let renames: [(legacy: StaticString, new: StaticString)]
        /// Every key that is renamed or names a change (after its rename).
        let keys: [Key]
        /// The `eventType`s of a result, by which changes it sets (bit `i` for `changes[i]`):
        /// `always`, then the changes in contract order.
        let eventTypes: [[String]]

        init(
            _ name: StaticString, always: String? = nil, changes: [(field: StaticString, eventType: String)] = [],
            renames: [(legacy: StaticString, new: StaticString)] = []
        ) {
            self.name = name
            self.always = always
            self.changes = changes
            self.renames = renames
            let changeFields = changes.map { "\($0.field)" }
            var keys = renames.map { rename in
                Key(name: rename.legacy, newName: "\(rename.new)" == "\(rename.legacy)" ? nil : rename.new,
                    change: changeFields.firstIndex(of: "\(rename.new)"))
            }
            for (index, change) in changes.enumerated() where !renames.contains(where: { "\($0.legacy)" == changeFields[index] }) {
                keys.append(Key(name: change.field, change: index))
            }
            self.keys = keys
            eventTypes = (0..<(1 << changes.count)).map { set in
                (always.map { [$0] } ?? []) + changes.indices.filter { set & 1 << $0 != 0 }.map { changes[$0].eventType }
            }
        }

        /// A legacy field's name in the new contract.
        func newName(_ key: String) -> String {
            renames.first { "\($0.legacy)" == key }.map { "\($0.new)" } ?? key
        }

        /// Why a result that sets none of the change fields carries no event.
        var setsNone: String { "\(name) sets none of \(changes.map { "\($0.field)" }.joined(separator: ", "))" }
    }

    static let schema: [RootField] = [
        RootField(
            "subscribeDeviceState",
            changes: [("online", "device/presenceChanged"), ("recording", "device/recordingStateChanged"),
                      ("fwUpdateState", "device/firmwareUpdated")],
            renames: [("deviceGroupID", "siteId")]),
        RootField(
            "subscribeOrganizationState",
            changes: [("licensePhase", "organization/licensePhaseChanged"), ("isFreePlan", "organization/planChanged"),
                      ("aiControlSetting", "organization/aiSettingsChanged")],
            renames: [("AIControlSetting", "aiControlSetting")]),
        RootField("subscribeArchiveState", always: "archive/stateChanged", renames: [("deviceGroupID", "siteId")]),
        RootField("subscribeRoleChange", always: "user/roleChanged"),
        RootField("subscribeUserTokenRevoke", always: "user/tokenRevoked"),
    ]

    /// The root field named `name`; nil for one outside the schema.
    static func rootField(named name: String) -> RootField? {
        schema.first { "\($0.name)" == name }
    }

    /// What one result becomes.
    package enum Outcome: Equatable {
        /// An event to deliver.
        case event(EventEnvelope)
        /// The result under the root field is null, or sets none of the fields that name a kind
        /// of change: nothing happened that the new contract has an event for.
        case nothing(reason: String)
    }

    /// Turns the `data` object of a result, as JSON bytes, into what the notifier reads.
    package static func envelope(from data: Data, subscription: SubscriptionKey, receivedAt: Date) -> Outcome {
        envelope(from: ResultData(data), subscription: subscription, receivedAt: receivedAt)
    }

    /// Turns the `data` object of a result into what the notifier reads.
    /// - Parameters:
    ///   - data: The result's `data` object: when it is the frame's parse, it is not parsed again,
    ///     and its bytes are not copied out unless the result is handed on unchanged.
    ///   - subscription: The subscription that received it.
    ///   - receivedAt: When the frame arrived.
    package static func envelope(from data: ResultData, subscription: SubscriptionKey, receivedAt: Date) -> Outcome {
        let document: JSONDocument
        let root: JSONDocument.Index
        if let (frame, index) = data.parse {
            (document, root) = (frame, index)
        } else if let parsedData = JSONDocument(data.bytes) {
            (document, root) = (parsedData, parsedData.root)
        } else {
            return slowPath(data.bytes, subscription: subscription, receivedAt: receivedAt)
        }
        // Keys are compared as bytes where they lie: no `String` and no array of members per event.
        guard let member = document.onlyMemberNode(of: root),
              let field = schema.first(where: { document.key(member, is: $0.name) })
        else { return .event(unchanged(data.bytes, subscription: subscription, receivedAt: receivedAt)) }
        let result = member.value
        switch document.kind(result) {
        case .null: return .nothing(reason: "\(field.name) is null")
        case .object: break
        default: return .event(unchanged(data.bytes, subscription: subscription, receivedAt: receivedAt))
        }
        var changes = 0
        var renamed = false
        for member in document.memberNodes(of: result)! {
            guard let key = field.keys.first(where: { document.key(member, is: $0.name) }) else { continue }
            if key.newName != nil { renamed = true }
            if let change = key.change, document.kind(member.value) != .null { changes |= 1 << change }
        }
        // Ordered as the contract lists them, whatever order the server wrote the fields in.
        let eventTypes = field.eventTypes[changes]
        guard !eventTypes.isEmpty else { return .nothing(reason: field.setsNone) }
        // Either way the frame's nodes are reused, not parsed again: renamed, the members are
        // written out compactly with the new names; otherwise the result is kept as it arrived.
        let payload = renamed
            ? document.renamingMembers(of: result) { member in
                field.keys.first { $0.newName != nil && document.key(member, is: $0.name) }?.newName
            }
            : document.subdocument(result)
        // The document's bytes are the payload: made into `Data` only if someone reads it.
        return .event(EventEnvelope(
            subscription: subscription, eventTypes: eventTypes, document: payload, receivedAt: receivedAt, transport: .graphql))
    }

    /// A result handed on as it arrived, with no `eventType`: outside the schema, or not an object.
    private static func unchanged(_ data: Data, subscription: SubscriptionKey, receivedAt: Date) -> EventEnvelope {
        EventEnvelope(subscription: subscription, eventTypes: [], payload: data, receivedAt: receivedAt, transport: .graphql)
    }

    /// A result the fast parser leaves alone (an exponent, an escaped key): the same mapping
    /// through ``JSONValue``.
    private static func slowPath(_ data: Data, subscription: SubscriptionKey, receivedAt: Date) -> Outcome {
        let unchanged = unchanged(data, subscription: subscription, receivedAt: receivedAt)
        guard case .object(let object)? = try? JSONValue.parse(data),
              object.count == 1, let (name, result) = object.first, let field = rootField(named: name)
        else { return .event(unchanged) }
        if result.isNull { return .nothing(reason: "\(name) is null") }
        guard case .object(let fields) = result else { return .event(unchanged) }
        var renamed: [String: JSONValue] = [:]
        for (key, value) in fields { renamed[field.newName(key)] = value }
        var eventTypes: [String] = field.always.map { [$0] } ?? []
        for change in field.changes where renamed["\(change.field)"].map({ !$0.isNull }) ?? false {
            eventTypes.append(change.eventType)
        }
        guard !eventTypes.isEmpty else { return .nothing(reason: field.setsNone) }
        guard let payload = try? JSONValue.object(renamed).serialized() else { return .event(unchanged) }
        return .event(EventEnvelope(
            subscription: subscription, eventTypes: eventTypes, payload: payload, receivedAt: receivedAt, transport: .graphql))
    }
}
