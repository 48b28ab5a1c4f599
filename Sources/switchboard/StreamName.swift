import ArgumentParser
import Foundation
import Switchboard

/// A typed stream the CLI can print, named as `--streams` and the output's `stream` field
/// spell it.
enum StreamName: String, CaseIterable, Sendable, ExpressibleByArgument {
    case devicePresence, deviceRecording, deviceFirmware, archive, license, plan, aiSettings, role, revoke
    case device, organization

    /// The nine per-channel streams, one per AppSync channel: the default of `listen`.
    static let perChannel: [StreamName] = [
        .devicePresence, .deviceRecording, .deviceFirmware, .archive, .license, .plan, .aiSettings, .role, .revoke,
    ]

    /// Parses a comma-separated list (`devicePresence,role`), rejecting unknown and repeated
    /// names with a message that lists the allowed ones.
    static func parseList(_ text: String) throws -> [StreamName] {
        var names: [StreamName] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard let name = StreamName(rawValue: trimmed) else {
                throw ValidationError(
                    "unknown stream '\(trimmed)'; allowed: \(allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard !names.contains(name) else { throw ValidationError("stream '\(trimmed)' is listed twice") }
            names.append(name)
        }
        return names
    }

    /// The notifier's stream for this name, each element encoded as one output line.
    func lines(from notifier: BackendNotifier) async -> AsyncStream<EventLine> {
        switch self {
        case .devicePresence: await map(notifier.devicePresenceValues())
        case .deviceRecording: await map(notifier.deviceRecordingValues())
        case .deviceFirmware: await map(notifier.deviceFirmwareValues())
        case .archive: await map(notifier.archiveValues())
        case .license: await map(notifier.licenseValues())
        case .plan: await map(notifier.planValues())
        case .aiSettings: await map(notifier.aiSettingsValues())
        case .role: await map(notifier.roleValues())
        case .revoke: await map(notifier.revokeValues())
        case .device: await map(notifier.deviceValues())
        case .organization: await map(notifier.organizationValues())
        }
    }

    private func map<Event: Encodable & Sendable>(_ values: AsyncStream<Event>) -> AsyncStream<EventLine> {
        let stream = self
        return AsyncStream { continuation in
            let task = Task {
                for await value in values { continuation.yield(EventLine(stream: stream, event: value)) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
