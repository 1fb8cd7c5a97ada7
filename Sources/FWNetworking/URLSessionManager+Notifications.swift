// URLSessionManager+Notifications: the notification names and userInfo keys of the seeds, as static
// members, and where each is posted:
//
//   networkingTaskDidResumeNotification / ...DidSuspend...  completion queue (main when nil), async, for the
//                                                          tasks this manager made, after the state change
//   networkingTaskDidCompleteNotification                   main queue, async, queued by the completion
//                                                          handler's work once the handler returned (seed
//                                                          004: whatever `completionQueue` is)
//   urlSessionDidInvalidateNotification                     operation queue, after `sessionDidBecomeInvalid`
//   urlSessionDownloadTaskDidMoveFileSuccessfullyNotification / ...DidFailToMoveFile...
//                                                          operation queue, as the file is moved
//
// The completion queue is also where completion handlers and the retrying builder's callbacks run: the
// main queue when `completionQueue` is nil, as the seeds say. A Linux process may never run the main queue,
// so a completion that waits there for a few seconds without starting logs one warning
// (`CompletionStallWatch`).

import FWLoop
import Foundation

// MARK: - Names and keys
//
// The string values are those of FWFramework's Swift port (as the serializers' error domain and keys
// are), so code that matches on them keeps working.

extension URLSessionManager {
    /// Posted when a task the manager made starts or resumes running; the object is the task.
    public static let networkingTaskDidResumeNotification = Notification.Name("site.wuyong.networking.task.resume")
    /// Posted when a task the manager made finishes; the object is the task, the userInfo has the keys below.
    public static let networkingTaskDidCompleteNotification = Notification.Name("site.wuyong.networking.task.complete")
    /// Posted when a running task the manager made is suspended; the object is the task.
    public static let networkingTaskDidSuspendNotification = Notification.Name("site.wuyong.networking.task.suspend")
    /// Posted when the managed session becomes invalid; the object is the session.
    public static let urlSessionDidInvalidateNotification =
        Notification.Name("site.wuyong.networking.session.invalidate")
    /// Posted when a finished download was moved to its destination; the object is the download task.
    public static let urlSessionDownloadTaskDidMoveFileSuccessfullyNotification =
        Notification.Name("site.wuyong.networking.session.download.file-manager-succeed")
    /// Posted when a finished download could not be moved; the object is the download task, the userInfo
    /// that of the file manager's error.
    public static let urlSessionDownloadTaskDidFailToMoveFileNotification =
        Notification.Name("site.wuyong.networking.session.download.file-manager-error")

    /// Did-complete userInfo: the response body (`Data`), for a task that is not a download.
    public static let networkingTaskDidCompleteResponseDataKey = "site.wuyong.networking.complete.finish.responsedata"
    /// Did-complete userInfo: the serialized response object (or the download's file URL), when there is one.
    public static let networkingTaskDidCompleteSerializedResponseKey =
        "site.wuyong.networking.task.complete.serializedresponse"
    /// Did-complete userInfo: the response serializer that serialized the response.
    public static let networkingTaskDidCompleteResponseSerializerKey =
        "site.wuyong.networking.task.complete.responseserializer"
    /// Did-complete userInfo: the download's file URL, for a download task.
    public static let networkingTaskDidCompleteAssetPathKey = "site.wuyong.networking.task.complete.assetpath"
    /// Did-complete userInfo: the error of the task or of its serialization, when there is one.
    public static let networkingTaskDidCompleteErrorKey = "site.wuyong.networking.task.complete.error"
    /// Did-complete userInfo: the task's `URLSessionTaskMetrics`.
    public static let networkingTaskDidCompleteSessionTaskMetrics = "site.wuyong.networking.complete.sessiontaskmetrics"
}

// MARK: - Posting

extension URLSessionManager {
    /// The resume or suspend notification of `task`, when this manager made it.
    func postStateChange(of task: URLSessionTask, name: Notification.Name) {
        guard taskDelegate(for: task) != nil else { return }
        onCompletionQueue {
            NotificationCenter.default.post(name: name, object: task)
        }
    }

    /// Calls `sessionDidBecomeInvalid`, then posts the invalidation notification.
    func sessionBecameInvalid(_ session: URLSession, error: (any Error)?) {
        sessionBecameUnusable(session)
        blocks.withLock { $0.sessionDidBecomeInvalid }?(session, error)
        NotificationCenter.default.post(name: Self.urlSessionDidInvalidateNotification, object: session)
    }

    /// Runs `work` on the completion queue, inside the completion group.
    func onCompletionQueue(_ work: @escaping @Sendable () -> Void) {
        let (queue, group) = settings.withLock { ($0.completionQueue, $0.completionGroup) }
        let target = group ?? Self.sharedCompletionGroup
        if let queue {
            queue.async(group: target, execute: work)
        } else {
            CompletionStallWatch.mainQueue.run(work, on: .main, group: target)
        }
    }

    /// The completion group when `completionGroup` is nil.
    static let sharedCompletionGroup = DispatchGroup()
}

// MARK: - CompletionStallWatch

/// Notices a completion that waits on a queue nobody runs: when work scheduled there has not started after
/// `delay` seconds, `log` is called once (per watch) with a warning that says how to fix it.
struct CompletionStallWatch: Sendable {
    /// The watch of the main queue, which logs to standard error.
    static let mainQueue = CompletionStallWatch(delay: 3, queueName: "the main queue") { message in
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    let delay: Double
    let queueName: String
    let log: @Sendable (String) -> Void
    private let warned = LockedBox(false)

    init(delay: Double, queueName: String, log: @escaping @Sendable (String) -> Void) {
        self.delay = delay
        self.queueName = queueName
        self.log = log
    }

    /// Runs `work` on `queue` inside `group`, watching that it starts within `delay`.
    func run(_ work: @escaping @Sendable () -> Void, on queue: DispatchQueue, group: DispatchGroup) {
        let started = LockedBox(false)
        queue.async(group: group) {
            started.withLock { $0 = true }
            work()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
            guard !started.withLock({ $0 }) else { return }
            let first = warned.withLock { warned -> Bool in
                defer { warned = true }
                return !warned
            }
            if first { log(warning) }
        }
    }

    /// What the warning says.
    var warning: String {
        "FWNetworking: a URLSessionManager completion has waited \(Int(delay)) s on \(queueName) without "
            + "starting. Set the manager's completionQueue, or run \(queueName) (dispatchMain(), RunLoop.main)."
    }
}
