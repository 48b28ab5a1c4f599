import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A self-signed certificate for `localhost` and `127.0.0.1`, made at test time (the private
/// key only ever lives in memory).
struct TestCertificate: Sendable {
    /// The certificate, DER-encoded.
    let der: [UInt8]
    /// The certificate, PEM-encoded.
    let pem: String
    /// A TLS server context presenting it.
    let serverContext: NIOSSLContext

    /// One certificate for the whole test run.
    static let shared: Result<TestCertificate, any Error> = Result { try make() }

    static func make() throws -> TestCertificate {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName("Switchboard NIO test server")
        }
        let now = Date()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(24 * 3600),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([
                    .dnsName("localhost"),
                    .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                ])
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        let der = serializer.serializedBytes
        let pem = try certificate.serializeAsPEM().pemString
        let serverConfiguration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: der, format: .der))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(key.derRepresentation), format: .der)))
        return TestCertificate(der: der, pem: pem, serverContext: try NIOSSLContext(configuration: serverConfiguration))
    }
}
