/*
 * check_mem.c - L2 and DRAM: exact unloaded latencies, in-flight hits,
 * bandwidth saturation and write-back.
 */
#include "sim/cache.h"
#include "sim/mem.h"
#include "testlib.h"

/* l2 hit 200, dram 500, 4 slices, 4 channels, 1000 B/cycle of DRAM */
static mem *
small_mem(struct sim_config *c, const char *extra)
{
    char text[1024];
    snprintf(text, sizeof text,
             "l2.hit_latency = 200; dram.latency = 500; l2.slices = 4; dram.channels = 4;"
             "gpu.clock_mhz = 1000; dram.bandwidth_gbps = 1000; dram.efficiency = 1;"
             "l2.size_kb = 1024; l2.assoc = 16; l2.bytes_per_cycle = 1024;%s", extra ? extra : "");
    testlib_config(c, text);
    return mem_new(c);
}

START_TEST(test_unloaded_latencies_exact)
{
    struct sim_config c;
    mem *m = small_mem(&c, NULL);
    ck_assert_uint_eq(mem_read(m, 7, 0x1, 0), 500);        /* miss: dram.latency */
    ck_assert_uint_eq(mem_read(m, 7, 0x1, 1000), 1200);    /* hit: + l2.hit_latency */
    ck_assert_uint_eq(mem_read(m, 7, 0x2, 2000), 2500);    /* other sector of the line: miss */
    /* a hit on a sector whose fill is in flight returns with the fill */
    ck_assert_uint_eq(mem_read(m, 9, 0x1, 3000), 3500);
    ck_assert_uint_eq(mem_read(m, 9, 0x1, 3100), 3500);
    ck_assert_uint_eq(mem_read(m, 9, 0x1, 3301), 3501);
    const struct mem_stats *st = mem_get_stats(m);
    ck_assert_uint_eq(st->l2_read_sectors, 6);
    ck_assert_uint_eq(st->l2_read_hits, 3);
    ck_assert_uint_eq(st->dram_read_bytes, 3 * 32);
    mem_destroy(m);
}
END_TEST

/* Host memory (zero-copy, lines from SIM_SYSMEM_BASE): at 32 B/cycle
 * (32 GB/s at 1000 MHz) a sector holds a direction of the link 1 cycle;
 * an access takes dram.latency (500) + host.link_latency_us (1 us = 1000
 * cycles) beside that, half each way; reads and writes have a direction
 * each; nothing enters the L2.  Without a link rate it is device memory. */
START_TEST(test_host_link)
{
    struct sim_config c;
    mem *m = small_mem(&c, "host.link_gbps = 32; host.link_latency_us = 1");
    const uint64_t h = SIM_SYSMEM_BASE / 128;
    ck_assert_uint_eq(mem_read(m, h, 0x1, 0), 1501);       /* 750 + 1 + 750 */
    ck_assert_uint_eq(mem_read(m, h + 1, 0xf, 0), 1505);   /* after it: 751 + 4 + 750 */
    ck_assert_uint_eq(mem_read(m, h, 0x1, 0), 1506);       /* not cached: again, after those */
    ck_assert_uint_eq(mem_write(m, h + 2, 0x3, 0), 752);   /* its own direction: 750 + 2 */
    ck_assert_uint_eq(mem_atomic(m, h + 3, 0x1, 1, 10000), 11501);
    ck_assert_uint_eq(mem_read(m, 7, 0x1, 20000), 20500);  /* device memory as before */
    const struct mem_stats *st = mem_get_stats(m);
    ck_assert_uint_eq(st->host_read_bytes, (1 + 4 + 1 + 1) * 32);
    ck_assert_uint_eq(st->host_write_bytes, 2 * 32);
    ck_assert_uint_eq(st->l2_read_sectors, 1);
    ck_assert_uint_eq(st->l2_write_sectors, 0);
    ck_assert_uint_eq(st->dram_read_bytes, 32);
    mem_destroy(m);
    m = small_mem(&c, "host.link_gbps = 0");
    ck_assert_uint_eq(mem_read(m, h, 0x1, 0), 500);
    ck_assert_uint_eq(mem_get_stats(m)->host_read_bytes, 0);
    mem_destroy(m);
}
END_TEST

