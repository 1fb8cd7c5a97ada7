// The Core Foundation spellings that code written against Apple's Security framework uses, mapped onto
// Foundation's classes on Linux so that such code compiles unchanged.
//
// On Apple platforms CFData, CFArray, CFDictionary and CFError are classes toll-free bridged to NSData,
// NSArray, NSDictionary and NSError, and CFString to NSString / String. Here they are those Foundation
// types, so the usual casts behave alike: `data as CFData`, `SecCertificateCopyData(c) as Data`,
// `SecTrustCopyCertificateChain(t) as? [SecCertificate]`, `[anchor] as CFArray`,
// `[kSecImportExportPassphrase as String: pw] as CFDictionary`, `var error: CFError?` for
// `SecTrustEvaluateWithError`, and `Unmanaged<CFError>?` for `SecKeyCopyExternalRepresentation`.
// CFString is String (not NSString) so that `kSecAttrKeyType as String` and `host as CFString` are
// both no-op casts.

import Foundation

// MARK: - Types

/// Core Foundation's opaque object reference: any class instance.
public typealias CFTypeRef = AnyObject

/// Core Foundation's signed index and count type.
public typealias CFIndex = Int

/// An immutable byte buffer (Core Foundation's CFData, bridged to Foundation's NSData).
public typealias CFData = NSData

/// An immutable array of objects (Core Foundation's CFArray, bridged to Foundation's NSArray).
public typealias CFArray = NSArray

/// An immutable dictionary (Core Foundation's CFDictionary, bridged to Foundation's NSDictionary).
public typealias CFDictionary = NSDictionary

/// An error with a domain, a code and a user-info dictionary (Core Foundation's CFError, bridged to
/// Foundation's NSError).
public typealias CFError = NSError

/// A string (Core Foundation's CFString, bridged to Swift's String).
public typealias CFString = String

/// A memory allocator. Only the default allocator exists here: pass `nil` or `kCFAllocatorDefault`.
public final class CFAllocator: Sendable {
    private init() {}
}

/// The default allocator (nil, as Core Foundation treats a NULL allocator).
public let kCFAllocatorDefault: CFAllocator! = nil

// MARK: - Accessors

/// The number of values in an array.
public func CFArrayGetCount(_ theArray: CFArray!) -> CFIndex {
    theArray.count
}

/// The number of bytes in a data object.
public func CFDataGetLength(_ theData: CFData!) -> CFIndex {
    theData.length
}

/// A pointer to the bytes of a data object, valid while the data object is alive.
public func CFDataGetBytePtr(_ theData: CFData!) -> UnsafePointer<UInt8>! {
    theData.bytes.assumingMemoryBound(to: UInt8.self)
}

/// The code of an error (an `OSStatus` for Security errors).
public func CFErrorGetCode(_ err: CFError!) -> CFIndex {
    err.code
}

/// A human-readable description of an error.
public func CFErrorCopyDescription(_ err: CFError!) -> CFString! {
    err.localizedDescription
}
