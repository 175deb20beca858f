/*
 * check_sass.c - the SASS opcode tables and mnemonic decoding/encoding
 * (frontend/sass_isa.c), and the registers per operand of a mnemonic
 * (frontend/sass_regs.c).
 */
#include <string.h>

#include "frontend/sass/sass_isa.h"
#include "frontend/sass/sass_regs.h"
#include "testlib.h"

/* Every table: sorted, unique, classes and spaces consistent, so lookups
 * by binary search find every entry. */
START_TEST(tables_are_consistent)
{
    for (int isa = 0; isa < SASS_ISA_COUNT; isa++) {
        size_t n = sass_isa_count(isa);
        ck_assert_msg(n > 90, "%s has only %zu opcodes", sass_isa_name(isa), n);
        for (size_t i = 0; i < n; i++) {
            const struct sass_op *op = sass_isa_op(isa, i);
            if (i > 0)
                ck_assert_msg(strcmp(sass_isa_op(isa, i - 1)->name, op->name) < 0,
                              "%s: %s not sorted after %s", sass_isa_name(isa), op->name,
                              sass_isa_op(isa, i - 1)->name);
            ck_assert_int_eq(sass_isa_find(isa, op->name, strlen(op->name)), (int)i);
            ck_assert_uint_lt(op->opclass, SIM_OPC_COUNT);
            bool mem = op->opclass == SIM_OPC_MEM;
            ck_assert_msg(mem == (op->mem != SASS_MEM_NONE), "%s %s: class/space disagree",
                          sass_isa_name(isa), op->name);
            if (mem)
                ck_assert_msg(op->flags & (SF_LOAD | SF_STORE), "%s %s: memory op that neither "
                              "loads nor stores", sass_isa_name(isa), op->name);
            if (op->opclass == SIM_OPC_BRANCH)
                ck_assert_msg(op->flags & SF_BRANCH, "%s %s", sass_isa_name(isa), op->name);
            ck_assert(op->help != NULL && op->help[0] != '\0');
        }
        ck_assert_int_eq(sass_isa_find(isa, "NOSUCHOP", 8), -1);
        ck_assert_int_eq(sass_isa_find(isa, "FFM", 3), -1);      /* a prefix is no match */
    }
}
END_TEST

START_TEST(versions_select_tables)
{
    static const struct { unsigned v; int isa; } cases[] = {
        { 30, SASS_KEPLER }, { 35, SASS_KEPLER }, { 37, SASS_KEPLER }, { 50, SASS_MAXWELL },
        { 52, SASS_MAXWELL }, { 60, SASS_MAXWELL }, { 61, SASS_MAXWELL }, { 70, SASS_VOLTA },
        { 72, SASS_VOLTA }, { 75, SASS_TURING }, { 80, SASS_AMPERE }, { 86, SASS_AMPERE },
        { 89, SASS_AMPERE }, { 90, SASS_HOPPER }, { 20, -1 }, { 38, -1 }, { 63, -1 },
        { 71, -1 }, { 100, -1 },
    };
    for (unsigned i = 0; i < SIM_ARRAY_LEN(cases); i++)
        ck_assert_int_eq(sass_isa_of_version(cases[i].v), cases[i].isa);
    for (int isa = 0; isa < SASS_ISA_COUNT; isa++)
        ck_assert_int_eq(sass_isa_of_version(sass_isa_version(isa)), isa);
}
END_TEST

static struct sass_decoded
dec(int isa, const char *mn)
{
    struct sass_decoded d;
    ck_assert_msg(sass_decode(isa, mn, strlen(mn), &d) == 0, "%s does not decode", mn);
    return d;
}

