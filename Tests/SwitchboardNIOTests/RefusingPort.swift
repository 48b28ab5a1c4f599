#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body` with a loopback port that refuses connections: a TCP socket is bound to it, so no
/// other server can take it meanwhile, but it never listens, so a connect is answered with a
/// reset (`ECONNREFUSED`).
func withRefusingPort<T>(_ body: (_ port: Int) async throws -> T) async throws -> T {
    #if canImport(Glibc)
    let stream = Int32(SOCK_STREAM.rawValue)
    #else
    let stream = SOCK_STREAM
    #endif
    let descriptor = socket(AF_INET, stream, 0)
    guard descriptor >= 0 else { throw RefusingPortError(call: "socket", errno: errno) }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
    }
    guard bound == 0 else { throw RefusingPortError(call: "bind", errno: errno) }
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard named == 0 else { throw RefusingPortError(call: "getsockname", errno: errno) }
    return try await body(Int(UInt16(bigEndian: address.sin_port)))
}

struct RefusingPortError: Error, CustomStringConvertible {
    var call: String
    var errno: Int32
    var description: String { "\(call) failed with errno \(errno)" }
}
