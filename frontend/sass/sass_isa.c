/*
 * sass_isa.c - SASS opcode tables, mnemonic decoding and encoding.
 *
 * Invariant (checked by tests/check_sass.c): each table is sorted by name
 * with unique names, so lookup is a binary search; sass_encode() only
 * returns a mnemonic that sass_decode() maps back to the instruction's
 * class, flags, space and width (or says it is lossy).
 */
#include "frontend/sass/sass_isa.h"

#include <stdio.h>
#include <string.h>

#include "frontend/sass/sass_regs.h"
#include "sim/stats.h"

#define SASS_OP(name, cls, mem, flags, help) \
    { #name, SIM_OPC_##cls, SASS_MEM_##mem, (uint8_t)(flags), help },

static const struct sass_op t_kepler[] = {
#include "frontend/sass/sass_kepler.def"
};
static const struct sass_op t_maxwell[] = {
#include "frontend/sass/sass_maxwell.def"
};
static const struct sass_op t_volta[] = {
#include "frontend/sass/sass_volta.def"
};
static const struct sass_op t_turing[] = {
#include "frontend/sass/sass_turing.def"
};
static const struct sass_op t_ampere[] = {
#include "frontend/sass/sass_ampere.def"
};
static const struct sass_op t_hopper[] = {
#include "frontend/sass/sass_hopper.def"
};
#undef SASS_OP

static const struct {
    const char *name;
    const struct sass_op *ops;
    size_t n;
    unsigned version;            /* representative binary version */
} isas[SASS_ISA_COUNT] = {
    { "kepler", t_kepler, sizeof t_kepler / sizeof t_kepler[0], 35 },
    { "maxwell", t_maxwell, sizeof t_maxwell / sizeof t_maxwell[0], 61 },
    { "volta", t_volta, sizeof t_volta / sizeof t_volta[0], 70 },
    { "turing", t_turing, sizeof t_turing / sizeof t_turing[0], 75 },
    { "ampere", t_ampere, sizeof t_ampere / sizeof t_ampere[0], 86 },
    { "hopper", t_hopper, sizeof t_hopper / sizeof t_hopper[0], 90 },
};

int
sass_isa_of_version(unsigned v)
{
    if (v >= 30 && v <= 37)
        return SASS_KEPLER;
    if (v >= 50 && v <= 62)
        return SASS_MAXWELL;
    if (v == 70 || v == 72)
        return SASS_VOLTA;
    if (v == 75)
        return SASS_TURING;
    if (v == 80 || v == 86 || v == 87 || v == 89)
        return SASS_AMPERE;
    if (v == 90)
        return SASS_HOPPER;
    return -1;
}

unsigned
sass_isa_version(int isa)
{
    return isa >= 0 && isa < SASS_ISA_COUNT ? isas[isa].version : 0;
}

const char *
sass_isa_name(int isa)
{
    return isa >= 0 && isa < SASS_ISA_COUNT ? isas[isa].name : "?";
}

size_t
sass_isa_count(int isa)
{
    return isa >= 0 && isa < SASS_ISA_COUNT ? isas[isa].n : 0;
}

const struct sass_op *
sass_isa_op(int isa, size_t i)
{
    return i < sass_isa_count(isa) ? &isas[isa].ops[i] : NULL;
}

int
sass_isa_find(int isa, const char *name, size_t len)
{
    size_t lo = 0, hi = sass_isa_count(isa);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *m = isas[isa].ops[mid].name;
        int c = strncmp(m, name, len);
        if (c == 0 && m[len] != '\0')
            c = 1;                   /* m is longer: it sorts after name */
        if (c == 0)
            return (int)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static bool
tok_is(const char *t, size_t n, const char *s)
{
    return strlen(s) == n && memcmp(t, s, n) == 0;
}

/* Bytes per lane named by a width modifier, or 0. */
static unsigned
width_of(const char *t, size_t n)
{
    static const struct { const char *tok; unsigned bytes; } w[] = {
        { "8", 1 }, { "U8", 1 }, { "S8", 1 }, { "16", 2 }, { "U16", 2 }, { "S16", 2 },
        { "32", 4 }, { "64", 8 }, { "128", 16 },
    };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (tok_is(t, n, w[i].tok))
            return w[i].bytes;
    return 0;
}

/* Is tensor operation mn (HMMA.16816.F32, IMMA.16832.S8.S8, ...) of half
 * the work of the m16n8 shapes op.tensor stands for?  Work = M x N x K
 * weighted by NVIDIA's dense rates relative to FP16 (TF32 half, INT8
 * twice, INT4 four times: A100/H100 datasheets), so HMMA.16816,
 * HMMA.1688.TF32 and IMMA.16832 are one unit; HMMA.1688 (f16), HMMA.1684
 * .TF32 and IMMA.16816 half.  Shapes with M = 8 (Volta's and Turing's
 * HMMA.884, IMMA.8816) stay op.tensor: their configs time them.  DMMA is
 * op.tensor_dp (dmma_units). */
static bool
tensor_half(const char *mn, size_t len)
{
    const char *dot = memchr(mn, '.', len);
    if (dot == NULL || (len >= 4 && memcmp(mn, "DMMA", 4) == 0))
        return false;
    unsigned m = 0, n = 0, k = 0;
    double w = 1.0;
    for (const char *p = dot; p != NULL && p < mn + len;) {
        const char *t = p + 1;
        const char *e = memchr(t, '.', (size_t)(mn + len - t));
        size_t tn = e != NULL ? (size_t)(e - t) : (size_t)(mn + len - t);
        if (tn >= 4 && tn <= 5 && t[0] == '1' && t[1] == '6' && t[2] == '8') {
            m = 16;
            n = 8;
            k = 0;
            for (size_t i = 3; i < tn && t[i] >= '0' && t[i] <= '9'; i++)
                k = 10 * k + (unsigned)(t[i] - '0');
        } else if (tok_is(t, tn, "TF32")) {
            w = 2.0;
        } else if (tok_is(t, tn, "S8") || tok_is(t, tn, "U8")) {
            w = 0.5;
        } else if (tok_is(t, tn, "S4") || tok_is(t, tn, "U4")) {
            w = 0.25;
        }
        p = e;
    }
    return m == 16 && k > 0 && (double)m * n * k * w <= 0.5 * 16 * 8 * 16;
}

/* The work of DMMA mn in DMMA.884 units (sim_dmma_units): its shape
 * token, m8n8 (884) or m16n8 (1684, 1688, 16816); 1 without one. */
static uint8_t
dmma_units(const char *mn, size_t len)
{
    const char *dot = memchr(mn, '.', len);
    if (dot == NULL)
        return 1;
    const char *t = dot + 1, *end = mn + len;
    size_t tn = 0;
    while (t + tn < end && t[tn] != '.')
        tn++;
    unsigned m = tn >= 3 && memcmp(t, "88", 2) == 0 ? 8 : tn >= 4 && memcmp(t, "168", 3) == 0 ? 16 : 0;
    unsigned k = 0;
    for (size_t i = m == 8 ? 2 : 3; m != 0 && i < tn && t[i] >= '0' && t[i] <= '9'; i++)
        k = 10 * k + (unsigned)(t[i] - '0');
    return k == 4 || k == 8 || k == 16 ? (uint8_t)sim_dmma_units(m, k) : 1;
}

int
sass_decode(int isa, const char *mn, size_t len, struct sass_decoded *out)
{
    const char *dot = memchr(mn, '.', len);
    size_t blen = dot != NULL ? (size_t)(dot - mn) : len;
    int i = isa >= 0 && isa < SASS_ISA_COUNT ? sass_isa_find(isa, mn, blen) : -1;
    if (i < 0)
        return -1;
    const struct sass_op *op = &isas[isa].ops[i];
    uint8_t cls = op->opclass, f = op->flags, flags = 0;
    unsigned width = 0;
    bool bypass = false, strong = false;
    /* LDSM.16.M88.4: .16 is the element size, not the access width */
    bool matrix = strcmp(op->name, "LDSM") == 0 || strcmp(op->name, "STSM") == 0;
    for (const char *p = dot; p != NULL && p < mn + len;) {
        const char *t = p + 1;
        const char *e = memchr(t, '.', (size_t)(mn + len - t));
        size_t n = e != NULL ? (size_t)(e - t) : (size_t)(mn + len - t);
        if (cls == SIM_OPC_CONV && (tok_is(t, n, "F64") || tok_is(t, n, "S64") || tok_is(t, n, "U64")))
            cls = SIM_OPC_CONV64;
        /* IMAD.WIDE, IMAD.HI: the product's high half, at its own rate */
        if (cls == SIM_OPC_INT_MUL && (tok_is(t, n, "WIDE") || tok_is(t, n, "HI")))
            cls = SIM_OPC_INT_WIDE;
        if (op->mem != SASS_MEM_NONE) {
            if (width == 0 && !matrix)
                width = width_of(t, n);
            /* .BYPASS: LDGSTS.E.BYPASS.128 is cp.async.cg, which skips L1 */
            if (tok_is(t, n, "CG") || tok_is(t, n, "CV") || tok_is(t, n, "BYPASS"))
                bypass = true;
            if (strong && (tok_is(t, n, "GPU") || tok_is(t, n, "SYS")))
                bypass = true;
            strong = tok_is(t, n, "STRONG");
        }
        p = e;
    }
    uint8_t units = 0;
    if (cls == SIM_OPC_TENSOR && strcmp(op->name, "DMMA") == 0) {
        cls = SIM_OPC_TENSOR_DP;
        units = dmma_units(mn, len);
    } else if (cls == SIM_OPC_TENSOR && tensor_half(mn, len)) {
        cls = SIM_OPC_TENSOR_HALF;
    }
    if (f & SF_LOAD)
        flags |= SIM_IF_LOAD;
    if (f & SF_STORE)
        flags |= SIM_IF_STORE;
    if (f & SF_ATOMIC)
        flags |= SIM_IF_ATOMIC;
    if (f & SF_BARRIER)
        flags |= SIM_IF_BARRIER;
    if (f & SF_EXIT)
        flags |= SIM_IF_EXIT;        /* as every frontend marks an exit */
    else if (f & SF_BRANCH)
        flags |= SIM_IF_BRANCH;
    if (f & SF_FENCE)
        flags |= SIM_IF_FENCE;
    if (bypass && (op->mem == SASS_MEM_GLOBAL || op->mem == SASS_MEM_GENERIC))
        flags |= SIM_IF_BYPASS_L1;
    out->op = (uint16_t)i;
    out->opclass = cls;
    out->mem = op->mem;
    out->flags = flags;
    out->width = (uint8_t)width;
    out->units = units;
    return 0;
}

/* ---- Nsight Compute pipes ---------------------------------------------- */

static const char *const npipe_names[SASS_NPIPE_COUNT] = { "none", "fma", "alu", "fp64", "xu",
                                                           "lsu" };

const char *
sass_npipe_name(unsigned npipe)
{
    return npipe < SASS_NPIPE_COUNT ? npipe_names[npipe] : "?";
}

/* Mostly the timing class: Nsight Compute's pipes are the units (fma: FP32
 * and IMAD; alu: integer and logic; xu: transcendentals and conversions;
 * lsu: what goes to L1TEX).  The exceptions were read off the H100: the
 * per-pipe counts of validation/measured/h100-sxm5/ncu.tsv against the
 * dynamic opcode counts of the twelve Accel-Sim traces recorded on the same
 * GPU (traces/hopper) add up exactly with VIADD in fma (its class is
 * int_mul: the FMA pipe), I2FP, CS2R, FSEL
 * and FMNMX in alu, FCHK in xu, S2R of SR_TID in lsu (S2R of SR_CTAID is
 * in none: a trace does not say which register it reads, so S2R counts as
 * lsu here), SHFL in lsu, HFMA2.MMA (a move on the tensor pipe) and LDC in
 * none.  Not measured: HMNMX2 is counted in alu as FMNMX is (an assumption;
 * the PTX frontend's half-precision min/max), F2FP and HSETP2 are there by
 * their classes (sass_hopper.def). */
unsigned
sass_npipe_of(int isa, const char *mn, size_t len)
{
    struct sass_decoded d;
    if (isa < SASS_VOLTA || sass_decode(isa, mn, len, &d) < 0)
        return SASS_NPIPE_NONE;
    const char *name = isas[isa].ops[d.op].name;
    if (strcmp(name, "I2FP") == 0 || strcmp(name, "CS2R") == 0 || strcmp(name, "FSEL") == 0 ||
        strcmp(name, "FMNMX") == 0 || strcmp(name, "HMNMX2") == 0 || strcmp(name, "VOTE") == 0)
        return SASS_NPIPE_ALU;
    if (strcmp(name, "FCHK") == 0 || strcmp(name, "FRND") == 0)
        return SASS_NPIPE_XU;
    if (strcmp(name, "S2R") == 0 || strcmp(name, "SHFL") == 0)
        return SASS_NPIPE_LSU;
    if (strcmp(name, "HFMA2") == 0) {
        const char *dot = memchr(mn, '.', len);
        if (dot != NULL && (size_t)(mn + len - dot) >= 4 && memcmp(dot, ".MMA", 4) == 0)
            return SASS_NPIPE_NONE;
    }
    switch (d.opclass) {
    case SIM_OPC_FP32: case SIM_OPC_FP32_FMA: case SIM_OPC_INT_MUL: case SIM_OPC_INT_WIDE:
    case SIM_OPC_FP16:
        return SASS_NPIPE_FMA;
    case SIM_OPC_INT: case SIM_OPC_SETP:
        return SASS_NPIPE_ALU;
    case SIM_OPC_FP64: case SIM_OPC_FP64_FMA:
        return SASS_NPIPE_FP64;
    case SIM_OPC_SFU: case SIM_OPC_SFU_EX2: case SIM_OPC_CONV: case SIM_OPC_CONV64:
        return SASS_NPIPE_XU;
    case SIM_OPC_MEM:
        return d.mem == SASS_MEM_CONST || d.mem == SASS_MEM_TEX ? SASS_NPIPE_NONE : SASS_NPIPE_LSU;
    default:
        return SASS_NPIPE_NONE;
    }
}

void
sass_register_npipe_stats(stats *st, const uint64_t *counts)
{
    static const char *const help[SASS_NPIPE_COUNT] = {
        NULL,
        "SASS-level warp instructions Nsight Compute counts in pipe fma "
        "(smsp__inst_executed_pipe_fma: FP32 arithmetic, IMAD, VIADD)",
        "SASS-level warp instructions in pipe alu (integer add, logic, shifts, compares, "
        "selects, moves, I2FP)",
        "SASS-level warp instructions in pipe fp64 (DADD, DMUL, DFMA)",
        "SASS-level warp instructions in pipe xu (MUFU, conversions, FCHK)",
        "SASS-level warp instructions in pipe lsu (loads, stores, atomics, S2R, SHFL)",
    };
    static const char *const names[SASS_NPIPE_COUNT] = {
        NULL, "sass.inst_pipe_fma", "sass.inst_pipe_alu", "sass.inst_pipe_fp64",
        "sass.inst_pipe_xu", "sass.inst_pipe_lsu",
    };
    for (unsigned p = SASS_NPIPE_FMA; p < SASS_NPIPE_COUNT; p++)
        stats_add_u64(st, names[p], &counts[p], "warp insts", help[p]);
}

/* ---- encoding ----------------------------------------------------------- */

static uint8_t
mem_of_space(unsigned space)
{
    switch (space) {
    case SIM_SPACE_GLOBAL: return SASS_MEM_GLOBAL;
    case SIM_SPACE_SHARED: return SASS_MEM_SHARED;
    case SIM_SPACE_LOCAL: return SASS_MEM_LOCAL;
    case SIM_SPACE_CONST: case SIM_SPACE_PARAM: return SASS_MEM_CONST;
    case SIM_SPACE_TEX: return SASS_MEM_TEX;
    default: return SASS_MEM_NONE;
    }
}

/* Representative opcodes, most preferred first. */
static const char *const *
candidates(const struct warp_inst *wi)
{
    static const char *const c_nop[] = { "NOP", "MEMBAR", NULL };
    static const char *const c_int[] = { "IADD3", "IADD", "LOP3", "MOV", NULL };
    static const char *const c_setp[] = { "ISETP", NULL };
    static const char *const c_imul[] = { "IMAD", "XMAD", "IMUL", NULL };
    static const char *const c_fp32[] = { "FADD", NULL };
    static const char *const c_ffma[] = { "FFMA", NULL };
    static const char *const c_fp16[] = { "HADD2", NULL };
    static const char *const c_fp64[] = { "DADD", NULL };
    static const char *const c_dfma[] = { "DFMA", NULL };
    static const char *const c_sfu[] = { "MUFU", NULL };
    static const char *const c_conv[] = { "F2I", "F2F", "I2F", NULL };
    static const char *const c_sreg[] = { "S2R", "CS2R", NULL };
    static const char *const c_bra[] = { "BRA", NULL };
    static const char *const c_exit[] = { "EXIT", NULL };
    static const char *const c_warp[] = { "SHFL", "VOTE", NULL };
    static const char *const c_bar[] = { "BAR", NULL };
    static const char *const c_tensor[] = { "HMMA", NULL };
    static const char *const c_dmma[] = { "DMMA", NULL };
    static const char *const c_uniform[] = { "UIADD3", "UMOV", NULL };
    static const char *const c_ldg[] = { "LDG", "LD", NULL };
    static const char *const c_stg[] = { "STG", "ST", NULL };
    static const char *const c_atomg[] = { "ATOMG", "ATOM", NULL };
    static const char *const c_red[] = { "REDG", "RED", NULL };
    static const char *const c_lds[] = { "LDS", "LDSM", NULL };
    static const char *const c_sts[] = { "STS", "STSM", NULL };
    static const char *const c_atoms[] = { "ATOMS", "LDSLK", NULL };
    static const char *const c_ldl[] = { "LDL", NULL };
    static const char *const c_stl[] = { "STL", NULL };
    static const char *const c_ldc[] = { "LDC", NULL };
    static const char *const c_tex[] = { "TEX", "TLD", NULL };
    static const char *const c_none[] = { NULL };

    if (wi->flags & SIM_IF_EXIT)
        return c_exit;
    switch (wi->opclass) {
    case SIM_OPC_NOP: return c_nop;
    case SIM_OPC_INT: return c_int;
    case SIM_OPC_SETP: return c_setp;
    case SIM_OPC_INT_MUL: case SIM_OPC_INT_WIDE: return c_imul;
    case SIM_OPC_FP32: return c_fp32;
    case SIM_OPC_FP32_FMA: return c_ffma;
    case SIM_OPC_FP16: return c_fp16;
    case SIM_OPC_FP64: return c_fp64;
    case SIM_OPC_FP64_FMA: return c_dfma;
    case SIM_OPC_SFU: case SIM_OPC_SFU_EX2: case SIM_OPC_FP32_DIV: case SIM_OPC_FP32_RCP:
    case SIM_OPC_FP32_SQRT:
    case SIM_OPC_FP64_DIV:
        return c_sfu;
    case SIM_OPC_CONV: case SIM_OPC_CONV64: return c_conv;
    case SIM_OPC_SREG: return c_sreg;
    case SIM_OPC_BRANCH: return c_bra;
    case SIM_OPC_WARP: return c_warp;
    case SIM_OPC_BARRIER: return c_bar;
    case SIM_OPC_TENSOR: case SIM_OPC_TENSOR_HALF: return c_tensor;
    case SIM_OPC_TENSOR_DP: return c_dmma;
    case SIM_OPC_UNIFORM: return c_uniform;
    case SIM_OPC_MEM:
        break;
    default:
        return c_none;
    }
    bool ld = wi->flags & SIM_IF_LOAD, st = wi->flags & SIM_IF_STORE;
    bool at = wi->flags & SIM_IF_ATOMIC;
    switch (mem_of_space(wi->space)) {
    case SASS_MEM_GLOBAL: return at ? (ld ? c_atomg : c_red) : st ? c_stg : c_ldg;
    case SASS_MEM_SHARED: return at ? c_atoms : st ? c_sts : c_lds;
    case SASS_MEM_LOCAL: return st ? c_stl : c_ldl;
    case SASS_MEM_CONST: return c_ldc;
    case SASS_MEM_TEX: return c_tex;
    default: return c_none;
    }
}

/* Shape modifiers of opcodes whose operand sizes the mnemonic gives
 * (sass_regs.h), most common first, for an instruction of class cls;
 * "" is the opcode without one. */
static const char *const *
shapes(const char *name, unsigned cls)
{
    static const char *const plain[] = { "", NULL };
    static const char *const hmma[] = { ".16816.F32", ".16816.F16", "", NULL };
    static const char *const hmma_half[] = { ".1688.F32", ".1688.F16", NULL };
    static const char *const imma[] = { ".16832.S8.S8", ".8816.S8.S8", "", NULL };
    static const char *const imma_half[] = { ".16816.S8.S8", NULL };
    static const char *const dmma[] = { ".884", ".16816", ".1688", ".1684", "", NULL };
    static const char *const matrix[] = { ".16.M88.4", ".16.M88.2", ".16.M88", NULL };
    static const char *const wide[] = { ".WIDE", ".HI", NULL };
    static const char *const hi[] = { ".HI", NULL };
    bool half = cls == SIM_OPC_TENSOR_HALF;
    if (cls == SIM_OPC_INT_WIDE)
        return strcmp(name, "IMAD") == 0 ? wide : hi;
    if (strcmp(name, "HMMA") == 0)
        return half ? hmma_half : hmma;
    if (strcmp(name, "IMMA") == 0)
        return half ? imma_half : imma;
    if (strcmp(name, "DMMA") == 0)
        return dmma;
    if (strcmp(name, "LDSM") == 0 || strcmp(name, "STSM") == 0)
        return matrix;
    return plain;
}

/* Write opcode name, shape modifiers and the modifiers wi needs into buf. */
static void
build(int isa, const struct warp_inst *wi, const char *name, const char *shape, char *buf,
      size_t n)
{
    static const char *const wtok[17] = { [1] = ".U8", [2] = ".U16", [8] = ".64", [16] = ".128" };
    size_t k = (size_t)snprintf(buf, n, "%s%s", name, shape);
    const char *extra = "";
    if (wi->opclass == SIM_OPC_CONV64)
        extra = ".F64";
    else if (wi->opclass == SIM_OPC_BARRIER)
        extra = ".SYNC";
    else if (wi->opclass == SIM_OPC_TENSOR_HALF && shape[0] == '\0')
        extra = ".1688.F32";             /* half an HMMA.16816 (tensor_half, above) */
    else if (strcmp(name, "MUFU") == 0)
        extra = wi->opclass == SIM_OPC_FP32_SQRT ? ".SQRT" :
                wi->opclass == SIM_OPC_FP64_DIV ? ".RCP64H" :
                wi->opclass == SIM_OPC_SFU || wi->opclass == SIM_OPC_SFU_EX2 ? ".EX2" : ".RCP";
    if (k < n)
        k += (size_t)snprintf(buf + k, n - k, "%s", extra);
    if (wi->opclass != SIM_OPC_MEM || k >= n)
        return;
    if (strcmp(name, "LDSM") == 0 || strcmp(name, "STSM") == 0)
        return;                          /* the width is the line's, the shape says the rest */
    uint8_t mem = mem_of_space(wi->space);
    bool bypass = (wi->flags & SIM_IF_BYPASS_L1) && mem == SASS_MEM_GLOBAL;
    if (mem == SASS_MEM_GLOBAL)
        k += (size_t)snprintf(buf + k, n - k, ".E");
    if (k < n && bypass && strcmp(name, "LDGSTS") == 0) {
        k += (size_t)snprintf(buf + k, n - k, ".BYPASS");    /* as ptxas writes cp.async.cg */
        bypass = false;
    }
    if (k < n && wi->width <= 16 && wtok[wi->width] != NULL)
        k += (size_t)snprintf(buf + k, n - k, "%s", wtok[wi->width]);
    if (k < n && bypass)
        snprintf(buf + k, n - k, "%s", isa >= SASS_VOLTA ? ".STRONG.GPU" : ".CG");
}

/* True if mnemonic decodes to wi's timing-relevant fields and, with
 * regs, if wi's registers are operands of the sizes it implies
 * (sass_regs.h), so that a reader expanding its first registers gets
 * wi's back. */
static bool
matches(int isa, const struct warp_inst *wi, const char *mn, bool regs)
{
    struct sass_decoded d;
    if (sass_decode(isa, mn, strlen(mn), &d) != 0)
        return false;
    const uint8_t keep = SIM_IF_LOAD | SIM_IF_STORE | SIM_IF_ATOMIC | SIM_IF_BARRIER |
                         SIM_IF_EXIT | SIM_IF_BRANCH | SIM_IF_FENCE | SIM_IF_BYPASS_L1;
    if (d.opclass != wi->opclass || d.flags != (wi->flags & keep))
        return false;
    if (wi->opclass == SIM_OPC_TENSOR_DP && d.units != SIM_DMMA_UNITS(wi->aux))
        return false;
    /* a generic opcode stands for a global access: its addresses lie
     * outside the shared and local windows the writer declares */
    if (wi->opclass == SIM_OPC_MEM && d.mem != mem_of_space(wi->space) &&
        !(d.mem == SASS_MEM_GENERIC && wi->space == SIM_SPACE_GLOBAL))
        return false;
    /* the width travels in the trace's mem_width field; the modifier must
     * not contradict it (a missing one reads as 4) */
    if (d.width != 0 && wi->opclass == SIM_OPC_MEM && d.width != wi->width)
        return false;
    if (!regs)
        return true;
    struct sass_regs r;
    uint16_t first[SIM_MAX_SRC];
    bool exact;
    sass_regs_of(mn, strlen(mn), &d, wi->opclass == SIM_OPC_MEM ? wi->width : 0, &r);
    if (!sass_regs_dst_fits(&r, wi->dst, wi->n_dst))
        return false;
    sass_regs_split(&r, wi->src, wi->n_src, first, SIM_MAX_SRC, &exact);
    return exact;
}

/* Try opcode name with each of its shapes; true with buf set if one
 * matches. */
static bool
try_opcode(int isa, const struct warp_inst *wi, const char *name, bool regs, char *buf, size_t n)
{
    if (sass_isa_find(isa, name, strlen(name)) < 0)
        return false;
    for (const char *const *sh = shapes(name, wi->opclass); *sh != NULL; sh++) {
        build(isa, wi, name, *sh, buf, n);
        if (matches(isa, wi, buf, regs))
            return true;
    }
    return false;
}

int
sass_encode(int isa, const struct warp_inst *wi, const char *base, char *buf, size_t n,
            const char **why)
{
    if (isa < 0 || isa >= SASS_ISA_COUNT) {
        *why = "unknown instruction set";
        return -1;
    }
    /* first an opcode whose operand sizes give back wi's registers, then
     * any of the right class */
    for (int pass = 0; pass < 2; pass++) {
        bool regs = pass == 0;
        if (base != NULL && try_opcode(isa, wi, base, regs, buf, n))
            return 0;
        for (const char *const *c = candidates(wi); *c != NULL; c++) {
            if (try_opcode(isa, wi, *c, regs, buf, n))
                return 0;
            /* classes SASS has no single instruction for (IEEE divide, square
             * root, reciprocal) are written as the MUFU they are built on */
            if (!regs && strcmp(*c, "MUFU") == 0 && sass_isa_find(isa, "MUFU", 4) >= 0) {
                build(isa, wi, *c, "", buf, n);
                return 1;
            }
        }
    }
    *why = "no opcode of this instruction set has the instruction's class and memory kind";
    return -1;
}
