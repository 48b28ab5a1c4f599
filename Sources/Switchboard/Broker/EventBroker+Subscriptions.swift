import SwitchboardCore

extension EventBroker {
    /// Calls `handler` for every published event of type `E`.
    ///
    /// Keep the returned token alive: the subscription ends when it is cancelled or released.
    /// - Parameters:
    ///   - type: The event type.
    ///   - priority: When the handler is called relative to other subscribers of the same event.
    ///   - replay: Before returning, deliver the last `replay` records of type `E` from
    ///     ``history`` that pass `filter`, oldest first; live events follow with no gap or repeat.
    ///   - filter: Called before the handler, outside the broker's lock; the handler only sees
    ///     records for which it returns true.
    ///   - handler: Called on the publishing thread. If it throws, the event and the error go to
    ///     ``deadLetters`` and the other subscribers still get the event.
    /// - Returns: The subscription's token.
    public func subscribe<E: SwitchboardEvent>(
        _ type: E.Type,
        priority: EventPriority = .normal,
        replay: Int = 0,
        where filter: (@Sendable (EventRecord<E>) -> Bool)? = nil,
        handler: @escaping @Sendable (EventRecord<E>) throws -> Void
    ) -> EventSubscription {
        let id = state.withLock { $0.makeSubscriberID() }
        register(
            id: id,
            priority: priority,
            scope: .event(E.self),
            replay: replay,
            accepts: Self.typedFilter(E.self, filter),
            receive: { record, filtering in
                guard let typed = record.typedRecord(as: E.self) else { return .delivered }
                if filtering, let filter, !filter(typed) { return .delivered }
                return Self.call(handler, with: typed)
            }
        )
        return EventSubscription(broker: self, id: id)
    }

    /// Calls `handler` for every published event whose type belongs to `category`.
    ///
    /// Keep the returned token alive: the subscription ends when it is cancelled or released.
    /// - Parameters:
    ///   - category: The category.
    ///   - priority: When the handler is called relative to other subscribers of the same event.
    ///   - replay: Before returning, deliver the last `replay` records of the category from
    ///     ``history`` that pass `filter`, oldest first; live events follow with no gap or repeat.
    ///   - filter: Called before the handler, outside the broker's lock; the handler only sees
    ///     records for which it returns true.
    ///   - handler: Called on the publishing thread. If it throws, the event and the error go to
    ///     ``deadLetters`` and the other subscribers still get the event.
    /// - Returns: The subscription's token.
    public func subscribe(
        category: EventCategory,
        priority: EventPriority = .normal,
        replay: Int = 0,
        where filter: (@Sendable (AnyEventRecord) -> Bool)? = nil,
        handler: @escaping @Sendable (AnyEventRecord) throws -> Void
    ) -> EventSubscription {
        let id = state.withLock { $0.makeSubscriberID() }
        register(
            id: id,
            priority: priority,
            scope: .category(category),
            replay: replay,
            accepts: { record in filter?(record) ?? true },
            receive: { record, filtering in
                if filtering, let filter, !filter(record) { return .delivered }
                return Self.call(handler, with: record)
            }
        )
        return EventSubscription(broker: self, id: id)
    }

