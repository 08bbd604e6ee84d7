/*
 * Frame checksums (docs/checksums.md) across libraries: built against our
 * library with -DWITH_RS (the blosc2rs_ functions of blosc2/blosc2-rs.h),
 * and against reference 3.3.5 and 2.22.1 without (upstream's API only).
 *
 *   checksums write KIND PATH        (ours) a frame with checksums: KIND is
 *                                    cframe, sframe or b2nd
 *   checksums verify PATH STATE [N]  (ours) blosc2rs_verify_frame says STATE
 *                                    (unverified, stale, sealed,
 *                                    metalayers_changed, corrupt = any
 *                                    corrupt state), and chunk N is the
 *                                    first corrupt one when given
 *   checksums read KIND PATH         every chunk decodes to what write
 *                                    wrote, a slice across chunks and (b2nd)
 *                                    a box too; exit 3 on a decode error
 *   checksums append PATH            open and append one chunk
 *   checksums update PATH            open and replace chunk 1 (same items)
 *   checksums copy PATH DST          blosc2_schunk_copy to a new frame file
 *   checksums metaupdate PATH        blosc2_meta_update of "m1", in place
 *   checksums vlmeta PATH            blosc2_vlmeta_add of a new one
 *
 * Exit status 0 on success, 1 on a mismatch, 2 on misuse, 3 on a failed
 * read.
 */
#include <blosc2.h>
#include <b2nd.h>
#ifdef WITH_RS
#include <blosc2/blosc2-rs.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NITEMS 10000 /* int32 items per chunk */
#define NCHUNKS 6

static int fail(const char *what, int rc) {
    fprintf(stderr, "checksums: %s failed (%d)\n", what, rc);
    return 1;
}

static void fill(int32_t *buf, int64_t first, int64_t n) {
    for (int64_t i = 0; i < n; i++) buf[i] = (int32_t)((first + i) * 2654435761u >> 7);
}

static blosc2_cparams cparams(void) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.compcode = BLOSC_LZ4;
    cp.clevel = 5;
    cp.nthreads = 1;
    return cp;
}

/* b2nd: a 2-D int32 array of 120 x 100 items in chunks of 50 x 40 */
static const int64_t SHAPE[2] = {120, 100};
static const int32_t CHUNKSHAPE[2] = {50, 40};
static const int32_t BLOCKSHAPE[2] = {25, 20};

#ifdef WITH_RS
static int write_frame(const char *kind, const char *path) {
    blosc2_cparams cp = cparams();
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_storage st = {.contiguous = strcmp(kind, "sframe") != 0,
                         .urlpath = (char *)path, .cparams = &cp, .dparams = &dp};
    if (strcmp(kind, "b2nd") == 0) {
        int64_t n = SHAPE[0] * SHAPE[1];
        int32_t *buf = malloc((size_t)n * 4);
        fill(buf, 0, n);
        b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, SHAPE, CHUNKSHAPE, BLOCKSHAPE,
                                              NULL, 0, NULL, 0);
        b2nd_array_t *a = NULL;
        int rc = ctx ? b2nd_from_cbuffer(ctx, &a, buf, n * 4) : -1;
        free(buf);
        if (rc < 0) return fail("b2nd_from_cbuffer", rc);
        /* turned on after the chunks are written: each is hashed once */
        rc = blosc2rs_schunk_set_checksums(a->sc, true);
        if (rc < 0) return fail("blosc2rs_schunk_set_checksums", rc);
        b2nd_free(a);
        b2nd_free_ctx(ctx);
        return 0;
    }
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    if (!sc) return fail("blosc2_schunk_new", -1);
    uint8_t m1[8] = "hello!!";
    int rc = blosc2_meta_add(sc, "m1", m1, sizeof m1);
    if (rc < 0) return fail("blosc2_meta_add", rc);
    rc = blosc2rs_schunk_set_checksums(sc, true);
    if (rc < 0) return fail("blosc2rs_schunk_set_checksums", rc);
    if (blosc2rs_schunk_get_checksums(sc) != 1) return fail("blosc2rs_schunk_get_checksums", 0);
    int32_t buf[NITEMS];
    for (int c = 0; c < NCHUNKS; c++) {
        fill(buf, (int64_t)c * NITEMS, NITEMS);
        if (c == 3) memset(buf, 0, sizeof buf); /* a run-length (special) chunk */
        rc = (int)blosc2_schunk_append_buffer(sc, buf, sizeof buf);
        if (rc < 0) return fail("blosc2_schunk_append_buffer", rc);
    }
    rc = blosc2_vlmeta_add(sc, "user", (uint8_t *)"some user data", 14, NULL);
    if (rc < 0) return fail("blosc2_vlmeta_add", rc);
    blosc2rs_verify_report r;
    rc = blosc2rs_schunk_verify(sc, &r);
    if (rc != 0 || r.frame_state != BLOSC2RS_FRAME_SEALED || r.verified != NCHUNKS)
        return fail("blosc2rs_schunk_verify of the new frame", rc);
    blosc2_schunk_free(sc);
    return 0;
}

