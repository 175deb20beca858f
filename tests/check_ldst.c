/*
 * check_ldst.c - coalescing, bank conflicts and the SM memory unit's
 * exact timing (shared memory, L1 hit/miss, in-flight hits, MSHRs).
 */
#include <string.h>

#include "sim/ldst.h"
#include "testlib.h"

static struct warp_inst
access(unsigned space, unsigned flags, sim_addr_t base, int64_t stride, unsigned width)
{
    struct warp_inst wi;
    tl_mem(&wi, space, flags, 1, 2, base, stride, width);
    return wi;
}

static unsigned
sectors(const struct warp_inst *wi, unsigned *lines)
{
    struct ldst_line ln[LDST_MAX_LINES];
    unsigned n = ldst_coalesce(wi, 128, 32, ln, LDST_MAX_LINES), s = 0;
    for (unsigned i = 0; i < n; i++)
        s += (unsigned)__builtin_popcount(ln[i].mask);
    *lines = n;
    return s;
}

START_TEST(test_coalescing)
{
    unsigned lines;
    struct warp_inst wi = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD, 0x1000, 4, 4);
    ck_assert_uint_eq(sectors(&wi, &lines), 4);      /* 128 contiguous bytes */
    ck_assert_uint_eq(lines, 1);
    wi = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD, 0x1000, 128, 4);
    ck_assert_uint_eq(sectors(&wi, &lines), 32);     /* one sector per lane */
    ck_assert_uint_eq(lines, 32);
    wi = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD, 0x1004, 4, 4);
    ck_assert_uint_eq(sectors(&wi, &lines), 5);      /* misaligned: spills into a 2nd line */
    ck_assert_uint_eq(lines, 2);
    wi = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD, 0x1000, 16, 16);
    ck_assert_uint_eq(sectors(&wi, &lines), 16);     /* float4: 512 bytes */
    ck_assert_uint_eq(lines, 4);
    wi = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD, 0x1000, 0, 4);
    ck_assert_uint_eq(sectors(&wi, &lines), 1);      /* broadcast */
    wi = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD, 0x1000, 4, 4);
    wi.active_mask = 0x0000ffff;                     /* half warp */
    ck_assert_uint_eq(sectors(&wi, &lines), 2);
    wi.active_mask = 0;
    ck_assert_uint_eq(sectors(&wi, &lines), 0);
}
END_TEST

/* The coalescer against a plain byte-by-byte reference: lines in order of
 * first touch (lane order), sectors touched, lanes touching each line. */
static unsigned
coalesce_reference(const struct warp_inst *wi, uint32_t line_size, uint32_t sector_size,
                   struct ldst_line *out)
{
    unsigned n = 0, width = wi->width ? wi->width : 4;
    for (unsigned lane = 0; lane < SIM_WARP_SIZE; lane++) {
        if (!(wi->active_mask >> lane & 1))
            continue;
        for (unsigned b = 0; b < width; b++) {
            uint64_t a = wi->addr[lane] + b, line = a / line_size;
            unsigned i = 0;
            while (i < n && out[i].line != line)
                i++;
            if (i == n) {
                out[n].line = line;
                out[n].mask = 0;
                out[n].lanes = 0;
                n++;
            }
            out[i].mask |= 1u << (a % line_size / sector_size);
        }
        for (unsigned i = 0; i < n; i++)     /* lanes: count this lane once per line */
            for (unsigned b = 0; b < width; b++)
                if ((wi->addr[lane] + b) / line_size == out[i].line) {
                    out[i].lanes++;
                    break;
                }
    }
    return n;
}

