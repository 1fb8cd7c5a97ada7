import Foundation
import FWNetworking

// MARK: - WebSocket mode
//
// `fwcurl ws://HOST/PATH` (or wss://): the URL is opened as a WebSocket (with -H fields, --cacert, -k and
// --pinnedpubkey as for HTTPS). Each line of standard input goes out as a text message; every message that
// arrives is printed: text as a line, binary as its bytes — or, with --json, one JSON object per message
// (`{"type": "text", "data": …}`, `{"type": "binary", "base64": …}`) and a last one for the end
// (`{"type": "close", "code": …, "reason": …}` or `{"type": "error", …}`). At the end of standard input our
// close (1000) goes out and the messages the server sent before it saw it are still printed, until its close
// arrives — at most the session's WebSocket close timeout (5 s) later; then the run fails with a timeout (28).
// The run also ends when the server closes first. Standard input is read on a thread of its own (a blocking
// read must not hold one of the few threads async code runs on).

/// Runs one WebSocket session on `session`; returns the exit status (0 after a clean close).
func runWebSocket(_ request: URLRequest, options: Options, session: URLSession, trace: FetchTrace) async -> Int32 {
    let task = session.webSocketTask(with: request)
    let delegate = WebSocketTrace(trace: trace)
    task.delegate = delegate
    task.resume()
    let printer = WebSocketPrinter(json: options.json)
    let input = Thread {
        while let line = readLine() {
            task.send(.string(line)) { _ in }
        }
        task.cancel(with: .normalClosure, reason: nil)
    }
    input.start()
    // Until the task ends: after our close, the messages the server sent before it saw it still come.
    while true {
        do {
            printer.print(try await task.receive())
        } catch {
            break
        }
    }
    guard let error = task.error as? URLError else {
        printer.printClose(task.closeCode, reason: task.closeReason)
        return 0
    }
    printer.printError(error)
    var record = TransferRecord(trustMode: trace.trustMode)
    record.trustRejection = await delegate.rejection(on: session)
    return ExitCode.failure(error, record: record)
}

/// Answers a WebSocket task's challenges with fwcurl's TLS policy (`--cacert`, `-k`, `--pinnedpubkey`) and
/// remembers a refusal.
///
/// No lock, as with `Transfer`: `refusal` belongs to the session's serial delegate queue, where challenges are
/// answered and where `rejection(on:)` reads it.
final class WebSocketTrace: NSObject, URLSessionWebSocketDelegate,
    @unchecked Sendable { // `refusal`: the session's serial delegate queue only (see above)
    let trace: FetchTrace
    private var refusal: TLSPolicy.Rejection?

    /// Why the policy refused the server (a pin mismatch: exit 90), once it did: read on `session`'s delegate
    /// queue, after the challenges answered there.
    func rejection(on session: URLSession) async -> TLSPolicy.Rejection? {
        await withCheckedContinuation { continuation in
            session.delegateQueue.addOperation { continuation.resume(returning: self.refusal) }
        }
    }

    init(trace: FetchTrace) {
        self.trace = trace
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?)
                        -> Void) {
        let (disposition, credential) = trace.answer(challenge) { finding in
            if case .rejected(let rejection) = finding { refusal = rejection }
        }
        completionHandler(disposition, credential)
    }
}

/// Prints what a WebSocket session receives, as text or one JSON object a line.
struct WebSocketPrinter {
    let json: Bool

    func print(_ message: URLSessionWebSocketTask.Message) {
        switch (message, json) {
        case (.string(let text), false):
            Terminal.output(Data((text + "\n").utf8))
        case (.data(let bytes), false):
            Terminal.output(bytes)
        case (.string(let text), true):
            line(.object([("type", .string("text")), ("data", .string(text))]))
        case (.data(let bytes), true):
            line(.object([("type", .string("binary")), ("base64", .string(bytes.base64EncodedString()))]))
        }
    }

    func printClose(_ code: URLSessionWebSocketTask.CloseCode, reason: Data?) {
        guard json else { return }
        line(.object([("type", .string("close")), ("code", .int(code.rawValue)),
                      ("reason", .string(reason.map { String(decoding: $0, as: UTF8.self) } ?? ""))]))
    }

    func printError(_ error: URLError) {
        if json {
            line(.object([("type", .string("error")), ("code", .int(error.errorCode)),
                          ("message", .string(error.localizedDescription))]))
        } else {
            Terminal.error("fwcurl: (\(error.code.rawValue)) \(error.localizedDescription)")
        }
    }

    private func line(_ value: JSONValue) {
        Terminal.output(Data((value.text + "\n").utf8))
    }
}
