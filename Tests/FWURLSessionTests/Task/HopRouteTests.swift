import Foundation
@testable import FWURLSession
import Testing

// The task's hop and policies' state in their box (`Task/HopRoute.swift`): read and changed in place, taken out
// by a walk and put back, and copied on write.
@Suite struct HopRouteTests {
    let first = URLRequest(url: URL(string: "http://127.0.0.1/first")!)
    let second = URLRequest(url: URL(string: "http://127.0.0.1/second")!)

    @Test func theHopAndThePoliciesAreChangedInPlace() {
        var transfer = TaskTransfer(currentRequest: first)
        transfer.hop.number = 3
        transfer.policies.redirectCount = 2
        transfer.currentRequest = second
        #expect(transfer.hop.number == 3)
        #expect(transfer.policies.redirectCount == 2)
        #expect(transfer.hop.request == second)
        #expect(transfer.currentRequest == second)
    }

    @Test func aWalkTakesTheBoxOutAndPutsItBackWithWhatItChanged() throws {
        var transfer = TaskTransfer(currentRequest: first)
        let taken = transfer.takeRoute()
        let route = try #require(taken)
        let again = transfer.takeRoute()
        #expect(again == nil, "one walk at a time")
        // While the walk holds the box, the transfer shows the walk's request and an empty hop.
        #expect(transfer.currentRequest == first)
        #expect(transfer.hop.request == nil)
        route.hop.pointee.request = second
        route.hop.pointee.number = 1
        route.policies.pointee.redirectCount = 1
        transfer.putBack(route)
        #expect(transfer.currentRequest == second)
        #expect(transfer.hop.number == 1)
        #expect(transfer.policies.redirectCount == 1)
    }

    @Test func whatIsChangedThroughTheTransferDuringAWalkIsDropped() throws {
        var transfer = TaskTransfer(currentRequest: first)
        let taken = transfer.takeRoute()
        let route = try #require(taken)
        transfer.hop.number = 7
        transfer.policies.redirectCount = 7
        #expect(transfer.hop.number == 7, "readable until the walk puts its box back")
        #expect(HopRoute.empty.hop.pointee.number == 0, "the shared empty box is never changed")
        transfer.putBack(route)
        #expect(transfer.hop.number == 0)
        #expect(transfer.policies.redirectCount == 0)
        #expect(transfer.currentRequest == first)
    }

    @Test func aCopiedTransferIsAValueOfItsOwn() throws {
        var original = TaskTransfer(currentRequest: first)
        original.hop.number = 1
        var copy = original
        copy.hop.number = 2
        copy.currentRequest = second
        #expect(original.hop.number == 1)
        #expect(original.currentRequest == first)
        #expect(copy.hop.number == 2)
        // A walk on a shared box gets a box nobody else sees.
        var shared = original
        let taken = shared.takeRoute()
        let route = try #require(taken)
        route.hop.pointee.number = 9
        #expect(original.hop.number == 1)
        shared.putBack(route)
        #expect(shared.hop.number == 9)
    }
}
