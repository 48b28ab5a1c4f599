import CoreMetrics
import Foundation
import Logging
import SwitchboardCore

/// The event path above the transports: routes an envelope to the streams its `eventType`s
/// name, decodes it once per stream type, lets catch-up and the filter decide, and publishes the
/// typed values on the broker. It is transport-neutral (envelopes already carry the new
/// contract's names) and keeps no state; the notifier calls it on its actor.
struct EventDelivery {
    /// What became of one envelope on one stream, for the notifier's books.
    enum Outcome {
        /// A value reached the broker.
        case published(StreamID, receivedAt: Date)
        /// The envelope could not be decoded (for `stream`, or for any when nil); it is a dead
        /// letter on the broker already.
        case undeliverable(SwitchboardError, stream: StreamID?)
    }

    let broker: EventBroker
    let filter: (any EventFilter)?

    /// Publishes one envelope on those of `descriptors` whose `eventType`s it carries.
    /// - Parameters:
    ///   - admit: Whether a decoded value should reach consumers (catch-up's say); it computes
    ///     the value's fingerprint only if it needs it.
    ///   - outcome: Called for each value published and each failure.
    func deliver(
        _ envelope: EventEnvelope, to descriptors: some Collection<StreamDescriptor>, eventId: EventMetadata.Identifier, route: DeliveryRoute,
        metrics: NotifierMetrics, logger: Logger,
        admit: (() -> Fingerprint, StreamID, DeliveryRoute) -> Bool, outcome: (Outcome) -> Void
    ) {
        guard !envelope.eventTypes.isEmpty else {
            undeliverable(envelope, eventName: "unknown", error: Self.missingEventType(envelope.payload), eventId: eventId,
                          stream: nil, metrics: metrics, outcome: outcome)
            return
        }
        // The streams whose `eventType`s the envelope carries, without collecting them first.
        var routed = false
        var document: JSONDocument?
        for descriptor in descriptors where !descriptor.eventTypes.isDisjoint(with: envelope.eventTypes) {
            if !routed {
                routed = true
                document = envelope.document ?? JSONDocument(envelope.payload)
            }
            publish(descriptor.outputType, envelope: envelope, document: document, descriptor: descriptor, eventId: eventId,
                    route: route, metrics: metrics, logger: logger, admit: admit, outcome: outcome)
        }
        guard !routed else { return }
        metrics.unrouted.increment()
        logger.debug("eventType not routed to any requested stream", metadata: [
            "switchboard.eventType": "\(envelope.eventTypes.joined(separator: ","))",
            "switchboard.subscription": "\(envelope.subscription)"])
    }

    private func publish<Output: CatalogEvent>(
        _ type: Output.Type, envelope: EventEnvelope, document: JSONDocument?, descriptor: StreamDescriptor, eventId: EventMetadata.Identifier,
        route: DeliveryRoute, metrics: NotifierMetrics, logger: Logger,
        admit: (() -> Fingerprint, StreamID, DeliveryRoute) -> Bool, outcome: (Outcome) -> Void
    ) {
        let metadata = EventMetadata(
            identifier: eventId, receivedAt: envelope.receivedAt, transport: envelope.transport, stream: descriptor.id.rawValue)
        let value: Output
        do {
            value = try EventPayloadDecoder.decode(Output.self, from: envelope.payload, document: document)
        } catch {
            undeliverable(envelope, eventName: Output.eventName, error: error, eventId: eventId, stream: descriptor.id,
                          metrics: metrics, outcome: outcome)
            return
        }
        if logger.logLevel <= .debug {
            let unknown = EventPayloadDecoder.unknownFields(in: envelope.payload, known: Output.knownFieldNames)
            if !unknown.isEmpty {
                logger.debug("unknown fields ignored", metadata: [
                    "switchboard.event": "\(Output.eventName)", "switchboard.fields": "\(unknown.joined(separator: ","))"])
            }
        }
        // The same event looks the same on both transports once the metadata only AppSync
        // Events carries is left out: that is how a catch-up recognises what arrived live.
        guard admit({ Self.fingerprint(value, stream: descriptor.id, payloadBytes: envelope.payloadByteCount) }, descriptor.id, route) else { return }
        if let filter, !filter.shouldDeliver(value, metadata: metadata) {
            metrics.filtered.increment()
            logger.trace("event filtered", metadata: ["switchboard.event": "\(Output.eventName)"])
            return
        }
        metrics.delivered.increment()
        outcome(.published(descriptor.id, receivedAt: envelope.receivedAt))
        broker.publish(value, metadata: metadata)
    }

    private func undeliverable(
        _ envelope: EventEnvelope, eventName: String, error: SwitchboardError, eventId: EventMetadata.Identifier, stream: StreamID?,
        metrics: NotifierMetrics, outcome: (Outcome) -> Void
    ) {
        metrics.decodingFailures.increment()
        var error = error
        if !envelope.serverErrors.isEmpty {
            // A partial result whose nulled field the model requires: the server's words say why.
            error = SwitchboardError(
                code: error.code,
                message: "\(error.message); the server sent it with errors: \(envelope.serverErrors.joined(separator: "; "))",
                cause: error)
        }
        let metadata = EventMetadata(
            identifier: eventId, receivedAt: envelope.receivedAt, transport: envelope.transport, stream: stream?.rawValue)
        broker.reportUndeliverable(payload: envelope.payload, eventName: eventName, error: error, metadata: metadata)
        outcome(.undeliverable(error, stream: stream))
    }

    /// Why an envelope without an `eventType` cannot be delivered: its payload is no JSON
    /// object, or the object lacks the (required) `eventType`.
    static func missingEventType(_ payload: Data) -> SwitchboardError {
        do {
            guard case .object = try JSONValue.parse(payload) else {
                return SwitchboardError(code: .decodingFailed, message: "could not decode the event envelope: the payload is not a JSON object")
            }
        } catch {
            return SwitchboardError(code: .decodingFailed, message: "could not decode the event envelope: \(error)", cause: error)
        }
        return SwitchboardError(code: .decodingFailed, message: "the payload has no eventType (required)")
    }

    /// A value's identity for recognising it again: its stream and its typed fields, without
    /// `eventType` and `timestamp` (only AppSync Events carries them), and its timestamp aside;
    /// it costs what its payload took (`payloadBytes`) plus ``Fingerprints/entryOverhead``.
    static func fingerprint<Output: CatalogEvent>(_ value: Output, stream: StreamID, payloadBytes: Int) -> Fingerprint {
        var bare = value
        bare.eventType = nil
        bare.timestamp = nil
        return Fingerprint(
            key: FingerprintKey(stream: stream, fields: AnyHashable(bare)), timestamp: value.timestamp,
            bytes: payloadBytes + Fingerprints.entryOverhead)
    }
}
