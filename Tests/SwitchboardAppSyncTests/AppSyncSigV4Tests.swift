import Foundation
import Testing

@testable import SwitchboardAppSync

/// Known answers for the AppSync Events SigV4 signer. Every expected value below was computed by
/// botocore's `SigV4Auth` and Python's `json.dumps` with `Scripts/generate-sigv4-vectors.py` at the repository
/// root; regenerate the `Vectors` enum with it rather than editing values by hand.
@Suite("AppSync SigV4 signer")
struct AppSyncSigV4Tests {
    static let credentials = AWSCredentials(
        accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")

    @Test("canonical request, string to sign and headers match botocore", arguments: Vectors.signing)
    fileprivate func signing(_ vector: SigningVector) {
        let signer = AppSyncSigV4(region: vector.region)
        let credentials = AWSCredentials(
            accessKeyId: Self.credentials.accessKeyId,
            secretAccessKey: Self.credentials.secretAccessKey,
            sessionToken: vector.sessionToken
        )
        let date = Date(timeIntervalSince1970: vector.secondsSince1970)
        let body = AppSyncSigV4.body(channel: vector.channel, events: vector.events)
        expectSameBytes(body, vector.body)

        let canonical = signer.canonicalRequest(
            body: body, signedHeaders: signer.signedHeaders(host: vector.host, credentials: credentials, date: date))
        expectSameBytes(canonical, vector.canonicalRequest.joined(separator: "\n"))
        let stringToSign = signer.stringToSign(canonicalRequest: canonical, date: date)
        expectSameBytes(stringToSign, vector.stringToSign.joined(separator: "\n"))
        #expect(
            signer.signature(stringToSign: stringToSign, secretAccessKey: credentials.secretAccessKey, date: date)
                == vector.signature)
        #expect(signer.headers(body: body, host: vector.host, credentials: credentials, date: date) == vector.headers)
    }

    @Test("the body builder gives json.dumps(separators=(',', ':'), ensure_ascii=False)", arguments: Vectors.bodies)
    fileprivate func body(_ vector: BodyVector) {
        expectSameBytes(AppSyncSigV4.body(channel: vector.channel, events: vector.events), vector.json)
    }

    @Test("x-amz-date is UTC, zero-padded and drops the fraction of a second")
    func timestamp() {
        #expect(AppSyncSigV4.timestamp(Date(timeIntervalSince1970: 0)) == "19700101T000000Z")
        #expect(AppSyncSigV4.timestamp(Date(timeIntervalSince1970: 1_798_761_599.999_9)) == "20261231T235959Z")
        #expect(AppSyncSigV4.dateStamp(Date(timeIntervalSince1970: 1_798_761_600)) == "20270101")
    }

    @Test("header values are trimmed and inner whitespace collapsed in the canonical request only")
    func trimAll() {
        let signer = AppSyncSigV4(region: "eu-west-1")
        let canonical = signer.canonicalRequest(body: "{}", signedHeaders: ["Host": "  a.example   b  ", "X-Amz-Date": "x"])
        #expect(canonical.contains("\nhost:a.example b\nx-amz-date:x\n\nhost;x-amz-date\n"))
    }

    @Test("description and dump never show the secret or the session token")
    func redaction() {
        let credentials = AWSCredentials(
            accessKeyId: "ASIAEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            sessionToken: "session-token-value")
        var dumped = ""
        dump(credentials, to: &dumped)
        for text in [credentials.description, "\(credentials)", String(reflecting: credentials), dumped] {
            #expect(!text.contains(credentials.secretAccessKey))
            #expect(!text.contains("session-token-value"))
            #expect(!text.contains("ASIAEXAMPLE"))
        }
        #expect(credentials.description == "AWSCredentials(accessKeyId: ASIA…, secret: <redacted>, sessionToken: <present>)")
        #expect(Self.credentials.description.hasSuffix("sessionToken: <none>)"))
    }
}

/// Compares UTF-8 bytes: `String`'s `==` treats canonically equivalent text (`é` and `e` + U+0301)
/// as equal, but a signature covers the exact bytes.
private func expectSameBytes(_ actual: String, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(Array(actual.utf8) == Array(expected.utf8), "\(actual) != \(expected)", sourceLocation: sourceLocation)
}

/// One request signed by botocore.
private struct SigningVector: Sendable, CustomTestStringConvertible {
    var name: String
    var region: String
    var host: String
    var channel: String?
    var events: [String]?
    /// The body botocore signed (from `json.dumps`).
    var body: String
    var sessionToken: String?
    var secondsSince1970: Double
    var canonicalRequest: [String]
    var stringToSign: [String]
    var signature: String
    var headers: [String: String]

