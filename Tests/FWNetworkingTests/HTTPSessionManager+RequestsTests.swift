import Foundation
import FWNetworking
import FWTLS
import Testing
import TestSupport

// How HTTPSessionManager's requests end: an HTTP error in failure with the task and the response, a
// request that cannot be built in failure with no task on the completion queue (never a throw or a
// trap), the general dataTask left suspended, a multipart POST parsed by Python's email.parser, and
// public-key pinning over HTTPS against `openssl s_server`.

@Suite struct HTTPSessionManagerRequestsTests {
    // MARK: Failures

    @Test func anHTTPErrorReachesFailureWithTheTaskAndTheResponse() throws {
        let server = try HTTPManagerTests.echoServer()
        defer { server.stop() }
        let manager = HTTPManagerTests.manager(server.baseURL)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let recorder = VerbRecorder()
        let task = manager.get(urlString: "missing", success: recorder.success, failure: recorder.failure)
        let outcome = try #require(recorder.wait())

        #expect(outcome.task === task && outcome.status == 404 && outcome.onCompletionQueue)
        let error = try #require(outcome.nsError)
        #expect(error.domain == HTTPResponseSerializer.URLResponseSerializationErrorDomain)
        let response = error.userInfo[HTTPResponseSerializer.NetworkingOperationFailingURLResponseErrorKey]
        #expect((response as? HTTPURLResponse)?.statusCode == 404)
        let body = error.userInfo[HTTPResponseSerializer.NetworkingOperationFailingURLResponseDataErrorKey]
        #expect((body as? Data).map { String(decoding: $0, as: UTF8.self) } == #"{"error":"not here"}"#)
    }

    @Test func anUnacceptableContentTypeReachesFailure() throws {
        let server = try HTTPManagerTests.echoServer()
        defer { server.stop() }
        let manager = HTTPManagerTests.manager(server.baseURL)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let recorder = VerbRecorder()
        manager.post(urlString: "text", success: recorder.success, failure: recorder.failure)
        let outcome = try #require(recorder.wait())
        #expect(outcome.status == 200 && outcome.task != nil)
        #expect(outcome.nsError?.code == NSURLErrorCannotDecodeContentData)
    }

    /// Requests that cannot be built, by verb: parameters that are no dictionary, a URL string that is no
    /// URL, a multipart block that throws, multipart parameters that are no dictionary.
    static let unbuildable: [String] = ["parameters", "url", "block", "form parameters"]

    @Test(arguments: unbuildable)
    func aRequestThatCannotBeBuiltReachesFailureWithoutATask(_ kind: String) throws {
        let server = try HTTPManagerTests.echoServer()
        defer { server.stop() }
        let manager = HTTPManagerTests.manager(server.baseURL)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let recorder = VerbRecorder()
        let (success, failure) = (recorder.success, recorder.failure)
        let missing = URL(fileURLWithPath: "/nonexistent/fwnetworking-\(UUID().uuidString).bin")
        let task: URLSessionDataTask?
        switch kind {
        case "parameters":
            task = manager.get(urlString: "echo", parameters: "not a dictionary", success: success, failure: failure)
        case "url":
            task = manager.post(urlString: "http://[::1", parameters: nil, success: success, failure: failure)
        case "block":
            task = manager.post(urlString: "echo", constructingBody: { form in
                try form.appendPart(fileURL: missing, name: "file")
            }, success: success, failure: failure)
        default:
            task = manager.post(urlString: "echo", parameters: [1, 2], constructingBody: nil,
                                success: success, failure: failure)
        }
        #expect(task == nil)
        let outcome = try #require(recorder.wait())
        #expect(outcome.task == nil && outcome.onCompletionQueue)
        let error = try #require(outcome.nsError)
        #expect(error.domain == HTTPRequestSerializer.URLRequestSerializationErrorDomain, "\(error)")
        #expect(server.requestCount == 0)
    }

