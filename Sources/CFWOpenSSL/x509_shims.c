// CFWOpenSSL implementation, certificates and trust. See include/CFWOpenSSL.h.

#define _GNU_SOURCE
#include "CFWOpenSSL.h"
#include "x509_verify_cache.h"
#include "x509_verify.h"

#include <string.h>
#include <time.h>

// MARK: Certificate fields

int fw_x509_der(X509 *cert, unsigned char **der) {
    *der = NULL;
    return i2d_X509(cert, der);
}

int fw_x509_spki_der(X509 *cert, unsigned char **der) {
    *der = NULL;
    return i2d_X509_PUBKEY(X509_get_X509_PUBKEY(cert), der);
}

int fw_x509_public_key_bytes(X509 *cert, const unsigned char **bytes) {
    int length = 0;
    if (!X509_PUBKEY_get0_param(NULL, bytes, &length, NULL, X509_get_X509_PUBKEY(cert))) {
        return -1;
    }
    return length;
}

const char *fw_x509_public_key_algorithm(X509 *cert, int *bits) {
    EVP_PKEY *key = X509_get0_pubkey(cert);
    if (key == NULL) {
        *bits = 0;
        return "unknown";
    }
    *bits = EVP_PKEY_get_bits(key);
    int id = EVP_PKEY_get_base_id(key);
    switch (id) {
    case EVP_PKEY_RSA:
        return "RSA";
    case EVP_PKEY_EC:
        return "EC";
    case EVP_PKEY_ED25519:
        return "ED25519";
    case EVP_PKEY_ED448:
        return "ED448";
    default: {
        const char *name = OBJ_nid2sn(id);
        return name == NULL ? "unknown" : name;
    }
    }
}

static char *fw_name_text(const X509_NAME *name) {
    BIO *bio = BIO_new(BIO_s_mem());
    if (bio == NULL) {
        return NULL;
    }
    unsigned long flags = (ASN1_STRFLGS_RFC2253 & ~ASN1_STRFLGS_ESC_MSB) | XN_FLAG_SEP_CPLUS_SPC
        | XN_FLAG_FN_SN | XN_FLAG_DUMP_UNKNOWN_FIELDS;
    char *text = NULL;
    if (X509_NAME_print_ex(bio, name, 0, flags) >= 0) {
        char *data = NULL;
        long length = BIO_get_mem_data(bio, &data);
        text = OPENSSL_strndup(length > 0 ? data : "", length > 0 ? (size_t)length : 0);
    }
    BIO_free(bio);
    return text;
}

char *fw_x509_subject_text(X509 *cert) {
    return fw_name_text(X509_get_subject_name(cert));
}

char *fw_x509_issuer_text(X509 *cert) {
    return fw_name_text(X509_get_issuer_name(cert));
}

int fw_x509_common_name(X509 *cert, unsigned char **utf8) {
    const X509_NAME *name = X509_get_subject_name(cert);
    int index = -1;
    int last = -1;
    while ((index = X509_NAME_get_index_by_NID(name, NID_commonName, index)) >= 0) {
        last = index;
    }
    if (last < 0) {
        return -1;
    }
    ASN1_STRING *data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, last));
    *utf8 = NULL;
    return ASN1_STRING_to_UTF8(utf8, data);
}

static int fw_time_to_unix(const ASN1_TIME *time, int64_t *out) {
    struct tm parts;
    if (time == NULL || !ASN1_TIME_to_tm(time, &parts)) {
        return 0;
    }
    *out = (int64_t)timegm(&parts);
    return 1;
}

int fw_x509_validity(X509 *cert, int64_t *not_before, int64_t *not_after) {
    return fw_time_to_unix(X509_get0_notBefore(cert), not_before)
        && fw_time_to_unix(X509_get0_notAfter(cert), not_after);
}

int fw_x509_serial(X509 *cert, unsigned char *out, int capacity) {
    BIGNUM *number = ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert), NULL);
    if (number == NULL) {
        return -1;
    }
    int length = BN_num_bytes(number);
    if (length > capacity) {
        BN_free(number);
        return -1;
    }
    length = BN_bn2bin(number, out);
    BN_free(number);
    return length;
}

int fw_x509_is_self_signed(X509 *cert) {
    int result = X509_self_signed(cert, 1);
    ERR_clear_error();
    return result == 1;
}

int fw_x509_matches_private_key(X509 *cert, EVP_PKEY *key) {
    int result = X509_check_private_key(cert, key);
    ERR_clear_error();
    return result == 1;
}

GENERAL_NAMES *fw_x509_alt_names(X509 *cert) {
    return X509_get_ext_d2i(cert, NID_subject_alt_name, NULL, NULL);
}

int fw_alt_names_count(const GENERAL_NAMES *names) {
    return names == NULL ? 0 : sk_GENERAL_NAME_num(names);
}

int fw_alt_names_get(const GENERAL_NAMES *names, int index, const unsigned char **bytes, int *length) {
    const GENERAL_NAME *name = sk_GENERAL_NAME_value(names, index);
    *bytes = NULL;
    *length = 0;
    if (name == NULL) {
        return FW_SAN_OTHER;
    }
    switch (name->type) {
    case GEN_DNS:
        *bytes = ASN1_STRING_get0_data(name->d.dNSName);
        *length = ASN1_STRING_length(name->d.dNSName);
        return FW_SAN_DNS;
    case GEN_IPADD:
        *bytes = ASN1_STRING_get0_data(name->d.iPAddress);
        *length = ASN1_STRING_length(name->d.iPAddress);
        return FW_SAN_IP;
    default:
        return FW_SAN_OTHER;
    }
}

