// CFWZlib: the zlib calls FWNetworking's content decoding and permessage-deflate need, as functions Swift
// can import (zlib's init entry points are macros).

#ifndef CFWZLIB_H
#define CFWZLIB_H

#include <zlib.h>

/// inflateInit2 for `stream` (zeroed by the caller) with the given window bits:
/// 15 + 32 detects gzip and zlib headers, -15 is raw deflate. Returns a zlib status (Z_OK on success).
int fw_inflate_init(z_stream *stream, int window_bits);

/// deflateInit2 for `stream` (zeroed by the caller): Z_DEFLATED at `level`, with the given window bits
/// (-9 to -15: raw deflate, as permessage-deflate wants; zlib refuses -8), memory level 8, the default
/// strategy. Returns a zlib status (Z_OK on success).
int fw_deflate_init(z_stream *stream, int level, int window_bits);

#endif