/* Modifiers: width, L1 bypass, 64-bit conversions, flags. */
START_TEST(modifiers)
{
    struct sass_decoded d = dec(SASS_VOLTA, "LDG.E.128.SYS");
    ck_assert_uint_eq(d.width, 16);
    ck_assert_uint_eq(d.mem, SASS_MEM_GLOBAL);
    ck_assert_uint_eq(d.flags, SIM_IF_LOAD);
    ck_assert_uint_eq(dec(SASS_VOLTA, "LDG.E.U8").width, 1);
    ck_assert_uint_eq(dec(SASS_VOLTA, "LDG.E.S16").width, 2);
    ck_assert_uint_eq(dec(SASS_VOLTA, "LDG.E.64.SYS").width, 8);
    ck_assert_uint_eq(dec(SASS_VOLTA, "LDG.E.SYS").width, 0);   /* none given: the trace's */
    ck_assert_uint_eq(dec(SASS_VOLTA, "LDG.E.STRONG.GPU").flags, SIM_IF_LOAD | SIM_IF_BYPASS_L1);
    ck_assert_uint_eq(dec(SASS_VOLTA, "LDG.E.STRONG.SYS").flags, SIM_IF_LOAD | SIM_IF_BYPASS_L1);
    ck_assert_uint_eq(dec(SASS_VOLTA, "LDG.E.STRONG.CTA").flags, SIM_IF_LOAD);
    ck_assert_uint_eq(dec(SASS_KEPLER, "LD.E.CG").flags, SIM_IF_LOAD | SIM_IF_BYPASS_L1);
    ck_assert_uint_eq(dec(SASS_VOLTA, "STS.STRONG.GPU").flags, SIM_IF_STORE); /* shared: no L1 */
    ck_assert_uint_eq(dec(SASS_VOLTA, "F2F.F64.F32").opclass, SIM_OPC_CONV64);
    ck_assert_uint_eq(dec(SASS_VOLTA, "I2F.F32.S64").opclass, SIM_OPC_CONV64);
    ck_assert_uint_eq(dec(SASS_VOLTA, "F2I.TRUNC.NTZ").opclass, SIM_OPC_CONV);
    /* MUFU.EX2 alone is sfu: sfu_ex2 is PTX's ex2, whose fix-up a SASS trace lists apart */
    ck_assert_uint_eq(dec(SASS_HOPPER, "MUFU.EX2").opclass, SIM_OPC_SFU);
    /* the product's high half: its own rate (op.int_wide); IMAD.X is a plain IMAD */
    ck_assert_uint_eq(dec(SASS_VOLTA, "IMAD.WIDE.U32").opclass, SIM_OPC_INT_WIDE);
    ck_assert_uint_eq(dec(SASS_HOPPER, "IMAD.WIDE").opclass, SIM_OPC_INT_WIDE);
    ck_assert_uint_eq(dec(SASS_HOPPER, "IMAD.HI.U32").opclass, SIM_OPC_INT_WIDE);
    ck_assert_uint_eq(dec(SASS_HOPPER, "IMAD.X").opclass, SIM_OPC_INT_MUL);
    ck_assert_uint_eq(dec(SASS_HOPPER, "IMAD.SHL.U32").opclass, SIM_OPC_INT_MUL);
    ck_assert_uint_eq(dec(SASS_HOPPER, "IMAD").opclass, SIM_OPC_INT_MUL);
    ck_assert_uint_eq(dec(SASS_VOLTA, "IMAD.WIDE.U32").width, 0);   /* not memory: no width */
    ck_assert_uint_eq(dec(SASS_VOLTA, "EXIT").flags, SIM_IF_EXIT);
    ck_assert_uint_eq(dec(SASS_VOLTA, "BRA").flags, SIM_IF_BRANCH);
    ck_assert_uint_eq(dec(SASS_VOLTA, "BAR.SYNC").flags, SIM_IF_BARRIER);
    ck_assert_uint_eq(dec(SASS_VOLTA, "MEMBAR.GPU").flags, SIM_IF_FENCE);
    d = dec(SASS_VOLTA, "ATOMG.E.ADD.STRONG.GPU");
    ck_assert_uint_eq(d.flags, SIM_IF_LOAD | SIM_IF_STORE | SIM_IF_ATOMIC | SIM_IF_BYPASS_L1);
    d = dec(SASS_VOLTA, "RED.E.ADD.F32.FTZ.RN.STRONG.GPU");
    ck_assert_uint_eq(d.mem, SASS_MEM_GENERIC);
    ck_assert_uint_eq(d.flags & (SIM_IF_STORE | SIM_IF_ATOMIC | SIM_IF_LOAD),
                      SIM_IF_STORE | SIM_IF_ATOMIC);
    ck_assert_uint_eq(dec(SASS_TURING, "ULDC.64").opclass, SIM_OPC_UNIFORM);
    ck_assert_uint_eq(dec(SASS_AMPERE, "HMMA.16816.F32").opclass, SIM_OPC_TENSOR);
    /* DMMA: tensor_dp, its work in DMMA.884 units (M / 8 x K / 4) */
    ck_assert_uint_eq(dec(SASS_AMPERE, "DMMA.884").opclass, SIM_OPC_TENSOR_DP);
    ck_assert_uint_eq(dec(SASS_AMPERE, "DMMA.884").units, 1);
    ck_assert_uint_eq(dec(SASS_HOPPER, "DMMA.1684").units, 2);
    ck_assert_uint_eq(dec(SASS_HOPPER, "DMMA.1688").units, 4);
    ck_assert_uint_eq(dec(SASS_HOPPER, "DMMA.16816").units, 8);
    ck_assert_uint_eq(dec(SASS_HOPPER, "DMMA").units, 1);
    ck_assert_uint_eq(dec(SASS_AMPERE, "HMMA.16816.F32").units, 0);
    ck_assert_uint_eq(dec(SASS_AMPERE, "LDGSTS.E.BYPASS.128").width, 16);
    /* LDGSTS .BYPASS is cp.async.cg: L1 bypassed */
    ck_assert_uint_eq(dec(SASS_AMPERE, "LDGSTS.E.BYPASS.128").flags, SIM_IF_LOAD | SIM_IF_BYPASS_L1);
    ck_assert_uint_eq(dec(SASS_HOPPER, "LDGSTS.E.LTC128B.128").flags, SIM_IF_LOAD);
    /* LDSM's .16 is the element size, not a width */
    ck_assert_uint_eq(dec(SASS_HOPPER, "LDSM.16.M88.4").width, 0);
    ck_assert_uint_eq(dec(SASS_HOPPER, "STSM.16.MT88.2").width, 0);
    ck_assert_uint_eq(dec(SASS_HOPPER, "HGMMA.64x64x16.F32").opclass, SIM_OPC_WGMMA);
    ck_assert_uint_eq(dec(SASS_HOPPER, "QGMMA.64x256x32.F32.E4M3.E4M3").opclass, SIM_OPC_WGMMA);
    struct sass_decoded x;
    ck_assert_int_eq(sass_decode(SASS_VOLTA, "FROB.X", 6, &x), -1);
    ck_assert_int_eq(sass_decode(SASS_KEPLER, "UIADD3", 6, &x), -1);  /* Turing and later */
}
END_TEST

