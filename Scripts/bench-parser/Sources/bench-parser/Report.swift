// The Markdown report: a speed table (medians), an allocation table, and how both were measured.

import Glibc

// MARK: - Report

/// Renders the results as Markdown.
enum Report {
    /// The two speed tables, the allocation table and the notes.
    static func markdown(_ results: [InputResult], options: Options) -> String {
        var lines: [String] = []
        lines.append("### Response parsing: FWWire vs NIOHTTP1 (llhttp)")
        lines.append("")
        lines.append("`Scripts/bench-parser/run.sh\(options.arguments.map { " " + $0 }.joined())`")
        lines.append("")
        lines.append(
            "Median of \(options.rounds) interleaved rounds, each ≥ \(options.minimumTime) of parsing per side; "
                + "\(BenchInputs.readSize / 1024) KiB reads; MB/s = 10⁶ bytes of input per second; "
                + "FW/NIO = NIO time ÷ FWWire time (> 1: FWWire faster). 1-minute load average at the end: "
                + "\(loadAverage()) (2 cores, shared).")
        lines.append("")
        lines.append("**Ready reads** (each read is a filled buffer of its own: `[UInt8]` / `ByteBuffer`):")
        lines.append("")
        lines.append(
            "| input | bytes/resp | resp/stream | FWWire MB/s | FWWire ns/resp | NIO MB/s | NIO ns/resp | FW/NIO |")
        lines.append("|---|--:|--:|--:|--:|--:|--:|--:|")
        for result in results {
            let input = result.input
            lines.append(
                "| (\(input.name)) \(input.summary) | \(input.response.count) | \(input.count) "
                    + cells(result, .fwWire(.readyArrays)) + cells(result, .nio(.ready))
                    + "| **\(fixed(result.speedup(.fwWire(.readyArrays), over: .ready), 2))×** |")
        }
        lines.append("")
        lines.append(
            "**Reads copied in** (each read's bytes are copied into its buffer first, as a socket read does: "
                + "NIO into a fresh `ByteBuffer`; FWWire `read into` straight into the parser with "
                + "`feed(upTo:using:)`; FWWire `read buffer` into one reused buffer, then "
                + "`feed(_: UnsafeRawBufferPointer)`, FWTransport's path today):")
        lines.append("")
        lines.append(
            "| input | NIO MB/s | NIO ns/resp | read into MB/s | read into ns/resp | FW/NIO "
                + "| read buffer MB/s | read buffer ns/resp | FW/NIO |")
        lines.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
        for result in results {
            lines.append(
                "| (\(result.input.name)) " + cells(result, .nio(.fresh))
                    + cells(result, .fwWire(.readInto))
                    + "| **\(fixed(result.speedup(.fwWire(.readInto), over: .fresh), 2))×** "
                    + cells(result, .fwWire(.readBuffer))
                    + "| \(fixed(result.speedup(.fwWire(.readBuffer), over: .fresh), 2))× |")
        }
        lines.append("")
        lines.append("**Heap allocations per response** (steady state, counted by the interposed `malloc`):")
        lines.append("")
        lines.append(
            "| input | FWWire ready: total | in feed | in next() → head | → body | → end | → nil "
                + "| read into | read buffer | NIO ready | NIO copied in |")
        lines.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
        for result in results {
            let ready = result.fwAllocations[.readyArrays]!
            lines.append(
                "| (\(result.input.name)) | \(fixed(ready.total, 2)) | \(fixed(ready.feed, 2)) "
                    + "| \(fixed(ready.head, 2)) | \(fixed(ready.body, 2)) | \(fixed(ready.end, 2)) "
                    + "| \(fixed(ready.waiting, 2)) | \(fixed(result.fwAllocations[.readInto]!.total, 2)) "
                    + "| \(fixed(result.fwAllocations[.readBuffer]!.total, 2)) "
                    + "| \(fixed(result.nioAllocations[.ready]!, 2)) | \(fixed(result.nioAllocations[.fresh]!, 2)) |")
        }
        lines.append("")
        lines += notes
        return lines.joined(separator: "\n")
    }

    /// The MB/s and ns/resp cells of one side.
    private static func cells(_ result: InputResult, _ side: Side) -> String {
        let figures = result.figures[side]!
        return "| \(fixed(figures.megabytesPerSecond, 0)) | \(fixed(figures.nanosecondsPerResponse, 0)) "
    }

    /// How to read the tables.
    static let notes = [
        "Each input is one response repeated back to back in a stream (a kept-alive connection), cut into",
        "64 KiB reads at fixed offsets, so reads split heads, chunk lines and bodies wherever they fall.",
        "Every pass is checked: each side must report the same heads, header fields, status codes, body",
        "bytes and ends as the input holds.",
        "",
        "- **FWWire**: one `HTTPResponseParser` per pass, `expectResponse` before each response, a feed per",
        "  read, `next()` until nil; it counts what each event carries.",
        "- **NIO**: `HTTPResponseDecoder` in a `ByteToMessageHandler` in an `EmbeddedChannel` (set-up and",
        "  teardown untimed); one request head per response written through the pipeline first (the",
        "  decoder learns each method from those writes; a sink drops them), every read fired through the",
        "  pipeline, and a tail handler counting the same things.",
        "- Ready reads leave out the copy a socket read makes, on both sides; reads copied in include it",
        "  (and NIO's allocation of a buffer per read). With a reused read buffer FWWire must copy what it",
        "  keeps and each body event needs an array of its own, so large bodies pay one more copy and an",
        "  allocation per read; reading into the parser avoids both.",
        "- Allocations: the bench's C target defines `malloc`, `calloc`, `realloc` and the aligned variants",
        "  (forwarding to glibc's `__libc_*`), so every allocation passes a per-thread counter; the second of",
        "  two passes is counted, so buffers have reached their working size. FWWire's are split by where",
        "  they happen: in `feed`, and in the `next()` calls that returned a head, a body, the end, or nil.",
        "  A head costs the two arrays of its `HTTPHeaders` (bytes and ranges); a reason phrase of up to 15",
        "  UTF-8 bytes is a small String (no allocation).",
    ]

    /// `value` with `digits` decimals.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits {
            scale *= 10
        }
        let rounded = (value * scale).rounded() / scale
        guard digits > 0 else { return String(Int(rounded)) }
        let whole = Int(rounded)
        let fraction = Int(((rounded - Double(whole)) * scale).rounded())
        let fractionText = String(fraction)
        return "\(whole)." + String(repeating: "0", count: digits - fractionText.count) + fractionText
    }

    /// The 1-minute load average from /proc/loadavg, or "?".
    static func loadAverage() -> String {
        guard let file = fopen("/proc/loadavg", "r") else { return "?" }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return "?" }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(text.split(separator: " ").first ?? "?")
    }
}

/// Standard error as a TextOutputStream.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        var bytes = Array(string.utf8)
        _ = Glibc.write(2, &bytes, bytes.count)
    }
}
