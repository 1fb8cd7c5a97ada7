// HTTPSessionManager: the HTTP subclass of the session manager (the seeds' FWHTTPSessionManager, after
// AFHTTPSessionManager), spelled as FWFramework's Swift port spells it. It adds a base URL that relative
// URL strings resolve against, a request serializer that turns a method, a URL string and parameters into
// a request, and one method per HTTP verb that builds the request, makes a data task through the
// manager's factories and resumes it.
//
// This file holds what a subclass may override: the initializers, the base URL, the request serializer,
// the security policy's https rule, the verbs and the general `dataTask(httpMethod:...)`, coding, copying
// and the description. How a request is built and a failure reported is in
// HTTPSessionManager+Requests.swift; archiving and copying in HTTPSessionManager+Coding.swift.

import FWLoop
import Foundation

// MARK: - HTTPSessionManager

/// A session manager for HTTP requests relative to a base URL: `get`, `head`, `post`, `put`, `patch` and
/// `delete` build a request with `requestSerializer`, run it as a data task and hand the object
/// `responseSerializer` made of the body to `success`, or the error to `failure`, on `completionQueue`.
///
/// ```swift
/// let manager = HTTPSessionManager(baseURL: URL(string: "https://api.example.com/v1"))
/// manager.completionQueue = DispatchQueue(label: "api.completion")
/// manager.get(urlString: "users", parameters: ["page": 2], success: { task, object in
///     print(object ?? "no body")
/// }, failure: { task, error in
///     print(error)
/// })
/// ```
///
/// A base URL with a path gets a trailing slash, so `users` above resolves to
/// `https://api.example.com/v1/users` (without the slash it would replace `v1`); `/users` resolves
/// against the host, and an absolute URL string ignores the base URL. The rules are
/// `URL(string:relativeTo:)`'s, which are RFC 3986's.
///
/// `responseSerializer` is the one `URLSessionManager` declares, a `JSONResponseSerializer` unless set:
/// AFHTTPSessionManager redeclares the property only to narrow its Objective-C type, which Swift needs
/// not do. `securityPolicy` refuses a pinning policy unless the base URL is https (see the property).
///
/// Thread-safe: the base URL and the request serializer are kept behind a lock, and the inherited state
/// is guarded as in `URLSessionManager`.
open class HTTPSessionManager: URLSessionManager,
    @unchecked Sendable { // own mutable state: `httpSettings` (a LockedBox)
    /// What may change after creation: the base URL only while the manager is copied or decoded.
    struct HTTPSettings {
        var baseURL: URL?
        var requestSerializer = HTTPRequestSerializer()
    }

    /// The base URL and the request serializer. Touched only inside `withLock`.
    let httpSettings = LockedBox(HTTPSettings())

    /// The URL relative URL strings resolve against; nil when none was given. A URL with a non-empty path
    /// is kept with a trailing slash (`https://h/v1` becomes `https://h/v1/`).
    public internal(set) var baseURL: URL? {
        get { httpSettings.withLock { $0.baseURL } }
        set { httpSettings.withLock { $0.baseURL = newValue } }
    }

    // MARK: Creating

    /// A manager for `url` (see `baseURL`) with the default session configuration.
    public convenience init(baseURL url: URL?) {
        self.init(baseURL: url, sessionConfiguration: nil)
    }

    /// A manager without a base URL for a session made with `configuration`.
    public required convenience init(sessionConfiguration configuration: URLSessionConfiguration?) {
        self.init(baseURL: nil, sessionConfiguration: configuration)
    }

    /// A manager for `url` (see `baseURL`) and a session made with `configuration` (nil:
    /// `URLSessionConfiguration.default`). The designated initializer.
    public init(baseURL url: URL?, sessionConfiguration configuration: URLSessionConfiguration?) {
        super.init(sessionConfiguration: configuration)
        baseURL = url.map(Self.directoryURL)
    }

    /// Decodes a manager that `encode(with:)` archived: the base URL, the session configuration, the
    /// request and response serializers and the security policy (see HTTPSessionManager+Coding.swift).
    /// Nil when the archive holds no configuration.
    public required convenience init?(coder: NSCoder) {
        guard let archived = ArchivedHTTP(coder: coder) else { return nil }
        self.init(baseURL: archived.baseURL, sessionConfiguration: archived.manager.configuration)
        archived.apply(to: self)
    }

    /// `url` with a trailing slash added to a non-empty path that lacks one, so that a relative path
    /// resolves below it. AFNetworking tests the whole string for the slash, so `https://h/v1?x=/` keeps
    /// no slash there; here the path alone decides.
    static func directoryURL(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              !components.percentEncodedPath.isEmpty, !components.percentEncodedPath.hasSuffix("/") else {
            return url
        }
        components.percentEncodedPath += "/"
        return components.url ?? url
    }

    // MARK: Serializers

    /// Builds the requests of the verb methods and `dataTask(httpMethod:...)`: their URL query or body
    /// and their default headers. An `HTTPRequestSerializer` (form-encoded bodies) unless set; set a
    /// `JSONRequestSerializer` for JSON bodies.
    open var requestSerializer: HTTPRequestSerializer {
        get { httpSettings.withLock { $0.requestSerializer } }
        set { httpSettings.withLock { $0.requestSerializer = newValue } }
    }

    // MARK: Server trust

    /// Judges the server trust of the session's connections, as in `URLSessionManager`.
    ///
    /// A policy that pins (`pinningMode` other than `.none`) is accepted only when `baseURL` is https: a
    /// pin is meaningless for plain HTTP, and AFNetworking raises an exception. Here setting such a policy
    /// never traps: the setter writes the reason to standard error and **keeps the policy it had**, so
    /// that a misconfigured manager never talks to a server with a policy it did not mean. Use
    /// `setSecurityPolicy(_:)` to get the refusal as an error instead.
    override open var securityPolicy: SecurityPolicy {
        get { super.securityPolicy }
        set {
            do {
                try setSecurityPolicy(newValue)
            } catch {
                FileHandle.standardError.write(Data("FWNetworking: \(error)\n".utf8))
            }
        }
    }

    /// FWNetworking addition: sets `securityPolicy`, or throws `SecurityPolicyRefusal` (and keeps the old
    /// policy) when `policy` pins and `baseURL` is not https.
    open func setSecurityPolicy(_ policy: SecurityPolicy) throws {
        let mode = policy.pinningMode
        guard mode == .none || baseURL?.scheme?.lowercased() == "https" else {
            throw SecurityPolicyRefusal(pinningMode: mode, baseURL: baseURL)
        }
        super.securityPolicy = policy
    }

    // MARK: The verbs
    //
    // As in FWFramework's port, which follows AFNetworking: GET reports download progress, POST upload
    // progress, HEAD, PUT, PATCH and DELETE none; HEAD's success gets the task only. Each returns the
    // resumed task, or nil when the request could not be built (then `failure` got the error).

    /// Resumes a GET for `urlString` with `parameters` in its query; `progress` follows the download.
    @discardableResult
    open func get(urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
                  progress: ProgressHandler? = nil, success: SuccessHandler? = nil,
                  failure: FailureHandler? = nil) -> URLSessionDataTask? {
        resumed(dataTask(httpMethod: "GET", urlString: urlString, parameters: parameters, headers: headers,
                         uploadProgress: nil, downloadProgress: progress, success: success, failure: failure))
    }

    /// Resumes a HEAD for `urlString` with `parameters` in its query; `success` gets the task, whose
    /// `response` has the headers.
    @discardableResult
    open func head(urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
                   success: (@Sendable (_ task: URLSessionDataTask) -> Void)? = nil,
                   failure: FailureHandler? = nil) -> URLSessionDataTask? {
        var taskOnly: SuccessHandler?
        if let success {
            taskOnly = { task, _ in success(task) }
        }
        return resumed(dataTask(httpMethod: "HEAD", urlString: urlString, parameters: parameters, headers: headers,
                                uploadProgress: nil, downloadProgress: nil, success: taskOnly, failure: failure))
    }

    /// Resumes a POST for `urlString` with `parameters` in its body; `progress` follows the upload.
    @discardableResult
    open func post(urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
                   progress: ProgressHandler? = nil, success: SuccessHandler? = nil,
                   failure: FailureHandler? = nil) -> URLSessionDataTask? {
        resumed(dataTask(httpMethod: "POST", urlString: urlString, parameters: parameters, headers: headers,
                         uploadProgress: progress, downloadProgress: nil, success: success, failure: failure))
    }

    /// Resumes a PUT for `urlString` with `parameters` in its body.
    @discardableResult
    open func put(urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
                  success: SuccessHandler? = nil, failure: FailureHandler? = nil) -> URLSessionDataTask? {
        resumed(dataTask(httpMethod: "PUT", urlString: urlString, parameters: parameters, headers: headers,
                         uploadProgress: nil, downloadProgress: nil, success: success, failure: failure))
    }

    /// Resumes a PATCH for `urlString` with `parameters` in its body.
    @discardableResult
    open func patch(urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
                    success: SuccessHandler? = nil, failure: FailureHandler? = nil) -> URLSessionDataTask? {
        resumed(dataTask(httpMethod: "PATCH", urlString: urlString, parameters: parameters, headers: headers,
                         uploadProgress: nil, downloadProgress: nil, success: success, failure: failure))
    }

    /// Resumes a DELETE for `urlString` with `parameters` in its query.
    @discardableResult
    open func delete(urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
                     success: SuccessHandler? = nil, failure: FailureHandler? = nil) -> URLSessionDataTask? {
        resumed(dataTask(httpMethod: "DELETE", urlString: urlString, parameters: parameters, headers: headers,
                         uploadProgress: nil, downloadProgress: nil, success: success, failure: failure))
    }

    /// Resumes a multipart/form-data POST for `urlString`: a form field per parameter (a `[String: Any]`),
    /// then the parts `block` appends. Files are read while they are sent, so a large file uploads in
    /// constant memory; the body has an exact `Content-Length` and goes through
    /// `uploadTask(streamedRequest:progress:completionHandler:)`, as in the port. `progress` follows the
    /// upload. A block that throws (a file that cannot be read) ends in `failure` with a nil task; the
    /// port's block cannot throw, and a non-throwing block is accepted here too.
    @discardableResult
    open func post(urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
                   constructingBody block: ((MultipartFormData) throws -> Void)?,
                   progress: ProgressHandler? = nil, success: SuccessHandler? = nil,
                   failure: FailureHandler? = nil) -> URLSessionDataTask? {
        let built = buildRequest(urlString: urlString, headers: headers) { serializer, url in
            try serializer.multipartFormRequest(method: "POST", urlString: url,
                                                parameters: Self.formParameters(parameters), constructingBody: block)
        }
        guard let request = reportingFailure(built, to: failure) else { return nil }
        let box = TaskBox()
        let task = uploadTask(streamedRequest: request, progress: progress,
                              completionHandler: box.completion(success: success, failure: failure))
        box.set(task)
        task.resume()
        return task
    }

    /// A data task, **not resumed** (as in AFNetworking and the port), for `httpMethod` and `urlString`
    /// resolved against `baseURL`, with `parameters` encoded by `requestSerializer` and `headers` set
    /// over its default headers (a header given here replaces the serializer's of the same name).
    /// `success` or `failure` runs on the completion queue. When the request cannot be built the result
    /// is nil and `failure` gets a nil task and the request serializer's error (domain
    /// `HTTPRequestSerializer.URLRequestSerializationErrorDomain`).
    open func dataTask(httpMethod: String, urlString: String, parameters: Any? = nil,
                       headers: [String: String]? = nil, uploadProgress: ProgressHandler? = nil,
                       downloadProgress: ProgressHandler? = nil, success: SuccessHandler? = nil,
                       failure: FailureHandler? = nil) -> URLSessionDataTask? {
        let built = buildRequest(urlString: urlString, headers: headers) { serializer, url in
            try serializer.request(method: httpMethod, urlString: url, parameters: parameters)
        }
        guard let request = reportingFailure(built, to: failure) else { return nil }
        let box = TaskBox()
        let task = dataTask(request: request, uploadProgress: uploadProgress, downloadProgress: downloadProgress,
                            completionHandler: box.completion(success: success, failure: failure))
        box.set(task)
        return task
    }

    /// `task`, resumed.
    private func resumed(_ task: URLSessionDataTask?) -> URLSessionDataTask? {
        task?.resume()
        return task
    }

    // MARK: NSSecureCoding, NSCopying

    /// Encodes what `URLSessionManager` encodes, plus the base URL and the request serializer.
    override open func encode(with coder: NSCoder) {
        encodeHTTPManager(with: coder)
    }

    /// A new manager of the same class with the same base URL and configuration, copies of the
    /// serializers and the security policy, and no blocks.
    override open func copy(with zone: NSZone? = nil) -> Any {
        makeHTTPCopy()
    }

    // MARK: Description

    /// The manager's class and identity, its base URL, its session (nil before first use: describing does
    /// not make it) and its operation queue.
    override open var description: String {
        "<\(type(of: self)): \(ObjectIdentifier(self)), baseURL: \(baseURL?.absoluteString ?? "nil"), "
            + "session: \(describedSession), operationQueue: \(operationQueue)>"
    }
}
