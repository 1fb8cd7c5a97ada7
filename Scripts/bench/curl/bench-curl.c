/*
 * bench-curl: libcurl's multi interface in a closed loop, the C counterpart of the Swift clients
 * (same command line, same JSON line; see Sources/BenchSupport/ClientArguments.swift and
 * ClientResult.swift). CONCURRENCY easy handles are created once and reused: when a transfer
 * completes, its handle is removed and added again for the next request, so the multi handle's
 * connection cache keeps the connections alive. CURLMOPT_MAX_HOST_CONNECTIONS is the per-host limit
 * (--max-conns, default CONCURRENCY). Mode `get` appends the body to a buffer grown with realloc
 * (doubling) and kept, capacity and all, for the handle's next request (what a libcurl user who wants
 * the body in memory and reuses handles writes); `stream` counts and drops it; `close` is `get` with
 * a `Connection: close` field, as every other client of the suite sends (nginx closes first, and its
 * lingering close is part of the row for all of them), and CURLOPT_FORBID_REUSE (a new TCP connection per
 * request). --buffer-size sets CURLOPT_BUFFERSIZE (the suite passes 64 KiB, FWNetworking's read size, on
 * the bulk rows, so both read the socket in the same slices; elsewhere libcurl's default of 16 KiB keeps
 * its memory use lower).
 *
 * HTTPS: --cacert FILE is CURLOPT_CAINFO with CURLOPT_CAPATH cleared, so the file's certificates are the
 * only trust anchors (as for the other clients). --tls-resumption off sets CURLOPT_SSL_SESSIONID_CACHE to
 * 0 (every new connection a full handshake); on (or nothing) keeps libcurl's default: each easy handle
 * caches its TLS session and the next connection resumes it.
 *
 * Build: cc -O2 -o bench-curl bench-curl.c -lcurl
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

enum mode { MODE_GET, MODE_STREAM, MODE_CLOSE, MODE_IDLE };

struct transfer {
    CURL *easy;
    char *body;
    size_t length;
    size_t capacity;
    int keep;
};

static long long started, in_flight, completed, failed;
static long long body_bytes;
static char first_error[256];

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_seconds(long *max_rss_kib) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    if (max_rss_kib) *max_rss_kib = usage.ru_maxrss;
    return (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6 +
           (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec / 1e6;
}

static size_t on_body(char *data, size_t size, size_t count, void *user) {
    struct transfer *transfer = user;
    size_t bytes = size * count;
    if (transfer->keep) {
        if (transfer->length + bytes > transfer->capacity) {
            size_t capacity = transfer->capacity ? transfer->capacity : 16384;
            while (capacity < transfer->length + bytes) capacity *= 2;
            char *grown = realloc(transfer->body, capacity);
            if (!grown) return 0;
            transfer->body = grown;
            transfer->capacity = capacity;
        }
        memcpy(transfer->body + transfer->length, data, bytes);
    }
    transfer->length += bytes;
    return bytes;
}

static int usage(const char *why) {
    fprintf(stderr, "bench-curl: %s\nusage: bench-curl URL CONCURRENCY (REQUESTS | SECONDSs) (get|stream|close|idle) "
                    "[--max-conns N] [--buffer-size BYTES] [--cacert FILE] [--tls-resumption on|off]\n", why);
    return 2;
}

int main(int argc, char **argv) {
    const char *positional[4];
    int positional_count = 0;
    long max_conns = 0;
    long buffer_size = 0;
    const char *ca_file = NULL;
    long session_cache = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max-conns") == 0 && i + 1 < argc) {
            max_conns = strtol(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--buffer-size") == 0 && i + 1 < argc) {
            buffer_size = strtol(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--cacert") == 0 && i + 1 < argc) {
            ca_file = argv[++i];
        } else if (strcmp(argv[i], "--tls-resumption") == 0 && i + 1 < argc) {
            const char *value = argv[++i];
            if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0) return usage("--tls-resumption takes on or off");
            session_cache = strcmp(value, "on") == 0;
        } else if (positional_count < 4) {
            positional[positional_count++] = argv[i];
        } else {
            return usage("too many arguments");
        }
    }
    if (positional_count != 4) return usage("expected 4 positional arguments");
    const char *url = positional[0];
    if (strncmp(url, "http://127.0.0.1:", 17) != 0 && strncmp(url, "https://127.0.0.1:", 18) != 0) {
        return usage("the URL must be http(s)://127.0.0.1:PORT/...");
    }
    long concurrency = strtol(positional[1], NULL, 10);
    if (concurrency <= 0) return usage("bad concurrency");
    size_t amount_length = strlen(positional[2]);
    double seconds = 0;
    long long requests = 0;
    char *end;
    if (amount_length > 1 && positional[2][amount_length - 1] == 's') {
        seconds = strtod(positional[2], &end);
        if (seconds <= 0 || *end != 's') return usage("bad amount");
    } else {
        requests = strtoll(positional[2], &end, 10);
        if (requests <= 0 || *end != '\0') return usage("bad amount");
    }
    enum mode mode;
    if (strcmp(positional[3], "get") == 0) mode = MODE_GET;
    else if (strcmp(positional[3], "stream") == 0) mode = MODE_STREAM;
    else if (strcmp(positional[3], "close") == 0) mode = MODE_CLOSE;
    else if (strcmp(positional[3], "idle") == 0) mode = MODE_IDLE;
    else return usage("bad mode");
    if (max_conns <= 0) max_conns = concurrency;
    if (mode == MODE_IDLE) {
        // The memory baseline: libcurl and OpenSSL loaded, arguments parsed, nothing initialised or run.
        long idle_rss_kib = 0;
        cpu_seconds(&idle_rss_kib);
        printf("{\"api\":\"none\",\"body_bytes\":0,\"client\":\"curl\",\"concurrency\":%ld,\"cpu_seconds\":0,"
               "\"cpu_us_per_request\":0,\"errors\":0,\"max_conns\":%ld,\"mb_per_second\":0,\"mode\":\"idle\","
               "\"peak_rss_kib\":%ld,\"requests\":0,\"requests_per_second\":0,\"seconds\":0}\n",
               concurrency, max_conns, idle_rss_kib);
        return 0;
    }

    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max_conns);
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, max_conns);
    struct curl_slist *close_field = curl_slist_append(NULL, "Connection: close");
    struct transfer *transfers = calloc((size_t)concurrency, sizeof *transfers);
    if (!multi || !transfers || !close_field) return 1;
    for (long i = 0; i < concurrency; i++) {
        struct transfer *transfer = &transfers[i];
        transfer->easy = curl_easy_init();
        transfer->keep = mode != MODE_STREAM;
        curl_easy_setopt(transfer->easy, CURLOPT_URL, url);
        curl_easy_setopt(transfer->easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
        curl_easy_setopt(transfer->easy, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(transfer->easy, CURLOPT_WRITEDATA, transfer);
        curl_easy_setopt(transfer->easy, CURLOPT_PRIVATE, transfer);
        curl_easy_setopt(transfer->easy, CURLOPT_NOSIGNAL, 1L);
        if (buffer_size > 0) curl_easy_setopt(transfer->easy, CURLOPT_BUFFERSIZE, buffer_size);
        curl_easy_setopt(transfer->easy, CURLOPT_TIMEOUT, 60L);
        if (mode == MODE_CLOSE) {
            curl_easy_setopt(transfer->easy, CURLOPT_HTTPHEADER, close_field);
            curl_easy_setopt(transfer->easy, CURLOPT_FORBID_REUSE, 1L);
        }
        if (ca_file) {
            curl_easy_setopt(transfer->easy, CURLOPT_CAINFO, ca_file);
            curl_easy_setopt(transfer->easy, CURLOPT_CAPATH, NULL);
        }
        curl_easy_setopt(transfer->easy, CURLOPT_SSL_SESSIONID_CACHE, session_cache);
    }

    long rss_kib = 0;
    double cpu_before = cpu_seconds(NULL);
    double start = now_seconds();
    double deadline = start + seconds;
    double last = start;
    for (long i = 0; i < concurrency && (requests == 0 || started < requests); i++) {
        curl_multi_add_handle(multi, transfers[i].easy);
        started++;
        in_flight++;
    }
    while (in_flight > 0) {
        int running = 0;
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int queued;
        while ((message = curl_multi_info_read(multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            struct transfer *transfer;
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&transfer);
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            if (message->data.result == CURLE_OK && status == 200) {
                completed++;
                body_bytes += (long long)transfer->length;
            } else {
                failed++;
                if (!first_error[0]) {
                    snprintf(first_error, sizeof first_error, "%s (status %ld)",
                             curl_easy_strerror(message->data.result), status);
                }
            }
            transfer->length = 0;
            curl_multi_remove_handle(multi, easy);
            in_flight--;
            last = now_seconds();
            int more = requests ? started < requests : last < deadline;
            if (more) {
                curl_multi_add_handle(multi, easy);
                started++;
                in_flight++;
            }
        }
        if (in_flight > 0) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    double elapsed = last - start;
    double cpu = cpu_seconds(&rss_kib) - cpu_before;
    if (elapsed <= 0) elapsed = 1e-9;
    printf("{\"api\":\"multi\",\"body_bytes\":%lld,\"client\":\"curl\",\"concurrency\":%ld,\"cpu_seconds\":%.6f,"
           "\"cpu_us_per_request\":%.3f,\"errors\":%lld,\"max_conns\":%ld,\"mb_per_second\":%.3f,\"mode\":\"%s\","
           "\"peak_rss_kib\":%ld,\"requests\":%lld,\"requests_per_second\":%.3f,\"seconds\":%.6f",
           body_bytes, concurrency, cpu, completed ? cpu * 1e6 / (double)completed : 0.0, failed, max_conns,
           (double)body_bytes / elapsed / 1e6, positional[3], rss_kib, completed, (double)completed / elapsed,
           elapsed);
    if (first_error[0]) printf(",\"first_error\":\"%s\"", first_error);
    printf("}\n");
    for (long i = 0; i < concurrency; i++) {
        curl_easy_cleanup(transfers[i].easy);
        free(transfers[i].body);
    }
    free(transfers);
    curl_slist_free_all(close_field);
    curl_multi_cleanup(multi);
    curl_global_cleanup();
    return failed ? 1 : 0;
}
