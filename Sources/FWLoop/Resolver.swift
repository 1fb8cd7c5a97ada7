// Resolver: host names to socket addresses with getaddrinfo, off the event loop threads.
//
// getaddrinfo blocks (DNS, /etc/hosts, NSS modules), so lookups run on a small pool of worker threads
// fed by a locked FIFO; the threads start on demand and live for the process. Numeric literals are
// answered at once on the caller's thread.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: - ResolverError

/// A failed name lookup: the getaddrinfo result code and the host asked for.
public struct ResolverError: Error, Hashable, CustomStringConvertible {
    private enum Code: Hashable {
        case hostNotFound
        case temporaryFailure
        case other
    }

    private let code: Code
    /// The `EAI_*` code from getaddrinfo (for `EAI_SYSTEM`, see `systemErrno`).
    public let gaiCode: Int32
    /// The `errno` that came with `EAI_SYSTEM`, else 0.
    public let systemErrno: Int32
    /// The host that was looked up.
    public let host: String

    /// The name has no address (`EAI_NONAME`, `EAI_NODATA`, `EAI_ADDRFAMILY`, or an empty answer).
    public var isHostNotFound: Bool {
        code == .hostNotFound
    }

    /// The name server could not answer now (`EAI_AGAIN`); a later try may succeed.
    public var isTemporaryFailure: Bool {
        code == .temporaryFailure
    }

    /// The host, the system's text for the code and the code.
    public var description: String {
        let text = gai_strerror(gaiCode).map { String(cString: $0) } ?? "unknown error"
        let system = systemErrno == 0 ? "" : ", errno \(systemErrno)"
        return "cannot resolve \(host): \(text) (getaddrinfo \(gaiCode)\(system))"
    }

    /// The name has no address (as for `EAI_NONAME`), e.g. for a test double of the resolver.
    public static func hostNotFound(_ host: String) -> ResolverError {
        ResolverError(gaiCode: EAI_NONAME, host: host)
    }

    /// The name server could not answer now (as for `EAI_AGAIN`), e.g. for a test double.
    public static func temporaryFailure(_ host: String) -> ResolverError {
        ResolverError(gaiCode: EAI_AGAIN, host: host)
    }

    /// Classifies a getaddrinfo result code.
    init(gaiCode: Int32, systemErrno: Int32 = 0, host: String) {
        switch gaiCode {
        case EAI_NONAME, Self.eaiNoData, Self.eaiAddressFamily:
            code = .hostNotFound
        case EAI_AGAIN:
            code = .temporaryFailure
        default:
            code = .other
        }
        self.gaiCode = gaiCode
        self.systemErrno = gaiCode == EAI_SYSTEM ? systemErrno : 0
        self.host = host
    }

    /// glibc's GNU-only codes, which the Glibc module does not export.
    private static let eaiNoData: Int32 = -5
    private static let eaiAddressFamily: Int32 = -9
}

// MARK: - Resolver

/// Resolves host names to TCP socket addresses.
public enum Resolver {
    /// Resolves on a worker thread (numeric literals inline, synchronously calling completion).
    ///
    /// A bracketed IPv6 literal (`"[::1]"`) counts as numeric. Results list IPv6 addresses before IPv4
    /// ones, each in getaddrinfo's order, without duplicates. `completion` runs on the worker thread;
    /// hop to your loop from there.
    public static func resolve(
        host: String, port: Int,
        completion: @escaping @Sendable (Result<[SocketAddress], ResolverError>) -> Void
    ) {
        guard let port = UInt16(exactly: port) else {
            completion(.failure(ResolverError(gaiCode: EAI_SERVICE, host: host)))
            return
        }
        if let address = numericAddress(host, port: port) {
            completion(.success([address]))
            return
        }
        ResolverPool.shared.submit(ResolverPool.Job(host: host, port: port, completion: completion))
    }

