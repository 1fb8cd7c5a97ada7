// IdleStock: what it keeps, what a sweep frees, and when it asks for a sweep to be armed (plain deadlines, no
// clock and no timer).

import FWLoop
import Testing

@Suite struct IdleStockTests {
    private static let start = Deadline(uptimeNanoseconds: 1_000_000_000)

    private static func at(_ seconds: Int64) -> Deadline {
        start + .seconds(seconds)
    }

    /// A stock holding `entries` (item, expiry in seconds after `start`), kept in that order.
    private static func stock(_ entries: KeyValuePairs<String, Int64>) -> IdleStock<String> {
        var stock = IdleStock<String>()
        for (item, expiry) in entries { _ = stock.keep(item, until: at(expiry)) }
        return stock
    }

    @Test func theFirstKeptArmsTheSweep_laterOnesDoNot() {
        var stock = IdleStock<String>()
        #expect(stock.keep("a", until: Self.at(5)) == Self.at(5))
        #expect(stock.keep("b", until: Self.at(6)) == nil, "a sweep is armed already")
        #expect(stock.items == ["a", "b"])
        #expect(stock.count == 2)
    }

    @Test func aSweepFreesWhatExpiredAndReArmsForTheEarliestLeft() {
        var stock = Self.stock(["a": 5, "b": 9, "c": 5, "d": 7])
        let first = stock.sweep(now: Self.at(5))
        #expect(first.expired == ["a", "c"], "everything due by now, in the order kept")
        #expect(first.next == Self.at(7))
        #expect(stock.items == ["b", "d"])
        let last = stock.sweep(now: Self.at(9))
        #expect(last.expired == ["b", "d"])
        #expect(last.next == nil)
        #expect(stock.keep("e", until: Self.at(14)) == Self.at(14), "nothing left disarmed the sweep")
    }

    @Test func aSweepBeforeAnyExpiryFreesNothing() {
        var stock = IdleStock<Int>()
        _ = stock.keep(1, until: Self.at(5))
        let early = stock.sweep(now: Self.at(4))
        #expect(early.expired.isEmpty)
        #expect(early.next == Self.at(5))
        #expect(stock.count == 1)
    }

    @Test func takenItemsLeaveWithTheirExpiry() {
        var stock = Self.stock(["a": 5, "b": 6, "c": 7])
        #expect(stock.take(at: 0) == "a")
        #expect(stock.takeLast() == "c")
        let swept = stock.sweep(now: Self.at(5))
        #expect(swept.expired.isEmpty, "a's expiry left with a")
        #expect(swept.next == Self.at(6))
        #expect(stock.takeLast() == "b")
        #expect(stock.takeLast() == nil)
    }

    @Test func removeAllHandsEverythingOverAndTheArmedSweepFindsNothing() {
        var stock = Self.stock(["a": 5, "b": 6])
        #expect(stock.removeAll() == ["a", "b"])
        #expect(stock.count == 0)
        #expect(stock.keep("c", until: Self.at(8)) == nil, "the sweep armed for a is still coming")
        let swept = stock.sweep(now: Self.at(5))
        #expect(swept.expired.isEmpty)
        #expect(swept.next == Self.at(8))
    }
}
