import Foundation
import FWNetworking
import Testing
import TestSupport

// Archiving and copying an HTTP session manager: the base URL and the request serializer travel with
// what URLSessionManager carries; a pinning policy archived with an https base URL comes back; the copy
// or decoded manager works against a server.

@Suite struct HTTPSessionManagerCodingTests {
    /// An https manager with a JSON request serializer, a header, a pinning policy and a block.
    static func configured() throws -> HTTPSessionManager {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 2
        let manager = HTTPSessionManager(baseURL: URL(string: "https://example.com/api"),
                                         sessionConfiguration: configuration)
        let serializer = JSONRequestSerializer(writingOptions: [.sortedKeys])
        serializer.setValue("archived", forHTTPHeaderField: "X-Serializer")
        serializer.timeoutInterval = 7
        manager.requestSerializer = serializer
        let response = JSONResponseSerializer()
        response.removesKeysWithNullValues = true
        manager.responseSerializer = response
        manager.securityPolicy = SecurityPolicy(pinningMode: .publicKey,
                                                pinnedCertificates: try ManagerTests.der(["valid-ecdsa.pem"]))
        manager.taskDidComplete = { _, _, _ in }
        return manager
    }

    static func expectSameSettings(_ copy: HTTPSessionManager, as original: HTTPSessionManager) throws {
        #expect(copy !== original && copy.session !== original.session)
        #expect(copy.baseURL?.absoluteString == "https://example.com/api/")
        #expect(copy.session.configuration.httpMaximumConnectionsPerHost == 2)
        let serializer = try #require(copy.requestSerializer as? JSONRequestSerializer)
        #expect(serializer !== original.requestSerializer)
        #expect(serializer.writingOptions == [.sortedKeys] && serializer.timeoutInterval == 7)
        #expect(serializer.value(forHTTPHeaderField: "X-Serializer") == "archived")
        #expect((copy.responseSerializer as? JSONResponseSerializer)?.removesKeysWithNullValues == true)
        #expect(copy.securityPolicy !== original.securityPolicy)
        #expect(copy.securityPolicy.pinningMode == .publicKey, "the https base URL lets the pinning policy in")
        #expect(copy.securityPolicy.pinnedCertificates == original.securityPolicy.pinnedCertificates)
        #expect(copy.taskDidComplete == nil)
    }

    @Test func aCopyHasTheBaseURLAndBothSerializers() throws {
        let original = try Self.configured()
        defer { original.invalidateSessionCancelingTasks(true, resetSession: false) }
        let copy = try #require(original.copy() as? HTTPSessionManager)
        defer { copy.invalidateSessionCancelingTasks(true, resetSession: false) }
        try Self.expectSameSettings(copy, as: original)
    }

    @Test func anArchivedManagerDecodesWithItsSettings() throws {
        let original = try Self.configured()
        defer { original.invalidateSessionCancelingTasks(true, resetSession: false) }
        let archive = try NSKeyedArchiver.archivedData(withRootObject: original, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: HTTPSessionManager.self,
                                                                          from: archive))
        defer { decoded.invalidateSessionCancelingTasks(true, resetSession: false) }
        try Self.expectSameSettings(decoded, as: original)
    }

    @Test func aDecodedManagerWorks() throws {
        let server = try HTTPManagerTests.echoServer()
        defer { server.stop() }
        let original = HTTPManagerTests.manager(server.baseURL + "/archived")
        defer { original.invalidateSessionCancelingTasks(true, resetSession: false) }
        original.requestSerializer.setValue("yes", forHTTPHeaderField: "X-Archived")
        let archive = try NSKeyedArchiver.archivedData(withRootObject: original, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: HTTPSessionManager.self,
                                                                          from: archive))
        defer { decoded.invalidateSessionCancelingTasks(true, resetSession: false) }
        decoded.completionQueue = HTTPManagerTests.completionQueue
        let recorder = VerbRecorder()
        decoded.get(urlString: "echo", success: recorder.success, failure: recorder.failure)
        let outcome = try #require(recorder.wait())
        #expect(outcome.json?["target"] as? String == "/archived/echo")
        #expect(server.requests.last?.header("X-Archived") == "yes")
    }
}