    @Test func theGeneralDataTaskIsLeftSuspended() throws {
        let server = try HTTPManagerTests.echoServer()
        defer { server.stop() }
        let manager = HTTPManagerTests.manager(server.baseURL + "/base")
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        let recorder = VerbRecorder()
        let task = try #require(manager.dataTask(httpMethod: "OPTIONS", urlString: "echo", parameters: ["k": "v"],
                                                 headers: ["X-Call": "1"], success: recorder.success,
                                                 failure: recorder.failure))
        #expect(task.state == .suspended && server.requestCount == 0)
        task.resume()
        let outcome = try #require(recorder.wait())
        #expect(outcome.json?["method"] as? String == "OPTIONS")
        #expect(outcome.json?["body"] as? String == "k=v", "OPTIONS is not in the URI methods")
        #expect(server.requests.last?.target == "/base/echo" && server.requests.last?.header("X-Call") == "1")
    }

    // MARK: Multipart

    @Test func aMultipartPostRoundTripsThroughEmailParser() throws {
        let server = try MultipartEchoServer()
        defer { server.stop() }
        let manager = HTTPManagerTests.manager(server.baseURL)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        manager.responseSerializer = HTTPResponseSerializer()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fw-http-manager-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var random = SplitMix64(seed: 15)
        let file = Data((0..<150_000).map { _ in UInt8.random(in: 0...255, using: &random) })
        let fileURL = directory.appendingPathComponent("photo.jpg")
        try file.write(to: fileURL)
        let note = Data("a note\r\n--not the boundary\r\n".utf8)
        let uploaded = LockedBox<Int64>(0)
        let recorder = VerbRecorder()

        let task = manager.post(urlString: "parse", parameters: ["title": "Grüße", "tags": ["a", "b"]],
                                headers: ["X-Upload": "form"], constructingBody: { form in
            try form.appendPart(fileURL: fileURL, name: "photo")
            form.appendPart(fileData: note, name: "note", fileName: "note.txt", mimeType: "text/plain")
        }, progress: { progress in
            uploaded.withLock { $0 = progress.completedUnitCount }
        }, success: recorder.success, failure: recorder.failure)
        #expect(task is URLSessionUploadTask)
        let outcome = try #require(recorder.wait())

        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        let reply = try MultipartEchoServer.reply(try #require(outcome.object as? Data))
        func part(_ name: String, _ filename: String?, _ type: String?, _ data: Data) -> MultipartEchoServer.Part {
            MultipartEchoServer.Part(name: name, filename: filename, contentType: type, length: data.count,
                                     sha256: Digest.sha256.hexHash(data))
        }
        #expect(reply.parts == [
            part("tags[]", nil, nil, Data("a".utf8)), part("tags[]", nil, nil, Data("b".utf8)),
            part("title", nil, nil, Data("Grüße".utf8)),
            part("photo", "photo.jpg", "image/jpeg", file), part("note", "note.txt", "text/plain", note),
        ])
        #expect(reply.method == "POST" && reply.contentType?.hasPrefix("multipart/form-data; boundary=") == true)
        let length = try #require(reply.contentLength.flatMap(Int.init))
        #expect(reply.received == length && uploaded.withLock { $0 } == Int64(length))
    }
}

// MARK: - Pinning over HTTPS

@Suite struct HTTPSessionManagerPinningTests {
    /// An https manager for `openssl s_server` trusting the fixture root, pinning `pins`' public keys.
    @Test(arguments: [(["valid-ecdsa.pem"], true), (["valid-rsa.pem"], false)])
    func anHTTPSManagerPinsPublicKeys(_ pins: [String], trusted: Bool) throws {
        let server = try OpenSSLServer.start(certificate: "valid-ecdsa.pem", chain: "intermediate-ca.pem")
        defer { server.stop() }
        let manager = HTTPSessionManager(baseURL: URL(string: "https://127.0.0.1:\(server.port)/api"),
                                         sessionConfiguration: try ManagerTests.fixtureTrust())
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        manager.completionQueue = HTTPManagerTests.completionQueue
        manager.responseSerializer = HTTPResponseSerializer()
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: try ManagerTests.der(pins))
        try manager.setSecurityPolicy(policy)
        #expect(manager.securityPolicy === policy)

        let recorder = VerbRecorder()
        let task = manager.get(urlString: "/", success: recorder.success, failure: recorder.failure)
        let outcome = try #require(recorder.wait())
        #expect(outcome.task === task && outcome.onCompletionQueue)
        if trusted {
            #expect(outcome.error == nil && outcome.status == 200, "\(String(describing: outcome.error))")
        } else {
            let error = try #require(outcome.error as? URLError, "\(String(describing: outcome.error))")
            #expect(error.code == .serverCertificateUntrusted)
        }
    }
}
