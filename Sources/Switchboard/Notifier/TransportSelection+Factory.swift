import SwitchboardCore

extension TransportSelection {
    /// Calls `factory` for the selection's kind and checks what it made; a transport of another
    /// kind is shut down.
    func makeTransport(with factory: BackendNotifier.TransportFactory) throws(SwitchboardError) -> any EventTransport {
        let transport: any EventTransport
        do {
            transport = try factory(kind)
        } catch let error as SwitchboardError where error.code == .invalidConfiguration {
            throw error
        } catch {
            throw SwitchboardError(
                code: .invalidConfiguration, message: "could not make the transport for \(self): \(error)", cause: error)
        }
        return try kind.expecting(transport, from: "the factory")
    }
}
