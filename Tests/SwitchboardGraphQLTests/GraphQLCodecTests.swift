import Foundation
@testable import SwitchboardGraphQL
import SwitchboardCore
import Testing

@Suite("GraphQL codecs", .timeLimit(.minutes(1)))
struct GraphQLCodecTests {
    let operation = GraphQLOperation(query: "subscription S { s }", variables: ["userId": "u1"], operationName: "S")

    @Test("legacy graphql-ws encodes init with Authorization, start, stop, terminate")
    func legacyEncode() throws {
        let codec = GraphQLCodec(.graphQLWS)
        #expect(try codec.encode(.connectionInit(token: "t")) == #"{"payload":{"Authorization":"t"},"type":"connection_init"}"#)
        #expect(try codec.encode(.subscribe(id: "1", operation: operation, authorization: nil))
            == #"{"id":"1","payload":{"operationName":"S","query":"subscription S { s }","variables":{"userId":"u1"}},"type":"start"}"#)
        #expect(try codec.encode(.unsubscribe(id: "1")) == #"{"id":"1","type":"stop"}"#)
        #expect(try codec.encode(.terminate) == #"{"type":"connection_terminate"}"#)
    }

    @Test("legacy graphql-ws decodes ack, ka, data, error, complete, connection_error")
    func legacyDecode() throws {
        let codec = GraphQLCodec(.graphQLWS)
        #expect(try codec.decode(#"{"type":"connection_ack"}"#) == .connectionAck(keepAliveWindow: nil))
        #expect(try codec.decode(#"{"type":"ka"}"#) == .keepAlive)
        #expect(try codec.decode(#"{"type":"data","id":"1","payload":{"data":{"a":1}}}"#)
            == .next(id: "1", data: ResultData(Data(#"{"a":1}"#.utf8)), errors: []))
        #expect(try codec.decode(#"{"type":"data","id":"1","payload":{"data":null,"errors":[{"message":"bad"}]}}"#)
            == .next(id: "1", data: nil, errors: [GraphQLServerError(message: "bad")]))
        #expect(try codec.decode(#"{"type":"error","id":"1","payload":{"message":"boom"}}"#)
            == .error(id: "1", errors: [GraphQLServerError(message: "boom")]))
        #expect(try codec.decode(#"{"type":"complete","id":"1"}"#) == .complete(id: "1"))
        #expect(try codec.decode(#"{"type":"connection_error","payload":{"message":"no"}}"#)
            == .connectionError([GraphQLServerError(message: "no")]))
    }

    @Test("graphql-transport-ws encodes subscribe, complete, ping, pong and decodes next, error array, ping")
    func transportWS() throws {
        let codec = GraphQLCodec(.graphQLTransportWS)
        #expect(try codec.encode(.unsubscribe(id: "2")) == #"{"id":"2","type":"complete"}"#)
        #expect(try codec.encode(.ping) == #"{"type":"ping"}"#)
        #expect(try codec.encode(.pong(payload: #"{"x":1}"#)) == #"{"payload":{"x":1},"type":"pong"}"#)
        #expect(try codec.encode(.subscribe(id: "2", operation: operation, authorization: nil)).contains(#""type":"subscribe""#))
        #expect(try codec.decode(#"{"type":"next","id":"2","payload":{"data":{"b":true}}}"#)
            == .next(id: "2", data: ResultData(Data(#"{"b":true}"#.utf8)), errors: []))
        #expect(try codec.decode(#"{"type":"error","id":"2","payload":[{"message":"denied"}]}"#)
            == .error(id: "2", errors: [GraphQLServerError(message: "denied")]))
        #expect(try codec.decode(#"{"type":"ping","payload":{"x":1}}"#) == .ping(payload: #"{"x":1}"#))
        #expect(try codec.decode(#"{"type":"pong"}"#) == .pong)
    }

    @Test("AppSync start carries data as a JSON string and extensions.authorization; decodes start_ack and id-less errors")
    func appSync() throws {
        let codec = GraphQLCodec(.appSyncGraphQL)
        #expect(try codec.encode(.connectionInit(token: "secret")) == #"{"type":"connection_init"}"#)
        let start = try codec.encode(.subscribe(id: "x", operation: operation, authorization: ["host": "h", "Authorization": "t"]))
        let parsed = try JSONValue.parse(start)
        #expect(parsed["payload"]?["extensions"]?["authorization"]?["Authorization"] == .string("t"))
        let data = try #require(parsed["payload"]?["data"]?.string)
        #expect(try JSONValue.parse(data)["variables"]?["userId"] == .string("u1"))
        #expect(try codec.decode(#"{"type":"connection_ack","payload":{"connectionTimeoutMs":300000}}"#)
            == .connectionAck(keepAliveWindow: .seconds(300)))
        #expect(try codec.decode(#"{"type":"start_ack","id":"x"}"#) == .subscriptionAck(id: "x"))
        #expect(try codec.decode(#"{"type":"error","payload":{"errors":{"errorType":"LimitExceededError","message":"slow down"}}}"#)
            == .error(id: nil, errors: [GraphQLServerError(message: "slow down", errorType: "LimitExceededError")]))
        let rejected = try codec.decode(#"{"type":"connection_error","payload":{"errors":[{"errorType":"UnauthorizedException","errorCode":401,"message":"no"}]}}"#)
        guard case .connectionError(let errors) = rejected else { Issue.record("not a connection_error"); return }
        #expect(errors.first?.isAuthorization == true)
    }

    @Test("malformed frames are typed errors", arguments: GraphQLProtocol.allCases)
    func malformed(_ dialect: GraphQLProtocol) {
        let codec = GraphQLCodec(dialect)
        for text in ["not json", "[1]", #"{"id":"1"}"#, #"{"type":"bogus"}"#, #"{"type":"complete"}"#] {
            #expect(throws: GraphQLCodecError.self) { try codec.decode(text) }
        }
    }

    @Test("protocol names parse; an unknown one names the allowed values")
    func parsing() throws {
        #expect(try GraphQLProtocol(parsing: "graphql-transport-ws") == .graphQLTransportWS)
        #expect(try GraphQLProtocol(parsing: "appsync-graphql") == .appSyncGraphQL)
        do {
            _ = try GraphQLProtocol(parsing: "mqtt")
            Issue.record("parsed an unknown protocol")
        } catch let error as SwitchboardError {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.contains("graphql-ws, graphql-transport-ws, appsync-graphql"))
        }
    }
}
