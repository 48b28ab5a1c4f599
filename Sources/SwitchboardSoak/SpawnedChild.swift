import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, its output read and its exit watched on a thread
/// of its own: what the soak's emulator and the CLI tests start their children with.
///
/// Not Foundation's `Process`. On Linux (Swift 6.3.1) its `run()` finds the highest open
/// descriptor by listing `/proc/self/fd` and copies each entry's whole 256-byte name field out
/// of glibc's directory buffer: an entry near the buffer's end, before an unmapped page, is a
/// read past it and a crash (swift-corelibs-foundation pull request 5472). A process with many
/// sockets open, such as the test suite, crashed there about once in seven full runs, whichever
/// queue started the child. Here the child closes every descriptor but its three standard ones
/// as it starts (`posix_spawn_file_actions_addclosefrom_np`, glibc 2.34), and the parent's ends
/// of its pipes are close-on-exec, so no other child holds them open.
///
/// Nothing here blocks a task's thread: `posix_spawn` returns once the child runs its program,
/// and one thread per child polls its pipes and its exit. Output is handed on as it is read;
/// once the child exited, what its pipes still hold is handed on, then `exited`: output written
/// later by a grandchild that inherited them is not waited for.
///
/// Without glibc (or built with `-DSWITCHBOARD_FOUNDATION_PROCESS`, which compiles that path
/// on Linux too), Foundation's `Process` starts the child behind the same interface.
package final class SpawnedChild: @unchecked Sendable {  // set up in init; input is closed under a lock
    /// How a child ended.
    package struct Termination: Sendable, Equatable, CustomStringConvertible {
        /// The exit status, or the number of the signal that ended it.
        package var status: Int32
        /// Whether a signal ended it.
        package var signaled: Bool

        package var description: String { signaled ? "signal \(status)" : "status \(status)" }
    }

    /// A failure to start.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// The child's process id.
    package let pid: Int32

#if canImport(Glibc) && !SWITCHBOARD_FOUNDATION_PROCESS
    /// The parent's end of the child's standard input, and whether the child was reaped.
    private let shared: Shared

    /// Starts `executable` with `arguments`.
    /// - Parameters:
    ///   - environment: The child's environment; nil: this process's.
    ///   - pipeInput: Whether the child's standard input is a pipe this object writes and
    ///     closes (``closeInput()``); otherwise it inherits this process's.
    ///   - output: Gets the child's standard output as it is read (nil: it inherits this
    ///     process's).
    ///   - error: The same for its standard error.
    ///   - exited: Called once, after the last output it is handed.
    package init(
        executable: URL, arguments: [String], environment: [String: String]? = nil, pipeInput: Bool = false,
        output: (@Sendable (Data) -> Void)? = nil, error: (@Sendable (Data) -> Void)? = nil,
        exited: @escaping @Sendable (Termination) -> Void
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The child's ends, closed here once it runs; the parent's ends, kept.
        var childEnds: [Int32] = []
        defer { childEnds.forEach { _ = close($0) } }
        var inputEnd: Int32 = -1
        var readers: [(fd: Int32, sink: @Sendable (Data) -> Void)] = []
        do {
            if pipeInput {
                let ends = try Self.pipe()
                childEnds.append(ends.read)
                inputEnd = ends.write
                posix_spawn_file_actions_adddup2(&actions, ends.read, 0)
            }
            for (target, sink) in [(Int32(1), output), (2, error)] {
                guard let sink else { continue }
                let ends = try Self.pipe()
                childEnds.append(ends.write)
                readers.append((ends.read, sink))
                posix_spawn_file_actions_adddup2(&actions, ends.write, target)
            }
            try Self.closeFromThree(&actions)
        } catch {
            if inputEnd >= 0 { close(inputEnd) }
            readers.forEach { _ = close($0.fd) }
            throw error
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }
        // The child starts with no signal blocked and every signal at its default: the calling
        // thread (a libdispatch worker) blocks signals, and the child would inherit that mask.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid = pid_t()
        let status = envp.map { posix_spawn(&pid, executable.path, &actions, &attributes, argv, $0) }
            ?? posix_spawn(&pid, executable.path, &actions, &attributes, argv, environ)
        guard status == 0 else {
            if inputEnd >= 0 { close(inputEnd) }
            readers.forEach { _ = close($0.fd) }
            throw Failure(description: "cannot start \(executable.path): \(String(cString: strerror(status)))")
        }
        _ = Self.brokenPipesIgnored
        self.pid = pid
        let shared = Shared(input: inputEnd)
        self.shared = shared
        let watched = pid
        let pipes = readers
        let thread = Thread { Self.watch(watched, shared: shared, readers: pipes, exited: exited) }
        thread.name = "switchboard-child-\(pid)"
        thread.start()
    }

    /// Writing to a child that closed its input or exited raises SIGPIPE, which would end this
    /// process; ignored once, here, so the write fails with EPIPE instead. (Children start with
    /// every signal at its default.)
    private static let brokenPipesIgnored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    deinit { shared.closeInput() }

    /// Writes `data` to the child's standard input.
    package func write(_ data: Data) throws {
        try shared.withInput { fd in
            guard fd >= 0 else { throw Failure(description: "the child's input is closed") }
            try data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw Failure(description: "cannot write to the child: \(String(cString: strerror(errno)))")
                    }
                    offset += written
                }
            }
        }
    }

    /// Closes the child's standard input (it reads end of file); later calls do nothing.
    package func closeInput() { shared.closeInput() }

    /// Sends `signal` to the child, unless it was reaped (its id may belong to another process
    /// by then).
    package func send(signal: Int32) {
        shared.unlessReaped { kill(pid, signal) }
    }

    /// The watching thread: hands on output as it comes; once the child exited, reaps it, hands
    /// on what its pipes still hold and reports the exit.
    private static func watch(
        _ pid: pid_t, shared: Shared, readers: [(fd: Int32, sink: @Sendable (Data) -> Void)], exited: @Sendable (Termination) -> Void
    ) {
        var open = readers
        for reader in open { _ = fcntl(reader.fd, F_SETFL, fcntl(reader.fd, F_GETFL) | O_NONBLOCK) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            // 50 ms at most between looks at the exit; at once when output comes.
            var fds = open.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            _ = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), 50) }
            let termination = shared.reap(pid)
            // Drained after the reap: once the child exited, everything it wrote is in the pipes.
            open.removeAll { reader in
                if drain(reader.fd, into: &buffer, sink: reader.sink) { return false }
                close(reader.fd)
                return true
            }
            guard let termination else { continue }
            for reader in open { close(reader.fd) }
            exited(termination)
            return
        }
    }

    /// Hands on what `fd` holds now; false at its end of file (or an error).
    private static func drain(_ fd: Int32, into buffer: inout [UInt8], sink: (Data) -> Void) -> Bool {
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                sink(Data(buffer[0..<count]))
                continue
            }
            if count < 0, errno == EINTR { continue }
            return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
        }
    }

    private static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        // Close-on-exec right after it is made (the Glibc module does not export pipe2): a child
        // another thread starts in between gets them, and closes them as it starts.
        guard fds.withUnsafeMutableBufferPointer({ Glibc.pipe($0.baseAddress!) }) == 0 else {
            throw Failure(description: "cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    /// glibc 2.34's `posix_spawn_file_actions_addclosefrom_np` (the Glibc module does not export
    /// it), looked up at run time, added after the `dup2`s: the actions run in order.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    private static func closeFromThree(_ actions: inout posix_spawn_file_actions_t) throws {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            throw Failure(description: "posix_spawn_file_actions_addclosefrom_np is missing (glibc 2.34 or later is needed)")
        }
        let status = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3)
        guard status == 0 else {
            throw Failure(description: "posix_spawn_file_actions_addclosefrom_np failed: \(String(cString: strerror(status)))")
        }
    }