START_TEST(test_coalescing_reference)
{
    /* contiguous full warps (the fast path) at every alignment and width,
     * strided and partial warps (the general path), on two geometries */
    static const unsigned widths[] = { 1, 2, 4, 8, 12, 16 };
    static const int64_t strides[] = { 0, 1, 4, 8, 16, 36, 128, -4 };
    static const uint32_t masks[] = { UINT32_MAX, 0x0000ffff, 0x80000001, 0xfffffffe };
    static const uint32_t geo[][2] = { { 128, 32 }, { 64, 16 } };
    unsigned cases = 0, fast = 0;
    for (unsigned g = 0; g < SIM_ARRAY_LEN(geo); g++)
        for (unsigned wd = 0; wd < SIM_ARRAY_LEN(widths); wd++)
            for (unsigned sd = 0; sd < SIM_ARRAY_LEN(strides); sd++)
                for (unsigned mk = 0; mk < SIM_ARRAY_LEN(masks); mk++)
                    for (sim_addr_t base = 0x10000; base < 0x10000 + 160; base += 4) {
                        unsigned w = widths[wd];
                        int64_t stride = strides[sd] == 1 ? (int64_t)w : strides[sd];
                        struct warp_inst wi = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD,
                                                     base, stride, w);
                        wi.active_mask = masks[mk];
                        struct ldst_line got[LDST_MAX_LINES], want[LDST_MAX_LINES];
                        unsigned n = ldst_coalesce(&wi, geo[g][0], geo[g][1], got, LDST_MAX_LINES);
                        unsigned m = coalesce_reference(&wi, geo[g][0], geo[g][1], want);
                        ck_assert_uint_eq(n, m);
                        for (unsigned i = 0; i < n; i++) {
                            ck_assert_uint_eq(got[i].line, want[i].line);
                            ck_assert_uint_eq(got[i].mask, want[i].mask);
                            ck_assert_uint_eq(got[i].lanes, want[i].lanes);
                        }
                        cases++;
                        fast += masks[mk] == UINT32_MAX && stride == (int64_t)w &&
                                (w & (w - 1)) == 0 && base % w == 0;
                    }
    ck_assert_uint_gt(fast, 100);
    ck_assert_uint_gt(cases, 10000);
    /* the line cap: a full warp of 128-byte strides into 32 lines, capped at 8 */
    struct warp_inst wi = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD, 0, 128, 4);
    struct ldst_line ln[LDST_MAX_LINES];
    ck_assert_uint_eq(ldst_coalesce(&wi, 128, 32, ln, 8), 8);
    wi = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD, 0, 16, 16);   /* contiguous: 4 lines, capped */
    ck_assert_uint_eq(ldst_coalesce(&wi, 128, 32, ln, 3), 3);
    ck_assert_uint_eq(ln[2].line, 2);
}
END_TEST

START_TEST(test_bank_conflicts)
{
    struct warp_inst wi = access(SIM_SPACE_SHARED, SIM_IF_LOAD, 0, 4, 4);
    ck_assert_uint_eq(ldst_bank_wavefronts(&wi, 32, 4), 1);
    wi = access(SIM_SPACE_SHARED, SIM_IF_LOAD, 0, 128, 4);
    ck_assert_uint_eq(ldst_bank_wavefronts(&wi, 32, 4), 32);   /* 32-way */
    wi = access(SIM_SPACE_SHARED, SIM_IF_LOAD, 0, 8, 4);
    ck_assert_uint_eq(ldst_bank_wavefronts(&wi, 32, 4), 2);
    wi = access(SIM_SPACE_SHARED, SIM_IF_LOAD, 0, 0, 4);
    ck_assert_uint_eq(ldst_bank_wavefronts(&wi, 32, 4), 1);    /* broadcast */
    wi = access(SIM_SPACE_SHARED, SIM_IF_LOAD, 0, 16, 16);
    ck_assert_uint_eq(ldst_bank_wavefronts(&wi, 32, 4), 4);    /* 128-bit: 4 wavefronts */
    wi = access(SIM_SPACE_SHARED, SIM_IF_LOAD, 0, 33 * 4, 4);
    ck_assert_uint_eq(ldst_bank_wavefronts(&wi, 32, 4), 1);    /* padded transpose column */
    wi = access(SIM_SPACE_SHARED, SIM_IF_LOAD, 0, 8, 8);
    ck_assert_uint_eq(ldst_bank_wavefronts(&wi, 32, 8), 1);    /* Kepler 8-byte banks */
    /* both sides of the in-place count's 4 words per bank (more: sorted) */
    wi = access(SIM_SPACE_SHARED, SIM_IF_LOAD, 0, 128, 4);
    wi.active_mask = 0xf;
    ck_assert_uint_eq(ldst_bank_wavefronts(&wi, 32, 4), 4);
    wi.active_mask = 0x1f;
    ck_assert_uint_eq(ldst_bank_wavefronts(&wi, 32, 4), 5);
    wi.active_mask = 0x1f | 0xf0000;                           /* and repeats of those words */
    for (unsigned l = 16; l < 20; l++)
        wi.addr[l] = wi.addr[l - 16];
    ck_assert_uint_eq(ldst_bank_wavefronts(&wi, 32, 4), 5);
}
END_TEST