START_TEST(test_dram_bandwidth_saturates)
{
    struct sim_config c;
    mem *m = small_mem(&c, "l2.size_kb = 4096");
    sim_cycle_t last = 0;
    const unsigned n = 20000;
    for (unsigned i = 0; i < n; i++) {
        sim_cycle_t r = mem_read(m, 1000 + i, 0x1, 0);
        if (r > last)
            last = r;
    }
    /* 20000 sectors x 32 B at 1000 B/cycle = 640 cycles of transfer */
    double bw = (double)n * 32 / (double)(last - 500);
    ck_assert_msg(bw > 900 && bw <= 1000.5, "achieved %.1f B/cycle", bw);
    ck_assert_uint_gt(mem_get_stats(m)->dram_queue_cycles, 0);
    mem_destroy(m);
}
END_TEST

/* The k-th line from 1000 whose L2 slice differs from those of the n
 * lines in avoid, per the mapping mem.c documents (set = mix(L) % sets,
 * slice = set % slices): a slice serves requests in the order they are
 * computed, which this test must keep out of the way. */
static uint64_t
line_avoiding(const uint64_t *avoid, unsigned n, unsigned k)
{
    const uint64_t sets = 1024 * 1024 / (16 * 128), slices = 4;
    for (uint64_t l = 1000;; l++) {
        bool clash = false;
        for (unsigned i = 0; i < n; i++)
            clash = clash || cache_mix(l) % sets % slices == cache_mix(avoid[i]) % sets % slices;
        if (!clash && k-- == 0)
            return l;
    }
}

/* A request computed later but arriving earlier uses the idle channel
 * time before an already reserved one instead of queueing behind it. */
START_TEST(test_dram_gap_filled)
{
    struct sim_config c;
    /* one channel, 3.2 B/cycle: a 32-byte sector holds it 10 cycles */
    mem *m = small_mem(&c, "dram.channels = 1; dram.bandwidth_gbps = 3.2");
    uint64_t a[3] = { 100 };
    ck_assert_uint_eq(mem_read(m, a[0], 0x1, 1000), 1500);           /* [1000, 1010) + x */
    ck_assert_uint_eq(mem_read(m, line_avoiding(a, 1, 0), 0x1, 0), 500);    /* in the gap */
    ck_assert_uint_eq(mem_read(m, line_avoiding(a, 1, 1), 0x1, 0), 510);    /* behind it */
    a[1] = line_avoiding(a, 1, 2);
    ck_assert_uint_eq(mem_read(m, a[1], 0x1, 985), 1485);            /* [985, 995) fits */
    a[2] = line_avoiding(a, 1, 3);
    ck_assert_uint_eq(mem_read(m, a[2], 0x1, 995), 1510);            /* [995, 1005) does not */
    ck_assert_uint_eq(mem_read(m, line_avoiding(a, 3, 4), 0x1, 20), 520);   /* the gap's rest */
    /* 10 + 15 cycles of waiting, less a slice port's fraction of a cycle
     * when the two t = 0 requests share a slice (whole cycles are counted) */
    ck_assert_uint_ge(mem_get_stats(m)->dram_queue_cycles, 24);
    ck_assert_uint_le(mem_get_stats(m)->dram_queue_cycles, 25);
    mem_destroy(m);
}
END_TEST

START_TEST(test_slice_bandwidth_saturates)
{
    struct sim_config c;
    mem *m = small_mem(&c, "l2.bytes_per_cycle = 32; l2.size_kb = 8192");
    /* warm 4000 lines, then read them back at once: 4 slices x 32 B/cycle */
    for (unsigned i = 0; i < 4000; i++)
        mem_read(m, i, 0x1, 0);
    sim_cycle_t last = 0, t0 = 100000;
    for (unsigned i = 0; i < 4000; i++) {
        sim_cycle_t r = mem_read(m, i, 0x1, t0);
        if (r > last)
            last = r;
    }
    double bw = 4000.0 * 32 / (double)(last - t0 - 200);
    ck_assert_msg(bw > 115 && bw <= 128.5, "achieved %.1f B/cycle", bw);
    mem_destroy(m);
}
END_TEST

