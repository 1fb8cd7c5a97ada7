// Pinning delegates as iOS apps write them, VERBATIM: public-key pinning with today's APIs, and the
// older certificate pinning with SecTrustEvaluate. Only the imports are what an app has on Linux
// (`import Foundation` + `import FWNetworking`, whose FWURLSession part is imported here). This file
// compiling is half of the test; ApplePinningDelegateTests drives the delegates with real fixture chains.
//
// The one line an iOS app would write differently is inside `sha256(_:)`: the app calls CommonCrypto's
// CC_SHA256 (or CryptoKit's SHA256.hash), neither of which exists on Linux, so the snippet carries the
// small helper a Linux port would define.

import Foundation
import FWURLSession

// MARK: - Begin verbatim snippet

final class PublicKeyPinningDelegate: NSObject, URLSessionDelegate {
    /// Base64 SHA-256 hashes of the pinned SubjectPublicKeyInfo (current key and backup key).
    private let pinnedPublicKeyHashes: Set<String>

    init(pinnedPublicKeyHashes: Set<String>) {
        self.pinnedPublicKeyHashes = pinnedPublicKeyHashes
    }

    // ASN.1 headers that turn SecKeyCopyExternalRepresentation's output into a SubjectPublicKeyInfo.
    private static let rsa2048Asn1Header: [UInt8] = [
        0x30, 0x82, 0x01, 0x22, 0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86,
        0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00, 0x03, 0x82, 0x01, 0x0f, 0x00,
    ]
    private static let ecDsaSecp256r1Asn1Header: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02,
        0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03,
        0x42, 0x00,
    ]

    func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition,
                                                            URLCredential?) -> Void) {
        guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
              let serverTrust = challenge.protectionSpace.serverTrust else {
            completionHandler(.performDefaultHandling, nil)
            return
        }

        var error: CFError?
        guard SecTrustEvaluateWithError(serverTrust, &error) else {
            completionHandler(.cancelAuthenticationChallenge, nil)
            return
        }

        guard let certificates = SecTrustCopyCertificateChain(serverTrust) as? [SecCertificate],
              let leaf = certificates.first,
              let publicKey = SecCertificateCopyKey(leaf) ?? SecTrustCopyKey(serverTrust),
              let publicKeyData = SecKeyCopyExternalRepresentation(publicKey, nil) as Data?,
              let attributes = SecKeyCopyAttributes(publicKey) as? [String: Any],
              let keyType = attributes[kSecAttrKeyType as String] as? String,
              let keySize = attributes[kSecAttrKeySizeInBits as String] as? Int else {
            completionHandler(.cancelAuthenticationChallenge, nil)
            return
        }

        let header: [UInt8]
        if keyType == (kSecAttrKeyTypeRSA as String) && keySize == 2048 {
            header = Self.rsa2048Asn1Header
        } else if keyType == (kSecAttrKeyTypeECSECPrimeRandom as String) && keySize == 256 {
            header = Self.ecDsaSecp256r1Asn1Header
        } else {
            completionHandler(.cancelAuthenticationChallenge, nil)
            return
        }

        var subjectPublicKeyInfo = Data(header)
        subjectPublicKeyInfo.append(publicKeyData)
        let hash = sha256(subjectPublicKeyInfo).base64EncodedString()

        if pinnedPublicKeyHashes.contains(hash) {
            completionHandler(.useCredential, URLCredential(trust: serverTrust))
        } else {
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    }

    private func sha256(_ data: Data) -> Data {
        Data(TinySHA256.hash([UInt8](data)))
    }
}

// MARK: - End verbatim snippet

// MARK: - Begin verbatim snippet (older certificate pinning, pre-iOS 13 APIs)

final class CertificatePinningDelegate: NSObject, URLSessionDelegate {
    private let pinnedCertificateData: Data

    init(pinnedCertificateData: Data) {
        self.pinnedCertificateData = pinnedCertificateData
    }

    func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition,
                                                            URLCredential?) -> Void) {
        if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust {
            if let serverTrust = challenge.protectionSpace.serverTrust {
                var secresult = SecTrustResultType.invalid
                let status = SecTrustEvaluate(serverTrust, &secresult)

                if errSecSuccess == status && (secresult == .unspecified || secresult == .proceed) {
                    if let serverCertificate = SecTrustGetCertificateAtIndex(serverTrust, 0) {
                        let serverCertificateData = SecCertificateCopyData(serverCertificate)
                        let data = CFDataGetBytePtr(serverCertificateData)
                        let size = CFDataGetLength(serverCertificateData)
                        let certificate = NSData(bytes: data, length: size)

                        if certificate.isEqual(to: pinnedCertificateData) {
                            completionHandler(.useCredential, URLCredential(trust: serverTrust))
                            return
                        }
                    }
                }
            }
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }
}

// MARK: - End verbatim snippet (older certificate pinning)

// MARK: - TinySHA256

/// SHA-256 (FIPS 180-4) in plain Swift: the helper the snippet defines in place of CC_SHA256.
enum TinySHA256 {
    private static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    /// The 32-byte digest of `message`.
    static func hash(_ message: [UInt8]) -> [UInt8] {
        var state: [UInt32] = [
            0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
        ]
        var padded = message + [0x80]
        while padded.count % 64 != 56 { padded.append(0) }
        let bitLength = UInt64(message.count) * 8
        padded += (0..<8).reversed().map { UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64($0))) }
        for blockStart in stride(from: 0, to: padded.count, by: 64) {
            compress(Array(padded[blockStart..<blockStart + 64]), into: &state)
        }
        return state.flatMap { word in (0..<4).reversed().map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
    }

    private static func compress(_ block: [UInt8], into state: inout [UInt32]) {
        func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 { value >> count | value << (32 - count) }
        var words = (0..<16).map { index in
            block[index * 4..<index * 4 + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        for index in 16..<64 {
            let s0 = rotate(words[index - 15], 7) ^ rotate(words[index - 15], 18) ^ words[index - 15] >> 3
            let s1 = rotate(words[index - 2], 17) ^ rotate(words[index - 2], 19) ^ words[index - 2] >> 10
            words.append(words[index - 16] &+ s0 &+ words[index - 7] &+ s1)
        }
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        for index in 0..<64 {
            let s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
            let choice = e & f ^ ~e & g
            let temp1 = h &+ s1 &+ choice &+ roundConstants[index] &+ words[index]
            let s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
            let majority = a & b ^ a & c ^ b & c
            let temp2 = s0 &+ majority
            (h, g, f, e, d, c, b, a) = (g, f, e, d &+ temp1, c, b, a, temp1 &+ temp2)
        }
        for (index, value) in [a, b, c, d, e, f, g, h].enumerated() {
            state[index] = state[index] &+ value
        }
    }
}