    var testDescription: String { name }
}

/// One body from `json.dumps`.
private struct BodyVector: Sendable, CustomTestStringConvertible {
    var channel: String?
    var events: [String]?
    var json: String

    var testDescription: String { String(reflecting: json) }
}

private enum Vectors {
    // Generated by Scripts/generate-sigv4-vectors.py with botocore 1.43.11.
    static let signing: [SigningVector] = [
        SigningVector(
            name: "connect",
            region: "eu-west-1",
            host: "abcdefghijklmnopqrstuvwxyz.appsync-api.eu-west-1.amazonaws.com",
            channel: nil,
            events: nil,
            body: "{}",
            sessionToken: nil,
            secondsSince1970: 1795437296.0,
            canonicalRequest: [
                "POST",
                "/event",
                "",
                "accept:application/json, text/javascript",
                "content-encoding:amz-1.0",
                "content-type:application/json; charset=UTF-8",
                "host:abcdefghijklmnopqrstuvwxyz.appsync-api.eu-west-1.amazonaws.com",
                "x-amz-date:20261123T123456Z",
                "",
                "accept;content-encoding;content-type;host;x-amz-date",
                "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
            ],
            stringToSign: [
                "AWS4-HMAC-SHA256",
                "20261123T123456Z",
                "20261123/eu-west-1/appsync/aws4_request",
                "90c4ed323cc1c8678a9f7cc63c4168f8bc33dcbebbea9e1591538ee7218bc2f3",
            ],
            signature: "43f48a8e94ade988ee250a03d9d3072451cdcb9449c83c0856e490a32deb1f8e",
            headers: [
                "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261123/eu-west-1/appsync/aws4_request, SignedHeaders=accept;content-encoding;content-type;host;x-amz-date, Signature=43f48a8e94ade988ee250a03d9d3072451cdcb9449c83c0856e490a32deb1f8e",
                "accept": "application/json, text/javascript",
                "content-encoding": "amz-1.0",
                "content-type": "application/json; charset=UTF-8",
                "host": "abcdefghijklmnopqrstuvwxyz.appsync-api.eu-west-1.amazonaws.com",
                "x-amz-date": "20261123T123456Z",
            ]
        ),
        SigningVector(
            name: "subscribe with session token",
            region: "eu-west-1",
            host: "abcdefghijklmnopqrstuvwxyz.appsync-api.eu-west-1.amazonaws.com",
            channel: "/default/chat/room-1",
            events: nil,
            body: "{\"channel\":\"/default/chat/room-1\"}",
            sessionToken: "IQoJb3JpZ2luX2VjEXAMPLE//session+token/AQoDYXdzEJr===",
            secondsSince1970: 1795437296.0,
            canonicalRequest: [
                "POST",
                "/event",
                "",
                "accept:application/json, text/javascript",
                "content-encoding:amz-1.0",
                "content-type:application/json; charset=UTF-8",
                "host:abcdefghijklmnopqrstuvwxyz.appsync-api.eu-west-1.amazonaws.com",
                "x-amz-date:20261123T123456Z",
                "x-amz-security-token:IQoJb3JpZ2luX2VjEXAMPLE//session+token/AQoDYXdzEJr===",
                "",
                "accept;content-encoding;content-type;host;x-amz-date;x-amz-security-token",
                "ad0d3d8f2ece363ac296fe93bdbb80ae38014d3711b300aef8e069ab6a95b0fa",
            ],
            stringToSign: [
                "AWS4-HMAC-SHA256",
                "20261123T123456Z",
                "20261123/eu-west-1/appsync/aws4_request",
                "f1d3b616369197d96c039721a13e51a9e33e4f8ba775ae9aa26c39f83407666f",
            ],
            signature: "1cf75e7b9160c5dc16b9fb4ba0cd752fafb33067d53e9bd5256860dfae2db048",
            headers: [
                "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261123/eu-west-1/appsync/aws4_request, SignedHeaders=accept;content-encoding;content-type;host;x-amz-date;x-amz-security-token, Signature=1cf75e7b9160c5dc16b9fb4ba0cd752fafb33067d53e9bd5256860dfae2db048",
                "X-Amz-Security-Token": "IQoJb3JpZ2luX2VjEXAMPLE//session+token/AQoDYXdzEJr===",
                "accept": "application/json, text/javascript",
                "content-encoding": "amz-1.0",
                "content-type": "application/json; charset=UTF-8",
                "host": "abcdefghijklmnopqrstuvwxyz.appsync-api.eu-west-1.amazonaws.com",
                "x-amz-date": "20261123T123456Z",
            ]
        ),
        SigningVector(
            name: "publish with markup and non-ASCII",
            region: "us-east-1",
            host: "example1234567890.appsync-api.us-east-1.amazonaws.com",
            channel: "/default/news",
            events: [
                "{\"text\":\"<b>Fish & Chips</b> a/b \\\"quoted\\\" Grüße 日本 🚀\"}",
                "{\"a\":1}",
                "\"plain string event\"",
            ],
            body: "{\"channel\":\"/default/news\",\"events\":[\"{\\\"text\\\":\\\"<b>Fish & Chips</b> a/b \\\\\\\"quoted\\\\\\\" Grüße 日本 🚀\\\"}\",\"{\\\"a\\\":1}\",\"\\\"plain string event\\\"\"]}",
            sessionToken: nil,
            secondsSince1970: 1795437296.0,
            canonicalRequest: [
                "POST",
                "/event",
                "",
                "accept:application/json, text/javascript",
                "content-encoding:amz-1.0",
                "content-type:application/json; charset=UTF-8",
                "host:example1234567890.appsync-api.us-east-1.amazonaws.com",
                "x-amz-date:20261123T123456Z",
                "",
                "accept;content-encoding;content-type;host;x-amz-date",
                "c9ba278c78119dbea411e6590ae3f8626866a924ced5ca5674fbded06b728e4b",
            ],
            stringToSign: [
                "AWS4-HMAC-SHA256",
                "20261123T123456Z",
                "20261123/us-east-1/appsync/aws4_request",
                "c26618bb54a476a199d6048594db7430b0ed5113f9bf4ba35b39c294fc92de75",
            ],
            signature: "19d13ea3df3f2ce1dc46addad535fbf53ab4530e8ba29aa2e65b99848b993542",
            headers: [
                "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261123/us-east-1/appsync/aws4_request, SignedHeaders=accept;content-encoding;content-type;host;x-amz-date, Signature=19d13ea3df3f2ce1dc46addad535fbf53ab4530e8ba29aa2e65b99848b993542",
                "accept": "application/json, text/javascript",
                "content-encoding": "amz-1.0",
                "content-type": "application/json; charset=UTF-8",
                "host": "example1234567890.appsync-api.us-east-1.amazonaws.com",
                "x-amz-date": "20261123T123456Z",
            ]
        ),
        SigningVector(
            name: "connect, padded date and fraction",
            region: "ap-southeast-2",
            host: "events.example.com",
            channel: nil,
            events: nil,
            body: "{}",
            sessionToken: "IQoJb3JpZ2luX2VjEXAMPLE//session+token/AQoDYXdzEJr===",
            secondsSince1970: 1767582245.999,
            canonicalRequest: [
                "POST",
                "/event",
                "",
                "accept:application/json, text/javascript",
                "content-encoding:amz-1.0",
                "content-type:application/json; charset=UTF-8",
                "host:events.example.com",
                "x-amz-date:20260105T030405Z",
                "x-amz-security-token:IQoJb3JpZ2luX2VjEXAMPLE//session+token/AQoDYXdzEJr===",
                "",
                "accept;content-encoding;content-type;host;x-amz-date;x-amz-security-token",
                "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
            ],
            stringToSign: [
                "AWS4-HMAC-SHA256",
                "20260105T030405Z",
                "20260105/ap-southeast-2/appsync/aws4_request",
                "e72e948cb9cc802a8f8b49ce60bb89c4eb13cfbd94c718903caf50b7a36344d4",
            ],
            signature: "a5b5a26dfa4b1652f3f4c7383db7153295fee5059fa2d68fac6de2f2619996bd",
            headers: [
                "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260105/ap-southeast-2/appsync/aws4_request, SignedHeaders=accept;content-encoding;content-type;host;x-amz-date;x-amz-security-token, Signature=a5b5a26dfa4b1652f3f4c7383db7153295fee5059fa2d68fac6de2f2619996bd",
                "X-Amz-Security-Token": "IQoJb3JpZ2luX2VjEXAMPLE//session+token/AQoDYXdzEJr===",
                "accept": "application/json, text/javascript",
                "content-encoding": "amz-1.0",
                "content-type": "application/json; charset=UTF-8",
                "host": "events.example.com",
                "x-amz-date": "20260105T030405Z",
            ]
        ),
    ]