/* A slice's port serves reads at l2.bytes_per_cycle and writes at
 * l2.write_bytes_per_cycle, losing l2.turnaround_cycles when it turns from
 * one kind to the other (not when it starts cold). */
START_TEST(test_write_rate_and_turnaround)
{
    struct sim_config c;
    /* one slice: a sector read holds it 10 cycles, a write 20, a turn 5;
     * SM -> slice 100, slice -> SM 100 */
    mem *m = small_mem(&c, "l2.slices = 1; l2.bytes_per_cycle = 3.2; "
                           "l2.write_bytes_per_cycle = 1.6; l2.turnaround_cycles = 5");
    ck_assert_uint_eq(mem_write(m, 7, 0x1, 0), 120);       /* [100, 120): cold, no turn */
    ck_assert_uint_eq(mem_write(m, 8, 0x1, 0), 140);       /* [120, 140) */
    ck_assert_uint_eq(mem_read(m, 7, 0x1, 0), 245);        /* turn [140, 145), read [145, 155) */
    ck_assert_uint_eq(mem_read(m, 8, 0x1, 0), 255);        /* [155, 165): no turn */
    ck_assert_uint_eq(mem_write(m, 9, 0x1, 0), 190);       /* turn [165, 170), write [170, 190) */
    mem_destroy(m);
    /* without the two keys: writes at the read rate, no turn */
    m = small_mem(&c, "l2.slices = 1; l2.bytes_per_cycle = 3.2");
    ck_assert_uint_eq(mem_write(m, 7, 0x1, 0), 110);
    ck_assert_uint_eq(mem_read(m, 7, 0x1, 0), 210);        /* [110, 120) */
    ck_assert_uint_eq(mem_write(m, 8, 0x1, 0), 130);
    mem_destroy(m);
}
END_TEST

/* A partial write to a sector the L2 holds merges its bytes: the port
 * moves them at l2.write_bytes_per_cycle, but takes at least a sector's
 * read-rate slot (l2.bytes_per_cycle); a write that allocates the sector,
 * or writes it whole, holds the port a whole sector's time. */
START_TEST(test_partial_write_merges)
{
    struct sim_config c;
    /* one slice: a sector read holds it 10 cycles, a written sector 20 */
    mem *m = small_mem(&c, "l2.slices = 1; l2.bytes_per_cycle = 3.2; "
                           "l2.write_bytes_per_cycle = 1.6");
    ck_assert_uint_eq(mem_write_bytes(m, 7, 0x1, 4, 0), 120);    /* allocates: [100, 120) */
    ck_assert_uint_eq(mem_write_bytes(m, 7, 0x1, 4, 0), 130);    /* 2.5 -> the 10 floor */
    ck_assert_uint_eq(mem_write_bytes(m, 7, 0x1, 24, 0), 145);   /* 24 bytes: 15 */
    ck_assert_uint_eq(mem_write_bytes(m, 7, 0x1, 32, 0), 165);   /* whole: 20 */
    ck_assert_uint_eq(mem_write(m, 7, 0x3, 0), 205);             /* sector 1 allocates: 40 */
    ck_assert_uint_eq(mem_write_bytes(m, 7, 0x3, 8, 0), 225);    /* both held: 2 x 10 */
    ck_assert_uint_eq(mem_write_bytes(m, 8, 0x1, 4, 0), 245);    /* another line: allocates */
    ck_assert_uint_eq(mem_get_stats(m)->l2_write_sectors, 9);
    mem_destroy(m);
}
END_TEST

/* l2.partial_lines: a store of fewer bytes than a sector into a sector the
 * L2 does not hold leaves a partial sector.  When one line more than the
 * limit holds some, the oldest line that still does is read from DRAM,
 * merged and written back (whole dram.access_bytes groups: one sector costs
 * its pair) and the kernel's drain waits for it; a line whose sectors were
 * since written whole, or fetched by a read, is not. */