#else
    /// The child.
    private let process: Process
    /// Its standard input, when piped.
    private let inputPipe: Pipe?
    private let closed = NSLock()
    private var inputClosed = false

    package init(
        executable: URL, arguments: [String], environment: [String: String]? = nil, pipeInput: Bool = false,
        output: (@Sendable (Data) -> Void)? = nil, error: (@Sendable (Data) -> Void)? = nil,
        exited: @escaping @Sendable (Termination) -> Void
    ) throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        inputPipe = pipeInput ? Pipe() : nil
        if let inputPipe { process.standardInput = inputPipe }
        var attached: [Pipe] = []
        for (sink, attach) in [(output, { (pipe: Pipe, process: Process) in process.standardOutput = pipe }),
                               (error, { (pipe: Pipe, process: Process) in process.standardError = pipe })] {
            guard let sink else { continue }
            let pipe = Pipe()
            attach(pipe, process)
            pipe.fileHandleForReading.readabilityHandler = { handle in
                let data = handle.availableData
                if !data.isEmpty { sink(data) }
            }
            attached.append(pipe)
        }
        let pipes = attached
        let sinks = [output, error].compactMap { $0 }
        process.terminationHandler = { process in
            // What the pipes still hold, then the exit; later output is not waited for.
            for (pipe, sink) in zip(pipes, sinks) {
                pipe.fileHandleForReading.readabilityHandler = nil
                let fd = pipe.fileHandleForReading.fileDescriptor
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while case let count = buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }), count > 0 {
                    sink(Data(buffer[0..<count]))
                }
            }
            exited(Termination(status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal))
        }
        do {
            try process.run()
        } catch {
            throw Failure(description: "cannot start \(executable.path): \(error)")
        }
        pid = process.processIdentifier
    }

    package func write(_ data: Data) throws {
        guard let inputPipe else { throw Failure(description: "the child's input is not a pipe") }
        try inputPipe.fileHandleForWriting.write(contentsOf: data)
    }

    package func closeInput() {
        closed.lock()
        defer { closed.unlock() }
        guard !inputClosed else { return }
        inputClosed = true
        try? inputPipe?.fileHandleForWriting.close()
    }

    package func send(signal: Int32) { kill(pid, signal) }
