// PinViolationReportUploader: POSTs pin violation reports (RFC 7469 §3 JSON) to their set's report URI
// through an FWNetworking session of its own. Three rules, in this order, decide whether a report goes:
//
// 1. It has a report URI (an http or https URL); otherwise there is nothing to send.
// 2. Deduplication: a report whose `deduplicationKey` was sent less than `deduplicationInterval` ago is
//    dropped (TrustKit's rule: one report per host, chain and pins a day).
// 3. Rate limit: at most `maximumUploadsPerInterval` uploads start in any `rateInterval`; the rest are
//    dropped (a misconfigured set on a busy client must not flood its collector).
//
// The upload session has no delegate and no pin sets: its server trust gets the default validation
// against the system roots, so a report is never pinned by the set it reports on (a broken pin must not
// stop its own report). The clock is injected; nothing here sleeps.

import FWLoop
import FWTLS
import Foundation

// MARK: - PinViolationReportUploader

/// Sends pin violation reports to their report URI, deduplicated and rate-limited (FWNetworking addition).
public final class PinViolationReportUploader: Sendable {
    /// What the uploader remembers.
    private struct State {
        /// When each deduplication key was last sent.
        var sent: [String: TimeInterval] = [:]
        /// When the uploads of the current rate window started.
        var starts: [TimeInterval] = []
    }

    /// Why a report was or was not sent.
    public enum Decision: Sendable, Equatable {
        /// Sent (the upload started).
        case sent
        /// The report has no usable report URI.
        case noReportURI
        /// The same violation was sent less than `deduplicationInterval` ago.
        case duplicate
        /// `maximumUploadsPerInterval` uploads started in the last `rateInterval`.
        case rateLimited
    }

    /// The uploader the `SecurityPolicy` pin sets use unless told otherwise.
    public static let shared = PinViolationReportUploader()

    /// How long a sent violation is not sent again (seconds; default one day).
    public let deduplicationInterval: TimeInterval
    /// The most uploads started in one `rateInterval`.
    public let maximumUploadsPerInterval: Int
    /// The rate window (seconds; default one minute).
    public let rateInterval: TimeInterval

    private let trustRoots: TrustRoots
    /// The upload session, made at the first upload (a policy that never reports starts no session).
    private let session = LockedBox<URLSession?>(nil)
    private let clock: @Sendable () -> TimeInterval
    private let state = LockedBox(State())
    /// Hears the end of each upload (status code or URLError code), for tests and logs.
    private let completion: (@Sendable (Int) -> Void)?

    /// An uploader with its own ephemeral session (trusting `trustRoots`, default the system's).
    /// `clock` gives seconds on any fixed origin (default: the monotonic uptime); `completion` hears
    /// each upload's HTTP status, or the negative URLError code when it failed.
    public init(
        deduplicationInterval: TimeInterval = 86_400, maximumUploadsPerInterval: Int = 10,
        rateInterval: TimeInterval = 60, trustRoots: TrustRoots = .system,
        clock: (@Sendable () -> TimeInterval)? = nil, completion: (@Sendable (Int) -> Void)? = nil
    ) {
        self.deduplicationInterval = deduplicationInterval
        self.maximumUploadsPerInterval = maximumUploadsPerInterval
        self.rateInterval = rateInterval
        self.trustRoots = trustRoots
        self.clock = clock ?? { ProcessInfo.processInfo.systemUptime }
        self.completion = completion
    }

    deinit {
        session.withLock { $0 }?.finishTasksAndInvalidate()
    }

    /// Sends `report` to its report URI when the rules allow (see the file's opening comment).
    @discardableResult
    public func submit(_ report: PinViolationReport) -> Decision {
        guard let text = report.reportURI, let url = URL(string: text),
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil
        else { return .noReportURI }
        let now = clock()
        let decision: Decision = state.withLock { state in
            if let last = state.sent[report.deduplicationKey], now - last < deduplicationInterval { return .duplicate }
            state.starts.removeAll { now - $0 >= rateInterval }
            guard state.starts.count < maximumUploadsPerInterval else { return .rateLimited }
            state.starts.append(now)
            state.sent[report.deduplicationKey] = now
            state.sent = state.sent.filter { now - $0.value < deduplicationInterval }
            return .sent
        }
        guard decision == .sent else { return decision }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(report.jsonText.utf8)
        let completion = self.completion
        let session = session.withLock { session in
            if let session { return session }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.tlsTrustRoots = trustRoots
            configuration.timeoutIntervalForRequest = 30
            let made = URLSession(configuration: configuration)
            session = made
            return made
        }
        session.dataTask(with: request) { _, response, error in
            if let status = (response as? HTTPURLResponse)?.statusCode, error == nil {
                completion?(status)
            } else {
                completion?((error as? URLError)?.code.rawValue ?? -1)
            }
        }.resume()
        return .sent
    }
}
