import Foundation
import Testing

/// The fixture reader that keeps the revocation tests off the wall clock reads the same dates as OpenSSL.
@Suite struct OCSPResponseDatesTests {
    @Test(arguments: ["ocsp-valid-ecdsa-good.der", "ocsp-revoked.der"])
    func readsTheDatesOpenSSLReads(_ file: String) throws {
        let dates = try OCSPResponseDates(der: Fixtures.bytes(file))
        let text = try Fixtures.openssl(["ocsp", "-respin", Fixtures.path(file), "-resp_text", "-noverify"])
        #expect(dates.thisUpdate == (try Self.openSSLTime(after: "This Update:", in: text)))
        #expect(dates.nextUpdate == (try Self.openSSLTime(after: "Next Update:", in: text)))
        #expect(dates.thisUpdate < dates.nextUpdate)
    }

    @Test func daysSince1970FollowsTheCalendar() {
        #expect(DERNode.daysSince1970(year: 1970, month: 1, day: 1) == 0)
        #expect(DERNode.daysSince1970(year: 2000, month: 3, day: 1) == 11_017)
        #expect(DERNode.daysSince1970(year: 2026, month: 11, day: 22) == 20_779)
    }

    @Test func aTruncatedResponseIsAnError() throws {
        let der = try Fixtures.bytes("ocsp-valid-ecdsa-good.der")
        #expect(throws: DERError.self) { try OCSPResponseDates(der: Array(der.prefix(der.count / 2))) }
    }

    /// "This Update: Nov 22 17:38:04 2026 GMT" → seconds since 1970.
    static func openSSLTime(after label: String, in text: String) throws -> Int64 {
        let line = try #require(text.split(separator: "\n").first { $0.contains(label) })
        let words = line.split(separator: " ").drop { !label.hasSuffix($0) }.dropFirst()
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "MMM d HH:mm:ss yyyy zzz"
        let date = try #require(formatter.date(from: words.joined(separator: " ")))
        return Int64(date.timeIntervalSince1970)
    }
}