/* sass_encode() followed by sass_decode() gives back class, flags, space
 * and width, for every class and memory kind, in every ISA that has an
 * opcode for it. */
START_TEST(encode_round_trips)
{
    static const struct { uint8_t cls, space, flags, width; } k[] = {
        { SIM_OPC_NOP, 0, 0, 0 }, { SIM_OPC_INT, 0, 0, 0 }, { SIM_OPC_INT_MUL, 0, 0, 0 },
        { SIM_OPC_INT_WIDE, 0, 0, 0 },
        { SIM_OPC_FP32, 0, 0, 0 }, { SIM_OPC_FP32_FMA, 0, 0, 0 }, { SIM_OPC_FP16, 0, 0, 0 },
        { SIM_OPC_FP64, 0, 0, 0 }, { SIM_OPC_FP64_FMA, 0, 0, 0 }, { SIM_OPC_SFU, 0, 0, 0 },
        { SIM_OPC_CONV, 0, 0, 0 }, { SIM_OPC_CONV64, 0, 0, 0 }, { SIM_OPC_SREG, 0, 0, 0 },
        { SIM_OPC_BRANCH, 0, SIM_IF_BRANCH, 0 }, { SIM_OPC_BRANCH, 0, SIM_IF_EXIT, 0 },
        { SIM_OPC_WARP, 0, 0, 0 }, { SIM_OPC_BARRIER, 0, SIM_IF_BARRIER, 0 },
        { SIM_OPC_TENSOR, 0, 0, 0 }, { SIM_OPC_UNIFORM, 0, 0, 0 },
        { SIM_OPC_NOP, 0, SIM_IF_FENCE, 0 },
        { SIM_OPC_MEM, SIM_SPACE_GLOBAL, SIM_IF_LOAD, 4 },
        { SIM_OPC_MEM, SIM_SPACE_GLOBAL, SIM_IF_LOAD, 16 },
        { SIM_OPC_MEM, SIM_SPACE_GLOBAL, SIM_IF_LOAD | SIM_IF_BYPASS_L1, 8 },
        { SIM_OPC_MEM, SIM_SPACE_GLOBAL, SIM_IF_STORE, 1 },
        { SIM_OPC_MEM, SIM_SPACE_GLOBAL, SIM_IF_STORE, 2 },
        { SIM_OPC_MEM, SIM_SPACE_GLOBAL, SIM_IF_LOAD | SIM_IF_STORE | SIM_IF_ATOMIC, 4 },
        { SIM_OPC_MEM, SIM_SPACE_GLOBAL, SIM_IF_STORE | SIM_IF_ATOMIC, 4 },
        { SIM_OPC_MEM, SIM_SPACE_SHARED, SIM_IF_LOAD, 16 },
        { SIM_OPC_MEM, SIM_SPACE_SHARED, SIM_IF_STORE, 4 },
        { SIM_OPC_MEM, SIM_SPACE_SHARED, SIM_IF_LOAD | SIM_IF_STORE | SIM_IF_ATOMIC, 4 },
        { SIM_OPC_MEM, SIM_SPACE_LOCAL, SIM_IF_LOAD, 4 },
        { SIM_OPC_MEM, SIM_SPACE_LOCAL, SIM_IF_STORE, 8 },
        { SIM_OPC_MEM, SIM_SPACE_CONST, SIM_IF_LOAD, 4 },
    };
    unsigned encoded = 0;
    for (int isa = 0; isa < SASS_ISA_COUNT; isa++)
        for (unsigned i = 0; i < SIM_ARRAY_LEN(k); i++) {
            struct warp_inst wi;
            memset(&wi, 0, sizeof wi);
            wi.opclass = k[i].cls;
            wi.space = k[i].space;
            wi.flags = k[i].flags;
            wi.width = k[i].width;
            char mn[128];
            const char *why;
            int r = sass_encode(isa, &wi, NULL, mn, sizeof mn, &why);
            if (r < 0) {
                /* only classes the ISA lacks: no tensor cores, FP16 or uniform
                 * datapath on Kepler, no uniform datapath before Turing */
                ck_assert_msg(k[i].cls == SIM_OPC_TENSOR || k[i].cls == SIM_OPC_FP16 ||
                              k[i].cls == SIM_OPC_UNIFORM, "%s: case %u (%s) has no encoding: %s",
                              sass_isa_name(isa), i, inst_opclass_name(k[i].cls), why);
                continue;
            }
            ck_assert_int_eq(r, 0);
            struct sass_decoded d = dec(isa, mn);
            ck_assert_msg(d.opclass == wi.opclass && d.flags == wi.flags, "%s: %s -> class %s "
                          "flags %#x", sass_isa_name(isa), mn, inst_opclass_name(d.opclass),
                          d.flags);
            if (wi.opclass == SIM_OPC_MEM && d.width != 0)
                ck_assert_uint_eq(d.width, wi.width);
            encoded++;
        }
    ck_assert_uint_gt(encoded, 150);
}
END_TEST

