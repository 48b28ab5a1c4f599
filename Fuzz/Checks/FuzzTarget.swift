import Foundation

/// The fuzz targets: each names a property of Switchboard's input parsing that must hold for any
/// bytes. The libFuzzer executables under `Fuzz/` call ``fuzz(_:_:)``; the unit tests run every
/// file of the committed seed corpus (`Fuzz/Corpus/<rawValue>/`) through ``check(_:)``.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// AppSync Events server frames (``AppSyncFrameCheck``).
    case appSyncCodec = "AppSyncCodec"
    /// GraphQL server frames in every dialect (``GraphQLFrameCheck``).
    case graphQLCodec = "GraphQLCodec"
    /// Event payloads decoded as every catalog model (``ModelPayloadCheck``).
    case models = "Models"

    /// Checks one input.
    /// - Throws: ``FuzzFinding`` when the property does not hold.
    package func check(_ input: [UInt8]) throws(FuzzFinding) {
        switch self {
        case .appSyncCodec: try AppSyncFrameCheck.check(input)
        case .graphQLCodec: try GraphQLFrameCheck.check(input)
        case .models: try ModelPayloadCheck.check(input)
        }
    }

    /// The body of `LLVMFuzzerTestOneInput`: a finding stops the process, which libFuzzer reports
    /// as a crash and saves the input of.
    package func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        do {
            try check(input)
        } catch {
            fatalError("\(rawValue): \(error)")
        }
        return 0
    }

    /// Runs every file of the committed seed corpus through ``check(_:)``.
    /// - Returns: One line per seed that breaks the property: its file name and the finding.
    /// - Throws: When the corpus directory cannot be read or is empty.
    package func checkSeeds() throws -> [String] {
        let directory = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appending(components: "Corpus", rawValue)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        guard !names.isEmpty else { throw FuzzFinding("no seeds in \(directory.path)") }
        return try names.compactMap { name in
            do {
                try check(Array(try Data(contentsOf: directory.appending(component: name))))
                return nil
            } catch let finding as FuzzFinding {
                return "\(name): \(finding)"
            }
        }
    }
}

/// A property a fuzz check found broken.
package struct FuzzFinding: Error, CustomStringConvertible, Sendable {
    package var description: String

    package init(_ description: String) { self.description = description }

    /// Requires `written`, what `value` was written as, to decode to `value` again.
    /// - Parameters:
    ///   - value: What the input decoded to.
    ///   - label: How a finding names the value.
    ///   - written: The encoding of `value`.
    ///   - decode: The decoder under test.
    /// - Throws: A finding when `written` does not decode, or decodes to another value.
    static func requireRoundTrip<Value: Equatable>(
        _ value: Value, label: String? = nil, written: String, _ decode: (String) throws -> Value
    ) throws(FuzzFinding) {
        let label = label ?? "\(value)"
        let again: Value
        do {
            again = try decode(written)
        } catch {
            throw FuzzFinding("\(label) was written as \(written), which does not decode: \(error)")
        }
        guard again == value else {
            throw FuzzFinding("\(label) was written as \(written), which decodes to \(again)")
        }
    }
}
