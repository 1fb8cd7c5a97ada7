// CFWOpenSSL: trust stores that remember the chains they verified. See include/CFWOpenSSL.h.
//
// Verifying a server chain costs a signature check per certificate (two ECDSA P-256 verifications, about
// 1.8 M instructions, for a leaf and its intermediate), and a client verifies the same chain again on
// every new connection to a server, resumed or not. A store made by `fw_x509_store_new` keeps the last
// chains it verified successfully: the exact certificates given (leaf, then the untrusted ones in order),
// whether partial chains were allowed, and the time window in which every certificate of the chain it
// built (anchor included) is valid. The same certificates verified at a time inside that window get
// X509_V_OK without the work; anything else (another certificate, a time outside the window, a failure)
// is verified in full, so a verdict is never different from X509_verify_cert's for the same inputs.
// The store's anchors are fixed once it is in use (FWTLS adds them right after creating it).

#include "x509_verify_cache.h"

#include <string.h>

enum {
    FW_VERIFIED_CAPACITY = 16, // chains per store (one per server a session talks to, recently)
    FW_VERIFIED_MAX_CERTS = 8, // longer chains are verified every time
};

typedef struct {
    X509 *certs[FW_VERIFIED_MAX_CERTS]; // one reference each; count == 0: an empty entry
    int count;
    int partial_chain;
    int64_t not_before; // the latest notBefore of the verified chain
    int64_t not_after;  // the earliest notAfter of the verified chain
} fw_verified_chain;

struct fw_verified_cache {
    CRYPTO_RWLOCK *lock;
    fw_verified_chain entries[FW_VERIFIED_CAPACITY];
    int next; // the entry replaced next (round robin)
};

static void clear_entry(fw_verified_chain *entry) {
    for (int i = 0; i < entry->count; i++) {
        X509_free(entry->certs[i]);
    }
    memset(entry, 0, sizeof(*entry));
}

static void free_cache(void *parent, void *pointer, CRYPTO_EX_DATA *data, int index, long argl, void *argp) {
    (void)parent;
    (void)data;
    (void)index;
    (void)argl;
    (void)argp;
    fw_verified_cache *cache = pointer;
    if (cache == NULL) {
        return;
    }
    for (int i = 0; i < FW_VERIFIED_CAPACITY; i++) {
        clear_entry(&cache->entries[i]);
    }
    CRYPTO_THREAD_lock_free(cache->lock);
    OPENSSL_free(cache);
}

static int cache_index = -1;

static void make_cache_index(void) {
    cache_index = X509_STORE_get_ex_new_index(0, NULL, NULL, NULL, free_cache);
}

static int cache_index_once(void) {
    static CRYPTO_ONCE once = CRYPTO_ONCE_STATIC_INIT;
    return CRYPTO_THREAD_run_once(&once, make_cache_index) && cache_index >= 0;
}

X509_STORE *fw_x509_store_new(void) {
    X509_STORE *store = X509_STORE_new();
    if (store == NULL || !cache_index_once()) {
        return store;
    }
    fw_verified_cache *cache = OPENSSL_zalloc(sizeof(fw_verified_cache));
    if (cache == NULL) {
        return store;
    }
    cache->lock = CRYPTO_THREAD_lock_new();
    if (cache->lock == NULL || !X509_STORE_set_ex_data(store, cache_index, cache)) {
        CRYPTO_THREAD_lock_free(cache->lock);
        OPENSSL_free(cache);
    }
    return store;
}

fw_verified_cache *fw_verified_cache_of(X509_STORE *store) {
    return cache_index >= 0 ? X509_STORE_get_ex_data(store, cache_index) : NULL;
}

static int same_certificates(const fw_verified_chain *entry, X509 *leaf, STACK_OF(X509) *untrusted) {
    int count = 1 + (untrusted == NULL ? 0 : sk_X509_num(untrusted));
    if (entry->count != count || X509_cmp(entry->certs[0], leaf) != 0) {
        return 0;
    }
    for (int i = 1; i < count; i++) {
        if (X509_cmp(entry->certs[i], sk_X509_value(untrusted, i - 1)) != 0) {
            return 0;
        }
    }
    return 1;
}

int fw_verified_cache_contains(fw_verified_cache *cache, X509 *leaf, STACK_OF(X509) *untrusted, int partial_chain,
                               int64_t time) {
    if (!CRYPTO_THREAD_read_lock(cache->lock)) {
        return 0;
    }
    int found = 0;
    for (int i = 0; i < FW_VERIFIED_CAPACITY && !found; i++) {
        const fw_verified_chain *entry = &cache->entries[i];
        found = entry->count > 0 && entry->partial_chain == partial_chain && entry->not_before <= time
            && time < entry->not_after && same_certificates(entry, leaf, untrusted);
    }
    CRYPTO_THREAD_unlock(cache->lock);
    return found;
}

void fw_verified_cache_add(fw_verified_cache *cache, X509 *leaf, STACK_OF(X509) *untrusted, int partial_chain,
                           STACK_OF(X509) *verified) {
    fw_verified_chain entry;
    memset(&entry, 0, sizeof(entry));
    int count = 1 + (untrusted == NULL ? 0 : sk_X509_num(untrusted));
    if (count > FW_VERIFIED_MAX_CERTS || verified == NULL || sk_X509_num(verified) == 0) {
        return;
    }
    entry.not_before = INT64_MIN;
    entry.not_after = INT64_MAX;
    for (int i = 0; i < sk_X509_num(verified); i++) {
        int64_t not_before = 0, not_after = 0;
        if (!fw_x509_validity(sk_X509_value(verified, i), &not_before, &not_after)) {
            return;
        }
        entry.not_before = not_before > entry.not_before ? not_before : entry.not_before;
        entry.not_after = not_after < entry.not_after ? not_after : entry.not_after;
    }
    entry.partial_chain = partial_chain;
    for (int i = 0; i < count; i++) {
        X509 *cert = i == 0 ? leaf : sk_X509_value(untrusted, i - 1);
        if (!X509_up_ref(cert)) {
            clear_entry(&entry);
            return;
        }
        entry.certs[i] = cert;
        entry.count = i + 1;
    }
    if (!CRYPTO_THREAD_write_lock(cache->lock)) {
        clear_entry(&entry);
        return;
    }
    fw_verified_chain *slot = &cache->entries[cache->next];
    cache->next = (cache->next + 1) % FW_VERIFIED_CAPACITY;
    fw_verified_chain replaced = *slot;
    *slot = entry;
    CRYPTO_THREAD_unlock(cache->lock);
    clear_entry(&replaced);
}
