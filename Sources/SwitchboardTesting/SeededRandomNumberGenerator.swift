/// A small, fast, deterministic random number generator (the SplitMix64 algorithm) for tests:
/// the same seed always gives the same sequence, on every platform.
///
/// Pass it wherever an API takes `inout some RandomNumberGenerator`, such as
/// `ReconnectPolicy.decision(for:attempt:using:)`, to make jitter reproducible. Not suitable for
/// anything that needs unpredictability.
public struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator.
    /// - Parameter seed: The starting state; equal seeds give equal sequences.
    public init(seed: UInt64) {
        state = seed
    }

    /// Returns the next value in the sequence.
    /// - Returns: 64 pseudo-random bits.
    public mutating func next() -> UInt64 {
        // SplitMix64: step by the 64-bit golden-ratio increment, then scramble the counter.
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