/* A trace's own opcode is kept when it fits; IEEE divide and friends are
 * written as MUFU and reported as approximate. */
START_TEST(encode_keeps_own_opcode)
{
    struct warp_inst wi;
    char mn[128];
    const char *why;
    memset(&wi, 0, sizeof wi);
    wi.opclass = SIM_OPC_INT;
    ck_assert_int_eq(sass_encode(SASS_VOLTA, &wi, "LOP3", mn, sizeof mn, &why), 0);
    ck_assert_str_eq(mn, "LOP3");
    /* an opcode of another class is not kept */
    ck_assert_int_eq(sass_encode(SASS_VOLTA, &wi, "FFMA", mn, sizeof mn, &why), 0);
    ck_assert_str_eq(mn, "IADD3");
    wi.opclass = SIM_OPC_FP32_DIV;
    ck_assert_int_eq(sass_encode(SASS_VOLTA, &wi, NULL, mn, sizeof mn, &why), 1);
    ck_assert_str_eq(mn, "MUFU.RCP");
    wi.opclass = SIM_OPC_SFU_EX2;            /* PTX ex2 with its fix-up: approximately MUFU.EX2 */
    ck_assert_int_eq(sass_encode(SASS_HOPPER, &wi, NULL, mn, sizeof mn, &why), 1);
    ck_assert_str_eq(mn, "MUFU.EX2");
    wi.opclass = SIM_OPC_MEM;
    wi.space = SIM_SPACE_GLOBAL;
    wi.flags = SIM_IF_LOAD;
    wi.width = 8;
    ck_assert_int_eq(sass_encode(SASS_VOLTA, &wi, "LD", mn, sizeof mn, &why), 0);
    ck_assert_str_eq(mn, "LD.E.64");                 /* generic stands for global */
    wi.space = SIM_SPACE_SHARED;
    ck_assert_int_eq(sass_encode(SASS_VOLTA, &wi, "LD", mn, sizeof mn, &why), 0);
    ck_assert_str_eq(mn, "LDS.64");                  /* but not for shared */
}
END_TEST

