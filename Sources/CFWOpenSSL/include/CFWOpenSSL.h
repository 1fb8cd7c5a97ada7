// CFWOpenSSL: the OpenSSL includes and wrappers for its macros and version differences. FWTLS sees
// OpenSSL only here, and only FWTLS imports this module (ARCHITECTURE.md's layer table). Targets
// OpenSSL 3. Functions that hand out memory say how to free it; `fw_openssl_free` frees anything
// OpenSSL allocated with OPENSSL_malloc.

#ifndef CFWOPENSSL_H
#define CFWOPENSSL_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/err.h>
#include <openssl/ct.h>
#include <openssl/evp.h>
#include <openssl/ocsp.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

// MARK: - Library and connections

/// The linked OpenSSL's version text (OpenSSL_version(OPENSSL_VERSION)).
const char *fw_openssl_version_text(void);

/// OPENSSL_free (a macro).
void fw_openssl_free(void *pointer);

/// ERR_GET_REASON of a packed error code.
int fw_err_reason(unsigned long code);

/// Protocol version numbers for the min/max setters.
static const int FW_TLS1_VERSION = TLS1_VERSION;
static const int FW_TLS1_1_VERSION = TLS1_1_VERSION;
static const int FW_TLS1_2_VERSION = TLS1_2_VERSION;
static const int FW_TLS1_3_VERSION = TLS1_3_VERSION;

/// A client SSL_CTX (TLS_client_method) with verification off and libssl's own chain check skipped
/// (FWTLS evaluates trust itself, after the handshake), no
/// renegotiation, compression off, and a client-side session cache without OpenSSL's internal store
/// (FWTLS hands sessions to a TLSSessionStore keyed by host and port). NULL on allocation failure.
SSL_CTX *fw_ssl_ctx_new_client(void);

/// SSL_CTX_set_min_proto_version / SSL_CTX_set_max_proto_version (macros). 1 on success.
int fw_ssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version);
int fw_ssl_ctx_set_max_proto_version(SSL_CTX *ctx, int version);

/// A new SSL in client mode reading received ciphertext from an inbound BIO (`fw_inbound_bio_room` and
/// `fw_inbound_bio_commit` fill it in place) and writing to a fresh memory BIO. The SSL owns both BIOs;
/// `*read_bio` is the inbound BIO, `*write_bio` holds ciphertext for the socket. NULL on failure.
SSL *fw_ssl_new_with_inbound_bio(SSL_CTX *ctx, BIO **read_bio, BIO **write_bio);

/// A new inbound BIO: a read-only source over one growable buffer the owner fills in place; reading an
/// empty one asks to retry. NULL on allocation failure.
BIO *fw_inbound_bio_new(void);

/// Free space of at least `minimum` bytes at the end of the inbound BIO's buffer (unread bytes move to
/// the front first, the buffer grows when needed); `*room` receives its size. Valid until the next call
/// on the BIO. NULL (and a room of 0) on allocation failure.
unsigned char *fw_inbound_bio_room(BIO *bio, size_t minimum, size_t *room);

/// Makes `count` bytes written into the last room readable (at most the room's size).
void fw_inbound_bio_commit(BIO *bio, size_t count);

/// SSL_set_tlsext_host_name (a macro): the SNI host name. 1 on success.
int fw_ssl_set_server_name(SSL *ssl, const char *name);

/// SSL_set_tlsext_status_type(ssl, TLSEXT_STATUSTYPE_ocsp) (a macro): asks for a stapled OCSP response.
int fw_ssl_request_ocsp_stapling(SSL *ssl);

/// SSL_get_tlsext_status_ocsp_resp (a macro): the stapled OCSP response the server sent, or a length
/// of -1 and NULL. The bytes belong to the SSL.
long fw_ssl_ocsp_response(SSL *ssl, const unsigned char **response);

/// SSL_set_app_data / SSL_get_app_data (macros): the owner object the callbacks find.
int fw_ssl_set_app_data(SSL *ssl, void *data);
void *fw_ssl_get_app_data(const SSL *ssl);

/// 1 when the peer's close_notify was received (SSL_get_shutdown & SSL_RECEIVED_SHUTDOWN).
int fw_ssl_received_close_notify(const SSL *ssl);