    /// Returns a new stream of every published event of type `E`.
    ///
    /// Each call returns an independent stream with its own buffer. The subscription is removed
    /// when the consumer stops: its task is cancelled, or the stream and its iterator are released.
    /// - Parameters:
    ///   - type: The event type.
    ///   - priority: When the stream is fed relative to other subscribers of the same event.
    ///   - replay: Put the last `replay` matching records from ``history`` in the stream first;
    ///     live events follow with no gap or repeat.
    ///   - filter: Only records for which it returns true enter the stream.
    ///   - bufferingPolicy: What to do when the consumer falls behind; bounded by default
    ///     (``EventStreamBufferingPolicy/standard``). Drops are counted and each overflow is
    ///     reported as a ``ConsumerOverflowEvent``.
    /// - Returns: The stream.
    public func events<E: SwitchboardEvent>(
        of type: E.Type,
        priority: EventPriority = .normal,
        replay: Int = 0,
        where filter: (@Sendable (EventRecord<E>) -> Bool)? = nil,
        bufferingPolicy: EventStreamBufferingPolicy = .standard
    ) -> EventStream<EventRecord<E>> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: EventRecord<E>.self,
            bufferingPolicy: bufferingPolicy.streamPolicy(of: EventRecord<E>.self)
        )
        let id = state.withLock { $0.makeSubscriberID() }
        continuation.onTermination = { _ in self.removeSubscriber(id) }
        let monitor = OverflowMonitor(stream: E.eventName, policy: bufferingPolicy)
        register(
            id: id,
            priority: priority,
            scope: .event(E.self),
            replay: replay,
            accepts: Self.typedFilter(E.self, filter),
            receive: { record, filtering in
                guard let typed = record.typedRecord(as: E.self) else { return .delivered }
                if filtering, let filter, !filter(typed) { return .delivered }
                return Self.outcome(of: continuation.yield(typed), monitor: monitor) { _ in E.eventName }
            }
        )
        return EventStream(stream)
    }

    /// Returns a new stream of every published event whose type belongs to `category`.
    ///
    /// Each call returns an independent stream with its own buffer. The subscription is removed
    /// when the consumer stops: its task is cancelled, or the stream and its iterator are released.
    /// - Parameters:
    ///   - category: The category.
    ///   - priority: When the stream is fed relative to other subscribers of the same event.
    ///   - replay: Put the last `replay` matching records from ``history`` in the stream first;
    ///     live events follow with no gap or repeat.
    ///   - filter: Only records for which it returns true enter the stream.
    ///   - bufferingPolicy: What to do when the consumer falls behind; bounded by default
    ///     (``EventStreamBufferingPolicy/standard``). Drops are counted and each overflow is
    ///     reported as a ``ConsumerOverflowEvent``.
    /// - Returns: The stream.
    public func events(
        in category: EventCategory,
        priority: EventPriority = .normal,
        replay: Int = 0,
        where filter: (@Sendable (AnyEventRecord) -> Bool)? = nil,
        bufferingPolicy: EventStreamBufferingPolicy = .standard
    ) -> EventStream<AnyEventRecord> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: AnyEventRecord.self,
            bufferingPolicy: bufferingPolicy.streamPolicy(of: AnyEventRecord.self)
        )
        let id = state.withLock { $0.makeSubscriberID() }
        continuation.onTermination = { _ in self.removeSubscriber(id) }
        let monitor = OverflowMonitor(stream: "category:\(category)", policy: bufferingPolicy)
        register(
            id: id,
            priority: priority,
            scope: .category(category),
            replay: replay,
            accepts: { record in filter?(record) ?? true },
            receive: { record, filtering in
                if filtering, let filter, !filter(record) { return .delivered }
                return Self.outcome(of: continuation.yield(record), monitor: monitor) { dropped in dropped.eventName }
            }
        )
        return EventStream(stream)
    }

    private static func typedFilter<E: SwitchboardEvent>(
        _ type: E.Type,
        _ filter: (@Sendable (EventRecord<E>) -> Bool)?
    ) -> @Sendable (AnyEventRecord) -> Bool {
        { record in
            guard let typed = record.typedRecord(as: E.self) else { return false }
            return filter?(typed) ?? true
        }
    }

    private static func call<Record>(
        _ handler: @Sendable (Record) throws -> Void,
        with record: Record
    ) -> DeliveryOutcome {
        do {
            try handler(record)
            return .delivered
        } catch {
            return .failed(error)
        }
    }

    private static func outcome<Element>(
        of result: AsyncStream<Element>.Continuation.YieldResult,
        monitor: OverflowMonitor,
        droppedName: (Element) -> String
    ) -> DeliveryOutcome {
        let report = monitor.record(result)
        switch result {
        case .enqueued: return report.map(DeliveryOutcome.caughtUp) ?? .delivered
        case .dropped(let element): return .dropped(eventName: droppedName(element), overflow: report)
        case .terminated: return .terminated
        @unknown default: return .delivered
        }
    }
}
