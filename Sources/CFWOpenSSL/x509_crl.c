// Certificate revocation lists for chain verification, and verification that hands back the chain it
// built (the pin sets match pins against it). Kept apart from x509_shims.c's cached verification: a
// CRL check must run every time, and the chain is only known to a verification that ran.

#define _GNU_SOURCE
#include "CFWOpenSSL.h"
#include "x509_verify.h"
#include <openssl/err.h>
#include <openssl/pem.h>
#include <string.h>
#include <time.h>

STACK_OF(X509_CRL) *fw_crl_stack_read(const void *bytes, int length) {
    STACK_OF(X509_CRL) *stack = sk_X509_CRL_new_null();
    if (stack == NULL || bytes == NULL || length <= 0) {
        sk_X509_CRL_free(stack);
        return NULL;
    }
    BIO *bio = BIO_new_mem_buf(bytes, length);
    X509_CRL *crl = NULL;
    while (bio != NULL && (crl = PEM_read_bio_X509_CRL(bio, NULL, NULL, NULL)) != NULL) {
        if (!sk_X509_CRL_push(stack, crl)) {
            X509_CRL_free(crl);
            break;
        }
    }
    BIO_free(bio);
    ERR_clear_error();
    if (sk_X509_CRL_num(stack) == 0) {
        const unsigned char *cursor = bytes;
        crl = d2i_X509_CRL(NULL, &cursor, length);
        if (crl != NULL && !sk_X509_CRL_push(stack, crl)) {
            X509_CRL_free(crl);
        }
        ERR_clear_error();
    }
    if (sk_X509_CRL_num(stack) == 0) {
        sk_X509_CRL_free(stack);
        return NULL;
    }
    return stack;
}

void fw_crl_stack_free(STACK_OF(X509_CRL) *stack) {
    sk_X509_CRL_pop_free(stack, X509_CRL_free);
}

int fw_crl_stack_count(const STACK_OF(X509_CRL) *stack) {
    return sk_X509_CRL_num(stack);
}

static int fw_asn1_time_seconds(const ASN1_TIME *time, int64_t *seconds) {
    struct tm parts;
    memset(&parts, 0, sizeof(parts));
    if (time == NULL || !ASN1_TIME_to_tm(time, &parts)) {
        return -1;
    }
    *seconds = (int64_t)timegm(&parts);
    return 0;
}

int fw_crl_dates(const STACK_OF(X509_CRL) *stack, int index, int64_t *last_update, int64_t *next_update) {
    X509_CRL *crl = sk_X509_CRL_value(stack, index);
    if (crl == NULL || fw_asn1_time_seconds(X509_CRL_get0_lastUpdate(crl), last_update) != 0) {
        return -1;
    }
    *next_update = 0;
    const ASN1_TIME *next = X509_CRL_get0_nextUpdate(crl);
    if (next != NULL && fw_asn1_time_seconds(next, next_update) != 0) {
        return -1;
    }
    return 0;
}

char *fw_crl_issuer_text(const STACK_OF(X509_CRL) *stack, int index) {
    X509_CRL *crl = sk_X509_CRL_value(stack, index);
    if (crl == NULL) {
        return NULL;
    }
    return X509_NAME_oneline(X509_CRL_get_issuer(crl), NULL, 0);
}

int fw_x509_verify_chain(X509_STORE *store, X509 *leaf, STACK_OF(X509) *untrusted, int partial_chain,
                         int64_t time, STACK_OF(X509_CRL) *crls, int crl_check, int *error_depth,
                         STACK_OF(X509) **chain) {
    *error_depth = 0;
    *chain = NULL;
    int code = X509_V_OK;
    X509_STORE_CTX *ctx = fw_x509_server_ctx_new(store, leaf, untrusted, &code);
    if (ctx == NULL) {
        return code;
    }
    unsigned long flags = partial_chain ? X509_V_FLAG_PARTIAL_CHAIN : 0;
    if (crl_check == FW_CRL_CHECK_LEAF) {
        flags |= X509_V_FLAG_CRL_CHECK;
    } else if (crl_check == FW_CRL_CHECK_ALL) {
        flags |= X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL;
    }
    if (flags != 0) {
        X509_STORE_CTX_set_flags(ctx, flags);
    }
    if (crls != NULL) {
        X509_STORE_CTX_set0_crls(ctx, crls);
    }
    X509_STORE_CTX_set_time(ctx, 0, (time_t)time);
    code = fw_x509_run_verify(ctx, error_depth);
    if (code == X509_V_OK) {
        *chain = X509_STORE_CTX_get1_chain(ctx);
    }
    X509_STORE_CTX_free(ctx);
    ERR_clear_error();
    return code;
}

void fw_x509_stack_free_all(STACK_OF(X509) *stack) {
    sk_X509_pop_free(stack, X509_free);
}
