import Foundation
import FWNetworking

// MARK: - Demo: pinning

extension Demo {
    mutating func pinnedHTTPS() async {
        step("7. HTTPS with the server's public key pinned by a SecurityPolicy (and a pin that fails)")
        let server: DemoTLSServer
        do {
            server = try DemoTLSServer.start()
        } catch {
            print("   - skipped: this step needs the openssl command for its server (\(error))")
            return
        }
        defer { server.stop() }
        guard let target = URL(string: "https://127.0.0.1:\(server.port)/") else { return }
        // The certificate is self-signed: no authority vouches for it, the pin alone decides.
        let pinned = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [server.served])
        pinned.allowInvalidCertificates = true
        let trusted = await Self.fetch(target, policy: pinned)
        let status = (trusted.response as? HTTPURLResponse)?.statusCode ?? 0
        show("pinned key: status \(status)", ok: status == 200 && trusted.error == nil)
        let wrong = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [server.other])
        wrong.allowInvalidCertificates = true
        let refused = await Self.fetch(target, policy: wrong)
        let error = refused.error as? URLError
        let reason = (error?.userInfo[NSUnderlyingErrorKey] as? TrustError)?.reason ?? "no reason"
        show("another key pinned: URLError \(error?.code.rawValue ?? 0) (serverCertificateUntrusted): \(reason)",
             ok: error?.code == .serverCertificateUntrusted
                && error?.userInfo[NSURLErrorFailingURLPeerTrustErrorKey] is SecTrust)
    }

    /// GET `url` through a manager judging server trust with `policy`.
    private static func fetch(_ url: URL, policy: SecurityPolicy) async -> ManagerOutcome {
        let manager = Self.manager(.ephemeral)
        defer { manager.invalidateSessionCancelingTasks(true, resetSession: false) }
        manager.securityPolicy = policy
        manager.responseSerializer = HTTPResponseSerializer()
        return await load(manager, URLRequest(url: url))
    }
}
