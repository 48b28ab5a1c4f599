#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, its standard input and output on pipes and its
/// standard error in a file.
///
/// Not Foundation's `Process`: on Linux it monitors children with dispatch sources, which the
/// suite already exercises hard elsewhere (libdispatch's `_dispatch_event_loop_drain` crashes are
/// a known Linux problem with it). The child inherits no descriptor but its three standard ones:
/// the server lives as long as the test process, and a socket of another test it held open would
/// never close (a test server's TCP drop would go unseen). The parent's ends of the pipes are
/// close-on-exec, so no other child keeps the server's standard input from ending.
struct ChildProcess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let pid: pid_t
    /// The parent's end of the child's standard input: closing it (or exiting) ends its input.
    let input: Int32
    /// The parent's end of the child's standard output.
    let output: Int32

    static func spawn(_ executable: String, _ arguments: [String], standardError path: String) throws -> ChildProcess {
        let input = try pipe(), output = try pipe()
        let errorFile = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard errorFile >= 0 else { throw Failure(description: "cannot open \(path): errno \(errno)") }
        defer {
            close(input.read)
            close(output.write)
            close(errorFile)
        }
        #if canImport(Glibc)
        var actions = posix_spawn_file_actions_t()
        #else
        var actions: posix_spawn_file_actions_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        #if canImport(Glibc)
        var attributes = posix_spawnattr_t()
        #else
        var attributes: posix_spawnattr_t?
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // dup2 clears close-on-exec on the copies the child gets.
        posix_spawn_file_actions_adddup2(&actions, input.read, 0)
        posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        posix_spawn_file_actions_adddup2(&actions, errorFile, 2)
        try closeEverythingElse(&actions, &attributes)
        // No signal blocked and every signal at its default in the child: the calling thread (a
        // libdispatch worker) blocks signals, and a server that inherited that mask would never
        // see `terminate()`'s SIGTERM (its `waitpid` would wait forever).
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        var flags: Int16 = 0
        posix_spawnattr_getflags(&attributes, &flags)  // what closeEverythingElse set, kept
        posix_spawnattr_setflags(&attributes, flags | Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard status == 0 else {
            close(input.write)
            close(output.read)
            throw Failure(description: "cannot start \(executable): errno \(status)")
        }
        return ChildProcess(pid: pid, input: input.write, output: output.read)
    }

    #if canImport(Glibc)
    /// glibc 2.34's `posix_spawn_file_actions_addclosefrom_np`, which the Glibc module does not
    /// export: looked up at run time.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    private static func closeEverythingElse(
        _ actions: inout posix_spawn_file_actions_t, _ attributes: inout posix_spawnattr_t
    ) throws {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            throw Failure(description: "posix_spawn_file_actions_addclosefrom_np is missing (glibc 2.34 or later is needed)")
        }
        let addCloseFrom = unsafeBitCast(symbol, to: AddCloseFrom.self)
        // Added after the dup2s to 0, 1 and 2: the actions run in order.
        guard addCloseFrom(&actions, 3) == 0 else { throw Failure(description: "addclosefrom failed: errno \(errno)") }
    }
    #else
    private static func closeEverythingElse(
        _ actions: inout posix_spawn_file_actions_t?, _ attributes: inout posix_spawnattr_t?
    ) throws {
        guard posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT)) == 0 else {
            throw Failure(description: "posix_spawnattr_setflags failed: errno \(errno)")
        }
    }
    #endif

    /// Reads the child's standard output up to the end of the first line; nil if it ends first.
    /// Blocks: call it off the cooperative thread pool.
    func readLine() -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(output, &byte, 1)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }

    /// Stops a child that failed to start properly, and reaps it.
    func terminate() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        close(input)
        close(output)
    }

    private static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard fds.withUnsafeMutableBufferPointer({ pipeWithCloseOnExec($0.baseAddress!) }) == 0 else {
            throw Failure(description: "cannot make a pipe: errno \(errno)")
        }
        return (fds[0], fds[1])
    }

    /// A pipe whose ends are close-on-exec (set right after it is made: the Glibc module does
    /// not export pipe2).
    private static func pipeWithCloseOnExec(_ fds: UnsafeMutablePointer<Int32>) -> Int32 {
        #if canImport(Glibc)
        guard Glibc.pipe(fds) == 0 else { return -1 }
        #else
        guard Darwin.pipe(fds) == 0 else { return -1 }
        #endif
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return 0
    }
}