/* Shared-memory wavefronts against a plain reference (the most distinct
 * bank words any bank must supply), over full warps with the strides the
 * fast paths take (consecutive elements, one address) and others, at
 * random bases, widths, bank counts and bank widths. */
static unsigned
wavefronts_reference(const struct warp_inst *wi, unsigned banks, unsigned bank_width)
{
    uint64_t words[SIM_WARP_SIZE * 16];
    unsigned n = 0, width = wi->width ? wi->width : 4, best = 1;
    for (unsigned lane = 0; lane < SIM_WARP_SIZE; lane++) {
        if (!(wi->active_mask >> lane & 1))
            continue;
        for (uint64_t w = wi->addr[lane] / bank_width; w <= (wi->addr[lane] + width - 1) / bank_width;
             w++) {
            unsigned i = 0;
            while (i < n && words[i] != w)
                i++;
            if (i == n)
                words[n++] = w;
        }
    }
    for (unsigned b = 0; b < banks; b++) {
        unsigned c = 0;
        for (unsigned i = 0; i < n; i++)
            c += words[i] % banks == b;
        best = c > best ? c : best;
    }
    return best;
}

START_TEST(test_bank_wavefronts_reference)
{
    static const unsigned widths[] = { 1, 2, 4, 8, 16 }, banks[] = { 32, 16, 24, 64, 128 };
    static const int64_t strides[] = { 0, 1, 2, 4, 8, 16, 12, 132, -4 };
    uint64_t x = 12345;
    unsigned cases = 0;
    for (unsigned rep = 0; rep < 40; rep++)
        for (unsigned wi_ = 0; wi_ < SIM_ARRAY_LEN(widths); wi_++)
            for (unsigned si = 0; si < SIM_ARRAY_LEN(strides); si++)
                for (unsigned bi = 0; bi < SIM_ARRAY_LEN(banks); bi++)
                    for (unsigned bw = 4; bw <= 8; bw += 4) {
                        x = x * 6364136223846793005u + 1442695040888963407u;
                        unsigned w = widths[wi_];
                        int64_t st = strides[si] == 1 ? (int64_t)w : strides[si];
                        sim_addr_t base = 4096 + (x >> 40) % 65536;
                        struct warp_inst wi = access(SIM_SPACE_SHARED, SIM_IF_LOAD, base, st, w);
                        if (rep % 4 == 3)
                            wi.active_mask = (uint32_t)(x >> 8) | 1u;
                        ck_assert_uint_eq(ldst_bank_wavefronts(&wi, banks[bi], bw),
                                          wavefronts_reference(&wi, banks[bi], bw));
                        cases++;
                    }
    ck_assert_uint_eq(cases, 40 * 5 * 9 * 5 * 2);
}
END_TEST

struct rig {
    struct sim_config c;
    mem *m;
    struct ldst *u;
    struct ldst_stats st;
};

