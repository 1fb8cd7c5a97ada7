// CFWOpenSSL: the inbound ciphertext BIO. See include/CFWOpenSSL.h.
//
// A read-only BIO over one growable buffer that the owner fills in place (`fw_inbound_bio_room`, then
// `fw_inbound_bio_commit`): the socket reads straight into it and OpenSSL's record layer reads from its
// front, so received ciphertext is copied once (into OpenSSL's record buffer) instead of twice plus a
// clearing memset (a memory BIO's BIO_write). Unread bytes stay at the front between calls; an empty
// buffer answers "retry" like a memory BIO with an EOF return of -1.

#include "CFWOpenSSL.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    unsigned char *data;
    size_t capacity;
    size_t start; // first unread byte
    size_t end;   // one past the last received byte
} fw_inbound;

static int inbound_read(BIO *bio, char *out, int length) {
    fw_inbound *inbound = BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    size_t available = inbound->end - inbound->start;
    if (available == 0) {
        BIO_set_retry_read(bio);
        return -1;
    }
    size_t count = length < 0 ? 0 : (size_t)length;
    if (count > available) {
        count = available;
    }
    memcpy(out, inbound->data + inbound->start, count);
    inbound->start += count;
    if (inbound->start == inbound->end) {
        inbound->start = 0;
        inbound->end = 0;
    }
    return (int)count;
}

static int inbound_write(BIO *bio, const char *in, int length) {
    (void)bio;
    (void)in;
    (void)length;
    return -1;
}

static long inbound_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)number;
    (void)pointer;
    fw_inbound *inbound = BIO_get_data(bio);
    switch (command) {
    case BIO_CTRL_PENDING:
        return (long)(inbound->end - inbound->start);
    case BIO_CTRL_FLUSH:
        return 1;
    default:
        return 0;
    }
}

static int inbound_create(BIO *bio) {
    fw_inbound *inbound = calloc(1, sizeof(fw_inbound));
    if (inbound == NULL) {
        return 0;
    }
    BIO_set_data(bio, inbound);
    BIO_set_init(bio, 1);
    return 1;
}

static int inbound_destroy(BIO *bio) {
    fw_inbound *inbound = BIO_get_data(bio);
    if (inbound != NULL) {
        free(inbound->data);
        free(inbound);
        BIO_set_data(bio, NULL);
    }
    return 1;
}

static BIO_METHOD *inbound_method = NULL;

static void make_inbound_method(void) {
    BIO_METHOD *method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "FWNetworking inbound");
    if (method == NULL) {
        return;
    }
    BIO_meth_set_read(method, inbound_read);
    BIO_meth_set_write(method, inbound_write);
    BIO_meth_set_ctrl(method, inbound_ctrl);
    BIO_meth_set_create(method, inbound_create);
    BIO_meth_set_destroy(method, inbound_destroy);
    inbound_method = method;
}

BIO *fw_inbound_bio_new(void) {
    static CRYPTO_ONCE once = CRYPTO_ONCE_STATIC_INIT;
    if (!CRYPTO_THREAD_run_once(&once, make_inbound_method) || inbound_method == NULL) {
        return NULL;
    }
    return BIO_new(inbound_method);
}

unsigned char *fw_inbound_bio_room(BIO *bio, size_t minimum, size_t *room) {
    fw_inbound *inbound = BIO_get_data(bio);
    *room = 0;
    if (inbound->start > 0) {
        // Unread bytes move to the front (a partial record: a few KiB at most).
        memmove(inbound->data, inbound->data + inbound->start, inbound->end - inbound->start);
        inbound->end -= inbound->start;
        inbound->start = 0;
    }
    if (inbound->capacity - inbound->end < minimum) {
        size_t capacity = inbound->end + minimum;
        unsigned char *grown = realloc(inbound->data, capacity);
        if (grown == NULL) {
            return NULL;
        }
        inbound->data = grown;
        inbound->capacity = capacity;
    }
    *room = inbound->capacity - inbound->end;
    return inbound->data + inbound->end;
}

void fw_inbound_bio_commit(BIO *bio, size_t count) {
    fw_inbound *inbound = BIO_get_data(bio);
    size_t room = inbound->capacity - inbound->end;
    inbound->end += count < room ? count : room;
}
