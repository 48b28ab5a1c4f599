import Foundation
import SwitchboardCore

/// A transport did not do what the `EventTransport` contract asks, in one check of
/// ``TransportConformance``.
///
/// Its description names the check, what was expected, what was seen instead, and the events the
/// transport reported during the check, so a failing test explains itself.
public struct TransportConformanceFailure: Error, Sendable, CustomStringConvertible {
    /// The check that failed.
    public var check: TransportConformance.Check
    /// What the contract asks for at the point the check failed.
    public var expected: String
    /// What the transport (or the harness) did instead.
    public var observed: String
    /// Everything the transport reported through `EventTransport.events` during the check.
    public var events: [TransportEvent]

    /// Creates a failure.
    /// - Parameters:
    ///   - check: The check that failed.
    ///   - expected: What the contract asks for.
    ///   - observed: What happened instead.
    ///   - events: The transport's events during the check.
    public init(check: TransportConformance.Check, expected: String, observed: String, events: [TransportEvent] = []) {
        self.check = check
        self.expected = expected
        self.observed = observed
        self.events = events
    }

    public var description: String {
        var lines = [
            "conformance check \(check.rawValue) failed: \(check.summary)",
            "  expected: \(expected)",
            "  observed: \(observed)",
        ]
        if !events.isEmpty {
            lines.append("  events (\(events.count)):")
            for (index, event) in events.enumerated() {
                lines.append("    \(index): \(Self.describe(event))")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// One event on one line; a payload is shown as text, cut after 120 characters.
    static func describe(_ event: TransportEvent) -> String {
        switch event {
        case .connectionStateChanged(let state): "state \(state)"
        case .subscriptionEstablished(let key): "established \(key)"
        case .subscriptionFailed(let key, let error): "failed \(key): \(error.code) \(error.message)"
        case .received(let envelope):
            "received on \(envelope.subscription) via \(envelope.transport): \(String(decoding: envelope.payload, as: UTF8.self).prefix(120))"
        case .error(let error): "error \(error.code): \(error.message)"
        }
    }
}
