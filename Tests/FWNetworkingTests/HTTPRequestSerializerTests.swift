import Foundation
import FWNetworking
import Testing

// HTTPRequestSerializer: default headers, Basic authorization, the mirrored request properties, the
// query string in the URL for GET/HEAD/DELETE and the form body otherwise (exact bytes), custom query
// string blocks, and the errors it throws instead of trapping.
@Suite struct HTTPRequestSerializerTests {
    private func domainCode(_ body: () throws -> URLRequest) -> (String, Int)? {
        do {
            _ = try body()
            return nil
        } catch {
            let error = error as NSError
            return (error.domain, error.code)
        }
    }

    // MARK: Headers

    @Test func defaultHeadersAreSetCaseInsensitivelyAndRemovable() {
        let serializer = HTTPRequestSerializer()
        serializer.setValue("one", forHTTPHeaderField: "X-Thing")
        serializer.setValue("two", forHTTPHeaderField: "x-thing")
        #expect(serializer.value(forHTTPHeaderField: "X-THING") == "two")
        #expect(serializer.httpRequestHeaders["X-Thing"] == "two")
        serializer.setValue(nil, forHTTPHeaderField: "X-THING")
        #expect(serializer.value(forHTTPHeaderField: "X-Thing") == nil)
        #expect(serializer.httpRequestHeaders.keys.sorted() == ["Accept-Language", "User-Agent"])
    }

