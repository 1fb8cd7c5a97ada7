// FWNetworking: one import gives the URLSession-compatible API (FWURLSession) and the session-manager
// layer: URLSessionManager, SecurityPolicy, the request and response serializers (and, as later issues
// land, HTTPSessionManager and reachability).

@_exported import FWURLSession

// The pinning lab's FWTLS types (SecurityPolicy's pin sets, revocation and Certificate Transparency
// evaluators), so that `import FWNetworking` is enough to use them.
@_exported import struct FWTLS.CertificateRevocationLists
@_exported import struct FWTLS.CertificateTransparencyLogs
@_exported import struct FWTLS.CertificateTransparencyPolicy
@_exported import struct FWTLS.CertificateTransparencyResult
@_exported import struct FWTLS.CertificateTransparencyTrustEvaluator
@_exported import struct FWTLS.PinSet
@_exported import struct FWTLS.PinSetTrustEvaluator
@_exported import struct FWTLS.PinViolationReport
@_exported import struct FWTLS.RevocationListCheck
@_exported import struct FWTLS.RevocationListTrustEvaluator
@_exported import struct FWTLS.RevocationTrustEvaluator
@_exported import struct FWTLS.SignedCertificateTimestamp
@_exported import protocol FWTLS.TrustEvaluator
@_exported import struct FWTLS.TLSError