/// The ALPN protocol the server selected as a C string copy, or NULL. Free with fw_openssl_free.
char *fw_ssl_copy_alpn(const SSL *ssl);

/// The certificate authorities a server named in its CertificateRequest: count, and the DER of one
/// X509_NAME (allocated; free with fw_openssl_free; returns the length or -1).
int fw_ssl_client_ca_count(const SSL *ssl);
int fw_ssl_client_ca_der(const SSL *ssl, int index, unsigned char **der);

// MARK: X509 stacks (sk_X509_* are macros)

STACK_OF(X509) *fw_x509_stack_new(void);
/// Pushes `cert` after taking a reference to it. 1 on success.
int fw_x509_stack_push(STACK_OF(X509) *stack, X509 *cert);
int fw_x509_stack_count(const STACK_OF(X509) *stack);
/// The certificate at `index` (borrowed: the stack keeps its reference).
X509 *fw_x509_stack_get(const STACK_OF(X509) *stack, int index);
/// Frees the stack and drops its references to the certificates.
void fw_x509_stack_free(STACK_OF(X509) *stack);

// MARK: Decoding

/// Every certificate in a PEM buffer, in order; an empty stack when there is none. NULL on
/// allocation failure. Leaves the error queue clean.
STACK_OF(X509) *fw_pem_read_certificates(const void *pem, int length);

/// A private key from PEM (PKCS#8, traditional or encrypted). `password` may be NULL (an encrypted key
/// then fails instead of prompting). NULL on failure.
EVP_PKEY *fw_pem_read_private_key(const void *pem, int length, const char *password);

enum {
    FW_PKCS12_OK = 0,
    FW_PKCS12_MALFORMED = 1,
    FW_PKCS12_WRONG_PASSWORD = 2,
    FW_PKCS12_INCOMPLETE = 3,
};

/// Decodes a PKCS#12 blob: the key, its certificate and the extra CA certificates (a stack, possibly
/// empty). Returns an FW_PKCS12_* code; on FW_PKCS12_OK the caller owns all three outputs.
int fw_pkcs12_parse(const void *der, int length, const char *password, EVP_PKEY **key, X509 **cert,
                    STACK_OF(X509) **chain);

// MARK: Certificate fields

/// DER of the whole certificate (allocated; free with fw_openssl_free). Returns the length or -1.
int fw_x509_der(X509 *cert, unsigned char **der);

/// DER of the SubjectPublicKeyInfo (allocated; free with fw_openssl_free). Returns the length or -1.
int fw_x509_spki_der(X509 *cert, unsigned char **der);

/// The subjectPublicKey BIT STRING contents: PKCS#1 RSAPublicKey for RSA, the X9.63 point for EC
/// (what Security's SecKeyCopyExternalRepresentation returns). Borrowed; returns the length or -1.
int fw_x509_public_key_bytes(X509 *cert, const unsigned char **bytes);

/// The public key's algorithm ("RSA", "EC", "ED25519", ... ; static storage) and size in bits.
const char *fw_x509_public_key_algorithm(X509 *cert, int *bits);

/// The subject or issuer name as one line, "O=Example, CN=example.com" (allocated C string; free
/// with fw_openssl_free). NULL on failure.
char *fw_x509_subject_text(X509 *cert);
char *fw_x509_issuer_text(X509 *cert);

/// The last (most specific) commonName of the subject as UTF-8 (allocated; free with
/// fw_openssl_free). Returns the length, or -1 when there is none.
int fw_x509_common_name(X509 *cert, unsigned char **utf8);

/// notBefore and notAfter as seconds since 1970. 1 on success.
int fw_x509_validity(X509 *cert, int64_t *not_before, int64_t *not_after);

/// The serial number's big-endian magnitude into `out`. Returns the length, or -1 if it does not fit.
int fw_x509_serial(X509 *cert, unsigned char *out, int capacity);

/// 1 when the certificate is self-issued and its signature verifies with its own key.
int fw_x509_is_self_signed(X509 *cert);

/// 1 when `key` is the private half of `cert`'s public key.
int fw_x509_matches_private_key(X509 *cert, EVP_PKEY *key);

