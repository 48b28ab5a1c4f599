import Foundation
import Switchboard
import SwitchboardCore
import SwitchboardGraphQL

/// Event payloads, decoded as every catalog model the way ``BackendNotifier`` does: as an AppSync
/// Events payload, and as a legacy GraphQL result once the GraphQL transport mapped it. Decoding either
/// fails with ``SwitchboardError/Code/decodingFailed`` or yields a value that encodes, and decodes
/// from its encoding to an equal value. The notifier's fast path (the fields read straight from
/// the parsed document) gives a value equal (`==`) to what `JSONDecoder` alone gives.
package enum ModelPayloadCheck {
    /// Checks one payload against every stream of the catalog.
    /// - Throws: ``FuzzFinding`` when the property does not hold.
    package static func check(_ input: [UInt8]) throws(FuzzFinding) {
        let data = Data(input)
        for descriptor in StreamCatalog.all {
            try roundTrip(descriptor.outputType, data)
        }
        // The GraphQL transport maps a legacy result to the new contract before any model reads
        // it; the streams its eventTypes name decode what it hands on.
        let outcome = LegacyResults.envelope(from: data, subscription: "fuzz", receivedAt: Date(timeIntervalSince1970: 0))
        if case .event(let envelope) = outcome, !envelope.eventTypes.isEmpty {
            for descriptor in StreamCatalog.all where !descriptor.eventTypes.isDisjoint(with: envelope.eventTypes) {
                try roundTrip(descriptor.outputType, envelope.payload)
            }
        }
    }

    private static func roundTrip<Output: CatalogEvent>(_ type: Output.Type, _ data: Data) throws(FuzzFinding) {
        // The notifier lists unknown fields of every payload it decodes, at debug level.
        _ = EventPayloadDecoder.unknownFields(in: data, known: Output.knownFieldNames)
        let value: Output
        do throws(SwitchboardError) {
            value = try EventPayloadDecoder.decode(Output.self, from: data)
        } catch where error.code == .decodingFailed {
            return
        } catch {
            throw FuzzFinding("\(Output.self) failed with \(error), not decodingFailed")
        }
        let reference: Output
        do throws(SwitchboardError) {
            reference = try EventPayloadDecoder.decodeWithJSONDecoder(Output.self, from: data)
        } catch {
            throw FuzzFinding("\(Output.self) \(value) decoded on the fast path, but JSONDecoder fails: \(error)")
        }
        guard reference == value else {
            throw FuzzFinding("\(Output.self): the fast path gives \(value), JSONDecoder gives \(reference)")
        }
        let encoded: Data
        do {
            encoded = try JSONEncoder().encode(value)
        } catch {
            throw FuzzFinding("\(Output.self) \(value) decoded but does not encode: \(error)")
        }
        try FuzzFinding.requireRoundTrip(value, label: "\(Output.self) \(value)", written: String(decoding: encoded, as: UTF8.self)) {
            try EventPayloadDecoder.decode(Output.self, from: Data($0.utf8))
        }
    }
}
