// CFWOpenSSL implementation, library and connections. See include/CFWOpenSSL.h; certificates and trust
// are in x509_shims.c.

#define _GNU_SOURCE
#include "CFWOpenSSL.h"

#include <string.h>

// MARK: - Library and connections

// OpenSSL registers an atexit handler, on its first use, that frees its global state (locks, the default
// library context, error strings) when the process exits. Exit runs it on the exiting thread while other
// threads may still be inside OpenSSL (a connection's last certificate released on a delegate queue, a
// loop closing a TLS connection), which then lock or unlock a freed or NULL lock: a crash after the program's
// work is done (seen in fwcurl, exit 60 turned into SIGSEGV; a C loop freeing certificates on two threads
// while main exits crashed 138 runs of 200 with the handler, 0 of 200 without). So the library is
// initialised without it, before main and before any other OpenSSL call of this process can register it;
// the first initialisation decides. The memory is the process's to give back when it ends, as for any
// library that is never shut down.
__attribute__((constructor)) static void fw_openssl_init_without_exit_cleanup(void) {
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

const char *fw_openssl_version_text(void) {
    return OpenSSL_version(OPENSSL_VERSION);
}

void fw_openssl_free(void *pointer) {
    OPENSSL_free(pointer);
}

int fw_err_reason(unsigned long code) {
    return ERR_GET_REASON(code);
}

// libssl builds and checks the server's chain against the SSL_CTX's (empty) store in every full
// handshake even with SSL_VERIFY_NONE, only to record a result nobody reads: FWTLS evaluates trust
// itself after the handshake (ServerTrust), so the chain is left to it.
static int leave_chain_to_trust_evaluation(X509_STORE_CTX *ctx, void *argument) {
    (void)ctx;
    (void)argument;
    return 1;
}

SSL_CTX *fw_ssl_ctx_new_client(void) {
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (ctx == NULL) {
        return NULL;
    }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    SSL_CTX_set_cert_verify_callback(ctx, leave_chain_to_trust_evaluation, NULL);
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    return ctx;
}

int fw_ssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

int fw_ssl_ctx_set_max_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_max_proto_version(ctx, version);
}

SSL *fw_ssl_new_with_inbound_bio(SSL_CTX *ctx, BIO **read_bio, BIO **write_bio) {
    SSL *ssl = SSL_new(ctx);
    BIO *input = fw_inbound_bio_new();
    BIO *output = BIO_new(BIO_s_mem());
    if (ssl == NULL || input == NULL || output == NULL) {
        SSL_free(ssl);
        BIO_free(input);
        BIO_free(output);
        return NULL;
    }
    SSL_set_bio(ssl, input, output);
    SSL_set_connect_state(ssl);
    *read_bio = input;
    *write_bio = output;
    return ssl;
}

int fw_ssl_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

int fw_ssl_request_ocsp_stapling(SSL *ssl) {
    return (int)SSL_set_tlsext_status_type(ssl, TLSEXT_STATUSTYPE_ocsp);
}

long fw_ssl_ocsp_response(SSL *ssl, const unsigned char **response) {
    unsigned char *bytes = NULL;
    long length = SSL_get_tlsext_status_ocsp_resp(ssl, &bytes);
    *response = bytes;
    return bytes == NULL ? -1 : length;
}

int fw_ssl_set_app_data(SSL *ssl, void *data) {
    return SSL_set_app_data(ssl, data);
}

void *fw_ssl_get_app_data(const SSL *ssl) {
    return SSL_get_app_data(ssl);
}

int fw_ssl_received_close_notify(const SSL *ssl) {
    return (SSL_get_shutdown(ssl) & SSL_RECEIVED_SHUTDOWN) != 0;
}

char *fw_ssl_copy_alpn(const SSL *ssl) {
    const unsigned char *data = NULL;
    unsigned int length = 0;
    SSL_get0_alpn_selected(ssl, &data, &length);
    if (data == NULL || length == 0) {
        return NULL;
    }
    return OPENSSL_strndup((const char *)data, length);
}

