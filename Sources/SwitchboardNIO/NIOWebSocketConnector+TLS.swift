import Foundation
import NIOSSL
import SwitchboardCore

extension NIOWebSocketConnector {
    /// How a `wss` connection verifies the server's certificate.
    ///
    /// ```swift
    /// var configuration = NIOWebSocketConnector.Configuration()
    /// configuration.tls.trustRoots = .only(try .pem(privateCAPEM))
    /// ```
    public struct TLS: Sendable {
        /// The certificates a server's chain may end in. Default: ``TrustRoots/system``.
        public var trustRoots: TrustRoots
        /// How much of the server's certificate is checked. Default: ``CertificateVerification/full``.
        public var certificateVerification: CertificateVerification

        /// Creates TLS settings.
        /// - Parameters:
        ///   - trustRoots: The certificates a server's chain may end in.
        ///   - certificateVerification: How much of the server's certificate is checked.
        public init(trustRoots: TrustRoots = .system, certificateVerification: CertificateVerification = .full) {
            self.trustRoots = trustRoots
            self.certificateVerification = certificateVerification
        }
    }

    /// The certificates a server's chain may end in.
    public struct TrustRoots: Sendable {
        fileprivate enum Kind: Sendable {
            case system
            case systemPlus([NIOSSLCertificate])
            case only([NIOSSLCertificate])
        }

        fileprivate let kind: Kind

        /// The operating system's trust store.
        public static let system = TrustRoots(kind: .system)

        /// The operating system's trust store plus `certificates` (a private CA, a test server).
        /// - Parameter certificates: The extra roots.
        /// - Returns: The trust roots.
        public static func system(adding certificates: Certificates) -> TrustRoots {
            TrustRoots(kind: .systemPlus(certificates.certificates))
        }

        /// Only `certificates`; the system's store is not consulted.
        /// - Parameter certificates: The roots.
        /// - Returns: The trust roots.
        public static func only(_ certificates: Certificates) -> TrustRoots {
            TrustRoots(kind: .only(certificates.certificates))
        }
    }

    /// One or more X.509 certificates, parsed when created.
    public struct Certificates: Sendable {
        fileprivate let certificates: [NIOSSLCertificate]

        /// How many certificates there are.
        public var count: Int { certificates.count }

        /// Parses PEM text, which may hold several certificates.
        /// - Parameter text: One or more `-----BEGIN CERTIFICATE-----` blocks.
        /// - Returns: The certificates.
        /// - Throws: ``/SwitchboardCore/SwitchboardError`` with ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` if the
        ///   text holds no valid certificate.
        public static func pem(_ text: String) throws(SwitchboardError) -> Certificates {
            let parsed: [NIOSSLCertificate]
            do {
                parsed = try NIOSSLCertificate.fromPEMBytes(Array(text.utf8))
            } catch {
                throw SwitchboardError(code: .invalidConfiguration, message: "the PEM trust root cannot be parsed", cause: error)
            }
            guard !parsed.isEmpty else {
                throw SwitchboardError(code: .invalidConfiguration, message: "the PEM trust root holds no certificate")
            }
            return Certificates(certificates: parsed)
        }

        /// Parses one DER-encoded certificate.
        /// - Parameter bytes: The certificate's DER bytes.
        /// - Returns: The certificate.
        /// - Throws: ``/SwitchboardCore/SwitchboardError`` with ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` if the
        ///   bytes are not a certificate.
        public static func der(_ bytes: Data) throws(SwitchboardError) -> Certificates {
            do {
                return Certificates(certificates: [try NIOSSLCertificate(bytes: Array(bytes), format: .der)])
            } catch {
                throw SwitchboardError(code: .invalidConfiguration, message: "the DER trust root cannot be parsed", cause: error)
            }
        }

        /// Reads a PEM file, which may hold several certificates.
        /// - Parameter path: The file's path.
        /// - Returns: The certificates.
        /// - Throws: ``/SwitchboardCore/SwitchboardError`` with ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` if the
        ///   file cannot be read or holds no valid certificate.
        public static func pemFile(atPath path: String) throws(SwitchboardError) -> Certificates {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw SwitchboardError(code: .invalidConfiguration, message: "the trust root file cannot be read", cause: error)
            }
            return try pem(String(decoding: data, as: UTF8.self))
        }
    }

    /// How much of the server's certificate a `wss` connection checks.
    public struct CertificateVerification: Hashable, Sendable {
        fileprivate enum Kind: Hashable, Sendable { case full, skipHostname, none }
        fileprivate let kind: Kind

        /// The chain must end in a trust root and the certificate must name the host (or, for an
        /// IP literal URL, the IP address).
        public static let full = CertificateVerification(kind: .full)
        /// The chain must end in a trust root; the host name is not checked.
        public static let skipHostname = CertificateVerification(kind: .skipHostname)
        /// Nothing is checked. Only for local development against a throwaway certificate.
        public static let none = CertificateVerification(kind: .none)
    }
}

extension NIOWebSocketConnector.TLS {
    /// The NIOSSL client configuration these settings describe.
    var nioConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch trustRoots.kind {
        case .system:
            configuration.trustRoots = .default
        case .systemPlus(let certificates):
            configuration.trustRoots = .default
            configuration.additionalTrustRoots = [.certificates(certificates)]
        case .only(let certificates):
            configuration.trustRoots = .certificates(certificates)
        }
        switch certificateVerification.kind {
        case .full: configuration.certificateVerification = .fullVerification
        case .skipHostname: configuration.certificateVerification = .noHostnameVerification
        case .none: configuration.certificateVerification = .none
        }
        return configuration
    }
}