static const char *state_name(int s) {
    switch (s) {
    case BLOSC2RS_FRAME_UNVERIFIED: return "unverified";
    case BLOSC2RS_FRAME_STALE: return "stale";
    case BLOSC2RS_FRAME_SEALED: return "sealed";
    case BLOSC2RS_FRAME_METALAYERS_CHANGED: return "metalayers_changed";
    case BLOSC2RS_FRAME_CORRUPT_SEAL: return "corrupt_seal";
    case BLOSC2RS_FRAME_CORRUPT_HEADER: return "corrupt_header";
    case BLOSC2RS_FRAME_CORRUPT_CHUNK_COUNT: return "corrupt_chunk_count";
    default: return "?";
    }
}

static int verify(const char *path, const char *want, const char *chunk) {
    blosc2rs_verify_report r;
    int rc = blosc2rs_verify_frame(path, 0, &r);
    const char *got = state_name(r.frame_state);
    printf("%s: %s, %lld chunks: %lld verified, %lld corrupt (first %lld), %lld stale, %lld unverified; rc %d\n",
           path, got, (long long)r.nchunks, (long long)r.verified, (long long)r.corrupt,
           (long long)r.first_corrupt, (long long)r.stale, (long long)r.unverified, rc);
    if (rc < 0 && rc != BLOSC2_ERROR_DATA) return fail("blosc2rs_verify_frame", rc);
    int corrupt = r.corrupt > 0 || strncmp(got, "corrupt", 7) == 0;
    if (strcmp(want, "corrupt") == 0) {
        if (!corrupt || rc != BLOSC2_ERROR_DATA) return 1;
        if (chunk && r.first_corrupt != atoll(chunk)) return 1;
        return 0;
    }
    if (strcmp(got, want) != 0 || corrupt || rc != 0) return 1;
    if (strcmp(want, "sealed") == 0 && r.verified != r.nchunks) return 1;
    return 0;
}
#endif

