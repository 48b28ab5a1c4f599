import Switchboard

/// The new API generation: one stream per AppSync Events channel. Each works on both
/// transports (on the legacy one, a `DeviceState` with `online` set feeds
/// `devicePresenceValues()`, and so on), and each value carries `eventType` and `timestamp`
/// when it came over AppSync Events.
enum PerChannelConsumers {
    /// Opens the nine streams and consumes each in a task of `group`, until the notifier shuts
    /// down. Every call returns a stream of its own, so `archiveValues()`, `roleValues()` and
    /// `revokeValues()` here take nothing away from `LegacyConsumers`, which opens them too.
    static func start(_ notifier: BackendNotifier, in group: inout ConsumerTasks, show: @escaping AppUpdate.Show) async {
        let show = AppUpdate.Generation.perChannel.events(show)
        group.forEach(await notifier.devicePresenceValues()) {
            show("devicePresenceValues", Describe.device($0.thingName, site: $0.siteId, Describe.flag($0.online, "online", "offline")))
        }
        group.forEach(await notifier.deviceRecordingValues()) {
            show("deviceRecordingValues", Describe.device(
                $0.thingName, site: $0.siteId, Describe.flag($0.recording, "recording", "not recording")))
        }
        group.forEach(await notifier.deviceFirmwareValues()) {
            show("deviceFirmwareValues", Describe.device(
                $0.thingName, site: $0.siteId, "firmware state \($0.fwUpdateState.map(String.init) ?? "?")"))
        }
        group.forEach(await notifier.archiveValues()) { show("archiveValues", Describe.archive($0)) }
        group.forEach(await notifier.licenseValues()) {
            show("licenseValues", "\($0.orgId ?? "?"): license \($0.licensePhase?.rawValue ?? "?")")
        }
        group.forEach(await notifier.planValues()) {
            show("planValues", "\($0.orgId ?? "?"): \(Describe.flag($0.isFreePlan, "free plan", "paid plan"))")
        }
        group.forEach(await notifier.aiSettingsValues()) {
            show("aiSettingsValues", "\($0.orgId ?? "?"): AI settings \($0.aiControlSetting?.uuid ?? "?")")
        }
        group.forEach(await notifier.roleValues()) { show("roleValues", Describe.role($0)) }
        group.forEach(await notifier.revokeValues()) { show("revokeValues", Describe.revoke($0)) }
    }
}
