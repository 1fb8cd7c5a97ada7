import Foundation

// MARK: - Terminal and trace output

/// Unbuffered writes to stdout and stderr.
enum Terminal {
    static func output(_ data: Data) { FileHandle.standardOutput.write(data) }
    static func error(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }
    /// Text on stderr as it is (a progress meter's redraw).
    static func progress(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}

/// `--trace-ascii`: every byte exchanged, as curl prints it: a header line per chunk, then the bytes as
/// text lines with their offsets, non-printable bytes shown as '.'.
///
/// Written only from the session's serial delegate queue (every trace message arrives there), so its
/// writes never interleave and it needs no lock.
final class TraceLog: Sendable {
    private let handle: FileHandle

    init?(path: String) {
        if path == "-" {
            handle = .standardError
        } else {
            guard FileManager.default.createFile(atPath: path, contents: nil),
                  let file = FileHandle(forWritingAtPath: path) else { return nil }
            handle = file
        }
    }

    func info(_ text: String) {
        write("== Info: \(text)\n")
    }

    func dump(_ title: String, _ bytes: Data) {
        var text = "\(title), \(bytes.count) bytes (0x\(String(bytes.count, radix: 16)))\n"
        var offset = 0
        var line = ""
        for byte in bytes {
            if line.isEmpty { line = String(format: "%04x: ", offset) }
            offset += 1
            switch byte {
            case 0x0A:
                text += line + "\n"
                line = ""
            case 0x0D:
                continue
            case 0x20..<0x7F:
                line.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                line += "."
            }
        }
        if !line.isEmpty { text += line + "\n" }
        write(text)
    }

    private func write(_ text: String) {
        handle.write(Data(text.utf8))
    }
}
