import SwitchboardCore

extension TransportSelection {
    /// Calls `factory` for the selection's kind and checks what it made; a transport of another
    /// kind is shut down.
    func makeTransport(with factory: BackendNotifier.TransportFactory) throws(SwitchboardError) -> any EventTransport {
        let transport: any EventTransport
        do {
            transport = try factory(kind)
        } catch {
            throw SwitchboardError(
                code: .invalidConfiguration, message: "could not make the transport for \(self): \(error)", cause: error)
        }
        guard transport.kind == kind else {
            transport.shutDown()
            throw SwitchboardError(
                code: .invalidConfiguration,
                message: "the factory made a \(transport.kind) transport for transport = \(kind)")
        }
        return transport
    }
}
