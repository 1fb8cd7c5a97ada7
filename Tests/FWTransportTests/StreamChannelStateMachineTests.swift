import FWTLS
import Testing
@testable import FWTransport

// The rules of a stream task's connection without sockets: halves that close on their own, TLS put on and
// taken off after the queued writes, writes held while the security layer changes, and the end.
@Suite struct StreamChannelStateMachineTests {
    /// An action as text (the machine's actions carry errors, which are not Equatable).
    private static func name(_ action: StreamChannelStateMachine.Action) -> String {
        switch action {
        case .none: "none"
        case .beginHandshake: "beginHandshake"
        case .askTrust: "askTrust"
        case .secured: "secured"
        case .sendCloseNotify: "sendCloseNotify"
        case .unwrapped: "unwrapped"
        case .shutDownWrite(let thenFinish): "shutDownWrite(\(thenFinish))"
        case .readClosed(let thenFinish): "readClosed(\(thenFinish))"
        case .finish(nil): "finish(nil)"
        case .finish(let error?): "finish(\(kind(of: error)))"
        }
    }

    private static func kind(of error: TransportError) -> String {
        if error.isCancelled { return "cancelled" }
        if error.isServerTrustRejected { return "trust" }
        if error.isConnectionLost { return "lost" }
        return "other"
    }

    @Test func halvesCloseOnTheirOwnAndTheChannelEndsWhenBothAre() {
        var machine = StreamChannelStateMachine()
        #expect(machine.acceptsWrites && machine.readsOpen && machine.servesReads)
        #expect(Self.name(machine.closeWrite()) == "none")
        #expect(!machine.acceptsWrites)
        #expect(Self.name(machine.writesDrained()) == "shutDownWrite(false)")
        #expect(Self.name(machine.endOfStream()) == "readClosed(true)")
        #expect(machine.isFinished)
        #expect(Self.name(machine.fail(.cancelled)) == "none")
    }

    @Test func closeReadAfterTheWriteSideEndsTheChannel() {
        var machine = StreamChannelStateMachine()
        #expect(Self.name(machine.endOfStream()) == "readClosed(false)")
        #expect(Self.name(machine.closeRead()) == "none")
        #expect(Self.name(machine.closeWrite()) == "none")
        #expect(Self.name(machine.writesDrained()) == "shutDownWrite(true)")
        #expect(machine.isFinished)

        var other = StreamChannelStateMachine()
        _ = other.closeWrite()
        _ = other.writesDrained()
        #expect(Self.name(other.closeRead()) == "finish(nil)")
    }

    @Test func tlsStartsAfterTheQueuedWritesAndHoldsNewOnes() {
        var machine = StreamChannelStateMachine()
        #expect(Self.name(machine.startTLS(writesPending: true)) == "none")
        #expect(machine.holdsWrites && !machine.servesReads)
        #expect(Self.name(machine.writesDrained()) == "beginHandshake")
        #expect(Self.name(machine.handshakeAdvanced(complete: false)) == "none")
        #expect(Self.name(machine.handshakeAdvanced(complete: true)) == "askTrust")
        #expect(Self.name(machine.trustDecided(refusal: nil)) == "secured")
        #expect(machine.security == .secure && !machine.holdsWrites && machine.servesReads)
        // Started once: a second start is ignored.
        #expect(Self.name(machine.startTLS(writesPending: false)) == "none")
    }

    @Test func aRefusedTrustEndsTheChannel() {
        var machine = StreamChannelStateMachine()
        #expect(Self.name(machine.startTLS(writesPending: false)) == "beginHandshake")
        _ = machine.handshakeAdvanced(complete: true)
        let refusal = TransportError.serverTrustRejected(
            .untrusted(reason: "pin"), peerTrust: ServerTrust(certificateChain: [], host: "h", anchors: .system))
        #expect(Self.name(machine.trustDecided(refusal: refusal)) == "finish(trust)")
        #expect(machine.isFinished && !machine.acceptsWrites)
    }

    @Test func tlsStopsWithBothCloseNotifyAndGoesOnInPlaintext() {
        var machine = StreamChannelStateMachine(secure: true)
        #expect(Self.name(machine.stopTLS(writesPending: true)) == "none")
        #expect(machine.holdsWrites)
        #expect(Self.name(machine.writesDrained()) == "sendCloseNotify")
        #expect(machine.security == .closingTLS && machine.servesReads)
        #expect(Self.name(machine.closeNotifyReceived()) == "unwrapped")
        #expect(machine.security == .plain && !machine.holdsWrites)
    }

    @Test func thePeersCloseNotifyOnItsOwnEndsItsSide() {
        var machine = StreamChannelStateMachine(secure: true)
        #expect(Self.name(machine.closeNotifyReceived()) == "readClosed(false)")
        #expect(!machine.readsOpen && machine.acceptsWrites)
    }

    @Test func anEndDuringTheHandshakeOrTheTLSCloseIsAFailure() {
        var handshaking = StreamChannelStateMachine()
        _ = handshaking.startTLS(writesPending: false)
        #expect(Self.name(handshaking.endOfStream()) == "finish(lost)")

        var closing = StreamChannelStateMachine(secure: true)
        _ = closing.stopTLS(writesPending: false)
        #expect(Self.name(closing.endOfStream()) == "finish(lost)")
    }

    @Test func closeWriteWaitsForTheSecurityLayerToSettle() {
        var machine = StreamChannelStateMachine()
        _ = machine.startTLS(writesPending: false)
        _ = machine.closeWrite()
        // Drained while handshaking: the write side stays open for close_notify until TLS settled.
        #expect(Self.name(machine.writesDrained()) == "none")
        _ = machine.handshakeAdvanced(complete: true)
        _ = machine.trustDecided(refusal: nil)
        #expect(Self.name(machine.writesDrained()) == "shutDownWrite(false)")
    }
}
