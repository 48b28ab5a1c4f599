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
        if route == .live, catchUp.hold(envelope, logger: logger, reconnect: { connectIfActive() }) { return }
        let streams = subscriptions.table.streams(servedBy: envelope.subscription)
        guard !streams.isEmpty else {
            metrics.unrouted.increment()
            logger.debug("event on a subscription that serves no stream", metadata: [
                "switchboard.subscription": "\(envelope.subscription)"])
            return
        }
        logger.trace("event", metadata: [
            "switchboard.subscription": "\(envelope.subscription)", "switchboard.bytes": "\(envelope.payloadByteCount)"])
        // One stream (the common case) without an array of descriptors.
        if streams.count == 1, let stream = streams.first {
            deliver(envelope, to: CollectionOfOne(StreamCatalog.descriptor(stream)), eventId: .counted(EventIdentifiers.next()), route: route)
        } else {
            deliver(envelope, to: streams.sorted().map(StreamCatalog.descriptor), eventId: .counted(EventIdentifiers.next()), route: route)
        }
    }

    /// Publishes one envelope on those of `descriptors` whose `eventType`s it carries, and keeps
    /// the books: stream statuses, errors.
    func deliver(
        _ envelope: EventEnvelope, to descriptors: some Collection<StreamDescriptor>, eventId: EventMetadata.Identifier, route: DeliveryRoute
    ) {
        delivery.deliver(
            envelope, to: descriptors, eventId: eventId, route: route, metrics: metrics, logger: logger,
            admit: { admit($0(), stream: $1, route: $2) },
            outcome: { outcome in
                switch outcome {
                case .published(let stream, let receivedAt):
                    observers.statuses.recordDelivery(on: stream, receivedAt: receivedAt)
                    if !envelope.serverErrors.isEmpty { report(.partialResult(envelope, stream: stream), stream: stream) }
                case .undeliverable(let error, let stream): report(error, stream: stream)
                }
            })
    }
}

extension SwitchboardError {
    /// What a consumer of `stream` is told when its value came with the server's errors beside it.
    static func partialResult(_ envelope: EventEnvelope, stream: StreamID) -> SwitchboardError {
        SwitchboardError(
            code: .partialResult,
            message: "\(stream): the server sent the event on \(envelope.subscription) with errors beside its data "
                + "(the value was delivered; the fields they name may be missing): \(envelope.serverErrors.joined(separator: "; "))")
    }
}
