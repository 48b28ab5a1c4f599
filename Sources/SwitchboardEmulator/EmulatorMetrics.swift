import Metrics

/// The emulator's swift-metrics counters (dotted names under `switchboard.emulator`).
enum EmulatorMetrics {
    /// Protocol connections accepted (credentials good).
    static let connectionsOpened = Counter(label: "switchboard.emulator.connections.opened")
    /// Protocol connections refused with `connection_error`.
    static let connectionsRefused = Counter(label: "switchboard.emulator.connections.refused")
    /// WebSocket text frames received.
    static let framesReceived = Counter(label: "switchboard.emulator.frames.received")
    /// WebSocket text frames sent.
    static let framesSent = Counter(label: "switchboard.emulator.frames.sent")
    /// Events put on the bus (WebSocket, HTTP or in-process publishes).
    static let eventsPublished = Counter(label: "switchboard.emulator.events.published")
}