/* Registers per operand (sass_regs.h): pairs, quads, matrix fragments. */
static const struct {
    int isa;
    const char *mn;
    unsigned width;
    uint8_t dst, a, b, c, last;
} sizes[] = {
    { SASS_AMPERE, "HMMA.16816.F32", 0, 4, 4, 2, 4, 0 },
    { SASS_AMPERE, "HMMA.16816.F32.BF16", 0, 4, 4, 2, 4, 0 },
    { SASS_AMPERE, "HMMA.16816.F16", 0, 2, 4, 2, 2, 0 },
    { SASS_AMPERE, "HMMA.1688.F32", 0, 4, 2, 1, 4, 0 },
    { SASS_TURING, "HMMA.1688.F16", 0, 2, 2, 1, 2, 0 },
    { SASS_AMPERE, "HMMA.1688.F32.TF32", 0, 4, 4, 2, 4, 0 },
    { SASS_AMPERE, "HMMA.1684.F32.TF32", 0, 4, 2, 1, 4, 0 },
    { SASS_AMPERE, "IMMA.16832.S8.S8", 0, 4, 4, 2, 4, 0 },
    { SASS_AMPERE, "IMMA.16816.U8.S8.SAT", 0, 4, 2, 1, 4, 0 },
    { SASS_AMPERE, "IMMA.16864.S4.S4", 0, 4, 4, 2, 4, 0 },
    { SASS_TURING, "IMMA.8816.S8.S8", 0, 2, 1, 1, 2, 0 },
    { SASS_AMPERE, "DMMA.884", 0, 4, 2, 2, 4, 0 },
    /* not expanded: Volta's quad-pair HMMA.884, sparse, fragments over 8 */
    { SASS_VOLTA, "HMMA.884.F32.F32.STEP0", 0, 1, 1, 1, 1, 0 },
    { SASS_AMPERE, "HMMA.SP.16832.F32", 0, 1, 1, 1, 1, 0 },
    { SASS_HOPPER, "DMMA.16816", 0, 1, 1, 1, 1, 0 },
    { SASS_HOPPER, "HGMMA.64x64x16.F32", 0, 1, 1, 1, 1, 0 },
    { SASS_HOPPER, "LDSM.16.M88.4", 16, 4, 1, 1, 1, 0 },
    { SASS_HOPPER, "LDSM.16.MT88.2", 16, 2, 1, 1, 1, 0 },
    { SASS_HOPPER, "LDSM.16.M88", 16, 1, 1, 1, 1, 0 },
    { SASS_HOPPER, "STSM.16.M88.4", 16, 1, 1, 1, 1, 4 },
    { SASS_VOLTA, "LDG.E.128.SYS", 16, 4, 1, 1, 1, 0 },
    { SASS_VOLTA, "LDG.E.SYS", 4, 1, 1, 1, 1, 0 },
    { SASS_VOLTA, "STG.E.64.SYS", 8, 1, 1, 1, 1, 2 },
    { SASS_VOLTA, "ATOMG.E.ADD.64.STRONG.GPU", 8, 2, 1, 1, 1, 2 },
    { SASS_VOLTA, "DFMA", 0, 2, 2, 2, 2, 0 },
    { SASS_VOLTA, "FFMA", 0, 1, 1, 1, 1, 0 },
};

