import Foundation
import CoreMetrics
import Logging
import SwitchboardCore

extension BackendNotifier {
    /// Routes one envelope to the streams its subscription serves, decodes it once per stream
    /// type and publishes the typed values. The payload is parsed once (``JSONDocument``) for
    /// routing and decoding; `JSONDecoder` reads it only where that parse leaves it.
    func deliver(_ envelope: EventEnvelope, route: DeliveryRoute = .live) {
        if route == .live, holdWhileCatchingUp(envelope) { return }
        let streams = table.streams(servedBy: envelope.subscription)
        guard !streams.isEmpty else {
            metrics.unrouted.increment()
            logger.debug("event on a subscription that serves no stream", metadata: [
                "switchboard.subscription": "\(envelope.subscription)"])
            return
        }
        logger.trace("event", metadata: [
            "switchboard.subscription": "\(envelope.subscription)", "switchboard.bytes": "\(envelope.payload.count)"])
        let eventId = EventIdentifiers.make()
        let descriptors = streams.sorted().map(StreamCatalog.descriptor)
        let document = JSONDocument(envelope.payload)
        switch envelope.transport {
        case .appsync: deliverAppSync(envelope, document: document, to: descriptors, eventId: eventId, route: route)
        case .graphql: deliverGraphQL(envelope, document: document, to: descriptors, eventId: eventId, route: route)
        }
    }

    func deliverAppSync(
        _ envelope: EventEnvelope, document: JSONDocument?, to descriptors: [StreamDescriptor], eventId: String, route: DeliveryRoute
    ) {
        let eventType: String
        do {
            eventType = try self.eventType(of: envelope.payload, document: document)
        } catch {
            let failure = decodingError(error, what: "the event envelope")
            undeliverable(envelope, eventName: "unknown", error: failure, eventId: eventId, stream: nil)
            return
        }
        let targets = descriptors.filter { $0.eventTypes.contains(eventType) }
        guard !targets.isEmpty else {
            metrics.unrouted.increment()
            logger.debug("eventType not routed to any requested stream", metadata: [
                "switchboard.eventType": "\(eventType)", "switchboard.subscription": "\(envelope.subscription)"])
            return
        }
        for descriptor in targets {
            publish(descriptor.outputType, envelope: envelope, document: document, descriptor: descriptor, eventId: eventId,
                    legacyField: nil, route: route)
        }
    }

    private func deliverGraphQL(
        _ envelope: EventEnvelope, document: JSONDocument?, to descriptors: [StreamDescriptor], eventId: String, route: DeliveryRoute
    ) {
        guard let field = descriptors.first?.legacy.field else { return }
        let result: JSONValue?
        do {
            if let document, document.kind(document.root) == .object {
                result = document.member(field, of: document.root).map { JSONValue(document, $0) }
            } else {
                result = try decoder.decode(JSONValue.self, from: envelope.payload)[field]
            }
        } catch {
            undeliverable(envelope, eventName: "unknown", error: decodingError(error, what: "the GraphQL result"),
                          eventId: eventId, stream: nil)
            return
        }
        guard let result, JSONValue.isSet(result) else {
            logger.debug("GraphQL result without \(field); ignored", metadata: ["switchboard.subscription": "\(envelope.subscription)"])
            return
        }
        for descriptor in descriptors where descriptor.legacySelects(result) {
            publish(descriptor.outputType, envelope: envelope, document: document, descriptor: descriptor, eventId: eventId,
                    legacyField: field, route: route)
        }
    }

    /// The `eventType` of an AppSync payload, for routing: read by ``JSONDocument`` in one pass,
    /// or by `JSONDecoder` when that leaves the payload to it (and for the error).
    private func eventType(of payload: Data, document: JSONDocument?) throws -> String {
        if let document, let value = document.member("eventType", of: document.root),
           let eventType = document.string(value) {
            return eventType
        }
        guard let eventType = try decoder.decode(EventTypeProbe.self, from: payload).eventType else {
            throw SwitchboardError(code: .decodingFailed, message: "the payload has no eventType (required)")
        }
        return eventType
    }

    private func publish<Output: CatalogEvent>(
        _ type: Output.Type, envelope: EventEnvelope, document: JSONDocument?, descriptor: StreamDescriptor, eventId: String,
        legacyField: String?, route: DeliveryRoute
    ) {
        let metadata = EventMetadata(
            eventId: eventId, receivedAt: envelope.receivedAt, transport: envelope.transport, stream: descriptor.id.rawValue)
        let value: Output
        do {
            value = try EventPayloadDecoder.decode(Output.self, from: envelope.payload, under: legacyField, document: document)
        } catch {
            undeliverable(envelope, eventName: Output.eventName, error: error, eventId: eventId, stream: descriptor.id)
            return
        }
        if logger.logLevel <= .debug {
            let unknown = EventPayloadDecoder.unknownFields(
                in: envelope.payload, known: Output.knownFieldNames, under: legacyField)
            if !unknown.isEmpty {
                logger.debug("unknown fields ignored", metadata: [
                    "switchboard.event": "\(Output.eventName)", "switchboard.fields": "\(unknown.joined(separator: ","))"])
            }
        }
        // The same event looks the same on both transports once the metadata only AppSync
        // Events carries is left out: that is how a catch-up recognises what arrived live.
        guard admit(Self.fingerprint(value, stream: descriptor.id), stream: descriptor.id, route: route) else { return }
        if let filter, !filter.shouldDeliver(value, metadata: metadata) {
            metrics.filtered.increment()
            logger.trace("event filtered", metadata: ["switchboard.event": "\(Output.eventName)"])
            return
        }
        metrics.delivered.increment()
        recordDelivery(on: descriptor.id, receivedAt: envelope.receivedAt)
        broker.publish(value, metadata: metadata)
    }

    private func undeliverable(
        _ envelope: EventEnvelope, eventName: String, error: SwitchboardError, eventId: String, stream: StreamID?
    ) {
        metrics.decodingFailures.increment()
        let metadata = EventMetadata(
            eventId: eventId, receivedAt: envelope.receivedAt, transport: envelope.transport, stream: stream?.rawValue)
        broker.reportUndeliverable(payload: envelope.payload, eventName: eventName, error: error, metadata: metadata)
        report(error, stream: stream)
    }

    private func decodingError(_ error: any Error, what: String) -> SwitchboardError {
        if let error = error as? SwitchboardError { return error }
        return SwitchboardError(code: .decodingFailed, message: "could not decode \(what): \(error)")
    }
}

extension BackendNotifier {
    /// A value's identity for recognising it again: its stream and its fields, without
    /// `eventType` and `timestamp` (only AppSync Events carries them), and its timestamp aside.
    static func fingerprint<Output: CatalogEvent>(_ value: Output, stream: StreamID) -> Fingerprint {
        var bare = value
        bare.eventType = nil
        bare.timestamp = nil
        return Fingerprint(key: "\(stream.rawValue)|\(bare)", timestamp: value.timestamp)
    }
}

/// Just the `eventType` of an AppSync payload, for routing.
private struct EventTypeProbe: Decodable {
    var eventType: String?
}

