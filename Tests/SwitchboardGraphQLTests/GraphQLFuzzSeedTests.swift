import SwitchboardFuzzChecks
import SwitchboardGraphQL
import Testing

@Suite("GraphQL codec fuzz target")
struct GraphQLFuzzSeedTests {
    @Test("every seed frame, in its dialect, fails to decode or round-trips through a written frame")
    func seeds() throws {
        let findings = try FuzzTarget.graphQLCodec.checkSeeds()
        #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
    }

    /// Seen while writing the round trip, then run through the fuzz target: `Int64(1e19)` trapped.
    @Test("a connectionTimeoutMs or errorCode float outside Int64 is ignored, not a crash")
    func floatsOutOfRange() throws {
        let ack = #"2{"type":"connection_ack","payload":{"connectionTimeoutMs":1e19}}"#
        let error = #"0{"type":"error","id":"1","payload":{"message":"x","errorCode":1e19}}"#
        for input in [ack, error] {
            #expect(throws: Never.self) { try FuzzTarget.graphQLCodec.check(Array(input.utf8)) }
        }
        let codec = GraphQLCodec(.appSyncGraphQL)
        #expect(try codec.decode(String(ack.dropFirst())) == .connectionAck(keepAliveWindow: nil))
        #expect(try codec.decode(#"{"type":"connection_ack","payload":{"connectionTimeoutMs":0.5}}"#) == .connectionAck(keepAliveWindow: nil))
        #expect(try codec.decode(#"{"type":"connection_ack","payload":{"connectionTimeoutMs":3e5}}"#)
            == .connectionAck(keepAliveWindow: .seconds(300)))
        #expect(try GraphQLCodec(.graphQLWS).decode(String(error.dropFirst()))
            == .error(id: "1", errors: [GraphQLServerError(message: "x")]))
    }
}
