import FWLoop
import FWTLS

// MARK: - HTTP1Connection: pipelining
//
// Carrying out the machine's pipelining actions (HTTP1ConnectionStateMachine+Pipelining.swift): a follower's
// head is queued behind whatever is queued already (it has no body), and when a response ends and the machine
// promotes the oldest follower, the parser, the metrics, the idle timer and the reading pause switch to it
// before the next response is parsed. A follower's metrics start when its head was queued
// (`followerRequestStarts`, oldest first: a promotion also drops the entries of followers cancelled before it,
// so the list never holds more than the pipeline's depth). Loop thread only.

extension HTTP1Connection {
    /// Queues the head of `request`, which joined the queue behind the request in flight.
    func writeFollower(_ request: PreparedRequest) {
        if request.request.reportsConnection {
            let info = ConnectionInfo(id: id, isReused: true, localAddress: addresses.local,
                                      remoteAddress: addresses.remote)
            post(.connected(info), to: request)
        }
        if request.request.tracesBytes {
            post([.headSent(request.encodedHead), .wireWrite(request.encodedHead)], to: request)
        }
        followerRequestStarts.append((request.id, loop.now().uptimeNanoseconds))
        do throws(TLSError) {
            try core.queue(request.encodedHead, payload: 0)
        } catch {
            run(machine.failActiveRequest(.secureConnectionFailed(error)))
            return
        }
        flush()
    }

    /// `request`, written earlier behind another, is now the request in flight: its response is the next
    /// one (some of it may be buffered already), its idle timeout starts now, and its task's wish to pause
    /// reading applies.
    func startPromotedResponse(_ request: PreparedRequest) {
        parser.expectResponse(requestMethod: request.request.head.method, reportsChunks: request.request.reportsChunks)
        let buffered = Int64(parser.bufferedByteCount)
        startMetrics(for: request)
        let promoted = metrics.requestStart
        if let index = followerRequestStarts.firstIndex(where: { $0.id == request.id }) {
            metrics.requestStart = followerRequestStarts[index].time
            followerRequestStarts.removeSubrange(...index)
        }
        bytesWritten = Int64(request.encodedHead.count)
        bytesRead = buffered
        if buffered > 0 { metrics.responseStart = promoted }
        lastActivity = loop.now()
        if transport.isReadingPaused(request.id) { _ = machine.withRequest { $0.setReadingPaused(true) } }
        armRequestIdleTimer(request.request.idleTimeout)
        // Its head may be out already: the write half ends (or ends once the queue drains).
        flush()
    }
}