static void
rig_init(struct rig *r, const char *extra)
{
    char text[1024];
    snprintf(text, sizeof text,
             "smem.latency = 20; l1.hit_latency = 30; l2.hit_latency = 200; dram.latency = 500;"
             "l1.sectors_per_cycle = 4; l1.mshrs = 64; gpu.clock_mhz = 1000;"
             "dram.bandwidth_gbps = 100000; dram.efficiency = 1; l2.bytes_per_cycle = 4096;"
             "const.hit_latency = 8;%s", extra ? extra : "");
    testlib_config(&r->c, text);
    memset(&r->st, 0, sizeof r->st);
    r->m = mem_new(&r->c);
    r->u = ldst_new(&r->c, r->m, &r->st);
    ldst_kernel_begin(r->u, 64 * 1024);
}

static void
rig_fini(struct rig *r)
{
    ldst_destroy(r->u);
    mem_destroy(r->m);
}

START_TEST(test_shared_timing)
{
    struct rig r;
    rig_init(&r, NULL);
    struct warp_inst ok = access(SIM_SPACE_SHARED, SIM_IF_LOAD, 0, 4, 4);
    struct warp_inst bad = access(SIM_SPACE_SHARED, SIM_IF_LOAD, 0, 128, 4);
    ck_assert_uint_eq(ldst_access(r.u, &ok, 10), 30);          /* exactly smem.latency */
    ck_assert_uint_eq(ldst_access(r.u, &ok, 10), 31);          /* pipe busy one cycle */
    ck_assert_uint_eq(ldst_access(r.u, &bad, 100), 151);       /* + 31 extra wavefronts */
    ck_assert_uint_eq(ldst_access(r.u, &ok, 100), 152);        /* waits for the conflict */
    ck_assert_uint_eq(r.st.smem_conflicts, 31);
    ck_assert_uint_eq(r.st.smem_wavefronts, 35);
    rig_fini(&r);
}
END_TEST

START_TEST(test_l1_hit_miss_and_inflight)
{
    struct rig r;
    rig_init(&r, NULL);
    struct warp_inst ld = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD, 0x10000, 4, 4);
    ck_assert_uint_eq(ldst_access(r.u, &ld, 0), 500);          /* cold: DRAM */
    ck_assert_uint_eq(ldst_access(r.u, &ld, 300), 500);        /* in flight: waits for fill */
    ck_assert_uint_eq(ldst_access(r.u, &ld, 470), 500);        /* 470 + 30 = 500 */
    ck_assert_uint_eq(ldst_access(r.u, &ld, 471), 501);
    ck_assert_uint_eq(ldst_access(r.u, &ld, 1000), 1030);      /* exactly l1.hit_latency */
    ck_assert_uint_eq(r.st.l1_misses, 4);
    ck_assert_uint_eq(r.st.l1_hits, 16);
    /* L1 bypass (.cg): the L2 answers */
    struct warp_inst cg = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD | SIM_IF_BYPASS_L1, 0x10000, 4, 4);
    ck_assert_uint_eq(ldst_access(r.u, &cg, 2000), 2200);
    /* a new kernel invalidates the L1 */
    ldst_kernel_begin(r.u, 64 * 1024);
    ck_assert_uint_eq(ldst_access(r.u, &ld, 3000), 3200);
    rig_fini(&r);
}
END_TEST

/* Host memory (zero-copy, from SIM_SYSMEM_BASE) is not cached in the L1:
 * a second load goes over the link again.  A link so fast its 4 sectors
 * take 4 ticks: dram.latency (500) and those ticks, rounded up. */
