// The project's one lock type, re-exported so that every test target shares it (STYLE.md: one owner per
// fact, one lock type).

@_exported import struct FWLoop.LockedBox
