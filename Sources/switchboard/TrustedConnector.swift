import ArgumentParser
import Foundation
import SwitchboardCore
import SwitchboardNIO

extension NIOWebSocketConnector {
    /// A connector that trusts the system's roots plus the PEM certificates in `caFile` (for
    /// example the certificate `switchboard serve --tls --cert-out FILE` wrote).
    /// - Throws: `ValidationError` naming the file when it cannot be read or holds no certificate.
    static func trusting(caFile: String?, allowPlaintext: Bool = false) throws -> NIOWebSocketConnector {
        guard let caFile else {
            var configuration = NIOWebSocketConnector.Configuration()
            configuration.allowsPlaintextToRemoteHosts = allowPlaintext
            return NIOWebSocketConnector(configuration: configuration)
        }
        let text: String
        do {
            text = try String(contentsOfFile: caFile, encoding: .utf8)
        } catch {
            throw ValidationError("--ca-file \(caFile) cannot be read: \(error.localizedDescription)")
        }
        var configuration = NIOWebSocketConnector.Configuration()
        configuration.allowsPlaintextToRemoteHosts = allowPlaintext
        do {
            configuration.tls.trustRoots = .system(adding: try .pem(text))
        } catch {
            throw ValidationError("--ca-file \(caFile): \(error.message)")
        }
        return NIOWebSocketConnector(configuration: configuration)
    }
}