START_TEST(operand_sizes)
{
    for (unsigned i = 0; i < SIM_ARRAY_LEN(sizes); i++) {
        struct sass_decoded d = dec(sizes[i].isa, sizes[i].mn);
        struct sass_regs r;
        sass_regs_of(sizes[i].mn, strlen(sizes[i].mn), &d, sizes[i].width, &r);
        ck_assert_msg(r.dst == sizes[i].dst && r.src[0] == sizes[i].a && r.src[1] == sizes[i].b &&
                      r.src[2] == sizes[i].c && r.last == sizes[i].last,
                      "%s: dst %u, sources %u %u %u, last %u", sizes[i].mn, r.dst, r.src[0],
                      r.src[1], r.src[2], r.last);
        /* the writer's split inverts the reader's expansion: operands at
         * R4, R12, R20, R28 (4 sources) and at R4, R12 (2) */
        for (unsigned ns = 2; ns <= 4; ns += 2) {
            uint16_t regs[SIM_MAX_SRC + 8], first[8];
            unsigned n = 0;
            for (unsigned p = 0; p < ns; p++)
                for (unsigned k = 0; k < sass_regs_src(&r, p, ns) && n < SIM_ARRAY_LEN(regs); k++)
                    regs[n++] = (uint16_t)(4 + 8 * p + k);
            bool exact;
            ck_assert_uint_eq(sass_regs_split(&r, regs, n, first, 8, &exact), ns);
            ck_assert_msg(exact, "%s: %u sources not split exactly", sizes[i].mn, ns);
            for (unsigned p = 0; p < ns; p++)
                ck_assert_uint_eq(first[p], 4 + 8 * p);
        }
        uint16_t dst[8];
        for (unsigned k = 0; k < r.dst; k++)
            dst[k] = (uint16_t)(4 + k);
        ck_assert(sass_regs_dst_fits(&r, dst, r.dst));
        ck_assert(r.dst == 1 || !sass_regs_dst_fits(&r, dst, 1u));
    }
    /* registers that are not operands of these sizes: not exact */
    struct sass_regs r;
    struct sass_decoded d = dec(SASS_AMPERE, "HMMA.16816.F32");
    sass_regs_of("HMMA.16816.F32", 14, &d, 0, &r);
    const uint16_t ptx[] = { 22, 23, 24, 25, 26, 27, 17, 19, 20, 21 };
    uint16_t first[8];
    bool exact;
    sass_regs_split(&r, ptx, SIM_ARRAY_LEN(ptx), first, 8, &exact);
    ck_assert(!exact);
}
END_TEST

/* The writer names a shape whose operand sizes give back the registers:
 * HMMA/IMMA by their fragments, LDSM by its matrices, and a shared load
 * of one register and 16 bytes per lane (PTX ldmatrix .x1) as LDSM. */
