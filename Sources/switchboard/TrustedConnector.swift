import ArgumentParser
import Foundation
import SwitchboardAppSync
import SwitchboardCore
import SwitchboardNIO

extension NIOWebSocketConnector {
    /// A connector that trusts the system's roots plus the PEM certificates in `caFile` (for
    /// example the certificate `switchboard serve --tls --cert-out FILE` wrote).
    /// - Throws: `ValidationError` naming the file when it cannot be read or holds no certificate.
    static func trusting(caFile: String?, allowPlaintext: Bool = false) throws -> NIOWebSocketConnector {
        var configuration = NIOWebSocketConnector.Configuration()
        configuration.allowsPlaintextToRemoteHosts = allowPlaintext
        configuration.tls = try TLS.trusting(caFile: caFile)
        return NIOWebSocketConnector(configuration: configuration)
    }
}

extension NIOWebSocketConnector.TLS {
    /// The system's roots, plus the PEM certificates in `caFile` when one is given.
    /// - Throws: `ValidationError` naming the file when it cannot be read or holds no certificate.
    static func trusting(caFile: String?) throws -> NIOWebSocketConnector.TLS {
        guard let caFile else { return NIOWebSocketConnector.TLS() }
        let text: String
        do {
            text = try String(contentsOfFile: caFile, encoding: .utf8)
        } catch {
            throw ValidationError("--ca-file \(caFile) cannot be read: \(error.localizedDescription)")
        }
        do {
            return NIOWebSocketConnector.TLS(trustRoots: .system(adding: try .pem(text)))
        } catch {
            throw ValidationError("--ca-file \(caFile): \(error.message)")
        }
    }
}

/// The HTTP client of `publish` and `check`: SwiftNIO with the same trust as the WebSocket path
/// (`URLSession` cannot trust a private CA on Linux).
struct TrustingHTTPClient: AppSyncHTTPClient {
    let client: NIOHTTPClient

    /// Trusts the system's roots plus the PEM certificates in `caFile`.
    /// - Throws: `ValidationError` naming the file when it cannot be read or holds no certificate.
    init(caFile: String?, allowPlaintext: Bool = false) throws {
        client = NIOHTTPClient(configuration: .init(
            tls: try .trusting(caFile: caFile), allowsPlaintextToRemoteHosts: allowPlaintext))
    }

    func post(_ url: URL, headers: [(name: String, value: String)], body: Data) async throws -> (status: Int, body: Data) {
        try await client.post(url, headers: headers, body: body)
    }
}
