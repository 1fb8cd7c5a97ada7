import Foundation
import TestSupport

// The hostile responses of HostilePathTests, one per request path, served by a ScriptedServer (raw bytes: no
// server anyone ships sends a bomb or breaks its own framing on purpose).

/// A hostile input, as the request path that asks for it.
enum HostileInput: String, CaseIterable, Sendable {
    /// A 1 MB gzip body that inflates to 1 GiB.
    case bomb
    /// A 32 MiB body, four times the probe's collected-body limit.
    case oversized
    /// 256 KiB of a 1 MiB body, then a reset.
    case reset
    /// 64 KiB of a 1 MiB body, then silence.
    case stall
    /// A head that arrives one byte every 0.3 s (each byte restarts the idle timeout).
    case slowHeader = "slow-header"
    /// A chunked body whose first chunk size is not hexadecimal.
    case badFraming = "bad-framing"
}

/// Serves every `HostileInput` at `/<input>` on kept-alive connections.
enum HostilePathServer {
    /// The bomb, made once for every run (python3 takes a second of CPU for it).
    private static let bomb = Result { try GzipBomb.bytes(decodedMebibytes: 1024) }

    static func start() throws -> ScriptedServer {
        let bomb = try bomb.get()
        return try ScriptedServer { connection in
            while let request = try connection.readRequest() {
                guard let input = HostileInput(rawValue: String(request.target.dropFirst())) else {
                    try connection.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                    continue
                }
                try serve(input, bomb: bomb, on: connection)
            }
        }
    }

    private static func serve(_ input: HostileInput, bomb: [UInt8], on connection: ScriptedConnection) throws {
        let block = [UInt8](repeating: 0x61, count: 64 << 10)
        switch input {
        case .bomb:
            try connection.write("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(bomb.count)\r\n\r\n")
            try connection.write(bomb)
        case .oversized:
            try connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(32 << 20)\r\n\r\n")
            for _ in 0..<(32 << 20) / block.count { try connection.write(block) }
        case .reset:
            try connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(1 << 20)\r\n\r\n")
            for _ in 0..<4 { try connection.write(block) }
            connection.reset()
        case .stall:
            try connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(1 << 20)\r\n\r\n")
            try connection.write(block)
            _ = connection.waitForClose(timeout: 30)
            connection.close()
        case .slowHeader:
            try connection.write("HTTP/1.1 200 OK\r\n")
            for _ in 0..<100 where connection.pause(0.3) { try connection.write("X") }
            connection.close()
        case .badFraming:
            try connection.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
            _ = connection.waitForClose(timeout: 30)
            connection.close()
        }
    }
}
