// BusyPollWindow: how long a hosted slice polls its epoll descriptor, instead of blocking in epoll_wait, after
// the last thing it handled (EventLoop+Hosted.swift). Blocking costs a sleep and a wake-up: on the benchmark's
// virtual machines about 17 µs a request at c=1 (the idle CPU halts, the hypervisor wakes it, and the path
// runs with cold caches), more than the rest of the client's work on a keep-alive request. A response from a
// peer on the same host or network comes within tens of microseconds, so polling a little catches it awake;
// a response from far away never comes that fast, and the window must then not cost anything.
//
// The window adapts, as KVM's halt polling does (`halt_poll_ns`), by how long each idle spell lasted until
// work came (polled for or slept through, `noteWork(afterQuiet:)`):
//   - within `limit`: the peer answers fast and polling pays (or would have): the window opens to `limit`;
//   - longer: polling could not have caught it: the window halves, and under `floor` closes (0), so that a
//     peer that never answers within the limit stops costing after a few requests (the limit, then half of
//     it, and so on: about twice the limit once, then nothing) until work comes fast again;
//   - a limit of 0, or a process that can run on one CPU only (polling would keep the peer it waits for from
//     running), never polls.
// A spell that ends in a wake-up is measured with the wake-up's latency in it, which is why the limit sits
// well above a loopback round trip (35–45 µs here): a fast peer is never mistaken for a slow one.
// Polls are spaced `pollGap` apart (a CPU spin-wait hint between them, no system call), so that a window
// costs a handful of epoll_wait calls, not hundreds. Loop thread only.

struct BusyPollWindow {
    /// The widest window, in nanoseconds; 0 when the loop never polls.
    let limit: UInt64
    /// The current window, in nanoseconds (0: closed, the slice blocks at once).
    private(set) var current: UInt64
    /// The time between two polls, in nanoseconds.
    static let pollGap: UInt64 = 5_000
    /// A window narrower than this closes.
    static let floor: UInt64 = 5_000

    /// A window of at most `limit`, open from the start; closed for good when `cpus` is 1 or less.
    init(limit: Duration, cpus: Int) {
        let nanoseconds = cpus > 1 ? UInt64(clamping: limit.exactNanoseconds) : 0
        self.limit = nanoseconds
        current = nanoseconds
    }

    /// Whether the slice, idle for `quiet` nanoseconds since its last work, polls again rather than blocks.
    func polls(quiet: UInt64) -> Bool {
        quiet < current
    }

    /// Work came `quiet` nanoseconds after the last (the idle spell's length): the window opens or narrows.
    mutating func noteWork(afterQuiet quiet: UInt64) {
        if quiet <= limit {
            current = limit
        } else if current > 0 {
            current = current / 2 < Self.floor ? 0 : current / 2
        }
    }
}
