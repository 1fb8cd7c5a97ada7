// FWNetworking: one import gives the URLSession-compatible API (FWURLSession) and, as later issues
// land, the session-manager layer (URLSessionManager, HTTPSessionManager, serializers,
// SecurityPolicy, reachability).

@_exported import FWURLSession
