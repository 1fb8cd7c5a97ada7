// URLRequest+Bridging.swift
//
// `URLRequest` and its reference type `NSURLRequest`, as in FoundationNetworking: `ReferenceConvertible`
// names the class, and `_ObjectiveCBridgeable` (the standard library's bridging protocol, which Linux
// Foundation uses for its own value types too) makes `request as NSURLRequest`, `nsRequest as URLRequest`
// and the dynamic casts (`any as? URLRequest`) work as they do with FoundationNetworking. Each direction
// copies the value: protocol properties travel with it.

import Foundation

extension URLRequest: ReferenceConvertible {
    /// The class a request bridges to.
    public typealias ReferenceType = NSURLRequest
}

extension URLRequest: _ObjectiveCBridgeable {
    /// The class a request bridges to (standard-library bridging hook).
    public static func _getObjectiveCType() -> Any.Type {
        NSURLRequest.self
    }

    /// A new immutable `NSURLRequest` holding this request (standard-library bridging hook).
    public func _bridgeToObjectiveC() -> NSURLRequest {
        NSURLRequest(request: self)
    }

    /// The request `input` holds (standard-library bridging hook).
    public static func _forceBridgeFromObjectiveC(_ input: NSURLRequest, result: inout URLRequest?) {
        result = input.request
    }

    /// The request `input` holds; always succeeds (standard-library bridging hook).
    public static func _conditionallyBridgeFromObjectiveC(_ input: NSURLRequest, result: inout URLRequest?)
        -> Bool {
        result = input.request
        return true
    }

    /// The request `source` holds; a placeholder request for `file:///` when there is none (standard-library
    /// bridging hook; the compiler never passes nil for a non-optional bridge).
    public static func _unconditionallyBridgeFromObjectiveC(_ source: NSURLRequest?) -> URLRequest {
        source?.request ?? URLRequest(url: URL(fileURLWithPath: "/"))
    }
}
