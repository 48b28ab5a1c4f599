/// The transports an app can run, by name: the runtime switch (`transport = <name>`) picks
/// exactly one of them.
///
/// Register a factory for each transport the app ships; the notifier calls it for the selected
/// name at start-up and again for each live switch, and expects a new transport of exactly that
/// kind each time.
///
/// ```swift
/// var transports = TransportRegistry()
/// transports.register(.appsync) { AppSyncEventsSubscriber(configuration: appSync, connector: connector) }
/// transports.register(.graphql) { GraphQLSubscriber(configuration: graphQL, connector: connector) }
/// transports.register("sse") { ServerSentEventsTransport(configuration: sse) }
/// let selection = try TransportSelection.resolve(registered: transports.kinds)
/// let notifier = try BackendNotifier(selection: selection, transports: transports, session: session)
/// ```
public struct TransportRegistry: Sendable {
    /// Makes a new transport that has not run yet.
    public typealias Factory = @Sendable () throws -> any EventTransport

    private var factories: [TransportKind: Factory] = [:]
    /// The registered kinds, in the order they were first registered.
    public private(set) var kinds: [TransportKind] = []

    /// An empty registry.
    public init() {}

    /// Registers (or replaces) the factory for `kind`.
    /// - Parameters:
    ///   - kind: The transport's name, as `transport = <name>` selects it. Not
    ///     ``TransportKind/catchUp``, which names no transport (that is a programming error).
    ///   - factory: Makes a new transport of exactly that kind each time it is called.
    public mutating func register(_ kind: TransportKind, factory: @escaping Factory) {
        precondition(kind != .catchUp, "\(kind) names caught-up events, not a transport")
        if factories.updateValue(factory, forKey: kind) == nil { kinds.append(kind) }
    }

    /// Whether a transport is registered under `kind`.
    public func contains(_ kind: TransportKind) -> Bool { factories[kind] != nil }

    /// The registered names, comma-separated in registration order, for messages: `appsync, graphql, sse`.
    public var names: String { kinds.map(\.rawValue).joined(separator: ", ") }

    /// Makes the transport registered under `kind`.
    /// - Parameter kind: The selected name.
    /// - Returns: A new transport of that kind.
    /// - Throws: ``SwitchboardError`` with ``SwitchboardError/Code/invalidConfiguration`` when no
    ///   transport is registered under `kind` (the message lists the registered names), when the
    ///   factory throws, or when it makes a transport of another kind (which is shut down).
    public func makeTransport(_ kind: TransportKind) throws(SwitchboardError) -> any EventTransport {
        guard let factory = factories[kind] else {
            throw SwitchboardError(
                code: .invalidConfiguration,
                message: "no transport is registered as \(kind.rawValue.debugDescription); registered: \(names.isEmpty ? "none" : names)")
        }
        let transport: any EventTransport
        do {
            transport = try factory()
        } catch {
            throw SwitchboardError(
                code: .invalidConfiguration, message: "could not make the \(kind) transport: \(error)", cause: error)
        }
        return try kind.expecting(transport, from: "the factory registered as \(kind)")
    }
}

extension TransportKind {
    /// `transport` when it is of this kind; otherwise it is shut down and the error names both
    /// kinds and `maker`.
    package func expecting(_ transport: any EventTransport, from maker: String) throws(SwitchboardError) -> any EventTransport {
        guard transport.kind == self else {
            transport.shutDown()
            throw SwitchboardError(
                code: .invalidConfiguration, message: "\(maker) made a \(transport.kind) transport for transport = \(self)")
        }
        return transport
    }
}
