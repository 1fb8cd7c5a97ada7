import FWLoop
import FWTLS

extension Socket {
    /// Closes the socket as an HTTP connection or a WebSocket channel ends. Gracefully, first announcing the
    /// end of the TLS stream when there is one (close_notify, best effort: only if the socket takes it at
    /// once); or, when bytes were left unwritten (the peer stopped reading them), with RST — a graceful
    /// close would queue its FIN behind them and hold both ends for minutes. On `loop`'s thread the descriptor
    /// itself is closed at the end of the loop's iteration (EventLoop+Closing.swift says why).
    func close(announcingEndOf tls: TLSEngine?, abandoningWrites: Bool, on loop: EventLoop) {
        if let tls, !abandoningWrites {
            tls.close()
            let notify = tls.pendingCiphertext()
            if !notify.isEmpty { _ = notify.withUnsafeBytes { try? write($0) } }
        }
        if loop.inEventLoop {
            close(reset: abandoningWrites, after: loop)
        } else {
            close(reset: abandoningWrites)
        }
    }
}
