/// What was published to and delivered on each stream, and what follows: missing, duplicated
/// and out-of-order events. Pure.
///
/// Each event takes a slot. With ``Identity/unique`` the slot is the event's round, so every
/// event is told apart: a slot never delivered is missing, one delivered twice is a duplicate,
/// and a first delivery below the highest round already delivered is out of order. With
/// ``Identity/classes(_:)`` the slot is a value class (two plan events with the same flag are
/// the same to a consumer): missing and duplicated are the shortfall and excess per class, and
/// order is not checked.
package struct SoakLedger: Sendable {
    package enum Identity: Sendable, Equatable {
        case unique
        case classes(Int)
    }

    /// The figures of one stream.
    package struct Tally: Sendable, Equatable {
        package var published = 0
        /// Every delivery, duplicates included.
        package var delivered = 0
        package var missing = 0
        package var duplicated = 0
        package var outOfOrder = 0
        /// Deliveries the consumer could not match to any published event.
        package var unrecognised = 0

        package static func + (lhs: Tally, rhs: Tally) -> Tally {
            Tally(
                published: lhs.published + rhs.published, delivered: lhs.delivered + rhs.delivered,
                missing: lhs.missing + rhs.missing, duplicated: lhs.duplicated + rhs.duplicated,
                outOfOrder: lhs.outOfOrder + rhs.outOfOrder, unrecognised: lhs.unrecognised + rhs.unrecognised)
        }
    }

    private struct Book: Sendable {
        var identity: Identity
        /// Published events per slot (unique: one per round below `published`).
        var publishedPerClass: [Int]
        var published = 0
        /// Unique: deliveries per round from round `base` on, saturating at 255. The rounds
        /// before `base` were all delivered and are forgotten, so the ledger holds only the
        /// rounds around the ones still missing and stays small over an hour's soak (its memory
        /// counts as the client's).
        var deliveries: [UInt8] = []
        var base = 0
        /// How many leading counts of `deliveries` are not zero.
        var deliveredPrefix = 0
        /// Deliveries beyond the first of the forgotten rounds.
        var duplicatedBefore = 0
        /// Classes: deliveries per class.
        var classDeliveries: [Int] = []
        var delivered = 0
        /// Slots (unique) or events (classes) delivered at least once and published.
        var covered = 0
        var highest = -1
        var outOfOrder = 0
        var unrecognised = 0

        mutating func deliverUnique(_ slot: Int) {
            guard slot >= base else {
                duplicatedBefore += 1
                return
            }
            let index = slot - base
            if index >= deliveries.count {
                deliveries.append(contentsOf: repeatElement(0, count: index + 1 - deliveries.count))
            }
            let count = deliveries[index]
            if count == 0 {
                covered += 1
                if slot < highest { outOfOrder += 1 }
                highest = max(highest, slot)
            }
            deliveries[index] = count == .max ? count : count + 1
            guard index == deliveredPrefix else { return }
            while deliveredPrefix < deliveries.count, deliveries[deliveredPrefix] > 0 { deliveredPrefix += 1 }
            // Forgets the leading rounds that were all delivered, once there are enough of them.
            guard deliveredPrefix >= SoakLedger.forgetInBatchesOf else { return }
            duplicatedBefore += deliveries[..<deliveredPrefix].reduce(0) { $0 + Int($1) - 1 }
            deliveries.removeFirst(deliveredPrefix)
            base += deliveredPrefix
            deliveredPrefix = 0
        }

        /// The rounds it still holds a count for.
        var heldRounds: Int { deliveries.count }

        init(identity: Identity) {
            self.identity = identity
            if case .classes(let count) = identity {
                publishedPerClass = Array(repeating: 0, count: count)
                classDeliveries = Array(repeating: 0, count: count)
            } else {
                publishedPerClass = []
            }
        }
    }

    private var books: [Book]

    package init(identities: [Identity]) {
        books = identities.map(Book.init)
    }

    package mutating func published(_ stream: Int, slot: Int) {
        books[stream].published += 1
        if case .classes = books[stream].identity { books[stream].publishedPerClass[slot] += 1 }
    }

    /// Records a delivery; `slot` is nil when the value matched no event.
    package mutating func delivered(_ stream: Int, slot: Int?) {
        books[stream].delivered += 1
        guard let slot, slot >= 0 else {
            books[stream].unrecognised += 1
            return
        }
        switch books[stream].identity {
        case .unique:
            // Events are counted before they are published: a round beyond them is no event.
            guard slot < books[stream].published else {
                books[stream].unrecognised += 1
                return
            }
            books[stream].deliverUnique(slot)
        case .classes(let classes):
            guard slot < classes else {
                books[stream].unrecognised += 1
                return
            }
            if books[stream].classDeliveries[slot] < books[stream].publishedPerClass[slot] { books[stream].covered += 1 }
            books[stream].classDeliveries[slot] += 1
        }
    }

    /// Whether every published event has been delivered at least once.
    package var isComplete: Bool { books.allSatisfy { $0.covered >= $0.published } }

    /// The rounds the ledger holds a count for, over every stream (what it keeps in memory, at a
    /// byte each).
    package var heldRounds: Int { books.reduce(0) { $0 + $1.heldRounds } }

    /// How many leading rounds, all delivered, a stream's book forgets at a time: what bounds
    /// ``heldRounds`` while events keep arriving in order.
    static let forgetInBatchesOf = 4096

    /// Deliveries so far, over every stream.
    package var deliveredTotal: Int { books.reduce(0) { $0 + $1.delivered } }

    package func tally(_ stream: Int) -> Tally {
        let book = books[stream]
        var tally = Tally(
            published: book.published, delivered: book.delivered, outOfOrder: book.outOfOrder,
            unrecognised: book.unrecognised)
        switch book.identity {
        case .unique:
            tally.duplicated = book.duplicatedBefore
            for count in book.deliveries where count > 1 { tally.duplicated += Int(count) - 1 }
            tally.missing = book.published - book.covered
        case .classes:
            for (slot, published) in book.publishedPerClass.enumerated() {
                tally.missing += max(0, published - book.classDeliveries[slot])
                tally.duplicated += max(0, book.classDeliveries[slot] - published)
            }
        }
        return tally
    }
}
