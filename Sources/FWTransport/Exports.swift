// The lower layers' types that appear in FWTransport's public API, re-exported so that the session layer
// reaches FWWire and FWLoop only through this module (ARCHITECTURE.md's layer table;
// Scripts/check-deps.sh enforces it). The network-change monitor's types are re-exported too: a task of a
// session that `waitsForConnectivity` watches the route to its host with them. `ResolverError` is the
// underlying error (`NSUnderlyingErrorKey`) of a URLError that a failed name lookup caused.

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
@_exported import struct FWLoop.LockedBox
@_exported import class FWLoop.NetworkMonitor
@_exported import class FWLoop.NetworkWatch
@_exported import struct FWLoop.NetworkDestination
@_exported import struct FWLoop.NetworkInterface
@_exported import struct FWLoop.NetworkPath
@_exported import struct FWLoop.ResolverError
