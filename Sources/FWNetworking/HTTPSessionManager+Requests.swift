// HTTPSessionManager+Requests: what the verb methods of HTTPSessionManager build on. A request is the
// URL string resolved against `baseURL`, built by `requestSerializer` (parameters in the query for the
// methods of `httpMethodsEncodingParametersInURI`, in the body for the others, or a multipart form), with
// the per-call headers set over the serializer's defaults. A request that cannot be built (a URL string
// that is no URL, parameters the serializer cannot encode, a multipart block that throws) makes no task:
// `failure` gets a nil task and the error on the completion queue. Nothing here throws or traps.
//
// A task's completion handler needs the task it completes, which exists only once the factory returned
// it: a `TaskBox` carries it, set before the task is resumed.

import FWLoop
import Foundation

// MARK: - Handler types

extension HTTPSessionManager {
    /// Called with the task and the object `responseSerializer` made of the body (nil for an empty body).
    public typealias SuccessHandler = @Sendable (_ task: URLSessionDataTask, _ responseObject: Any?) -> Void

    /// Called with the task (nil when the request could not be built) and the error: the task's, the
    /// response serializer's (an unacceptable status or content type; the response is in its userInfo
    /// under `HTTPResponseSerializer.NetworkingOperationFailingURLResponseErrorKey`) or the request
    /// serializer's.
    public typealias FailureHandler = @Sendable (_ task: URLSessionDataTask?, _ error: any Error) -> Void
}

// MARK: - Building requests

extension HTTPSessionManager {
    /// The request `make` builds from the request serializer and the absolute URL string, with `headers`
    /// set over it; or why it could not be built.
    func buildRequest(urlString: String, headers: [String: String]?,
                      make: (HTTPRequestSerializer, String) throws -> URLRequest) -> Result<URLRequest, any Error> {
        Result {
            guard let url = URL(string: urlString, relativeTo: baseURL) else {
                throw HTTPRequestSerializer.serializationError(
                    NSURLErrorBadURL, "'\(urlString)' is not a valid URL string")
            }
            var request = try make(requestSerializer, url.absoluteString)
            for (field, value) in headers ?? [:] {
                request.setValue(value, forHTTPHeaderField: field)
            }
            return request
        }
    }

    /// The request, or nil after scheduling `failure` (when given) with a nil task and the error on the
    /// completion queue.
    func reportingFailure(_ built: Result<URLRequest, any Error>, to failure: FailureHandler?) -> URLRequest? {
        switch built {
        case .success(let request):
            return request
        case .failure(let error):
            if let failure {
                let handed = HandedError(error: error)
                onCompletionQueue { failure(nil, handed.error) }
            }
            return nil
        }
    }

    /// Parameters as a multipart form's dictionary: nil and string-keyed dictionaries as they are,
    /// anything else an error (the port quietly drops parameters that are not a dictionary).
    static func formParameters(_ parameters: Any?) throws -> [String: Any]? {
        guard let parameters else { return nil }
        guard let dictionary = parameters as? [String: Any] else {
            throw HTTPRequestSerializer.serializationError(
                NSURLErrorCannotDecodeContentData,
                "The parameters of a multipart form must be a [String: Any], not \(type(of: parameters))")
        }
        return dictionary
    }
}

// MARK: - TaskBox

/// The task a completion handler reports. Set before the task is resumed, so the handler (which runs
/// after the task completes) always finds it; the handler, and with it this box, is released once the
/// task completes, which ends the task → handler → box → task cycle.
final class TaskBox: Sendable {
    private let task = LockedBox<URLSessionDataTask?>(nil)

    /// Records the task the factory made.
    func set(_ made: URLSessionDataTask) {
        task.withLock { $0 = made }
    }

    /// A manager completion handler that calls `failure` with the task and the error, else `success`
    /// with the task and the response object.
    func completion(success: HTTPSessionManager.SuccessHandler?,
                    failure: HTTPSessionManager.FailureHandler?) -> URLSessionManager.CompletionHandler {
        { [self] _, responseObject, error in
            let made = task.withLock { $0 }
            if let error {
                failure?(made, error)
            } else if let made {
                success?(made, responseObject)
            }
        }
    }
}

// MARK: - HandedError

/// An error handed to the completion queue: `any Error` is not `Sendable`, and nothing touches the error
/// on this side once it is handed over.
private struct HandedError: @unchecked Sendable { // immutable; read once, on the completion queue
    let error: any Error
}