    @Test func basicAuthorizationIsBase64OfUserColonPassword() throws {
        let serializer = HTTPRequestSerializer()
        serializer.setAuthorizationHeaderField(username: "Aladdin", password: "open sesame")
        #expect(serializer.value(forHTTPHeaderField: "Authorization") == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        serializer.setAuthorizationHeaderField(username: "ü", password: ":")
        #expect(serializer.value(forHTTPHeaderField: "Authorization") == "Basic w7w6Og==")
        serializer.clearAuthorizationHeader()
        #expect(serializer.value(forHTTPHeaderField: "authorization") == nil)
        let request = try serializer.request(method: "GET", urlString: "http://h/", parameters: nil)
        #expect(request.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test func defaultHeadersDoNotOverrideTheRequestsOwn() throws {
        let serializer = HTTPRequestSerializer()
        serializer.setValue("default", forHTTPHeaderField: "X-A")
        serializer.setValue("default", forHTTPHeaderField: "X-B")
        var request = URLRequest(url: URL(string: "http://h/")!)
        request.setValue("mine", forHTTPHeaderField: "x-a")
        let serialized = try serializer.requestBySerializingRequest(request, parameters: nil)
        #expect(serialized.value(forHTTPHeaderField: "X-A") == "mine")
        #expect(serialized.value(forHTTPHeaderField: "X-B") == "default")
        #expect(serialized.value(forHTTPHeaderField: "User-Agent")
                == serializer.value(forHTTPHeaderField: "User-Agent"))
    }

    // MARK: Mirrored properties

    @Test func unsetPropertiesLeaveTheRequestDefaults() throws {
        let serializer = HTTPRequestSerializer()
        let request = try serializer.request(method: "GET", urlString: "http://h/", parameters: nil)
        let plain = URLRequest(url: URL(string: "http://h/")!)
        #expect(serializer.timeoutInterval == plain.timeoutInterval)
        #expect(serializer.httpShouldUsePipelining == plain.httpShouldUsePipelining)
        #expect(request.timeoutInterval == plain.timeoutInterval)
        #expect(request.cachePolicy == plain.cachePolicy)
    }

    @Test func setPropertiesAreMirroredOntoEveryRequest() throws {
        let serializer = HTTPRequestSerializer()
        serializer.allowsCellularAccess = false
        serializer.cachePolicy = .reloadIgnoringLocalCacheData
        serializer.httpShouldHandleCookies = false
        serializer.httpShouldUsePipelining = false
        serializer.networkServiceType = .background
        serializer.timeoutInterval = 7
        for method in ["GET", "POST"] {
            let request = try serializer.request(method: method, urlString: "http://h/", parameters: ["a": 1])
            #expect(request.allowsCellularAccess == false)
            #expect(request.cachePolicy == .reloadIgnoringLocalCacheData)
            #expect(request.httpShouldHandleCookies == false)
            #expect(request.httpShouldUsePipelining == false)
            #expect(request.networkServiceType == .background)
            #expect(request.timeoutInterval == 7)
        }
        #expect(serializer.timeoutInterval == 7)
    }

    // MARK: Parameters in the URL

    static let uriCases: [(method: String, url: String, expected: String)] = [
        ("GET", "http://h/p", "http://h/p?a=1&b%5B%5D=x&b%5B%5D=y"),
        ("HEAD", "http://h/p", "http://h/p?a=1&b%5B%5D=x&b%5B%5D=y"),
        ("DELETE", "http://h/p", "http://h/p?a=1&b%5B%5D=x&b%5B%5D=y"),
        ("get", "http://h/p", "http://h/p?a=1&b%5B%5D=x&b%5B%5D=y"),
        ("GET", "http://h/p?z=0", "http://h/p?z=0&a=1&b%5B%5D=x&b%5B%5D=y"),
        ("GET", "http://h/p?", "http://h/p?a=1&b%5B%5D=x&b%5B%5D=y"),
        ("GET", "http://h/p#frag", "http://h/p?a=1&b%5B%5D=x&b%5B%5D=y#frag"),
        ("GET", "http://h/p?z=0#frag", "http://h/p?z=0&a=1&b%5B%5D=x&b%5B%5D=y#frag"),
    ]

    @Test(arguments: uriCases)
    func parametersGoIntoTheURL(method: String, url: String, expected: String) throws {
        let request = try HTTPRequestSerializer().request(method: method, urlString: url,
                                                          parameters: ["b": ["x", "y"], "a": 1])
        #expect(request.url?.absoluteString == expected)
        #expect(request.httpBody == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test func noParametersLeaveTheURLAlone() throws {
        let serializer = HTTPRequestSerializer()
        #expect(try serializer.request(method: "GET", urlString: "http://h/p", parameters: nil).url?.absoluteString
                == "http://h/p")
        #expect(try serializer.request(method: "GET", urlString: "http://h/p", parameters: [String: Int]())
            .url?.absoluteString == "http://h/p")
    }

    @Test func methodsEncodingParametersInURIAreConfigurable() throws {
        let serializer = HTTPRequestSerializer()
        serializer.httpMethodsEncodingParametersInURI = ["GET"]
        let delete = try serializer.request(method: "DELETE", urlString: "http://h/", parameters: ["a": 1])
        #expect(delete.url?.absoluteString == "http://h/")
        #expect(delete.httpBody == Data("a=1".utf8))
    }

    // MARK: Parameters in the body

    @Test func otherMethodsGetAFormBody() throws {
        for method in ["POST", "PUT", "PATCH"] {
            let request = try HTTPRequestSerializer().request(method: method, urlString: "http://h/p?k=v",
                                                              parameters: ["name": "A B", "list": [1, 2]])
            #expect(request.httpMethod == method)
            #expect(request.url?.absoluteString == "http://h/p?k=v")
            #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
            #expect(request.httpBody == Data("list%5B%5D=1&list%5B%5D=2&name=A%20B".utf8))
        }
    }

    @Test func aBodyWithoutParametersIsAnEmptyForm() throws {
        let request = try HTTPRequestSerializer().request(method: "POST", urlString: "http://h/", parameters: nil)
        #expect(request.httpBody == Data())
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
    }

    @Test func aContentTypeOfTheRequestIsKept() throws {
        var request = URLRequest(url: URL(string: "http://h/")!)
        request.httpMethod = "POST"
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        let serialized = try HTTPRequestSerializer().requestBySerializingRequest(request, parameters: ["a": "b"])
        #expect(serialized.value(forHTTPHeaderField: "Content-Type") == "text/plain")
        #expect(serialized.httpBody == Data("a=b".utf8))
    }

    // MARK: Query string blocks

    @Test func aQueryStringBlockReplacesTheDefaultStyle() throws {
        let serializer = HTTPRequestSerializer()
        serializer.setQueryStringSerialization { request, parameters in
            "\(request.httpMethod ?? "")-\((parameters as? [Int])?.count ?? -1)"
        }
        let get = try serializer.request(method: "GET", urlString: "http://h/", parameters: [1, 2, 3])
        #expect(get.url?.absoluteString == "http://h/?GET-3")
        let post = try serializer.request(method: "POST", urlString: "http://h/", parameters: [1])
        #expect(post.httpBody == Data("POST-1".utf8))
        serializer.setQueryStringSerialization(style: .default)
        let back = try serializer.request(method: "GET", urlString: "http://h/", parameters: ["a": 1])
        #expect(back.url?.absoluteString == "http://h/?a=1")
    }

    @Test func aBlockReturningNilMeansNoQuery() throws {
        let serializer = HTTPRequestSerializer()
        serializer.setQueryStringSerialization { _, _ in nil }
        #expect(try serializer.request(method: "GET", urlString: "http://h/", parameters: ["a": 1])
            .url?.absoluteString == "http://h/")
        #expect(try serializer.request(method: "POST", urlString: "http://h/", parameters: ["a": 1]).httpBody == Data())
    }

    // MARK: Errors

    struct Thrown: Error {}

    @Test func errorsAreThrownInTheSerializationDomain() {
        let serializer = HTTPRequestSerializer()
        let domain = HTTPRequestSerializer.URLRequestSerializationErrorDomain
        #expect(domainCode { try serializer.request(method: "GET", urlString: "", parameters: nil) }
                ?? ("", 0) == (domain, NSURLErrorBadURL))
        #expect(domainCode { try serializer.request(method: "GET", urlString: "http://[::1", parameters: nil) }
                ?? ("", 0) == (domain, NSURLErrorBadURL))
        #expect(domainCode { try serializer.request(method: "GET", urlString: "http://h/", parameters: [1, 2]) }
                ?? ("", 0) == (domain, NSURLErrorCannotDecodeContentData))
        #expect(domainCode { try serializer.request(method: "POST", urlString: "http://h/", parameters: "a=1") }
                ?? ("", 0) == (domain, NSURLErrorCannotDecodeContentData))
    }

    @Test func anUnknownStyleIsAnError() throws {
        let serializer = HTTPRequestSerializer()
        serializer.setQueryStringSerialization(style: HTTPRequestQueryStringSerializationStyle(rawValue: 9))
        let result = domainCode { try serializer.request(method: "GET", urlString: "http://h/", parameters: ["a": 1]) }
        #expect(result?.1 == NSURLErrorCannotDecodeContentData)
        serializer.setQueryStringSerialization(style: .default)
        #expect(try serializer.request(method: "GET", urlString: "http://h/", parameters: ["a": 1]).url?.query == "a=1")
    }

    @Test func whatABlockThrowsIsThrown() {
        let serializer = HTTPRequestSerializer()
        serializer.setQueryStringSerialization { _, _ in throw Thrown() }
        #expect(throws: Thrown.self) { try serializer.request(method: "GET", urlString: "http://h/", parameters: 1) }
    }

    @Test func aQueryTheStringEncodingCannotHoldIsAnError() throws {
        let serializer = HTTPRequestSerializer()
        serializer.stringEncoding = .ascii
        serializer.setQueryStringSerialization { _, _ in "é" }
        let result = domainCode { try serializer.request(method: "POST", urlString: "http://h/", parameters: 1) }
        #expect(result?.1 == NSURLErrorCannotDecodeContentData)
        serializer.setQueryStringSerialization(block: nil)
        #expect(try serializer.request(method: "POST", urlString: "http://h/", parameters: ["é": "é"]).httpBody
                == Data("%C3%A9=%C3%A9".utf8))
    }

    @Test func theFailingRequestIsInTheUserInfo() throws {
        do {
            _ = try HTTPRequestSerializer().request(method: "GET", urlString: "http://h/x", parameters: [1])
            Issue.record("no error")
        } catch {
            let key = HTTPRequestSerializer.NetworkingOperationFailingURLRequestErrorKey
            let request = (error as NSError).userInfo[key]
            #expect((request as? URLRequest)?.url?.absoluteString == "http://h/x")
        }
    }

    // MARK: Threads

    @Test func headersAndPropertiesMayChangeWhileRequestsAreBuilt() async throws {
        let serializer = HTTPRequestSerializer()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<200 {
                        serializer.setValue("\(index)", forHTTPHeaderField: "X-\(worker)")
                        serializer.timeoutInterval = TimeInterval(index + 1)
                        let request = try serializer.request(method: "GET", urlString: "http://h/",
                                                             parameters: ["i": index])
                        #expect(request.url?.query == "i=\(index)")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(serializer.httpRequestHeaders.count == 10)
    }
}