int fw_ssl_client_ca_count(const SSL *ssl) {
    STACK_OF(X509_NAME) *names = SSL_get_client_CA_list(ssl);
    return names == NULL ? 0 : sk_X509_NAME_num(names);
}

int fw_ssl_client_ca_der(const SSL *ssl, int index, unsigned char **der) {
    STACK_OF(X509_NAME) *names = SSL_get_client_CA_list(ssl);
    if (names == NULL || index < 0 || index >= sk_X509_NAME_num(names)) {
        return -1;
    }
    *der = NULL;
    return i2d_X509_NAME(sk_X509_NAME_value(names, index), der);
}

// MARK: X509 stacks

STACK_OF(X509) *fw_x509_stack_new(void) {
    return sk_X509_new_null();
}

int fw_x509_stack_push(STACK_OF(X509) *stack, X509 *cert) {
    if (!X509_up_ref(cert)) {
        return 0;
    }
    if (sk_X509_push(stack, cert) <= 0) {
        X509_free(cert);
        return 0;
    }
    return 1;
}

int fw_x509_stack_count(const STACK_OF(X509) *stack) {
    return stack == NULL ? 0 : sk_X509_num(stack);
}

X509 *fw_x509_stack_get(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}

void fw_x509_stack_free(STACK_OF(X509) *stack) {
    sk_X509_pop_free(stack, X509_free);
}

// MARK: Decoding

STACK_OF(X509) *fw_pem_read_certificates(const void *pem, int length) {
    BIO *bio = BIO_new_mem_buf(pem, length);
    STACK_OF(X509) *stack = sk_X509_new_null();
    if (bio == NULL || stack == NULL) {
        BIO_free(bio);
        sk_X509_free(stack);
        return NULL;
    }
    X509 *cert;
    while ((cert = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        if (sk_X509_push(stack, cert) <= 0) {
            X509_free(cert);
            break;
        }
    }
    ERR_clear_error();
    BIO_free(bio);
    return stack;
}

/// Supplies the caller's password, and refuses (instead of prompting on a terminal) when there is none.
static int fw_pem_password(char *buffer, int size, int writing, void *context) {
    (void)writing;
    const char *password = context;
    if (password == NULL) {
        return -1;
    }
    size_t length = strlen(password);
    if (length > (size_t)size) {
        return -1;
    }
    memcpy(buffer, password, length);
    return (int)length;
}

EVP_PKEY *fw_pem_read_private_key(const void *pem, int length, const char *password) {
    BIO *bio = BIO_new_mem_buf(pem, length);
    if (bio == NULL) {
        return NULL;
    }
    EVP_PKEY *key = PEM_read_bio_PrivateKey(bio, NULL, fw_pem_password, (void *)password);
    BIO_free(bio);
    return key;
}

int fw_pkcs12_parse(const void *der, int length, const char *password, EVP_PKEY **key, X509 **cert,
                    STACK_OF(X509) **chain) {
    const unsigned char *cursor = der;
    PKCS12 *p12 = d2i_PKCS12(NULL, &cursor, length);
    if (p12 == NULL) {
        return FW_PKCS12_MALFORMED;
    }
    int password_length = (int)strlen(password);
    if (PKCS12_mac_present(p12) && !PKCS12_verify_mac(p12, password, password_length)) {
        PKCS12_free(p12);
        return FW_PKCS12_WRONG_PASSWORD;
    }
    *key = NULL;
    *cert = NULL;
    *chain = NULL;
    int parsed = PKCS12_parse(p12, password, key, cert, chain);
    PKCS12_free(p12);
    if (!parsed) {
        return FW_PKCS12_MALFORMED;
    }
    if (*key == NULL || *cert == NULL) {
        EVP_PKEY_free(*key);
        X509_free(*cert);
        sk_X509_pop_free(*chain, X509_free);
        return FW_PKCS12_INCOMPLETE;
    }
    if (*chain == NULL) {
        *chain = sk_X509_new_null();
    }
    return FW_PKCS12_OK;
}
