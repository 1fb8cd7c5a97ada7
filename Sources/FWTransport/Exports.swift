// The lower layers' types that appear in FWTransport's public API, re-exported so that the session layer
// reaches FWWire and FWLoop only through this module (ARCHITECTURE.md's layer table;
// Scripts/check-deps.sh enforces it). The network-change monitor is not here: it is
// FWNetworkMonitor's, which FWURLSession imports itself, so FWHTTP does not link it. `ResolverError` is the
// underlying error (`NSUnderlyingErrorKey`) of a URLError that a failed name lookup caused. The loops and
// their clock are re-exported so that a session runs on the engine it is given (`SessionEngine`): its
// deadlines are timers on one of those loops, its times read the loops' clock; a session that makes its own
// delegate queue hosts its loop there (`EventLoopHost`), and its deliveries run at the end of that loop's iterations
// (`EndOfIterationWork`). `IdleStock` keeps the session's large-body buffers as it keeps the transport's read
// pieces (`BodyPieceRecycler`), each until it sat unused for a while.

@_exported import struct FWWire.HTTPDeviations
@_exported import struct FWWire.HTTPHeaders
@_exported import struct FWWire.HTTPLimits
@_exported import struct FWWire.HTTPParseError
@_exported import struct FWWire.HTTPRequestError
@_exported import struct FWWire.HTTPRequestHead
@_exported import struct FWWire.HTTPResponseHead
@_exported import struct FWWire.HTTPVersion
@_exported import struct FWWire.WebSocketCloseCode
@_exported import struct FWWire.WebSocketCloseFrame
@_exported import struct FWWire.WebSocketError
@_exported import struct FWWire.WebSocketHandshakeError
@_exported import struct FWWire.WebSocketLimits
@_exported import struct FWLoop.Deadline
@_exported import class FWLoop.EventLoop
@_exported import protocol FWLoop.EndOfIterationWork
@_exported import protocol FWLoop.EventLoopClock
@_exported import class FWLoop.EventLoopGroup
@_exported import struct FWLoop.IdleStock
@_exported import protocol FWLoop.EventLoopHost
@_exported import struct FWLoop.LockedBox
@_exported import struct FWLoop.MonotonicClock
@_exported import struct FWLoop.ResolverError
@_exported import struct FWLoop.TimerID
