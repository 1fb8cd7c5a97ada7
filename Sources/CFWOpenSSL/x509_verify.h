// CFWOpenSSL, private: the two halves every server-chain verification shares (x509_shims.c's cached one,
// x509_crl.c's one that checks CRLs and hands the chain back). Not part of the module's public header.

#ifndef CFWOPENSSL_X509_VERIFY_H
#define CFWOPENSSL_X509_VERIFY_H

#include "CFWOpenSSL.h"

/// A verification context for `leaf` (with `untrusted`) against `store`, for a TLS server; NULL with `*code`
/// set (out of memory, or the context could not be set up) when there is none.
X509_STORE_CTX *fw_x509_server_ctx_new(X509_STORE *store, X509 *leaf, STACK_OF(X509) *untrusted, int *code);

/// Runs X509_verify_cert on `ctx`: X509_V_OK, or the failure (never X509_V_OK for a failed verification),
/// with the depth it happened at in `*error_depth`.
int fw_x509_run_verify(X509_STORE_CTX *ctx, int *error_depth);

#endif
