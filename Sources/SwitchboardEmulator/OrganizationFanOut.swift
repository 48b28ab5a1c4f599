/// Collapses an organization event that the backend fanned out to several members' channels
/// into one delivery for a legacy `subscribeOrganizationState(orgId:)` subscription. Pure.
///
/// The new contract has user-level channels only, so one organization event is published once
/// per member, with the same text; the legacy schema has one subscription per organization,
/// which must see it once. A copy is the same text on a channel of a user who has not carried
/// it yet; the same text again on a channel that already carried it is a new event.
struct OrganizationFanOut: Sendable {
    /// How many recent event texts are remembered.
    let capacity: Int
    private var recent: [(event: String, users: Set<String>)] = []

    init(capacity: Int = 64) { self.capacity = capacity }

    /// Whether `event`, published on a channel of `userId`, is to be delivered (a new event)
    /// rather than dropped (a copy of one already delivered).
    mutating func admits(_ event: String, fromUser userId: String) -> Bool {
        if let index = recent.firstIndex(where: { $0.event == event }) {
            if recent[index].users.insert(userId).inserted { return false }
            recent.remove(at: index)
        }
        recent.append((event, [userId]))
        if recent.count > capacity { recent.removeFirst() }
        return true
    }
}