    /// The address when `host` is a numeric IPv4 / IPv6 literal, optionally in brackets.
    package static func numericAddress(_ host: String, port: UInt16) -> SocketAddress? {
        // Brackets are looked for in the UTF-8 bytes: `hasPrefix`, `hasSuffix` and `count` on a substring walk
        // Characters (with the copy back into a `String`, some 1,100 instructions per new connection).
        let bytes = host.utf8
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") else {
            return SocketAddress(numericHost: host, port: Int(port))
        }
        return SocketAddress(numericHost: String(host.dropFirst().dropLast()), port: Int(port))
    }

    /// A blocking getaddrinfo lookup; call only on a worker thread.
    static func lookup(host: String, port: UInt16) -> Result<[SocketAddress], ResolverError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let result = getaddrinfo(host, nil, &hints, &list)
        guard result == 0 else {
            return .failure(ResolverError(gaiCode: result, systemErrno: errno, host: host))
        }
        defer {
            freeaddrinfo(list)
        }
        var addresses: [SocketAddress] = []
        var next = list
        while let entry = next {
            next = entry.pointee.ai_next
            if let raw = entry.pointee.ai_addr, let address = SocketAddress(raw, port: port) {
                addresses.append(address)
            }
        }
        let ordered = orderedUnique(addresses)
        guard !ordered.isEmpty else {
            return .failure(ResolverError(gaiCode: EAI_NONAME, host: host))
        }
        return .success(ordered)
    }

    /// IPv6 addresses, then IPv4 ones, each in the given order, without duplicates.
    static func orderedUnique(_ addresses: [SocketAddress]) -> [SocketAddress] {
        var seen = Set<SocketAddress>()
        let unique = addresses.filter { seen.insert($0).inserted }
        return unique.filter { $0.family == .ipv6 } + unique.filter { $0.family == .ipv4 }
    }
}

// MARK: - Worker pool

/// Worker threads for lookups, fed by a locked FIFO and a counting semaphore (one signal per job).
final class ResolverPool: Sendable {
    /// One pending lookup.
    struct Job: Sendable {
        let host: String
        let port: UInt16
        let completion: @Sendable (Result<[SocketAddress], ResolverError>) -> Void
    }

    private struct State {
        var jobs: [Job] = []
        var threads = 0
        /// Workers waiting on the semaphore.
        var idle = 0
    }

    /// The process-wide pool of two workers.
    static let shared = ResolverPool(threadLimit: 2)

    private let threadLimit: Int
    /// Jobs and thread counts.
    private let state = LockedBox(State())
    /// Counts queued jobs.
    private let available = ThreadSemaphore()

    private init(threadLimit: Int) {
        self.threadLimit = threadLimit
    }

    /// Queues `job`, starting a worker when none is idle and the limit allows.
    func submit(_ job: Job) {
        let startWorker = state.withLock { state in
            state.jobs.append(job)
            guard state.threads < threadLimit && state.jobs.count > state.idle else {
                return false
            }
            state.threads += 1
            return true
        }
        available.signal()
        if startWorker {
            startThread()
        }
    }

    private func startThread() {
        do {
            _ = try PosixThread.spawn(name: "fw-resolver", detached: true) { [self] in
                work()
            }
        } catch {
            let orphans = state.withLock { state in
                state.threads -= 1
                guard state.threads == 0 else {
                    return [Job]()
                }
                defer {
                    state.jobs = []
                }
                return state.jobs
            }
            for job in orphans {
                let failure = ResolverError(gaiCode: EAI_SYSTEM, systemErrno: error.errno, host: job.host)
                job.completion(.failure(failure))
            }
        }
    }

    private func work() {
        while true {
            state.withLock { $0.idle += 1 }
            available.wait()
            let job = state.withLock { state in
                state.idle -= 1
                return state.jobs.isEmpty ? nil : state.jobs.removeFirst()
            }
            if let job {
                job.completion(Resolver.lookup(host: job.host, port: job.port))
            }
        }
    }
}
