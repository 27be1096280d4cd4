/*
 * memcpy, memmove, memset, memcmp and bcmp for the statically linked musl build.
 *
 * Why this exists: with glibc, every start of the process runs glibc's CPU and cache
 * detection, dozens of `cpuid` instructions that each trap to the hypervisor on the
 * VMs we measure (about 0.5 ms of a 1.5 ms start). musl does none of that, but its
 * x86_64 memcpy and memmove are `rep movsq` whatever the size, which costs tens of
 * cycles before the first byte even for the 16- to 64-byte copies Rust code makes
 * most, and its memcmp compares a byte at a time: 10% of a large chart's render went
 * to memcpy alone. These versions move small sizes with a few possibly overlapping
 * loads and stores, medium ones in 32-byte vectors, large ones with `rep movsb`.
 *
 * The functions are always compiled under `sp_` names, so the test suite checks them
 * whatever libc it links; build.rs defines SP_PROVIDE_LIBC_MEM for musl builds only,
 * which adds the standard names as aliases: the static link then takes them from here
 * and never pulls musl's own from libc.a.
 *
 * Built with -ffreestanding and -fno-tree-loop-distribute-patterns, so the compiler
 * never turns a loop here back into a call to the function being defined.
 */
#include <stddef.h>
#include <stdint.h>
#if defined(__AVX2__)
#include <immintrin.h>
#else
#include <emmintrin.h>
#endif

typedef uint8_t v32 __attribute__((vector_size(32), aligned(1), may_alias));
typedef uint8_t v16 __attribute__((vector_size(16), aligned(1), may_alias));
typedef uint64_t u64u __attribute__((aligned(1), may_alias));
typedef uint32_t u32u __attribute__((aligned(1), may_alias));
typedef uint16_t u16u __attribute__((aligned(1), may_alias));

/* Below this many bytes a copy or fill uses vector loops; from it on, the CPU's own
 * string instructions, which are faster once their start-up cost is repaid. */
#define STRING_OP_MIN 2048

/* Copies n <= 64 bytes. Every load happens before any store, so the ranges may
 * overlap in either direction. */
static inline __attribute__((always_inline)) void copy_upto64(unsigned char *d, const unsigned char *s,
                                                              size_t n) {
    if (n >= 32) {
        v32 a = *(const v32 *)s, b = *(const v32 *)(s + n - 32);
        *(v32 *)d = a;
        *(v32 *)(d + n - 32) = b;
    } else if (n >= 16) {
        v16 a = *(const v16 *)s, b = *(const v16 *)(s + n - 16);
        *(v16 *)d = a;
        *(v16 *)(d + n - 16) = b;
    } else if (n >= 8) {
        uint64_t a = *(const u64u *)s, b = *(const u64u *)(s + n - 8);
        *(u64u *)d = a;
        *(u64u *)(d + n - 8) = b;
    } else if (n >= 4) {
        uint32_t a = *(const u32u *)s, b = *(const u32u *)(s + n - 4);
        *(u32u *)d = a;
        *(u32u *)(d + n - 4) = b;
    } else if (n >= 2) {
        uint16_t a = *(const u16u *)s, b = *(const u16u *)(s + n - 2);
        *(u16u *)d = a;
        *(u16u *)(d + n - 2) = b;
    } else if (n == 1) {
        *d = *s;
    }
}

static inline __attribute__((always_inline)) void rep_movsb(unsigned char *d, const unsigned char *s,
                                                            size_t n) {
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

/* n > 64; copying front to back is correct when d <= s or the ranges do not meet.
 * The last 32 bytes are loaded first and stored last, so they hold the source's
 * original bytes even when the loop has written over them. */
static inline __attribute__((always_inline)) void copy_forward(unsigned char *d, const unsigned char *s,
                                                               size_t n) {
    v32 tail = *(const v32 *)(s + n - 32);
    unsigned char *end = d + n - 32;
    while (d < end) {
        v32 a = *(const v32 *)s;
        *(v32 *)d = a;
        d += 32;
        s += 32;
    }
    *(v32 *)end = tail;
}

/* n > 64 and s < d < s + n: back to front, the first 32 bytes loaded first. */
static inline __attribute__((always_inline)) void copy_backward(unsigned char *d, const unsigned char *s,
                                                                size_t n) {
    v32 head = *(const v32 *)s;
    unsigned char *start = d;
    d += n;
    s += n;
    while (d > start + 32) {
        d -= 32;
        s -= 32;
        v32 a = *(const v32 *)s;
        *(v32 *)d = a;
    }
    *(v32 *)start = head;
}

void *sp_memcpy(void *restrict dst, const void *restrict src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n <= 64) {
        copy_upto64(d, s, n);
    } else if (n >= STRING_OP_MIN) {
        rep_movsb(d, s, n);
    } else {
        copy_forward(d, s, n);
    }
    return dst;
}

void *sp_memmove(void *dst, const void *src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n <= 64) {
        copy_upto64(d, s, n);
    } else if ((uintptr_t)d - (uintptr_t)s >= n) {
        /* d is below s, or at or past its end: front to back is safe. */
        if (n >= STRING_OP_MIN && ((uintptr_t)s - (uintptr_t)d >= n)) {
            rep_movsb(d, s, n);
        } else {
            copy_forward(d, s, n);
        }
    } else {
        copy_backward(d, s, n);
    }
    return dst;
}