enum {
    FW_SAN_OTHER = 0,
    FW_SAN_DNS = 1,
    FW_SAN_IP = 2,
};

/// The subjectAltName entries: an opaque list (NULL when the extension is absent), its count, one
/// entry's kind (FW_SAN_*) with its raw bytes (borrowed: DNS name text or 4/16 address bytes), and free.
GENERAL_NAMES *fw_x509_alt_names(X509 *cert);
int fw_alt_names_count(const GENERAL_NAMES *names);
int fw_alt_names_get(const GENERAL_NAMES *names, int index, const unsigned char **bytes, int *length);
void fw_alt_names_free(GENERAL_NAMES *names);

// MARK: Trust

/// An empty store that remembers the chains fw_x509_verify verified with it (x509_verify_cache.c): add
/// its anchors before verifying with it. NULL on allocation failure.
X509_STORE *fw_x509_store_new(void);

/// A store made by fw_x509_store_new with the system's default trust anchors
/// (X509_STORE_set_default_paths). NULL on failure.
X509_STORE *fw_x509_store_new_system(void);

/// Verifies `leaf` with `untrusted` intermediates (may be NULL) against `store` for TLS server use,
/// at `time` (seconds since 1970) when `use_time` is 1, otherwise now. `partial_chain` accepts any
/// store certificate as an anchor. Returns X509_V_OK or the X509_V_ERR_* code, with the depth of the
/// failing certificate in `*error_depth`. With a store made by fw_x509_store_new and `use_time`, the
/// same certificates verified successfully before get X509_V_OK at once while `time` lies inside the
/// validity of every certificate of the chain built then.
int fw_x509_verify(X509_STORE *store, X509 *leaf, STACK_OF(X509) *untrusted, int partial_chain,
                   int use_time, int64_t time, int *error_depth);

/// X509_verify_cert_error_string.
const char *fw_x509_verify_error_text(int code);

enum {
    FW_OCSP_GOOD = 0,
    FW_OCSP_REVOKED = 1,
    FW_OCSP_UNKNOWN = 2,
    FW_OCSP_MALFORMED = -1,
    FW_OCSP_NOT_SUCCESSFUL = -2,
    FW_OCSP_BAD_SIGNATURE = -3,
    FW_OCSP_NO_STATUS = -4,
};

/// What a stapled OCSP response says about one certificate.
typedef struct {
    int64_t this_update;
    int64_t next_update;
    int has_next_update;
    int64_t revocation_time;
    int revocation_reason;
} fw_ocsp_status;

/// Decodes a DER OCSP response, verifies its signature against `store` (with `chain` as extra
/// certificates), and finds the status of `leaf` issued by `issuer`. Returns an FW_OCSP_* code; the
/// times in `*status` are filled for GOOD, REVOKED and UNKNOWN.
int fw_ocsp_check(const unsigned char *der, long length, X509 *leaf, X509 *issuer, STACK_OF(X509) *chain,
                  X509_STORE *store, fw_ocsp_status *status);

/// OCSP_crl_reason_str: the text of a CRL reason code.
const char *fw_ocsp_reason_text(int reason);

// MARK: System trust store (trust_store_shims.c)

/// OpenSSL's compiled default CA bundle file (X509_get_default_cert_file), static storage.
const char *fw_x509_default_cert_file(void);

/// OpenSSL's compiled default hashed CA directory (X509_get_default_cert_dir), static storage.
const char *fw_x509_default_cert_dir(void);

/// A store made by fw_x509_store_new with the anchors of the PEM bundle `file` and the hashed
/// directory `dir` (either may be NULL). NULL when allocation failed or `file` gave no certificate.
X509_STORE *fw_x509_store_new_locations(const char *file, const char *dir);

/// What `path` names after following links: 1 a regular file, 2 a directory, 0 nothing (or other).
int fw_path_kind(const char *path);

/// getenv(3): the value of the environment variable `name`, or NULL.
const char *fw_getenv(const char *name);

// MARK: Revocation lists and verified chains (x509_crl.c)

/// The CRLs in `bytes`: every PEM "X509 CRL" block, or one DER CRL. NULL when there is none.
STACK_OF(X509_CRL) *fw_crl_stack_read(const void *bytes, int length);

