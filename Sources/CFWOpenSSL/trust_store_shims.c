// CFWOpenSSL implementation, the system trust store's locations. See include/CFWOpenSSL.h.

#include "CFWOpenSSL.h"

#include <stdlib.h>
#include <sys/stat.h>

const char *fw_x509_default_cert_file(void) {
    return X509_get_default_cert_file();
}

const char *fw_x509_default_cert_dir(void) {
    return X509_get_default_cert_dir();
}

X509_STORE *fw_x509_store_new_locations(const char *file, const char *dir) {
    X509_STORE *store = fw_x509_store_new();
    if (store == NULL) {
        return NULL;
    }
    if (!X509_STORE_load_locations(store, file, dir)) {
        X509_STORE_free(store);
        ERR_clear_error();
        return NULL;
    }
    ERR_clear_error();
    return store;
}

int fw_path_kind(const char *path) {
    struct stat info;
    if (stat(path, &info) != 0) {
        return 0;
    }
    if (S_ISREG(info.st_mode)) {
        return 1;
    }
    if (S_ISDIR(info.st_mode)) {
        return 2;
    }
    return 0;
}

const char *fw_getenv(const char *name) {
    return getenv(name);
}
