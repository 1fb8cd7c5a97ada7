// HTTPBasicAuthenticationTests.swift
//
// RFC 7617: the §2 example, the §2.1 UTF-8 example, and the credentials the scheme cannot carry.

@testable import FWURLSession
import Testing

@Suite struct HTTPBasicAuthenticationTests {
    @Test(arguments: [
        ("Aladdin", "open sesame", "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),   // RFC 7617 §2
        ("test", "123\u{A3}", "Basic dGVzdDoxMjPCow=="),                    // RFC 7617 §2.1, charset="UTF-8"
        ("", "", "Basic Og=="),
        ("user", "pass:with:colons", "Basic dXNlcjpwYXNzOndpdGg6Y29sb25z"),  // colons are fine in the password
    ])
    func encodesTheCredentials(_ user: String, _ password: String, _ value: String) {
        #expect(HTTPBasicAuthentication.authorization(user: user, password: password) == value)
    }

    @Test(arguments: [("a:b", "pw"), ("a\u{0}", "pw"), ("a", "p\nw"), ("a", "p\u{7F}")])
    func refusesWhatRFC7617Forbids(_ user: String, _ password: String) {
        #expect(HTTPBasicAuthentication.authorization(user: user, password: password) == nil)
    }
}