/// Frees a stack from fw_crl_stack_read and its CRLs.
void fw_crl_stack_free(STACK_OF(X509_CRL) *stack);

/// The number of CRLs in the stack.
int fw_crl_stack_count(const STACK_OF(X509_CRL) *stack);

/// The lastUpdate and nextUpdate (0 when absent) of the stack's CRL at `index`, in seconds since 1970;
/// 0 on success, -1 when a date cannot be read.
int fw_crl_dates(const STACK_OF(X509_CRL) *stack, int index, int64_t *last_update, int64_t *next_update);

/// The issuer of the stack's CRL at `index` as one-line text (allocated; free with fw_openssl_free).
char *fw_crl_issuer_text(const STACK_OF(X509_CRL) *stack, int index);

/// The http:// URIs of the certificate's CRL distribution points (fullName URIs only), one a line
/// (allocated; free with fw_openssl_free). NULL when there is none.
char *fw_x509_crl_distribution_points(X509 *certificate);

/// One stack holding every CRL of the `count` stacks (each CRL gains a reference; free with
/// fw_crl_stack_free). NULL when they hold none.
STACK_OF(X509_CRL) *fw_crl_stack_merge(STACK_OF(X509_CRL) *const *stacks, int count);

enum {
    FW_CRL_CHECK_NONE = 0,
    FW_CRL_CHECK_LEAF = 1,
    FW_CRL_CHECK_ALL = 2,
};

/// fw_x509_verify without the cache, at `time`, with `crls` (may be NULL) offered to the verification
/// and `crl_check` (FW_CRL_CHECK_*) turning on X509_V_FLAG_CRL_CHECK (and _ALL). On X509_V_OK,
/// `*chain` receives the verified chain, leaf to anchor (free with fw_x509_stack_free_all).
int fw_x509_verify_chain(X509_STORE *store, X509 *leaf, STACK_OF(X509) *untrusted, int partial_chain,
                         int64_t time, STACK_OF(X509_CRL) *crls, int crl_check, int *error_depth,
                         STACK_OF(X509) **chain);

/// Frees a stack and drops one reference to each of its certificates (sk_X509_pop_free).
void fw_x509_stack_free_all(STACK_OF(X509) *stack);

// MARK: Certificate Transparency (ct_shims.c)

/// SSL_enable_ct(ssl, SSL_CT_VALIDATION_PERMISSIVE): ask for SCTs (and an OCSP staple, which may carry
/// them) without failing the handshake on them. 1 on success.
int fw_ssl_enable_ct(SSL *ssl);

/// The SCTs the peer sent (TLS extension, certificate, stapled OCSP) as one list, per SCT its source
/// (1 byte), length (2 bytes) and RFC 6962 encoding (allocated; free with fw_openssl_free); returns its
/// length, 0 when there is none.
int fw_ssl_peer_sct_list(SSL *ssl, unsigned char **der);

/// A CT log store from a log list file (CTLOG_STORE_load_file's format); NULL when it cannot be read.
CTLOG_STORE *fw_ctlog_store_load(const char *path);

/// Frees a store from fw_ctlog_store_load.
void fw_ctlog_store_free(CTLOG_STORE *store);

/// What validation says about one SCT.
typedef struct {
    /// sct_validation_status_t: 1 unknown log, 2 valid, 3 invalid, 4 unverified, 5 unknown version.
    int status;
    unsigned char log_id[32];
    int64_t timestamp_ms;
    /// sct_source_t: 1 TLS extension, 2 certificate extension, 3 OCSP staple.
    int source;
} fw_sct_result;

/// Validates the SCT list `der` (fw_ssl_peer_sct_list's encoding) for `leaf` (issued by `issuer`, may
/// be NULL) against `logs`
/// at `time_ms` (milliseconds since 1970); fills up to `capacity` results and returns the number of
/// SCTs, or -1 when the list does not decode.
int fw_sct_validate(const unsigned char *der, long length, X509 *leaf, X509 *issuer, CTLOG_STORE *logs,
                    int64_t time_ms, fw_sct_result *results, int capacity);

#endif