START_TEST(test_host_memory_not_cached)
{
    struct rig r;
    rig_init(&r, "host.link_gbps = 100000; host.link_latency_us = 0");
    struct warp_inst ld = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD, SIM_SYSMEM_BASE + 0x10000, 4, 4);
    ck_assert_uint_eq(ldst_access(r.u, &ld, 0), 501);
    ck_assert_uint_eq(ldst_access(r.u, &ld, 1000), 1501);
    ck_assert_uint_eq(r.st.l1_hits, 0);
    ck_assert_uint_eq(r.st.l1_misses, 8);
    ck_assert_uint_eq(mem_get_stats(r.m)->host_read_bytes, 8 * 32);
    rig_fini(&r);
}
END_TEST

/* A bulk copy (inst.h, SIM_BULK_COPY) of n bytes at global address a. */
static struct warp_inst
bulk(unsigned flags, sim_addr_t a, uint64_t n)
{
    struct warp_inst wi = access(SIM_SPACE_GLOBAL, flags, a, 0, 16);
    wi.bulk = SIM_BULK_COPY;
    wi.active_mask = 1;
    wi.addr[0] = a;
    wi.addr[1] = n;
    return wi;
}

/* The bulk-copy unit: tma.latency after issue, one 128-byte line every 4
 * cycles (32 B/clk) for loads and every 8 (16 B/clk) for stores, copies
 * one after another, straight to the L2. */
START_TEST(test_bulk_copy_timing)
{
    struct rig r;
    rig_init(&r, "tma.latency = 100; tma.bytes_per_cycle = 32; tma.store_bytes_per_cycle = 16");
    struct warp_inst ld = bulk(SIM_IF_LOAD, 0x40000, 512);
    /* cold: lines sent at 100, 104, 108, 112; the last back 500 later */
    ck_assert_uint_eq(ldst_access(r.u, &ld, 0), 612);
    /* L2-resident: the same at 1100 .. 1112, 200 later */
    ck_assert_uint_eq(ldst_access(r.u, &ld, 1000), 1312);
    /* two at once: the second waits for the unit (2116 .. 2128) */
    ck_assert_uint_eq(ldst_access(r.u, &ld, 2000), 2312);
    ck_assert_uint_eq(ldst_access(r.u, &ld, 2000), 2328);
    /* one cycle less latency, one cycle earlier: both sides of tma.latency */
    rig_fini(&r);
    rig_init(&r, "tma.latency = 99; tma.bytes_per_cycle = 32; tma.store_bytes_per_cycle = 16");
    ck_assert_uint_eq(ldst_access(r.u, &ld, 0), 611);
    /* a store of 256 bytes: lines at 1099 and 1107 */
    struct warp_inst st = bulk(SIM_IF_STORE, 0x80000, 256);
    sim_cycle_t s1 = ldst_access(r.u, &st, 1000);
    struct warp_inst st1 = bulk(SIM_IF_STORE, 0x90000, 128);
    sim_cycle_t s0 = ldst_access(r.u, &st1, 5000);   /* one line, at 5099 */
    ck_assert_uint_eq(s1 - 1000, s0 - 5000 + 8);     /* the second line 8 cycles later */
    ck_assert_uint_eq(r.st.bulk_loads, 1);
    ck_assert_uint_eq(r.st.bulk_stores, 2);
    ck_assert_uint_eq(r.st.bulk_bytes, 512 + 256 + 128);
    ck_assert_uint_eq(r.st.l1_misses, 0);            /* no L1 on the way */
    rig_fini(&r);
}
END_TEST

/* A tensor copy (SIM_BULK_TENSOR): its rows' lines one after another on
 * the bulk-copy unit, as a plain copy of as many lines. */
