/// A transport that can check its connection at once, instead of waiting out the keep-alive window.
public protocol ConnectionVerifying: EventTransport {
    /// Checks the connection now: a ping the server must answer within `timeout`, else the
    /// connection is replaced at once.
    /// - Parameter timeout: How long to wait for the answer.
    func verifyConnection(timeout: Duration)
}