START_TEST(test_partial_lines_read_back)
{
    struct sim_config c;
    /* one slice, one channel, a DRAM sector 10 cycles, slice -> DRAM -> slice 300 */
    const char *cfg = "l2.slices = 1; dram.channels = 1; dram.bandwidth_gbps = 3.2; "
                      "l2.partial_lines = 2; dram.access_bytes = 64";
    mem *m = small_mem(&c, cfg);
    const struct mem_stats *st = mem_get_stats(m);
    mem_write_bytes(m, 1, 0x1, 4, 0);
    mem_write_bytes(m, 2, 0x1, 4, 0);
    ck_assert_uint_eq(st->dram_read_bytes + st->dram_write_bytes, 0);
    ck_assert_uint_eq(mem_write_bytes(m, 3, 0x1, 4, 1000), 1101);
    /* line 1 read back at 1100 + 150: its sector's pair read and written, 4 x 10 */
    ck_assert_uint_eq(mem_drain_cycle(m), 1290);
    ck_assert_uint_eq(st->dram_read_bytes, 32);
    ck_assert_uint_eq(st->dram_write_bytes, 32);
    ck_assert_uint_eq(mem_read(m, 1, 0x1, 1500), 1700);        /* merged: a hit */
    ck_assert_uint_eq(mem_read(m, 2, 0x1, 2000), 2500);        /* partial: a miss */
    ck_assert_uint_eq(st->dram_read_bytes, 32 + 64);
    mem_write_bytes(m, 3, 0x1, 32, 2500);                      /* line 3 now whole */
    mem_write_bytes(m, 4, 0x2, 16, 3000);                      /* 2 and 3 leave: no DRAM */
    mem_write_bytes(m, 5, 0x2, 4, 3000);
    ck_assert_uint_eq(st->dram_read_bytes, 32 + 64);
    ck_assert_uint_eq(st->dram_write_bytes, 32);
    mem_write_bytes(m, 4, 0x2, 16, 3500);                      /* 16 + 16: line 4 whole */
    mem_write_bytes(m, 6, 0x1, 4, 4000);                       /* 4 leaves: no DRAM */
    ck_assert_uint_eq(st->dram_write_bytes, 32);
    mem_write_bytes(m, 7, 0x1, 4, 5000);                       /* 5 is read back */
    ck_assert_uint_eq(st->dram_read_bytes, 32 + 64 + 32);
    ck_assert_uint_eq(mem_drain_cycle(m), 5290);
    mem_destroy(m);
    /* the same without groups: the sector alone, 2 x 10 */
    m = small_mem(&c, "l2.slices = 1; dram.channels = 1; dram.bandwidth_gbps = 3.2; "
                      "l2.partial_lines = 2; dram.access_bytes = 0");
    mem_write_bytes(m, 1, 0x1, 4, 0);
    mem_write_bytes(m, 2, 0x1, 4, 0);
    mem_write_bytes(m, 3, 0x1, 4, 1000);
    ck_assert_uint_eq(mem_drain_cycle(m), 1270);
    mem_destroy(m);
    /* no limit: nothing is read back */
    m = small_mem(&c, "l2.slices = 1; dram.channels = 1; dram.bandwidth_gbps = 3.2");
    for (unsigned i = 1; i <= 8; i++)
        mem_write_bytes(m, i, 0x1, 4, 0);
    ck_assert_uint_eq(mem_get_stats(m)->dram_read_bytes, 0);
    mem_destroy(m);
}
END_TEST

/* l2.dirty_lines: when one more line than the limit becomes dirty, the
 * oldest dirty line is written back whole and stays, clean (a read hits
 * it); a line written again while dirty is not counted twice. */
START_TEST(test_dirty_lines_written_back)
{
    struct sim_config c;
    mem *m = small_mem(&c, "l2.slices = 1; dram.channels = 1; l2.dirty_lines = 2");
    const struct mem_stats *st = mem_get_stats(m);
    mem_write(m, 1, 0xf, 0);
    mem_write(m, 2, 0xf, 0);
    mem_write(m, 2, 0xf, 10);                                  /* still dirty: no entry */
    ck_assert_uint_eq(st->dram_write_bytes, 0);
    mem_write(m, 3, 0xf, 100);                                 /* line 1 goes */
    ck_assert_uint_eq(st->dram_write_bytes, 128);
    ck_assert_uint_eq(mem_read(m, 1, 0x1, 1000), 1200);        /* clean, still there */
    mem_write(m, 1, 0xf, 2000);                                /* dirty again: line 2 goes */
    ck_assert_uint_eq(st->dram_write_bytes, 256);
    ck_assert_uint_eq(st->dram_read_bytes, 0);
    mem_destroy(m);
    /* no limit: dirty lines stay */
    m = small_mem(&c, "l2.slices = 1; dram.channels = 1");
    for (unsigned i = 1; i <= 8; i++)
        mem_write(m, i, 0xf, 0);
    ck_assert_uint_eq(mem_get_stats(m)->dram_write_bytes, 0);
    mem_destroy(m);
}
END_TEST

