import Switchboard

/// The legacy API generation: the five methods apps called before the migration, with the same
/// names, signatures and model types. Code like this keeps working on both transports.
///
/// This is the only file of the example that uses the deprecated field names (`deviceGroupID`,
/// `AIControlSetting`), to show that they still compile; the compiler warns about each use, here
/// and nowhere else. New code reads `siteId` and `aiControlSetting` (see PerChannelConsumers).
enum LegacyConsumers {
    /// Opens the five streams and consumes each in a task of `group`, until the notifier shuts
    /// down. The streams are open when this returns: call it before the notifier runs.
    static func start(_ notifier: BackendNotifier, in group: inout ConsumerTasks, show: @escaping AppUpdate.Show) async {
        let show = AppUpdate.Generation.legacy.events(show)
        group.forEach(await notifier.deviceValues()) { device in
            // Deprecated alias (warning on purpose): the legacy name of `siteId`.
            let site = device.deviceGroupID
            // One legacy `DeviceState` may carry presence, recording and firmware at once.
            var changes: [String] = []
            if let online = device.online { changes.append(online ? "online" : "offline") }
            if let recording = device.recording { changes.append(recording ? "recording" : "not recording") }
            if let firmware = device.fwUpdateState { changes.append("firmware state \(firmware)") }
            show("deviceValues", Describe.device(device.thingName, site: site, changes.joined(separator: ", ")))
        }
        group.forEach(await notifier.archiveValues()) { show("archiveValues", Describe.archive($0)) }
        group.forEach(await notifier.organizationValues()) { organization in
            // Deprecated alias (warning on purpose): the legacy name of `aiControlSetting`.
            let aiSettings = organization.AIControlSetting
            var changes: [String] = []
            if let phase = organization.licensePhase { changes.append("license \(phase.rawValue)") }
            if let free = organization.isFreePlan { changes.append(free ? "free plan" : "paid plan") }
            if let aiSettings { changes.append("AI settings \(aiSettings.uuid ?? "?")") }
            show("organizationValues", "\(organization.orgId ?? "?"): \(changes.joined(separator: ", "))")
        }
        group.forEach(await notifier.roleValues()) { show("roleValues", Describe.role($0)) }
        group.forEach(await notifier.revokeValues()) { show("revokeValues", Describe.revoke($0)) }
    }
}
