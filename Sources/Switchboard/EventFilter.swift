import SwitchboardCore

/// Decides, before delivery, whether an event reaches consumers. None is set by default: the
/// backend publishes to each user only what that user may see.
public protocol EventFilter: Sendable {
    /// Whether `event` should be delivered.
    /// - Parameters:
    ///   - event: The typed event.
    ///   - metadata: Its metadata (stream, transport, receive time).
    func shouldDeliver(_ event: any SwitchboardEvent, metadata: EventMetadata) -> Bool
}

/// An event that belongs to a site (device group).
public protocol SiteScopedEvent: SwitchboardEvent {
    /// The site, if the event names one.
    var siteId: String? { get }
}

/// Drops device and archive events of sites the user may not access (seed 001's client-side
/// filter). Events that name no site, and events of other kinds, pass.
public struct SiteAccessFilter: EventFilter {
    private let canAccessSite: @Sendable (String) -> Bool

    /// Creates a filter.
    /// - Parameter canAccessSite: Asked for every site-scoped event; answer from your current
    ///   privileges (it is not cached).
    public init(canAccessSite: @escaping @Sendable (String) -> Bool) {
        self.canAccessSite = canAccessSite
    }

    public func shouldDeliver(_ event: any SwitchboardEvent, metadata: EventMetadata) -> Bool {
        guard let scoped = event as? any SiteScopedEvent, let site = scoped.siteId else { return true }
        return canAccessSite(site)
    }
}

extension DeviceStateOutput: SiteScopedEvent {}
extension DevicePresenceOutput: SiteScopedEvent {}
extension DeviceRecordingOutput: SiteScopedEvent {}
extension DeviceFirmwareOutput: SiteScopedEvent {}
extension ArchiveStateOutput: SiteScopedEvent {}
