import Foundation
import CoreMetrics
import Logging
import SwitchboardCore

extension BackendNotifier {
    /// Routes one envelope to the streams its subscription serves and its `eventType`s name,
    /// decodes it once per stream type and publishes the typed values. The payload is parsed
    /// once (``JSONDocument``, by the transport that read its `eventType`s, or here); `JSONDecoder`
    /// reads it only where that parse leaves it.
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
        deliver(envelope, to: streams.sorted().map(StreamCatalog.descriptor), eventId: EventIdentifiers.make(), route: route)
    }

    /// Publishes one envelope on those of `descriptors` whose `eventType`s it carries.
    func deliver(_ envelope: EventEnvelope, to descriptors: [StreamDescriptor], eventId: String, route: DeliveryRoute) {
        guard !envelope.eventTypes.isEmpty else {
            undeliverable(envelope, eventName: "unknown", error: Self.missingEventType(envelope.payload), eventId: eventId, stream: nil)
            return
        }
        let targets = descriptors.filter { !$0.eventTypes.isDisjoint(with: envelope.eventTypes) }
        guard !targets.isEmpty else {
            metrics.unrouted.increment()
            logger.debug("eventType not routed to any requested stream", metadata: [
                "switchboard.eventType": "\(envelope.eventTypes.joined(separator: ","))",
                "switchboard.subscription": "\(envelope.subscription)"])
            return
        }
        let document = envelope.document ?? JSONDocument(envelope.payload)
        for descriptor in targets {
            publish(descriptor.outputType, envelope: envelope, document: document, descriptor: descriptor, eventId: eventId,
                    route: route)
        }
    }

    /// Why an envelope without an `eventType` cannot be delivered: its payload is no JSON
    /// object, or the object lacks the (required) `eventType`.
    static func missingEventType(_ payload: Data) -> SwitchboardError {
        do {
            guard try JSONSerialization.jsonObject(with: payload, options: [.fragmentsAllowed]) is [String: Any] else {
                return SwitchboardError(code: .decodingFailed, message: "could not decode the event envelope: the payload is not a JSON object")
            }
        } catch {
            return SwitchboardError(code: .decodingFailed, message: "could not decode the event envelope: \(error)", cause: error)
        }
        return SwitchboardError(code: .decodingFailed, message: "the payload has no eventType (required)")
    }

    private func publish<Output: CatalogEvent>(
        _ type: Output.Type, envelope: EventEnvelope, document: JSONDocument?, descriptor: StreamDescriptor, eventId: String,
        route: DeliveryRoute
    ) {
        let metadata = EventMetadata(
            eventId: eventId, receivedAt: envelope.receivedAt, transport: envelope.transport, stream: descriptor.id.rawValue)
        let value: Output
        do {
            value = try EventPayloadDecoder.decode(Output.self, from: envelope.payload, under: nil, document: document)
        } catch {
            undeliverable(envelope, eventName: Output.eventName, error: error, eventId: eventId, stream: descriptor.id)
            return
        }
        if logger.logLevel <= .debug {
            let unknown = EventPayloadDecoder.unknownFields(
                in: envelope.payload, known: Output.knownFieldNames)
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
}

extension BackendNotifier {
    /// A value's identity for recognising it again: its stream and its typed fields, without
    /// `eventType` and `timestamp` (only AppSync Events carries them), and its timestamp aside.
    static func fingerprint<Output: CatalogEvent>(_ value: Output, stream: StreamID) -> Fingerprint {
        var bare = value
        bare.eventType = nil
        bare.timestamp = nil
        return Fingerprint(key: FingerprintKey(stream: stream, fields: AnyHashable(bare)), timestamp: value.timestamp)
    }
}
