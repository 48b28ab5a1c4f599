import Crypto
import Foundation

/// AWS credentials for IAM (Signature Version 4) authorization.
///
/// Printing never reveals the secrets: ``description`` (used by `print` and string
/// interpolation) and the mirror (used by `dump` and debuggers) show only the first four
/// characters of the access key ID, and whether a session token is present.
public struct AWSCredentials: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The access key ID, for example `AKIAIOSFODNN7EXAMPLE`.
    public var accessKeyId: String
    /// The secret access key. Never printed.
    public var secretAccessKey: String
    /// The session token of temporary credentials (from STS or an instance role, for example);
    /// `nil` for long-term keys. Never printed.
    public var sessionToken: String?

    /// Creates credentials.
    /// - Parameters:
    ///   - accessKeyId: The access key ID.
    ///   - secretAccessKey: The secret access key.
    ///   - sessionToken: The session token that comes with temporary credentials, if any.
    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// `AWSCredentials(accessKeyId: AKIA…, secret: <redacted>, sessionToken: <present>)`, or
    /// `<none>` without a session token.
    public var description: String {
        "AWSCredentials(accessKeyId: \(redactedAccessKeyId), secret: <redacted>, sessionToken: \(redactedSessionToken))"
    }

    /// The same redacted fields as ``description``, so `dump` shows no secret either.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "accessKeyId": redactedAccessKeyId,
                "secretAccessKey": "<redacted>",
                "sessionToken": redactedSessionToken,
            ],
            displayStyle: .struct
        )
    }

    private var redactedAccessKeyId: String { "\(accessKeyId.prefix(4))…" }
    private var redactedSessionToken: String { sessionToken == nil ? "<none>" : "<present>" }
}

/// Signs, with AWS Signature Version 4 (`AWS4-HMAC-SHA256`), the synthetic
/// `POST https://<host>/event` request against which AppSync Events checks IAM authorization.
///
/// The request is never sent: its signed headers travel in the connect subprotocol and in the
/// `authorization` object of every `subscribe` and `publish`, and AppSync rebuilds the request
/// from them and from the message (see ``body(channel:events:)``). The canonical request has
/// the method `POST`, the path `/event`, no query, and signs `accept`, `content-encoding`,
/// `content-type`, `host`, `x-amz-date` and, with temporary credentials,
/// `x-amz-security-token`: the session token is signed, as botocore's `SigV4Auth` does.
struct AppSyncSigV4 {
    /// The API's region, for example `eu-west-1`.
    var region: String
    /// The service the signature is scoped to.
    var service: String = "appsync"

    /// The signing algorithm's name, first in the string to sign and in `Authorization`.
    static let algorithm = "AWS4-HMAC-SHA256"

    /// Every header of the authorization object: the signed ones plus `Authorization`.
    ///
    /// Header names are spelled as AppSync's clients send them: lower-case, except
    /// `X-Amz-Security-Token` (only with a session token) and `Authorization`.
    /// - Parameters:
    ///   - body: The exact body that is signed, usually from ``body(channel:events:)``.
    ///   - host: The API's HTTP host (`<id>.appsync-api.<region>.amazonaws.com` or a custom domain).
    ///   - credentials: The credentials to sign with.
    ///   - date: The signing time; fractions of a second are dropped.
    func headers(body: String, host: String, credentials: AWSCredentials, date: Date) -> [String: String] {
        var headers = signedHeaders(host: host, credentials: credentials, date: date)
        let names = Self.signedHeaderNames(headers)
        let canonical = canonicalRequest(body: body, signedHeaders: headers)
        let signature = signature(
            stringToSign: stringToSign(canonicalRequest: canonical, date: date),
            secretAccessKey: credentials.secretAccessKey,
            date: date
        )
        headers["Authorization"] =
            "\(Self.algorithm) Credential=\(credentials.accessKeyId)/\(credentialScope(date: date)), "
            + "SignedHeaders=\(names), Signature=\(signature)"
        return headers
    }

    /// The headers that are signed, named as AppSync's clients send them.
    func signedHeaders(host: String, credentials: AWSCredentials, date: Date) -> [String: String] {
        var headers = [
            "accept": "application/json, text/javascript",
            "content-encoding": "amz-1.0",
            "content-type": "application/json; charset=UTF-8",
            "host": host,
            "x-amz-date": Self.timestamp(date),
        ]
        if let sessionToken = credentials.sessionToken {
            headers["X-Amz-Security-Token"] = sessionToken
        }
        return headers
    }

