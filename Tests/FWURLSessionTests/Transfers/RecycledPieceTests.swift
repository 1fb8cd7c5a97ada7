import Foundation
import FWLoop
@testable import FWURLSession
import Testing
import TestSupport

// Body pieces through the transport's `BodyPieceRecycler`, against a loopback nginx: a data delegate that keeps
// some streamed pieces and lets the others go receives every byte, and a piece it keeps is never written over by
// a later read that landed in a piece given back; the pieces of a collected body and of a download come back too.
@Suite struct RecycledPieceTests {
    static let body = patternBytes((1 << 20) + 7, seed: 31)

    /// Keeps every other piece with a copy made when it arrived, and a copy of everything received.
    final class Keeper: NSObject, URLSessionDataDelegate, @unchecked Sendable { // vars: in `state`
        struct State {
            var received = Data()
            var kept: [(piece: Data, atArrival: Data)] = []
            var pieces = 0
            var finished = 0
            var errors: [URLError] = []
        }

        let state = LockedBox(State())

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let copy = data.withUnsafeBytes { Data($0) }
            state.withLock { state in
                state.received.append(copy)
                if state.pieces % 2 == 0 { state.kept.append((data, copy)) }
                state.pieces += 1
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            state.withLock { state in
                state.finished += 1
                if let error = error as? URLError { state.errors.append(error) }
            }
        }
    }

    @Test func keptPiecesStayIntactWhileLaterReadsReuseTheOthers() throws {
        let server = try NginxServer(files: ["big.bin": Self.body])
        let keeper = Keeper()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration, delegate: keeper, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let url = URL(string: server.baseURL + "/big.bin")!
        for round in 1...3 {
            session.dataTask(with: url).resume()
            #expect(waitUntil(timeout: 10) { keeper.state.withLock { $0.finished } == round })
        }
        let state = keeper.state.withLock { $0 }
        #expect(state.errors.isEmpty)
        #expect(state.received == Data(Self.body + Self.body + Self.body))
        #expect(state.pieces > 3)
        for (index, kept) in state.kept.enumerated() {
            #expect(kept.piece == kept.atArrival, "kept piece \(index) changed after it arrived")
        }
    }

    @Test func aCollectedBodysPiecesAndADownloadsPiecesComeBack() throws {
        let server = try NginxServer(files: ["big.bin": Self.body])
        let url = URL(string: server.baseURL + "/big.bin")!
        for download in [false, true] {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = nil
            let session = URLSession(configuration: configuration)
            defer { session.invalidateAndCancel() }
            let outcome = LockedBox<(body: Data?, error: (any Error)?)?>(nil)
            if download {
                session.downloadTask(with: url) { file, _, error in
                    outcome.withLock { $0 = (file.flatMap { try? Data(contentsOf: $0) }, error) }
                }.resume()
            } else {
                session.dataTask(with: url) { data, _, error in outcome.withLock { $0 = (data, error) } }.resume()
            }
            #expect(waitUntil(timeout: 10) { outcome.withLock { $0 } != nil })
            let result = outcome.withLock { $0 }
            #expect(result?.error == nil, "download: \(download)")
            #expect(result?.body == Data(Self.body), "download: \(download)")
            #expect((session.transport?.bodyPieces.keptCount ?? 0) > 0, "download: \(download): no piece came back")
        }
    }
}
