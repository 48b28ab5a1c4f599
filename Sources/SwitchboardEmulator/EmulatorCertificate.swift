import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// The emulator's TLS identity: a self-signed certificate for `localhost` and `127.0.0.1`, made
/// when the emulator starts. The private key lives only in memory; the repository holds none.
struct EmulatorCertificate: Sendable {
    /// The certificate, PEM-encoded: what clients add to their trust roots.
    let pem: String
    /// The server's TLS configuration presenting it.
    let serverConfiguration: TLSConfiguration

    /// Makes a fresh key and certificate, valid from an hour ago for seven days.
    static func make(now: Date = Date()) throws -> EmulatorCertificate {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            OrganizationName("Switchboard")
            CommonName("Switchboard emulator (localhost)")
        }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(7 * 24 * 3600),
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
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: serializer.serializedBytes, format: .der))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(key.derRepresentation), format: .der)))
        return EmulatorCertificate(pem: try certificate.serializeAsPEM().pemString, serverConfiguration: configuration)
    }
}