void fw_alt_names_free(GENERAL_NAMES *names) {
    GENERAL_NAMES_free(names);
}

// MARK: Trust

X509_STORE *fw_x509_store_new_system(void) {
    X509_STORE *store = fw_x509_store_new();
    if (store == NULL) {
        return NULL;
    }
    if (!X509_STORE_set_default_paths(store)) {
        X509_STORE_free(store);
        ERR_clear_error();
        return NULL;
    }
    return store;
}

X509_STORE_CTX *fw_x509_server_ctx_new(X509_STORE *store, X509 *leaf, STACK_OF(X509) *untrusted, int *code) {
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    if (ctx == NULL) {
        *code = X509_V_ERR_OUT_OF_MEM;
        return NULL;
    }
    if (!X509_STORE_CTX_init(ctx, store, leaf, untrusted)) {
        X509_STORE_CTX_free(ctx);
        ERR_clear_error();
        *code = X509_V_ERR_UNSPECIFIED;
        return NULL;
    }
    X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_SERVER);
    return ctx;
}

int fw_x509_run_verify(X509_STORE_CTX *ctx, int *error_depth) {
    int verified = X509_verify_cert(ctx);
    int code = verified == 1 ? X509_V_OK : X509_STORE_CTX_get_error(ctx);
    if (verified != 1 && code == X509_V_OK) {
        code = X509_V_ERR_UNSPECIFIED;
    }
    *error_depth = X509_STORE_CTX_get_error_depth(ctx);
    return code;
}

int fw_x509_verify(X509_STORE *store, X509 *leaf, STACK_OF(X509) *untrusted, int partial_chain,
                   int use_time, int64_t time, int *error_depth) {
    *error_depth = 0;
    fw_verified_cache *cache = use_time ? fw_verified_cache_of(store) : NULL;
    if (cache != NULL && fw_verified_cache_contains(cache, leaf, untrusted, partial_chain, time)) {
        return X509_V_OK;
    }
    int code = X509_V_OK;
    X509_STORE_CTX *ctx = fw_x509_server_ctx_new(store, leaf, untrusted, &code);
    if (ctx == NULL) {
        return code;
    }
    if (partial_chain) {
        X509_STORE_CTX_set_flags(ctx, X509_V_FLAG_PARTIAL_CHAIN);
    }
    if (use_time) {
        X509_STORE_CTX_set_time(ctx, 0, (time_t)time);
    }
    code = fw_x509_run_verify(ctx, error_depth);
    if (code == X509_V_OK && cache != NULL) {
        fw_verified_cache_add(cache, leaf, untrusted, partial_chain, X509_STORE_CTX_get0_chain(ctx));
    }
    X509_STORE_CTX_free(ctx);
    ERR_clear_error();
    return code;
}

const char *fw_x509_verify_error_text(int code) {
    return X509_verify_cert_error_string(code);
}

int fw_ocsp_check(const unsigned char *der, long length, X509 *leaf, X509 *issuer, STACK_OF(X509) *chain,
                  X509_STORE *store, fw_ocsp_status *status) {
    memset(status, 0, sizeof(*status));
    const unsigned char *cursor = der;
    OCSP_RESPONSE *response = d2i_OCSP_RESPONSE(NULL, &cursor, length);
    if (response == NULL) {
        ERR_clear_error();
        return FW_OCSP_MALFORMED;
    }
    int result;
    OCSP_BASICRESP *basic = NULL;
    OCSP_CERTID *id = NULL;
    if (OCSP_response_status(response) != OCSP_RESPONSE_STATUS_SUCCESSFUL) {
        result = FW_OCSP_NOT_SUCCESSFUL;
    } else if ((basic = OCSP_response_get1_basic(response)) == NULL) {
        result = FW_OCSP_MALFORMED;
    } else if (OCSP_basic_verify(basic, chain, store, 0) != 1) {
        result = FW_OCSP_BAD_SIGNATURE;
    } else if ((id = OCSP_cert_to_id(NULL, leaf, issuer)) == NULL) {
        result = FW_OCSP_NO_STATUS;
    } else {
        int state = 0;
        int reason = 0;
        ASN1_GENERALIZEDTIME *revoked_at = NULL;
        ASN1_GENERALIZEDTIME *this_update = NULL;
        ASN1_GENERALIZEDTIME *next_update = NULL;
        if (!OCSP_resp_find_status(basic, id, &state, &reason, &revoked_at, &this_update, &next_update)
            || !fw_time_to_unix(this_update, &status->this_update)) {
            result = FW_OCSP_NO_STATUS;
        } else {
            status->has_next_update = fw_time_to_unix(next_update, &status->next_update);
            status->revocation_reason = reason;
            if (revoked_at != NULL) {
                fw_time_to_unix(revoked_at, &status->revocation_time);
            }
            switch (state) {
            case V_OCSP_CERTSTATUS_GOOD:
                result = FW_OCSP_GOOD;
                break;
            case V_OCSP_CERTSTATUS_REVOKED:
                result = FW_OCSP_REVOKED;
                break;
            default:
                result = FW_OCSP_UNKNOWN;
                break;
            }
        }
    }
    OCSP_CERTID_free(id);
    OCSP_BASICRESP_free(basic);
    OCSP_RESPONSE_free(response);
    ERR_clear_error();
    return result;
}

const char *fw_ocsp_reason_text(int reason) {
    return OCSP_crl_reason_str(reason);
}
