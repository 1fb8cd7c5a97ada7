// Types from the lower layers that appear in FWURLSession's public API, re-exported so that
// `import FWNetworking` is enough to use them.

@_exported import struct FWTransport.ConnectionPoolCounters
@_exported import struct FWTransport.ContentCodings
@_exported import struct FWTransport.HTTPDeviations
@_exported import struct FWTransport.HTTPLimits
@_exported import struct FWTransport.ResolverError
@_exported import struct FWTLS.Certificate
@_exported import struct FWTLS.CertificateRevocationLists
@_exported import struct FWTLS.CertificateTransparencyLogs
@_exported import struct FWTLS.CertificateTransparencyPolicy
@_exported import struct FWTLS.CertificateTransparencyResult
@_exported import struct FWTLS.SignedCertificateTimestamp
@_exported import struct FWTLS.RevocationListCheck
@_exported import struct FWTLS.ServerTrust
@_exported import struct FWTLS.SystemTrustStore
@_exported import struct FWTLS.TrustRoots
@_exported import struct FWTLS.TrustError
