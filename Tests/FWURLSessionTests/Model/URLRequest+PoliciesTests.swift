// URLRequest+PoliciesTests.swift
//
// Cases and raw values of URLRequest.CachePolicy and URLRequest.NetworkServiceType match
// FoundationNetworking's NSURLRequest enums.

import Foundation
import Testing
@testable import FWURLSession

@Suite struct URLRequestPoliciesTests {
    // MARK: Cache policy

    static let cachePolicies: [(URLRequest.CachePolicy, UInt)] = [
        (.useProtocolCachePolicy, 0),
        (.reloadIgnoringLocalCacheData, 1),
        (.reloadIgnoringLocalAndRemoteCacheData, 2),
        (.returnCacheDataElseLoad, 3),
        (.returnCacheDataDontLoad, 4),
        (.reloadRevalidatingCacheData, 5),
    ]

    @Test(arguments: cachePolicies)
    func cachePolicyRawValues(_ policy: URLRequest.CachePolicy, _ rawValue: UInt) {
        #expect(policy.rawValue == rawValue)
        #expect(URLRequest.CachePolicy(rawValue: rawValue) == policy)
    }

    @Test func cachePolicyRejectsUnknownRawValues() {
        #expect(URLRequest.CachePolicy(rawValue: 6) == nil)
    }

    @Test func reloadIgnoringCacheDataIsTheOlderName() {
        #expect(URLRequest.CachePolicy.reloadIgnoringCacheData == .reloadIgnoringLocalCacheData)
    }

    // MARK: Network service type

    static let serviceTypes: [(URLRequest.NetworkServiceType, UInt)] = [
        (.default, 0),
        (.voip, 1),
        (.video, 2),
        (.background, 3),
        (.voice, 4),
        (.networkServiceTypeCallSignaling, 5),
    ]

    @Test(arguments: serviceTypes)
    func networkServiceTypeRawValues(_ type: URLRequest.NetworkServiceType, _ rawValue: UInt) {
        #expect(type.rawValue == rawValue)
        #expect(URLRequest.NetworkServiceType(rawValue: rawValue) == type)
    }

    @Test func networkServiceTypeRejectsUnknownRawValues() {
        #expect(URLRequest.NetworkServiceType(rawValue: 6) == nil)
    }
}
