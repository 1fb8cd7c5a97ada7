// Timing: each measurement repeats whole passes over a stream until a minimum time has passed; rounds
// alternate the parsers (FWWire, NIO, FWWire, NIO, ...) so that load from the rest of the machine
// spreads over both; the report uses the median of the rounds.

// MARK: - One measurement

/// The time one pass over a stream took on average in one measurement.
struct Sample {
    /// Nanoseconds per response.
    var nanosecondsPerResponse: Double
}

/// Accumulates the timed part of passes: a runner starts it after setting up its parser or channel and
/// stops it before tearing it down, so set-up costs (an EmbeddedChannel's especially) stay out.
struct PassTimer {
    private let clock = ContinuousClock()
    private var started: ContinuousClock.Instant?
    private(set) var elapsed = Duration.zero

    mutating func start() {
        started = clock.now
    }

    mutating func stop() {
        if let started {
            elapsed += clock.now - started
        }
        started = nil
    }
}

/// Runs passes until their timed parts add up to at least `minimum`; returns the time per response.
func measure(
    responsesPerPass: Int, minimum: Duration, validate: (Tally) throws -> Void,
    pass: (inout PassTimer) throws -> Tally
) throws -> Sample {
    var timer = PassTimer()
    var passes = 0
    repeat {
        try validate(try pass(&timer))
        passes += 1
    } while timer.elapsed < minimum
    let elapsed = timer.elapsed.components
    let nanoseconds = Double(elapsed.seconds) * 1e9 + Double(elapsed.attoseconds) / 1e9
    return Sample(nanosecondsPerResponse: nanoseconds / Double(passes * responsesPerPass))
}

/// The median of `values` (the mean of the middle two for an even count).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

// MARK: - Results of one input

/// Median figures of one parser on one input.
struct Figures {
    var nanosecondsPerResponse: Double
    var bytesPerResponse: Int

    /// Decimal megabytes of input parsed per second.
    var megabytesPerSecond: Double {
        Double(bytesPerResponse) / nanosecondsPerResponse * 1e3
    }

    init(samples: [Sample], bytesPerResponse: Int) {
        nanosecondsPerResponse = median(samples.map(\.nanosecondsPerResponse))
        self.bytesPerResponse = bytesPerResponse
    }
}

/// One parser with one way of receiving reads.
enum Side: Hashable, CaseIterable {
    case fwWire(FWWireRunner.Feed)
    case nio(NIORunner.Reads)

    /// Every side, in the order each round runs them (FWWire and NIO alternate).
    static let allCases: [Side] = [
        .fwWire(.readyArrays), .nio(.ready), .fwWire(.readInto), .nio(.fresh), .fwWire(.readBuffer),
    ]
}

/// Everything measured on one input.
struct InputResult {
    var input: BenchInput
    var figures: [Side: Figures]
    /// FWWire's allocations per response, split by where they happen, for each feed.
    var fwAllocations: [FWWireRunner.Feed: FWWireRunner.Allocations]
    /// NIO's allocations per response for each way of reading.
    var nioAllocations: [NIORunner.Reads: Double]

    /// NIO's time per response divided by this side's (> 1: the side is faster than NIO).
    func speedup(_ side: Side, over nio: NIORunner.Reads) -> Double {
        figures[.nio(nio)]!.nanosecondsPerResponse / figures[side]!.nanosecondsPerResponse
    }
}
