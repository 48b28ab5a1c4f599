import Foundation
import SwitchboardCore
import SwitchboardSync
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The REST fallback's URLSession client: a request cancelled while the server has not answered
/// ends at once with a cancellation, and never hangs (FoundationNetworking's `data(for:)` could
/// deadlock a cancellation that met the answer on Linux).
@Suite("URLSession requests under cancellation", .timeLimit(.minutes(1)))
struct URLSessionCancellationTests {
    /// A TCP port on loopback that takes connections (the kernel's backlog) and never answers.
    final class SilentListener: @unchecked Sendable {
        let port: Int
        private let descriptor: Int32

        init() throws {
            #if canImport(Glibc)
                let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                self.descriptor = descriptor
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                address.sin_port = 0
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                let bound = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
                }
                guard bound == 0, listen(descriptor, 16) == 0 else { throw URLError(.cannotConnectToHost) }
                _ = withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
                }
                port = Int(UInt16(bigEndian: address.sin_port))
            #else
                throw URLError(.unsupportedURL)
            #endif
        }

        deinit {
            #if canImport(Glibc)
                close(descriptor)
            #endif
        }
    }

    // Ten rounds, not more: every round tears down FoundationNetworking's dispatch sources, whose
    // races (swift-corelibs-foundation#4791) can crash the whole test process under load.
    @Test("cancelled while waiting for the answer: it ends with a cancellation, every time", arguments: Array(0..<10))
    func cancelWhileWaiting(round: Int) async throws {
        let listener = try SilentListener()
        let client = URLSessionSyncHTTPClient(timeout: 30)
        let url = URL(string: "http://127.0.0.1:\(listener.port)/sync/pull?round=\(round)")!
        let request = Task { try await client.get(url, headers: []) }
        // Cancel at varied points: before the request left, while it waits.
        if round % 2 == 1 { try await Task.sleep(for: .milliseconds(round)) }
        request.cancel()
        let outcome = await request.result
        switch outcome {
        case .success(let answer):
            Issue.record("a server that never answers answered \(answer.status)")
        case .failure(let error):
            let cancelled = error is CancellationError || (error as? URLError)?.code == .cancelled
            #expect(cancelled, "\(error)")
        }
        withExtendedLifetime(listener) {}
    }
}
