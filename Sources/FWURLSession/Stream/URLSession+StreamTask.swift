import Foundation
import FWTransport

// MARK: - Stream task factories, `.becomeStream`, and the trust of a stream's TLS

extension URLSession {
    /// Creates a stream task that connects to `hostname`:`port` over TCP when resumed (directly: stream tasks
    /// do not go through the configuration's proxies).
    public func streamTask(withHostName hostname: String, port: Int) -> URLSessionStreamTask {
        register { URLSessionStreamTask(session: self, identifier: $0, host: hostname, port: port) }
    }

    /// The stream task that takes over `dataTask`'s connection (`.becomeStream`): the data task's machine
    /// moves into it (running, with the response), with the same request and properties; announced to nobody
    /// (the delegate hears `didBecome streamTask`). nil when the data task is ending.
    final func adoptConnection(of dataTask: URLSessionDataTask) -> URLSessionStreamTask? {
        let stream = register(announcing: false) {
            URLSessionStreamTask(session: self, identifier: $0, becoming: dataTask.originalRequest)
        }
        guard dataTask.handOver(to: stream, keepingTransfer: false) else {
            taskDidComplete(stream) // cancelled meanwhile: the unannounced stream task goes with it
            return nil
        }
        taskDeadlines.remove(dataTask.taskIdentifier)
        return stream
    }

    /// The trust decision of a stream task's TLS handshake with `host`:`port`: the server-trust challenge of
    /// HTTPS (session delegate, else the task's; default handling validates against the configured roots).
    func streamTrustHandler(for task: URLSessionStreamTask, host: String, port: Int) -> StreamTrustHandler {
        { [weak self] serverTrust, decide in
            guard let self else { return decide(.cancelled) }
            let key = ConnectionKey(scheme: "https", host: host, port: port)
            challengeServerTrust(serverTrust, key: key, task: task) { decision in
                switch decision {
                case .trust: decide(nil)
                case .reject(let error): decide(.serverTrustRejected(error, peerTrust: serverTrust))
                case .cancel: decide(.cancelled)
                }
            }
        }
    }
}

extension URLSessionDataTask {
    /// `.becomeStream`: a stream task takes over the connection (out of the pool), with this task's request
    /// and response; the body bytes read so far are its first. This task ends without further messages.
    func becomeStream() {
        guard response != nil, !isEnding, let stream = session.adoptConnection(of: self) else { return }
        let requestID = requestID
        DelegateRouter.didBecome(stream, dataTask: self)
        // Through this task's queue, so that the body events before it reach the stream first.
        if let requestID, let transport = session.transport {
            transport.detachStream(requestID) { [weak self] channel in
                guard let channel else { return }
                guard let self else { return channel.abort(.cancelled) }
                self.enqueue(.stream(.attached(channel)))
            }
        }
        session.taskDidComplete(self)
    }
}