void *sp_memset(void *dst, int c, size_t n) {
    unsigned char *d = dst;
    uint8_t b = (uint8_t)c;
    if (n >= 32) {
        v32 v = {b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b,
                 b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b};
        if (n >= STRING_OP_MIN) {
            __asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
            return dst;
        }
        unsigned char *end = d + n - 32;
        while (d < end) {
            *(v32 *)d = v;
            d += 32;
        }
        *(v32 *)end = v;
    } else if (n >= 16) {
        v16 v = {b, b, b, b, b, b, b, b, b, b, b, b, b, b, b, b};
        *(v16 *)d = v;
        *(v16 *)(d + n - 16) = v;
    } else if (n >= 8) {
        uint64_t v = 0x0101010101010101ull * b;
        *(u64u *)d = v;
        *(u64u *)(d + n - 8) = v;
    } else if (n >= 4) {
        uint32_t v = 0x01010101u * b;
        *(u32u *)d = v;
        *(u32u *)(d + n - 4) = v;
    } else {
        for (size_t i = 0; i < n; i++) d[i] = b;
    }
    return dst;
}

/* A bit for each of 16 or 32 bytes, set where a and b differ. */
#if defined(__AVX2__)
static inline __attribute__((always_inline)) uint32_t diff32(const unsigned char *a, const unsigned char *b) {
    __m256i x = _mm256_loadu_si256((const __m256i *)a), y = _mm256_loadu_si256((const __m256i *)b);
    return ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, y));
}
#else
static inline __attribute__((always_inline)) uint32_t diff32(const unsigned char *a, const unsigned char *b) {
    __m128i x0 = _mm_loadu_si128((const __m128i *)a), y0 = _mm_loadu_si128((const __m128i *)b);
    __m128i x1 = _mm_loadu_si128((const __m128i *)(a + 16)), y1 = _mm_loadu_si128((const __m128i *)(b + 16));
    uint32_t lo = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x0, y0));
    uint32_t hi = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x1, y1));
    return ~(lo | hi << 16);
}
#endif

static inline __attribute__((always_inline)) uint32_t diff16(const unsigned char *a, const unsigned char *b) {
    __m128i x = _mm_loadu_si128((const __m128i *)a), y = _mm_loadu_si128((const __m128i *)b);
    return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) ^ 0xffffu;
}

static inline __attribute__((always_inline)) int byte_order(const unsigned char *a, const unsigned char *b,
                                                            uint32_t mask) {
    unsigned i = (unsigned)__builtin_ctz(mask);
    return (int)a[i] - (int)b[i];
}

/* Order of two short ranges, each read as its first and its last word (which
 * overlap when the range is shorter than two words), taken big-endian. */
static inline __attribute__((always_inline)) int head_tail_order(uint64_t xh, uint64_t yh, uint64_t xt,
                                                                 uint64_t yt) {
    if (xh != yh) return xh < yh ? -1 : 1;
    return xt == yt ? 0 : (xt < yt ? -1 : 1);
}

int sp_memcmp(const void *pa, const void *pb, size_t n) {
    const unsigned char *a = pa, *b = pb;
    if (n >= 32) {
        size_t i = 0;
        for (; i + 32 <= n; i += 32) {
            uint32_t m = diff32(a + i, b + i);
            if (m) return byte_order(a + i, b + i, m);
        }
        if (i < n) {
            /* The last 32 bytes; those before i are known equal. */
            uint32_t m = diff32(a + n - 32, b + n - 32);
            if (m) return byte_order(a + n - 32, b + n - 32, m);
        }
        return 0;
    }
    if (n >= 16) {
        uint32_t m = diff16(a, b);
        if (m) return byte_order(a, b, m);
        m = diff16(a + n - 16, b + n - 16);
        if (m) return byte_order(a + n - 16, b + n - 16, m);
        return 0;
    }
    if (n >= 8) {
        return head_tail_order(__builtin_bswap64(*(const u64u *)a), __builtin_bswap64(*(const u64u *)b),
                               __builtin_bswap64(*(const u64u *)(a + n - 8)),
                               __builtin_bswap64(*(const u64u *)(b + n - 8)));
    }
    if (n >= 4) {
        return head_tail_order(__builtin_bswap32(*(const u32u *)a), __builtin_bswap32(*(const u32u *)b),
                               __builtin_bswap32(*(const u32u *)(a + n - 4)),
                               __builtin_bswap32(*(const u32u *)(b + n - 4)));
    }
    for (size_t i = 0; i < n; i++) {
        if (a[i] != b[i]) return (int)a[i] - (int)b[i];
    }
    return 0;
}

/* Zero when equal, anything else when not: equality needs no byte order. */
int sp_bcmp(const void *pa, const void *pb, size_t n) {
    const unsigned char *a = pa, *b = pb;
    if (n >= 32) {
        size_t i = 0;
        for (; i + 32 <= n; i += 32) {
            if (diff32(a + i, b + i)) return 1;
        }
        return i < n && diff32(a + n - 32, b + n - 32) != 0;
    }
    if (n >= 16) return (diff16(a, b) | diff16(a + n - 16, b + n - 16)) != 0;
    if (n >= 8) {
        return ((*(const u64u *)a ^ *(const u64u *)b) | (*(const u64u *)(a + n - 8) ^ *(const u64u *)(b + n - 8))) != 0;
    }
    if (n >= 4) {
        return ((*(const u32u *)a ^ *(const u32u *)b) | (*(const u32u *)(a + n - 4) ^ *(const u32u *)(b + n - 4))) != 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (a[i] != b[i]) return 1;
    }
    return 0;
}

#ifdef SP_PROVIDE_LIBC_MEM
void *memcpy(void *restrict, const void *restrict, size_t) __attribute__((alias("sp_memcpy")));
void *memmove(void *, const void *, size_t) __attribute__((alias("sp_memmove")));
void *memset(void *, int, size_t) __attribute__((alias("sp_memset")));
int memcmp(const void *, const void *, size_t) __attribute__((alias("sp_memcmp")));
int bcmp(const void *, const void *, size_t) __attribute__((alias("sp_bcmp")));
#endif
