import FWTransport
import FWWire
import Testing

// A batch of one loop iteration's events: moved out of the connection's list in order, the list left empty with
// its storage kept for the next iteration (`Array<TransportEvent>.takeEach`, the delegate's default batch call).
@Suite struct TransportEventBatchTests {
    @Test func takeEachHandsOverEveryEventInOrderAndKeepsTheStorage() {
        var events: [TransportEvent] = [.body([1]), .encodedBodyBytes(5), .body([2, 3]), .end(trailers: HTTPHeaders())]
        let capacity = events.capacity
        var seen: [String] = []
        events.takeEach { event in
            switch event {
            case .body(let bytes): seen.append("body \(bytes)")
            case .encodedBodyBytes(let count): seen.append("encoded \(count)")
            case .end: seen.append("end")
            default: seen.append("other")
            }
        }
        #expect(seen == ["body [1]", "encoded 5", "body [2, 3]", "end"])
        #expect(events.isEmpty)
        #expect(events.capacity == capacity)
    }

    @Test func theDefaultBatchCallHandsEachEventToTheSingleOne() {
        let delegate = RecordingDelegate()
        var events: [TransportEvent] = [.body([7]), .end(trailers: HTTPHeaders())]
        delegate.transportTask(RequestID(1), didReceive: &events)
        #expect(events.isEmpty)
        #expect(delegate.recorded.count == 2)
        guard case .body([7]) = delegate.recorded.first, case .end = delegate.recorded.last else {
            Issue.record("expected body then end, got \(delegate.recorded)")
            return
        }
    }
}