START_TEST(encode_picks_shapes)
{
    struct warp_inst wi;
    char mn[128];
    const char *why;
    const uint16_t frag[] = { 12, 13, 14, 15, 18, 19, 4, 5, 6, 7 };
    memset(&wi, 0, sizeof wi);
    wi.opclass = SIM_OPC_TENSOR;
    wi.n_dst = 4;
    for (unsigned k = 0; k < 4; k++)
        wi.dst[k] = (uint16_t)(4 + k);
    wi.n_src = 10;
    memcpy(wi.src, frag, sizeof frag);
    ck_assert_int_eq(sass_encode(SASS_AMPERE, &wi, "HMMA", mn, sizeof mn, &why), 0);
    ck_assert_str_eq(mn, "HMMA.16816.F32");
    ck_assert_int_eq(sass_encode(SASS_AMPERE, &wi, "IMMA", mn, sizeof mn, &why), 0);
    ck_assert_str_eq(mn, "IMMA.16832.S8.S8");
    wi.n_dst = 2;                            /* f16 accumulators: C is R4, R5 */
    wi.n_src = 8;
    ck_assert_int_eq(sass_encode(SASS_AMPERE, &wi, "HMMA", mn, sizeof mn, &why), 0);
    ck_assert_str_eq(mn, "HMMA.16816.F16");
    wi.opclass = SIM_OPC_TENSOR_HALF;        /* A 2, B 1, C 4 */
    const uint16_t half[] = { 12, 13, 18, 4, 5, 6, 7 };
    wi.n_dst = 4;
    wi.n_src = 7;
    memcpy(wi.src, half, sizeof half);
    ck_assert_int_eq(sass_encode(SASS_AMPERE, &wi, NULL, mn, sizeof mn, &why), 0);
    ck_assert_str_eq(mn, "HMMA.1688.F32");
    /* registers of no shape: still an HMMA of the class */
    wi.opclass = SIM_OPC_TENSOR;
    wi.n_src = 3;
    ck_assert_int_eq(sass_encode(SASS_AMPERE, &wi, "HMMA", mn, sizeof mn, &why), 0);
    ck_assert_str_eq(mn, "HMMA.16816.F32");
    /* DMMA by its work (aux) */
    memset(&wi, 0, sizeof wi);
    wi.opclass = SIM_OPC_TENSOR_DP;
    ck_assert_int_eq(sass_encode(SASS_HOPPER, &wi, NULL, mn, sizeof mn, &why), 0);
    ck_assert_str_eq(mn, "DMMA.884");
    wi.aux = 8;
    ck_assert_int_eq(sass_encode(SASS_HOPPER, &wi, NULL, mn, sizeof mn, &why), 0);
    ck_assert_str_eq(mn, "DMMA.16816");
    wi.aux = 4;
    ck_assert_int_eq(sass_encode(SASS_HOPPER, &wi, NULL, mn, sizeof mn, &why), 0);
    ck_assert_str_eq(mn, "DMMA.1688");
    /* LDSM by its matrices */
    memset(&wi, 0, sizeof wi);
    wi.opclass = SIM_OPC_MEM;
    wi.space = SIM_SPACE_SHARED;
    wi.flags = SIM_IF_LOAD;
    wi.width = 16;
    wi.n_dst = 2;
    wi.dst[0] = 4;
    wi.dst[1] = 5;
    ck_assert_int_eq(sass_encode(SASS_HOPPER, &wi, "LDSM", mn, sizeof mn, &why), 0);
    ck_assert_str_eq(mn, "LDSM.16.M88.2");
    wi.n_dst = 1;
    ck_assert_int_eq(sass_encode(SASS_HOPPER, &wi, NULL, mn, sizeof mn, &why), 0);
    ck_assert_str_eq(mn, "LDSM.16.M88");
    wi.n_dst = 4;
    wi.dst[2] = 6;
    wi.dst[3] = 7;
    ck_assert_int_eq(sass_encode(SASS_HOPPER, &wi, NULL, mn, sizeof mn, &why), 0);
    ck_assert_str_eq(mn, "LDS.128");
    /* cp.async.cg */
    memset(&wi, 0, sizeof wi);
    wi.opclass = SIM_OPC_MEM;
    wi.space = SIM_SPACE_GLOBAL;
    wi.flags = SIM_IF_LOAD | SIM_IF_BYPASS_L1;
    wi.width = 16;
    ck_assert_int_eq(sass_encode(SASS_HOPPER, &wi, "LDGSTS", mn, sizeof mn, &why), 0);
    ck_assert_str_eq(mn, "LDGSTS.E.BYPASS.128");
}
END_TEST

static Suite *
sass_suite(void)
{
    Suite *s = suite_create("sass");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, tables_are_consistent);
    tcase_add_test(tc, versions_select_tables);
    tcase_add_test(tc, modifiers);
    tcase_add_test(tc, encode_round_trips);
    tcase_add_test(tc, encode_keeps_own_opcode);
    tcase_add_test(tc, operand_sizes);
    tcase_add_test(tc, encode_picks_shapes);
    suite_add_tcase(s, tc);
    return s;
}

TESTLIB_MAIN(sass_suite)