    static let bodies: [BodyVector] = [
        BodyVector(
            channel: nil,
            events: nil,
            json: "{}"
        ),
        BodyVector(
            channel: "/ns/a",
            events: nil,
            json: "{\"channel\":\"/ns/a\"}"
        ),
        BodyVector(
            channel: "/ns/a",
            events: [],
            json: "{\"channel\":\"/ns/a\",\"events\":[]}"
        ),
        BodyVector(
            channel: "/ns/a",
            events: [
                "{\"a\":1}",
            ],
            json: "{\"channel\":\"/ns/a\",\"events\":[\"{\\\"a\\\":1}\"]}"
        ),
        BodyVector(
            channel: nil,
            events: [
                "x",
            ],
            json: "{\"events\":[\"x\"]}"
        ),
        BodyVector(
            channel: "/ns/<script>&amp;",
            events: [
                "<>&",
                "a/b/c",
                "say \"hi\"",
                "back\\slash",
            ],
            json: "{\"channel\":\"/ns/<script>&amp;\",\"events\":[\"<>&\",\"a/b/c\",\"say \\\"hi\\\"\",\"back\\\\slash\"]}"
        ),
        BodyVector(
            channel: "/ns/grüße",
            events: [
                "Grüße 日本 🚀",
                "e\u{301} ﬁ \u{A0}",
                "\u{2028}\u{2029}",
            ],
            json: "{\"channel\":\"/ns/grüße\",\"events\":[\"Grüße 日本 🚀\",\"e\u{301} ﬁ \u{A0}\",\"\u{2028}\u{2029}\"]}"
        ),
        BodyVector(
            channel: "/ns/ctl",
            events: [
                "tab\u{9}here",
                "line\u{A}feed",
                "crlf\u{D}\u{A}",
                "\u{8}\u{C}",
                "\u{0}\u{1}\u{1F}",
                "del\u{7F}",
            ],
            json: "{\"channel\":\"/ns/ctl\",\"events\":[\"tab\\there\",\"line\\nfeed\",\"crlf\\r\\n\",\"\\b\\f\",\"\\u0000\\u0001\\u001f\",\"del\u{7F}\"]}"
        ),
    ]
}