static int read_frame(const char *kind, const char *path) {
    if (strcmp(kind, "b2nd") == 0) {
        b2nd_array_t *a = NULL;
        int rc = b2nd_open(path, &a);
        if (rc < 0) return fail("b2nd_open", rc);
        int64_t n = SHAPE[0] * SHAPE[1];
        int32_t *got = malloc((size_t)n * 4), *want = malloc((size_t)n * 4);
        fill(want, 0, n);
        rc = b2nd_to_cbuffer(a, got, n * 4);
        if (rc < 0) { free(got); free(want); b2nd_free(a); fprintf(stderr, "b2nd_to_cbuffer: %d\n", rc); return 3; }
        int bad = memcmp(got, want, (size_t)n * 4) != 0;
        /* a box across chunks, read lazily from the file */
        int64_t start[2] = {30, 10}, stop[2] = {90, 70}, bs[2] = {60, 60};
        rc = b2nd_get_slice_cbuffer(a, start, stop, got, bs, 60 * 60 * 4);
        if (rc < 0) { free(got); free(want); b2nd_free(a); return 3; }
        for (int i = 0; i < 60 && !bad; i++)
            bad = memcmp(got + i * 60, want + (30 + i) * 100 + 10, 60 * 4) != 0;
        free(got);
        free(want);
        b2nd_free(a);
        return bad ? fail("b2nd content", 0) : 0;
    }
    blosc2_schunk *sc = blosc2_schunk_open(path);
    if (!sc) { fprintf(stderr, "blosc2_schunk_open failed\n"); return 3; }
    int32_t got[NITEMS], want[NITEMS];
    int64_t n = sc->nchunks;
    if (n < NCHUNKS) return fail("nchunks", (int)n);
    for (int64_t c = 0; c < n; c++) {
        fill(want, c * NITEMS, NITEMS);
        if (c == 3) memset(want, 0, sizeof want);
        int rc = blosc2_schunk_decompress_chunk(sc, c, got, sizeof got);
        if (rc < 0) { fprintf(stderr, "chunk %lld: %d\n", (long long)c, rc); blosc2_schunk_free(sc); return 3; }
        if (rc != (int)sizeof got || memcmp(got, want, sizeof got) != 0) return fail("chunk content", (int)c);
    }
    /* items across chunks 1 and 2 (a lazy, partial read) */
    int rc = blosc2_schunk_get_slice_buffer(sc, NITEMS + 100, 2 * NITEMS + 50, got);
    if (rc < 0) { blosc2_schunk_free(sc); return 3; }
    fill(want, NITEMS + 100, NITEMS - 50);
    if (memcmp(got, want, (NITEMS - 50) * 4) != 0) return fail("slice content", 0);
    blosc2_schunk_free(sc);
    return 0;
}

static int modify(const char *op, const char *path, const char *dst) {
    blosc2_schunk *sc = blosc2_schunk_open(path);
    if (!sc) return fail("blosc2_schunk_open", -1);
    int rc = 0;
    if (strcmp(op, "append") == 0) {
        int32_t buf[NITEMS];
        fill(buf, sc->nchunks * NITEMS, NITEMS);
        rc = (int)blosc2_schunk_append_buffer(sc, buf, sizeof buf);
    } else if (strcmp(op, "update") == 0) {
        /* chunk 1 anew, with the same items (so that a read still checks) */
        int32_t buf[NITEMS];
        fill(buf, NITEMS, NITEMS);
        uint8_t *chunk = malloc(sizeof buf + BLOSC2_MAX_OVERHEAD);
        blosc2_cparams cp = cparams();
        cp.clevel = 9; /* other bytes than the chunk it replaces */
        blosc2_context *cctx = blosc2_create_cctx(cp);
        int cb = blosc2_compress_ctx(cctx, buf, sizeof buf, chunk, sizeof buf + BLOSC2_MAX_OVERHEAD);
        blosc2_free_ctx(cctx);
        rc = cb < 0 ? cb : (int)blosc2_schunk_update_chunk(sc, 1, chunk, true);
        free(chunk);
    } else if (strcmp(op, "copy") == 0) {
        blosc2_storage st = {.contiguous = true, .urlpath = (char *)dst};
        blosc2_schunk *c = blosc2_schunk_copy(sc, &st);
        if (!c) rc = -1;
        else blosc2_schunk_free(c);
    } else if (strcmp(op, "metaupdate") == 0) {
        uint8_t m1[8] = "HELLO!!";
        rc = blosc2_meta_update(sc, "m1", m1, sizeof m1);
    } else if (strcmp(op, "vlmeta") == 0) {
        rc = blosc2_vlmeta_add(sc, "other", (uint8_t *)"x", 1, NULL);
    }
    blosc2_schunk_free(sc);
    return rc < 0 ? fail(op, rc) : 0;
}

int main(int argc, char **argv) {
    blosc2_init();
    int rc = 2;
    if (argc >= 4 && strcmp(argv[1], "read") == 0) rc = read_frame(argv[2], argv[3]);
#ifdef WITH_RS
    else if (argc == 4 && strcmp(argv[1], "write") == 0) rc = write_frame(argv[2], argv[3]);
    else if (argc >= 4 && strcmp(argv[1], "verify") == 0) rc = verify(argv[2], argv[3], argc > 4 ? argv[4] : NULL);
#endif
    else if (argc >= 3) rc = modify(argv[1], argv[2], argc > 3 ? argv[3] : "");
    blosc2_destroy();
    return rc;
}
