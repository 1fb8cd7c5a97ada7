// Types from the lower layers that appear in FWHTTP's public API, re-exported so that `import FWHTTP` is
// enough to use them.

@_exported import struct FWLoop.IOError
@_exported import enum FWTLS.Base64
@_exported import struct FWTLS.Certificate
@_exported import struct FWTLS.SystemTrustStore
@_exported import struct FWTLS.TLSCipherSuite
@_exported import struct FWTLS.TLSError
@_exported import struct FWTLS.TLSIdentity
@_exported import struct FWTLS.TLSVersion
@_exported import struct FWTLS.TrustError
@_exported import struct FWTLS.TrustRoots
@_exported import struct FWTransport.ProxyServer
@_exported import struct FWTransport.ProxyCredentials
@_exported import struct FWTransport.TLSConnectionMetrics
@_exported import struct FWTransport.TransportError
@_exported import struct FWTransport.TransportMetrics
@_exported import struct FWWire.HTTPHeaders
@_exported import struct FWWire.HTTPVersion
