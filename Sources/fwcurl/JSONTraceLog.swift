import Foundation
import FWNetworking

// MARK: - JSONTraceLog

/// `--trace-json FILE|-`: every event of every task as one JSON object per line (`URLSessionTaskTraceEvent`'s
/// `jsonLine`; the schema is in the DocC article "Event trace"), to FILE or, for "-", to stdout (where the body
/// goes too unless `-o`).
///
/// Written only from the session's serial delegate queue (every trace message arrives there), so its writes
/// never interleave and it needs no lock.
final class JSONTraceLog: Sendable {
    private let handle: FileHandle

    /// Opens (truncates) `path`, or stdout for "-"; nil when the file cannot be written.
    init?(path: String) {
        if path == "-" {
            handle = .standardOutput
        } else {
            guard FileManager.default.createFile(atPath: path, contents: nil),
                  let file = FileHandle(forWritingAtPath: path) else { return nil }
            handle = file
        }
    }

    /// Writes `event` as one line.
    func write(_ event: URLSessionTaskTraceEvent) {
        handle.write(Data((event.jsonLine + "\n").utf8))
    }
}
