import SwitchboardTesting

/// A fault the soak injects into the emulator.
package enum ChaosFault: Sendable, Equatable, CustomStringConvertible {
    /// Close every connection with a close frame.
    case drop(code: UInt16)
    /// Close every connection's TCP stream without a close frame.
    case abort
    /// Hold every connection's output (data and keep-alives) for a while; long enough, the
    /// client's keep-alive watchdog gives up on it.
    case stall(Duration)
    /// One text frame that is not JSON to every connection.
    case garbage
    /// Refuse the next connection's credentials (then drop, so one is made at once).
    case rejectAuthentication
    /// Delay every outbound frame by the first duration, for the second.
    case latency(Duration, lasting: Duration)

    /// The kind, as `--faults` names it.
    package var kind: Kind {
        switch self {
        case .drop: .drop
        case .abort: .abort
        case .stall: .stall
        case .garbage: .garbage
        case .rejectAuthentication: .auth
        case .latency: .latency
        }
    }

    package var description: String {
        switch self {
        case .drop(let code): "drop(\(code))"
        case .abort: "abort"
        case .stall(let duration): "stall(\(duration))"
        case .garbage: "garbage"
        case .rejectAuthentication: "auth"
        case .latency(let latency, let lasting): "latency(\(latency) for \(lasting))"
        }
    }

    package enum Kind: String, CaseIterable, Sendable {
        case drop, abort, stall, garbage, auth, latency
    }
}

/// Draws the soak's faults and the pauses between them from a seeded generator, so a seed
/// replays the same sequence of decisions (the timing of the machine still varies). Pure.
///
/// The kinds come in rounds: each kind once, in an order the seed shuffles, before any comes
/// again. A short run on a busy machine, which gets only a few faults in, still gets as many
/// kinds as faults (drawn independently, its first six faults were often of three kinds).
package struct ChaosPlan: Sendable {
    /// The kinds to draw from, with equal weight.
    package var kinds: [ChaosFault.Kind]
    /// The pause before each fault, drawn uniformly from this range of milliseconds.
    package var pause: ClosedRange<Int>
    /// The longest stall, in milliseconds; the keep-alive deadline should fall inside it.
    package var longestStall: Int
    private var random: SeededRandomNumberGenerator
    /// The kinds of the round being drawn, taken from the end.
    private var round: [ChaosFault.Kind] = []

    package init(
        seed: UInt64, kinds: [ChaosFault.Kind] = ChaosFault.Kind.allCases, pause: ClosedRange<Int> = 100...1500,
        longestStall: Int = 4000
    ) {
        precondition(!kinds.isEmpty, "a chaos plan needs at least one kind of fault")
        self.kinds = kinds
        self.pause = pause
        self.longestStall = max(100, longestStall)
        random = SeededRandomNumberGenerator(seed: seed)
    }

    /// The pause before the next fault, and the fault.
    package mutating func next() -> (pause: Duration, fault: ChaosFault) {
        let pause = Duration.milliseconds(Int.random(in: pause, using: &random))
        let fault: ChaosFault =
            switch nextKind() {
            case .drop: .drop(code: [1000, 1001, 1011, 4000].randomElement(using: &random)!)
            case .abort: .abort
            case .stall: .stall(.milliseconds(Int.random(in: 100...longestStall, using: &random)))
            case .garbage: .garbage
            case .auth: .rejectAuthentication
            case .latency:
                .latency(
                    .milliseconds(Int.random(in: 1...20, using: &random)),
                    lasting: .milliseconds(Int.random(in: 200...2000, using: &random)))
            }
        return (pause, fault)
    }

    /// The next kind of the round, shuffling a new round when it is spent.
    private mutating func nextKind() -> ChaosFault.Kind {
        if round.isEmpty { round = kinds.shuffled(using: &random) }
        return round.removeLast()
    }

    /// Parses `--faults`: a comma-separated list of kinds, or `all`, or `none`.
    package static func kinds(parsing text: String) throws(SoakError) -> [ChaosFault.Kind] {
        if text == "all" { return ChaosFault.Kind.allCases }
        if text == "none" { return [] }
        var kinds: [ChaosFault.Kind] = []
        for part in text.split(separator: ",") {
            guard let kind = ChaosFault.Kind(rawValue: String(part)) else {
                throw SoakError(
                    "unknown fault '\(part)'; allowed: \(ChaosFault.Kind.allCases.map(\.rawValue).joined(separator: ", ")), all, none")
            }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        return kinds
    }
}

/// A soak that could not run as asked (a bad option, an emulator that did not start).
package struct SoakError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
