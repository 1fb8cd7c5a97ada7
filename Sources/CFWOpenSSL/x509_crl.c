// Certificate revocation lists for chain verification, and verification that hands back the chain it
// built (the pin sets match pins against it). Kept apart from x509_shims.c's cached verification: a
// CRL check must run every time, and the chain is only known to a verification that ran.

#define _GNU_SOURCE
#include "CFWOpenSSL.h"
#include "x509_verify.h"
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
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

// The http:// URIs of a certificate's CRL distribution points (RFC 5280 4.2.1.13): every fullName
// GeneralName of type URI whose text starts with "http://", joined by newlines. Other schemes (ldap,
// https) and relative names are skipped: the fetch is plain HTTP by design, as CRLs are signed.
char *fw_x509_crl_distribution_points(X509 *certificate) {
    STACK_OF(DIST_POINT) *points = X509_get_ext_d2i(certificate, NID_crl_distribution_points, NULL, NULL);
    ERR_clear_error();
    if (points == NULL) {
        return NULL;
    }
    BIO *out = BIO_new(BIO_s_mem());
    for (int index = 0; out != NULL && index < sk_DIST_POINT_num(points); index++) {
        DIST_POINT *point = sk_DIST_POINT_value(points, index);
        if (point->distpoint == NULL || point->distpoint->type != 0) {
            continue;
        }
        GENERAL_NAMES *names = point->distpoint->name.fullname;
        for (int name = 0; name < sk_GENERAL_NAME_num(names); name++) {
            GENERAL_NAME *entry = sk_GENERAL_NAME_value(names, name);
            if (entry->type != GEN_URI) {
                continue;
            }
            const ASN1_IA5STRING *uri = entry->d.uniformResourceIdentifier;
            const unsigned char *text = ASN1_STRING_get0_data(uri);
            int length = ASN1_STRING_length(uri);
            if (length <= 7 || strncmp((const char *)text, "http://", 7) != 0
                || memchr(text, '\n', (size_t)length) != NULL || memchr(text, '\0', (size_t)length) != NULL) {
                continue;
            }
            BIO_write(out, text, length);
            BIO_write(out, "\n", 1);
        }
    }
    CRL_DIST_POINTS_free(points);
    char *result = NULL;
    char *data = NULL;
    long length = out == NULL ? 0 : BIO_get_mem_data(out, &data);
    if (length > 0) {
        result = OPENSSL_malloc((size_t)length + 1);
        if (result != NULL) {
            memcpy(result, data, (size_t)length);
            result[length] = '\0';
        }
    }
    BIO_free(out);
    return result;
}

STACK_OF(X509_CRL) *fw_crl_stack_merge(STACK_OF(X509_CRL) *const *stacks, int count) {
    STACK_OF(X509_CRL) *merged = sk_X509_CRL_new_null();
    for (int stack = 0; merged != NULL && stack < count; stack++) {
        for (int index = 0; index < sk_X509_CRL_num(stacks[stack]); index++) {
            X509_CRL *crl = sk_X509_CRL_value(stacks[stack], index);
            if (!X509_CRL_up_ref(crl)) {
                continue;
            }
            if (!sk_X509_CRL_push(merged, crl)) {
                X509_CRL_free(crl);
            }
        }
    }
    if (merged != NULL && sk_X509_CRL_num(merged) == 0) {
        sk_X509_CRL_free(merged);
        return NULL;
    }
    return merged;
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
