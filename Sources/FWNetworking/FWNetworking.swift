// FWNetworking: one import gives the URLSession-compatible API (FWURLSession) and the session-manager
// layer: URLSessionManager, SecurityPolicy, the request and response serializers (and, as later issues
// land, HTTPSessionManager and reachability).

@_exported import FWURLSession