START_TEST(test_tensor_copy_rows)
{
    struct rig r;
    rig_init(&r, "tma.latency = 100; tma.bytes_per_cycle = 32; tma.store_bytes_per_cycle = 16");
    /* 2 x 2 rows of 128 bytes, 4 KB and 64 KB apart: 4 lines at 100 .. 112 */
    struct warp_inst t = bulk(SIM_IF_LOAD, 0x40000, 128);
    t.bulk = SIM_BULK_TENSOR;
    memset(t.addr + 2, 0, 8 * sizeof t.addr[0]);
    t.addr[2] = 2;
    t.addr[3] = 4096;
    t.addr[4] = 2;
    t.addr[5] = 65536;
    t.addr[6] = t.addr[8] = 1;
    ck_assert_uint_eq(ldst_access(r.u, &t, 0), 612);
    ck_assert_uint_eq(r.st.bulk_bytes, 512);
    /* rows of 64 bytes, a third plane of them: half a line each, still a
     * line (4 cycles) a row; the last two cold (500), the rest in the L2 */
    t.addr[1] = 64;
    t.addr[4] = 3;
    ck_assert_uint_eq(ldst_access(r.u, &t, 10000), 10000 + 100 + 5 * 4 + 500);
    ck_assert_uint_eq(r.st.bulk_bytes, 512 + 6 * 64);
    /* nothing inside the tensor: no line, done at tma.latency */
    t.addr[2] = 0;
    ck_assert_uint_eq(ldst_access(r.u, &t, 20000), 20100);
    rig_fini(&r);
}
END_TEST

START_TEST(test_port_and_mshr_limits)
{
    struct rig r;
    rig_init(&r, "l1.mshrs = 2");
    /* 32 lines of one sector each: 8 cycles of the L1 port, 2 MSHRs */
    struct warp_inst ld = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD, 0x100000, 128, 4);
    sim_cycle_t done = ldst_access(r.u, &ld, 0);
    /* pairs of misses are serialised by the two MSHRs: 16 rounds of 500 */
    ck_assert_uint_ge(done, 16 * 500);
    ck_assert_uint_gt(r.st.mshr_wait_cycles, 0);
    rig_fini(&r);

    rig_init(&r, NULL);
    struct warp_inst st = access(SIM_SPACE_GLOBAL, SIM_IF_STORE, 0x200000, 128, 4);
    ldst_access(r.u, &st, 0);
    ck_assert_uint_eq(r.st.gst_sectors, 32);
    /* the port was busy 8 cycles: a load at cycle 0 starts at cycle 8 */
    struct warp_inst ld2 = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD | SIM_IF_BYPASS_L1, 0x300000, 4, 4);
    ck_assert_uint_eq(ldst_access(r.u, &ld2, 0), 8 + 500);
    rig_fini(&r);
}
END_TEST

/* l1.l2_read_bytes_per_cycle / l1.l2_write_bytes_per_cycle: the sectors
 * an SM sends to the L2 leave one after another at that rate, reads and
 * writes on separate ports; 0 is unlimited. */
START_TEST(test_l2_ports)
{
    struct rig r;
    /* 32 one-sector lines past L1: the L1 port passes 4 sectors a cycle (the
     * last at ceil(31 / 4) = 8), then DRAM (500) */
    struct warp_inst ld = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD | SIM_IF_BYPASS_L1, 0x100000, 128, 4);
    struct warp_inst one = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD | SIM_IF_BYPASS_L1, 0x300000, 4, 4);
    struct warp_inst st = access(SIM_SPACE_GLOBAL, SIM_IF_STORE, 0x200000, 128, 4);
    rig_init(&r, NULL);
    ck_assert_uint_eq(ldst_access(r.u, &ld, 0), 8 + 500);
    sim_cycle_t st_free = ldst_access(r.u, &st, 1000);
    rig_fini(&r);
    /* 8 B/cycle: a sector every 4 cycles, the last leaves at 124 */
    rig_init(&r, "l1.l2_read_bytes_per_cycle = 8; l1.l2_write_bytes_per_cycle = 16");
    ck_assert_uint_eq(ldst_access(r.u, &ld, 0), 124 + 500);
    /* the next read waits for the port (free at 128): 4 sectors of one line */
    ck_assert_uint_eq(ldst_access(r.u, &one, 0), 128 + 500);
    /* stores use the write port only, at 16 B/cycle: 2 cycles a sector, the
     * last of 32 leaves at 1062 instead of 1008 (the L1 port alone) */
    ck_assert_uint_eq(ldst_access(r.u, &st, 1000), st_free + 1062 - 1008);
    /* ... and left the read port alone: a read at 2000 goes at once */
    struct warp_inst other = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD | SIM_IF_BYPASS_L1, 0x400000, 4, 4);
    ck_assert_uint_eq(ldst_access(r.u, &other, 2000), 2000 + 500);
    rig_fini(&r);
}
END_TEST

