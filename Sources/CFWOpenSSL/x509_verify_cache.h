// CFWOpenSSL, private: the verified-chain cache of the stores `fw_x509_store_new` makes, used by
// fw_x509_verify (x509_verify_cache.c explains the rules). Not part of the module's public header.

#ifndef CFWOPENSSL_X509_VERIFY_CACHE_H
#define CFWOPENSSL_X509_VERIFY_CACHE_H

#include "CFWOpenSSL.h"

typedef struct fw_verified_cache fw_verified_cache;

/// The cache of a store made by fw_x509_store_new, or NULL for any other store.
fw_verified_cache *fw_verified_cache_of(X509_STORE *store);

/// 1 when exactly these certificates were verified with this partial-chain setting and every certificate
/// of the chain built then is valid at `time`.
int fw_verified_cache_contains(fw_verified_cache *cache, X509 *leaf, STACK_OF(X509) *untrusted, int partial_chain,
                               int64_t time);

/// Remembers that `leaf` and `untrusted` verified (`verified`: the chain X509_verify_cert built, anchor
/// included), replacing the oldest entry when the cache is full.
void fw_verified_cache_add(fw_verified_cache *cache, X509 *leaf, STACK_OF(X509) *untrusted, int partial_chain,
                           STACK_OF(X509) *verified);

#endif