/* Warming (a sampled run's skipped blocks) keeps l2.dirty_lines too: its
 * write-backs cost nothing (they happened before the simulated stretch
 * resumes), and the lines it leaves dirty are the newest, in the FIFO a
 * timed write then continues.  Were warmed lines left out of the FIFO, the
 * L2 would come out of a skip with every written line dirty, and the
 * windows after it would write back what the full run already had. */
START_TEST(test_warm_keeps_dirty_limit)
{
    struct sim_config c;
    mem *m = small_mem(&c, "l2.slices = 1; dram.channels = 1; l2.dirty_lines = 2");
    const struct mem_stats *st = mem_get_stats(m);
    mem_warm(m, 1, 0xf, true);
    mem_warm(m, 2, 0xf, true);
    mem_warm(m, 3, 0xf, true);                                 /* line 1 cleaned, untimed */
    ck_assert_uint_eq(st->dram_write_bytes, 0);
    mem_write(m, 4, 0xf, 0);                                   /* line 2 goes, timed */
    ck_assert_uint_eq(st->dram_write_bytes, 128);
    mem_write(m, 5, 0xf, 100);                                 /* then line 3 */
    ck_assert_uint_eq(st->dram_write_bytes, 256);
    ck_assert_uint_eq(st->dram_read_bytes, 0);
    mem_destroy(m);
}
END_TEST

/* mem_flush (sim.flush_caches): the next access of a line misses again, and
 * the dirty sectors it drops cost no DRAM write inside the kernel. */
START_TEST(test_flush_empties_l2)
{
    struct sim_config c;
    mem *m = small_mem(&c, NULL);
    ck_assert_uint_eq(mem_read(m, 7, 0x1, 0), 500);        /* miss */
    ck_assert_uint_eq(mem_read(m, 7, 0x1, 1000), 1200);    /* hit */
    mem_write(m, 8, 0xf, 1000);
    mem_flush(m);
    ck_assert_uint_eq(mem_read(m, 7, 0x1, 2000), 2500);    /* a miss again */
    ck_assert_uint_eq(mem_read(m, 8, 0x1, 3000), 3500);    /* the written line too */
    const struct mem_stats *st = mem_get_stats(m);
    ck_assert_uint_eq(st->dram_write_bytes, 0);
    ck_assert_uint_eq(st->dram_read_bytes, 3 * 32);
    mem_destroy(m);
}
END_TEST

/* dram.access_bytes = 64: a miss reads its sector's aligned pair, and the
 * other sector of the pair then hits; 0 reads the sector alone. */
START_TEST(test_dram_access_groups)
{
    struct sim_config c;
    mem *m = small_mem(&c, "dram.access_bytes = 64");
    const struct mem_stats *st = mem_get_stats(m);
    ck_assert_uint_eq(mem_read(m, 7, 0x1, 0), 500);        /* miss: sectors 0 and 1 */
    ck_assert_uint_eq(st->dram_read_bytes, 64);
    ck_assert_uint_eq(mem_read(m, 7, 0x2, 1000), 1200);    /* sector 1 hits */
    ck_assert_uint_eq(mem_read(m, 7, 0x4, 2000), 2500);    /* sector 2: the pair 2-3 */
    ck_assert_uint_eq(st->dram_read_bytes, 128);
    ck_assert_uint_eq(mem_read(m, 7, 0xf, 3000), 3200);    /* the whole line is there */
    ck_assert_uint_eq(mem_read(m, 9, 0x5, 4000), 4500);    /* sectors 0 and 2: both pairs */
    ck_assert_uint_eq(st->dram_read_bytes, 256);
    ck_assert_uint_eq(mem_read(m, 9, 0xa, 5000), 5200);
    mem_destroy(m);
    m = small_mem(&c, "dram.access_bytes = 0");
    ck_assert_uint_eq(mem_read(m, 7, 0x1, 0), 500);
    ck_assert_uint_eq(mem_read(m, 7, 0x2, 1000), 1500);    /* its own miss */
    ck_assert_uint_eq(mem_get_stats(m)->dram_read_bytes, 64);
    mem_destroy(m);
}
END_TEST