    /// The canonical request: method, path, empty query, canonical headers, signed header
    /// names and the hex SHA-256 of the body's UTF-8 bytes, one per line.
    /// - Parameters:
    ///   - body: The exact body; it is hashed as given, never re-encoded.
    ///   - signedHeaders: The headers to sign, from ``signedHeaders(host:credentials:date:)``.
    func canonicalRequest(body: String, signedHeaders: [String: String]) -> String {
        let canonicalHeaders = signedHeaders
            .map { (name: $0.key.lowercased(), value: Self.trimAll($0.value)) }
            .sorted { $0.name < $1.name }
            .map { "\($0.name):\($0.value)\n" }
            .joined()
        return [
            "POST",
            "/event",
            "",
            canonicalHeaders,
            Self.signedHeaderNames(signedHeaders),
            Self.hex(SHA256.hash(data: Array(body.utf8))),
        ].joined(separator: "\n")
    }

    /// The string to sign: algorithm, timestamp, credential scope and the hex SHA-256 of the
    /// canonical request, one per line.
    func stringToSign(canonicalRequest: String, date: Date) -> String {
        [
            Self.algorithm,
            Self.timestamp(date),
            credentialScope(date: date),
            Self.hex(SHA256.hash(data: Array(canonicalRequest.utf8))),
        ].joined(separator: "\n")
    }

    /// The hex HMAC-SHA256 of `stringToSign` under the key derived from the secret access key
    /// for the date, region and service.
    func signature(stringToSign: String, secretAccessKey: String, date: Date) -> String {
        var key = SymmetricKey(data: Array("AWS4\(secretAccessKey)".utf8))
        for scope in [Self.dateStamp(date), region, service, "aws4_request"] {
            key = SymmetricKey(data: HMAC<SHA256>.authenticationCode(for: Array(scope.utf8), using: key))
        }
        return Self.hex(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key))
    }

    /// `yyyyMMdd/<region>/<service>/aws4_request`.
    func credentialScope(date: Date) -> String {
        "\(Self.dateStamp(date))/\(region)/\(service)/aws4_request"
    }

    /// The compact JSON body AppSync signs for a message: `{}` for connect,
    /// `{"channel":"/ns/a"}` for subscribe, `{"channel":"/ns/a","events":["…"]}` for publish.
    ///
    /// `channel` comes before `events`, and strings are escaped as `JSON.stringify` and Python's
    /// `json.dumps(…, separators=(",", ":"), ensure_ascii=False)` escape them (see
    /// ``jsonString(_:)``).
    /// - Parameters:
    ///   - channel: The channel, or `nil` to leave the member out.
    ///   - events: The events, each already JSON text, sent as strings; `nil` to leave the member out.
    static func body(channel: String?, events: [String]?) -> String {
        var members: [String] = []
        if let channel {
            members.append("\"channel\":\(jsonString(channel))")
        }
        if let events {
            members.append("\"events\":[\(events.map(jsonString).joined(separator: ","))]")
        }
        return "{\(members.joined(separator: ","))}"
    }

    /// `text` as a JSON string literal (RFC 8259): `"` and `\` are escaped, control characters
    /// below U+0020 become `\b` `\f` `\n` `\r` `\t` or `\u00xx` (lower-case hex), and everything
    /// else, including `/`, `<`, `>`, `&` and non-ASCII text, stays as it is.
    static func jsonString(_ text: String) -> String {
        var literal = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": literal += "\\\""
            case "\\": literal += "\\\\"
            case "\u{08}": literal += "\\b"
            case "\u{0C}": literal += "\\f"
            case "\n": literal += "\\n"
            case "\r": literal += "\\r"
            case "\t": literal += "\\t"
            case _ where scalar.value < 0x20: literal += "\\u00" + hex([UInt8(scalar.value)])
            default: literal.unicodeScalars.append(scalar)
            }
        }
        return literal + "\""
    }

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC, the fraction of a second dropped (as `x-amz-date`).
    static func timestamp(_ date: Date) -> String {
        let whole = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        return whole.formatted(basicISO8601)
    }

    /// `yyyyMMdd` in UTC, the first part of the credential scope.
    static func dateStamp(_ date: Date) -> String {
        String(timestamp(date).prefix(8))
    }

    /// ISO 8601 basic format in UTC, without separators or fractions: fixed, whatever the locale.
    private static let basicISO8601 = Date.ISO8601FormatStyle(
        dateSeparator: .omitted,
        dateTimeSeparator: .standard,
        timeSeparator: .omitted,
        includingFractionalSeconds: false,
        timeZone: .gmt
    )

    /// The lower-cased, sorted header names joined by `;`.
    private static func signedHeaderNames(_ headers: [String: String]) -> String {
        headers.keys.map { $0.lowercased() }.sorted().joined(separator: ";")
    }

    /// SigV4's Trimall: no leading or trailing whitespace, runs of whitespace as one space.
    private static func trimAll(_ value: String) -> String {
        value.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Lower-case hex of `bytes`.
    private static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
