import Foundation
@testable import FWNetworking
import Testing

// ObjectAssociations: a value per live object, never returned for another object that reuses a freed
// object's identifier, and dropped when its object is gone.
@Suite struct ObjectAssociationsTests {
    final class Object: Sendable {}

    @Test func aValueIsKeptPerObjectAndForgotten() {
        let store = ObjectAssociations<String>()
        let first = Object()
        let second = Object()
        store.set("one", for: first)
        #expect(store.value(for: first) == "one" && store.value(for: second) == nil)
        store.set("two", for: first)
        #expect(store.value(for: first) == "two")
        store.set(nil, for: first)
        #expect(store.value(for: first) == nil)
    }

    @Test func aFreedObjectsValueIsNotInheritedByItsSuccessor() {
        let store = ObjectAssociations<Int>()
        weak var freed: Object?
        for round in 0..<100 {
            let object = Object()
            #expect(store.value(for: object) == nil, "round \(round)")
            store.set(round, for: object)
            freed = object
        }
        #expect(freed == nil)
    }

    @Test func concurrentWritersAndReadersAgree() {
        let store = ObjectAssociations<Int>()
        let objects = (0..<64).map { _ in Object() }
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            store.set(index, for: objects[index])
            _ = store.value(for: objects[(index + 1) % 64])
        }
        #expect(objects.indices.allSatisfy { store.value(for: objects[$0]) == $0 })
    }
}