/* An L2 slice, like a DRAM channel, serves a request computed later but
 * arriving earlier in the idle time before a reservation already made. */
START_TEST(test_slice_gap_filled)
{
    struct sim_config c;
    /* one slice at 3.2 B/cycle: a sector holds it 10 cycles; SM->slice 100 */
    mem *m = small_mem(&c, "l2.slices = 1; l2.bytes_per_cycle = 3.2");
    mem_read(m, 7, 0x1, 0);                                /* [100, 110) */
    mem_read(m, 8, 0x1, 20);                               /* [120, 130) */
    ck_assert_uint_eq(mem_read(m, 7, 0x1, 5000), 5200);    /* a hit: [5100, 5110) */
    /* computed after it, arriving at 3100: served there, not after 5110 */
    ck_assert_uint_eq(mem_read(m, 8, 0x1, 3000), 3200);
    ck_assert_uint_eq(mem_read(m, 8, 0x1, 5005), 5210);    /* behind the first */
    mem_destroy(m);
}
END_TEST

/* l2.sector_hit_rate counts as Nsight Compute does: every write is a hit. */
START_TEST(test_lookup_counts)
{
    struct sim_config c;
    mem *m = small_mem(&c, NULL);
    const struct mem_stats *st = mem_get_stats(m);
    mem_read(m, 7, 0x3, 0);                                /* 2 misses */
    mem_read(m, 7, 0x1, 1000);                             /* 1 hit */
    mem_write(m, 9, 0xf, 1000);                            /* 4 writes: hits */
    ck_assert_uint_eq(st->l2_lookups, 7);
    ck_assert_uint_eq(st->l2_lookup_hits, 5);
    ck_assert_uint_eq(st->l2_read_hits, 1);
    mem_destroy(m);
}
END_TEST

START_TEST(test_write_back_on_eviction)
{
    struct sim_config c;
    /* 4 KB direct-mapped L2 in one slice: 32 lines */
    mem *m = small_mem(&c, "l2.size_kb = 4; l2.assoc = 1; l2.slices = 1");
    for (unsigned i = 0; i < 64; i++)
        mem_write(m, i, 0xf, 10);
    const struct mem_stats *st = mem_get_stats(m);
    ck_assert_uint_eq(st->l2_write_sectors, 256);
    ck_assert_uint_eq(st->dram_read_bytes, 0);          /* whole sectors: no fetch */
    /* at most 32 of the 64 dirty lines still fit: the rest were written back whole */
    ck_assert_uint_ge(st->dram_write_bytes, 32 * 128);
    ck_assert_uint_le(st->dram_write_bytes, 63 * 128);
    ck_assert_uint_eq(st->dram_write_bytes % 128, 0);
    ck_assert_uint_ge(mem_drain_cycle(m), 110);
    mem_destroy(m);
}
END_TEST

static Suite *
mem_suite(void)
{
    Suite *s = suite_create("mem");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_unloaded_latencies_exact);
    tcase_add_test(tc, test_host_link);
    tcase_add_test(tc, test_dram_bandwidth_saturates);
    tcase_add_test(tc, test_dram_gap_filled);
    tcase_add_test(tc, test_slice_bandwidth_saturates);
    tcase_add_test(tc, test_write_back_on_eviction);
    tcase_add_test(tc, test_flush_empties_l2);
    tcase_add_test(tc, test_dram_access_groups);
    tcase_add_test(tc, test_slice_gap_filled);
    tcase_add_test(tc, test_write_rate_and_turnaround);
    tcase_add_test(tc, test_partial_write_merges);
    tcase_add_test(tc, test_partial_lines_read_back);
    tcase_add_test(tc, test_dirty_lines_written_back);
    tcase_add_test(tc, test_warm_keeps_dirty_limit);
    tcase_add_test(tc, test_lookup_counts);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(mem_suite)
