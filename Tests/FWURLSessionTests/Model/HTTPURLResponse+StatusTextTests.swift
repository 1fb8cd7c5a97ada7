// HTTPURLResponse+StatusTextTests.swift
//
// localizedString(forStatusCode:) returns FoundationNetworking's texts.

import Foundation
import Testing
@testable import FWURLSession

@Suite struct HTTPURLResponseStatusTextTests {
    static let cases: [(Int, String)] = [
        (100, "Continue"), (101, "Switching Protocols"), (102, "Processing"), (103, "Informational"),
        (199, "Informational"),
        (200, "OK"), (201, "Created"), (202, "Accepted"), (203, "Non-Authoritative Information"),
        (204, "No Content"), (205, "Reset Content"), (206, "Partial Content"), (207, "Multi-Status"),
        (208, "Already Reported"), (226, "IM Used"), (299, "Success"),
        (300, "Multiple Choices"), (301, "Moved Permanently"), (302, "Found"), (303, "See Other"),
        (304, "Not Modified"), (305, "Use Proxy"), (306, "Redirection"), (307, "Temporary Redirect"),
        (308, "Permanent Redirect"), (399, "Redirection"),
        (400, "Bad Request"), (401, "Unauthorized"), (402, "Payment Required"), (403, "Forbidden"),
        (404, "Not Found"), (405, "Method Not Allowed"), (406, "Not Acceptable"),
        (407, "Proxy Authentication Required"), (408, "Request Timeout"), (409, "Conflict"), (410, "Gone"),
        (411, "Length Required"), (412, "Precondition Failed"), (413, "Payload Too Large"),
        (414, "URI Too Long"), (415, "Unsupported Media Type"), (416, "Range Not Satisfiable"),
        (417, "Expectation Failed"), (418, "Client Error"), (421, "Misdirected Request"),
        (422, "Unprocessable Entity"), (423, "Locked"), (424, "Failed Dependency"), (425, "Client Error"),
        (426, "Upgrade Required"), (428, "Precondition Required"), (429, "Too Many Requests"),
        (431, "Request Header Fields Too Large"), (451, "Unavailable For Legal Reasons"), (499, "Client Error"),
        (500, "Internal Server Error"), (501, "Not Implemented"), (502, "Bad Gateway"),
        (503, "Service Unavailable"), (504, "Gateway Timeout"), (505, "HTTP Version Not Supported"),
        (506, "Variant Also Negotiates"), (507, "Insufficient Storage"), (508, "Loop Detected"),
        (509, "Server Error"), (510, "Not Extended"), (511, "Network Authentication Required"),
        (599, "Server Error"),
        (0, "Server Error"), (99, "Server Error"), (600, "Server Error"), (-1, "Server Error"),
        (Int.max, "Server Error"),
    ]

    @Test(arguments: cases)
    func localizedStringMatchesFoundationNetworking(_ code: Int, _ text: String) {
        #expect(HTTPURLResponse.localizedString(forStatusCode: code) == text)
    }
}
