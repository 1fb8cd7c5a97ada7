// FWNetworking: one import gives the URLSession-compatible API (FWURLSession) and the session-manager
// layer: SecurityPolicy, the response serializers, and (as later issues land) URLSessionManager,
// HTTPSessionManager and reachability.

@_exported import FWURLSession