#endif
}

#if canImport(Glibc) && !SWITCHBOARD_FOUNDATION_PROCESS
extension SpawnedChild.Termination {
    /// From `waitpid`'s status word.
    init(status word: Int32) {
        let signal = word & 0x7f
        if signal == 0 {
            self.init(status: (word >> 8) & 0xff, signaled: false)
        } else {
            self.init(status: signal, signaled: true)
        }
    }
}

/// What the child's owner and its watching thread share: the parent's end of the child's
/// standard input (-1 once closed, or when not piped) under one lock, held through a write, and
/// whether the child was reaped under another, so a write blocked on a full pipe holds up neither
/// the reaping nor a signal.
private final class Shared: @unchecked Sendable {
    private let inputLock = NSLock()
    private var input: Int32
    private let reapLock = NSLock()
    private var reaped = false

    init(input: Int32) { self.input = input }

    func withInput<T>(_ body: (Int32) throws -> T) rethrows -> T {
        inputLock.lock()
        defer { inputLock.unlock() }
        return try body(input)
    }

    func closeInput() {
        inputLock.lock()
        defer { inputLock.unlock() }
        if input >= 0 { _ = Glibc.close(input) }
        input = -1
    }

    /// Reaps `pid` if it exited (never waits); its termination then.
    func reap(_ pid: pid_t) -> SpawnedChild.Termination? {
        reapLock.lock()
        defer { reapLock.unlock() }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid {
            reaped = true
            return SpawnedChild.Termination(status: status)
        }
        if result < 0, errno != EINTR {
            reaped = true
            return SpawnedChild.Termination(status: -1, signaled: false)
        }
        return nil
    }

    func unlessReaped(_ body: () -> Void) {
        reapLock.lock()
        defer { reapLock.unlock() }
        if !reaped { body() }
    }
}
#endif