/* ldst_prefetch() is a hint: the same accesses with and without it give
 * the same cycles and counters (a prefetch that touched the model would
 * show, e.g. an L1 or L2 line installed early turning a miss into a hit). */
START_TEST(test_prefetch_is_only_a_hint)
{
    struct rig a, b;
    rig_init(&a, NULL);
    rig_init(&b, NULL);
    struct warp_inst w[6];
    w[0] = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD, 0x10000, 4, 4);
    w[1] = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD, 0x20000, 128, 4);      /* 32 lines */
    w[2] = access(SIM_SPACE_GLOBAL, SIM_IF_STORE, 0x30000, 4, 4);
    w[3] = access(SIM_SPACE_GLOBAL, SIM_IF_LOAD | SIM_IF_BYPASS_L1, 0x40000, 4, 4);
    w[4] = access(SIM_SPACE_SHARED, SIM_IF_LOAD, 0, 4, 4);
    w[5] = access(SIM_SPACE_LOCAL, SIM_IF_LOAD, 0x50000, 4, 4);
    w[5].active_mask = 0x00f0000f;
    for (unsigned rep = 0; rep < 3; rep++)
        for (unsigned i = 0; i < 6; i++) {
            sim_cycle_t t = 100 * (rep * 6 + i);
            ldst_prefetch(b.u, &w[i]);
            ck_assert_uint_eq(ldst_access(a.u, &w[i], t), ldst_access(b.u, &w[i], t));
        }
    struct warp_inst none = w[0];
    none.active_mask = 0;
    ldst_prefetch(b.u, &none);                   /* no lanes: nothing to hint */
    ck_assert_int_eq(memcmp(&a.st, &b.st, sizeof a.st), 0);
    ck_assert_int_eq(memcmp(mem_get_stats(a.m), mem_get_stats(b.m), sizeof(struct mem_stats)), 0);
    rig_fini(&a);
    rig_fini(&b);
}
END_TEST

START_TEST(test_const_serialises_distinct_addresses)
{
    struct rig r;
    rig_init(&r, NULL);
    struct warp_inst uni = access(SIM_SPACE_PARAM, SIM_IF_LOAD, 0x40, 0, 4);
    ck_assert_uint_eq(ldst_access(r.u, &uni, 10), 18);
    struct warp_inst div = access(SIM_SPACE_PARAM, SIM_IF_LOAD, 0x40, 4, 4);
    ck_assert_uint_eq(ldst_access(r.u, &div, 100), 100 + 8 + 31);
    rig_fini(&r);
}
END_TEST

static Suite *
ldst_suite(void)
{
    Suite *s = suite_create("ldst");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_coalescing);
    tcase_add_test(tc, test_coalescing_reference);
    tcase_add_test(tc, test_bank_conflicts);
    tcase_add_test(tc, test_bank_wavefronts_reference);
    tcase_add_test(tc, test_shared_timing);
    tcase_add_test(tc, test_l1_hit_miss_and_inflight);
    tcase_add_test(tc, test_host_memory_not_cached);
    tcase_add_test(tc, test_port_and_mshr_limits);
    tcase_add_test(tc, test_l2_ports);
    tcase_add_test(tc, test_bulk_copy_timing);
    tcase_add_test(tc, test_tensor_copy_rows);
    tcase_add_test(tc, test_const_serialises_distinct_addresses);
    tcase_add_test(tc, test_prefetch_is_only_a_hint);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(ldst_suite)
