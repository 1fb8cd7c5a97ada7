// Certificate Transparency through OpenSSL's CT support: the client asks for SCTs (SSL_enable_ct,
// permissive: the handshake never fails on them), the SCTs the peer sent (TLS extension, certificate
// extension, stapled OCSP response) are copied out as one list, and a list is validated against a
// CTLOG_STORE read from a log list file (CTLOG_STORE_load_file's format).
//
// The list is FWTLS's own encoding, because validation needs each SCT's source (it decides the signed
// entry's type) and RFC 6962's SCT list drops it: per SCT, its sct_source_t (1 byte), its length
// (2 bytes, big-endian) and the SCT as RFC 6962 encodes it.

#include "CFWOpenSSL.h"
#include <openssl/ct.h>
#include <openssl/err.h>
#include <string.h>

int fw_ssl_enable_ct(SSL *ssl) {
    int enabled = SSL_enable_ct(ssl, SSL_CT_VALIDATION_PERMISSIVE);
    ERR_clear_error();
    return enabled;
}

int fw_ssl_peer_sct_list(SSL *ssl, unsigned char **out) {
    *out = NULL;
    const STACK_OF(SCT) *scts = SSL_get0_peer_scts(ssl);
    int count = scts == NULL ? 0 : sk_SCT_num(scts);
    int total = 0;
    for (int index = 0; index < count; index++) {
        int length = i2o_SCT(sk_SCT_value(scts, index), NULL);
        if (length <= 0 || length > 0xFFFF) {
            ERR_clear_error();
            return 0;
        }
        total += 3 + length;
    }
    if (total == 0) {
        ERR_clear_error();
        return 0;
    }
    unsigned char *buffer = OPENSSL_malloc((size_t)total);
    if (buffer == NULL) {
        return 0;
    }
    unsigned char *cursor = buffer;
    for (int index = 0; index < count; index++) {
        SCT *sct = sk_SCT_value(scts, index);
        int length = i2o_SCT(sct, NULL);
        *cursor++ = (unsigned char)SCT_get_source(sct);
        *cursor++ = (unsigned char)(length >> 8);
        *cursor++ = (unsigned char)(length & 0xFF);
        i2o_SCT(sct, &cursor);
    }
    *out = buffer;
    ERR_clear_error();
    return total;
}

CTLOG_STORE *fw_ctlog_store_load(const char *path) {
    CTLOG_STORE *store = CTLOG_STORE_new();
    if (store == NULL) {
        return NULL;
    }
    if (CTLOG_STORE_load_file(store, path) != 1) {
        CTLOG_STORE_free(store);
        ERR_clear_error();
        return NULL;
    }
    return store;
}

void fw_ctlog_store_free(CTLOG_STORE *store) {
    CTLOG_STORE_free(store);
}

int fw_sct_validate(const unsigned char *der, long length, X509 *leaf, X509 *issuer, CTLOG_STORE *logs,
                    int64_t time_ms, fw_sct_result *results, int capacity) {
    STACK_OF(SCT) *scts = sk_SCT_new_null();
    if (scts == NULL) {
        return -1;
    }
    long offset = 0;
    while (offset + 3 <= length) {
        int source = der[offset];
        long size = ((long)der[offset + 1] << 8) | der[offset + 2];
        offset += 3;
        const unsigned char *cursor = der + offset;
        SCT *sct = size <= length - offset ? o2i_SCT(NULL, &cursor, (size_t)size) : NULL;
        if (sct == NULL || !sk_SCT_push(scts, sct)) {
            SCT_free(sct);
            SCT_LIST_free(scts);
            ERR_clear_error();
            return -1;
        }
        SCT_set_source(sct, (sct_source_t)source);
        offset += size;
    }
    if (offset != length) {
        SCT_LIST_free(scts);
        return -1;
    }
    CT_POLICY_EVAL_CTX *ctx = CT_POLICY_EVAL_CTX_new();
    if (ctx == NULL) {
        SCT_LIST_free(scts);
        return -1;
    }
    CT_POLICY_EVAL_CTX_set1_cert(ctx, leaf);
    if (issuer != NULL) {
        CT_POLICY_EVAL_CTX_set1_issuer(ctx, issuer);
    }
    CT_POLICY_EVAL_CTX_set_shared_CTLOG_STORE(ctx, logs);
    CT_POLICY_EVAL_CTX_set_time(ctx, (uint64_t)time_ms);
    SCT_LIST_validate(scts, ctx);
    int count = sk_SCT_num(scts);
    for (int index = 0; index < count && index < capacity; index++) {
        SCT *sct = sk_SCT_value(scts, index);
        fw_sct_result *result = &results[index];
        memset(result, 0, sizeof(*result));
        result->status = (int)SCT_get_validation_status(sct);
        unsigned char *log_id = NULL;
        size_t id_length = SCT_get0_log_id(sct, &log_id);
        if (log_id != NULL && id_length == sizeof(result->log_id)) {
            memcpy(result->log_id, log_id, id_length);
        }
        result->timestamp_ms = (int64_t)SCT_get_timestamp(sct);
        result->source = (int)SCT_get_source(sct);
    }
    CT_POLICY_EVAL_CTX_free(ctx);
    SCT_LIST_free(scts);
    ERR_clear_error();
    return count;
}
