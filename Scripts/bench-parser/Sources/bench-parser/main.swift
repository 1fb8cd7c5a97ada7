// bench-parser: FWWire's HTTPResponseParser against swift-nio's HTTPResponseDecoder on four realistic
// inputs; prints a Markdown report.
// Usage: bench-parser [--rounds N] [--min-time-ms MS] [--stream-kib KIB] [--inputs abcd]

import CMallocCounter
import FWWire
import Glibc

// MARK: - Options

/// Command-line options.
struct Options {
    var rounds = 7
    var minimumTime = Duration.milliseconds(150)
    var minimumStreamBytes = 2 * 1024 * 1024
    /// The names of the inputs to run (all by default; fewer for profiling).
    var inputs = "abcd"
    /// The arguments as given, for the report.
    var arguments: [String]

    init(arguments: [String]) throws {
        self.arguments = Array(arguments.dropFirst())
        var remaining = arguments.dropFirst()
        while let flag = remaining.popFirst() {
            if flag == "--inputs", let names = remaining.popFirst() {
                inputs = names
                continue
            }
            guard let text = remaining.popFirst(), let value = Int(text), value > 0 else {
                throw BenchFailure(description: "\(flag) needs a positive integer")
            }
            switch flag {
            case "--rounds": rounds = max(5, value)
            case "--min-time-ms": minimumTime = .milliseconds(value)
            case "--stream-kib": minimumStreamBytes = value * 1024
            default: throw BenchFailure(description: "unknown option \(flag)")
            }
        }
    }
}

// MARK: - Running one input

/// The header field count of a response head (its lines minus the status line and the blank line).
func fieldCount(_ response: [UInt8]) -> Int {
    var lines = 0
    var previous: UInt8 = 0
    for byte in response {
        if previous == 0x0D, byte == 0x0A {
            lines += 1
        }
        if previous == 0x0A, byte == 0x0D {
            break
        }
        previous = byte
    }
    return lines - 1
}

/// Checks both parsers against `input`, then measures them in interleaved rounds and counts allocations.
func run(_ input: BenchInput, options: Options) throws -> InputResult {
    let expected = Tally.expected(for: input, fieldsPerHead: fieldCount(input.response))
    let validate = { (tally: Tally) throws in
        guard tally == expected else {
            throw BenchFailure(description: "input \(input.name): saw \(tally), expected \(expected)")
        }
    }
    let buffers = NIORunner.buffers(input)
    func pass(_ side: Side, timer: inout PassTimer) throws -> Tally {
        switch side {
        case .fwWire(let feed): try FWWireRunner.pass(input, feed: feed, timer: &timer)
        case .nio(let reads): try NIORunner.pass(input, buffers: buffers, reads: reads, timer: &timer)
        }
    }
    // Warm-up: one pass each, which also checks every side agrees with the input.
    var warmUp = PassTimer()
    for side in Side.allCases {
        try validate(try pass(side, timer: &warmUp))
    }
    var samples: [Side: [Sample]] = [:]
    for _ in 0..<options.rounds {
        for side in Side.allCases {
            let sample = try measure(
                responsesPerPass: input.count, minimum: options.minimumTime, validate: validate
            ) { timer in try pass(side, timer: &timer) }
            samples[side, default: []].append(sample)
        }
    }
    var fwAllocations: [FWWireRunner.Feed: FWWireRunner.Allocations] = [:]
    for feed in FWWireRunner.Feed.allCases {
        fwAllocations[feed] = try FWWireRunner.allocations(input, feed: feed)
    }
    var nioAllocations: [NIORunner.Reads: Double] = [:]
    for reads in NIORunner.Reads.allCases {
        nioAllocations[reads] = try NIORunner.allocationsPerResponse(input, buffers: buffers, reads: reads)
    }
    return InputResult(
        input: input, figures: samples.mapValues { Figures(samples: $0, bytesPerResponse: input.response.count) },
        fwAllocations: fwAllocations, nioAllocations: nioAllocations)
}

// MARK: - Main

do {
    let options = try Options(arguments: CommandLine.arguments)
    guard mc_is_active() != 0 else {
        throw BenchFailure(description: "the malloc interposer is not active; allocation counts would be 0")
    }
    var results: [InputResult] = []
    for input in BenchInputs.all(minimumStreamBytes: options.minimumStreamBytes)
    where options.inputs.contains(input.name) {
        results.append(try run(input, options: options))
    }
    print(Report.markdown(results, options: options))
} catch {
    var standardError = StandardError()
    print("bench-parser: \(error)", to: &standardError)
    exit(1)
}
