/*
 * ptx_parse_ins.c - PTX bodies and instructions (ptx_parse_ins.h): a
 * body from its '{' to its '}', each instruction's mnemonic, modifiers and
 * operands, special registers, and a call's operands.  Used by
 * ptx_parse.c; it uses ptx_parse_decl.c.
 */
#include "frontend/ptx/ptx_parse_ins.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    uint8_t sreg;
} sreg_names[] = {
    { "%tid.x", SR_TID_X }, { "%tid.y", SR_TID_Y }, { "%tid.z", SR_TID_Z },
    { "%ntid.x", SR_NTID_X }, { "%ntid.y", SR_NTID_Y }, { "%ntid.z", SR_NTID_Z },
    { "%ctaid.x", SR_CTAID_X }, { "%ctaid.y", SR_CTAID_Y }, { "%ctaid.z", SR_CTAID_Z },
    { "%nctaid.x", SR_NCTAID_X }, { "%nctaid.y", SR_NCTAID_Y }, { "%nctaid.z", SR_NCTAID_Z },
    { "%laneid", SR_LANEID }, { "%warpid", SR_WARPID }, { "%nwarpid", SR_NWARPID },
    { "%smid", SR_SMID }, { "%nsmid", SR_NSMID }, { "%gridid", SR_GRIDID },
    { "%clock", SR_CLOCK }, { "%clock64", SR_CLOCK64 },
    { "%lanemask_eq", SR_LANEMASK_EQ }, { "%lanemask_lt", SR_LANEMASK_LT },
    { "%lanemask_le", SR_LANEMASK_LE }, { "%lanemask_gt", SR_LANEMASK_GT },
    { "%lanemask_ge", SR_LANEMASK_GE }, { "%dynamic_smem_size", SR_DYN_SMEM },
    { "%total_smem_size", SR_TOTAL_SMEM }, { "%globaltimer", SR_GLOBALTIMER },
    { "%clock_hi", SR_CLOCK_HI }, { "%globaltimer_lo", SR_GLOBALTIMER_LO },
    { "%globaltimer_hi", SR_GLOBALTIMER_HI }, { "%aggr_smem_size", SR_AGGR_SMEM },
    { "%reserved_smem_offset_begin", SR_RSV_BEGIN }, { "%reserved_smem_offset_end", SR_RSV_END },
    { "%reserved_smem_offset_cap", SR_RSV_CAP }, { "%reserved_smem_offset_0", SR_RSV_0 },
    { "%reserved_smem_offset_1", SR_RSV_1 },
    { "%clusterid.x", SR_CLUSTERID_X }, { "%clusterid.y", SR_CLUSTERID_Y },
    { "%clusterid.z", SR_CLUSTERID_Z }, { "%nclusterid.x", SR_NCLUSTERID_X },
    { "%nclusterid.y", SR_NCLUSTERID_Y }, { "%nclusterid.z", SR_NCLUSTERID_Z },
    { "%cluster_ctaid.x", SR_CLUSTER_CTAID_X }, { "%cluster_ctaid.y", SR_CLUSTER_CTAID_Y },
    { "%cluster_ctaid.z", SR_CLUSTER_CTAID_Z }, { "%cluster_nctaid.x", SR_CLUSTER_NCTAID_X },
    { "%cluster_nctaid.y", SR_CLUSTER_NCTAID_Y }, { "%cluster_nctaid.z", SR_CLUSTER_NCTAID_Z },
    { "%cluster_ctarank", SR_CLUSTER_CTARANK }, { "%cluster_nctarank", SR_CLUSTER_NCTARANK },
    { "%current_graph_exec", SR_CURRENT_GRAPH_EXEC },
    { "%is_explicit_cluster", SR_IS_EXPLICIT_CLUSTER },
    /* the vector registers, whole (the components are above) */
    { "%tid", SR_VECTOR }, { "%ntid", SR_VECTOR }, { "%ctaid", SR_VECTOR },
    { "%nctaid", SR_VECTOR }, { "%clusterid", SR_VECTOR }, { "%nclusterid", SR_VECTOR },
    { "%cluster_ctaid", SR_VECTOR }, { "%cluster_nctaid", SR_VECTOR },
};

/* ---- instructions ------------------------------------------------------- */

struct mod_word {
    const char *w;
    int kind;                    /* 0 flag, 1 space, 2 cmp, 3 rnd, 4 atom/bool, 5 mode, 6 ignore */
    uint32_t v;
};

static const struct mod_word mods[] = {
    { "approx", 0, PF_APPROX }, { "full", 0, PF_FULL }, { "ftz", 0, PF_FTZ }, { "sat", 0, PF_SAT },
    { "hi", 0, PF_HI }, { "lo", 0, PF_LO }, { "wide", 0, PF_WIDE }, { "uni", 0, PF_UNI },
    { "cc", 0, PF_CC }, { "cg", 0, PF_BYPASS_L1 }, { "cs", 0, PF_BYPASS_L1 },
    { "cv", 0, PF_BYPASS_L1 }, { "lu", 0, PF_BYPASS_L1 }, { "volatile", 0, PF_BYPASS_L1 },
    { "async", 6, 0 }, { "commit_group", 5, PM_COMMIT }, { "wait_group", 5, PM_WAIT },
    { "wait_all", 5, PM_WAITALL }, { "row", 6, 0 }, { "col", 6, 0 },
    { "trans", 0, PF_TRANS },
    { "ca", 6, 0 }, { "wb", 6, 0 }, { "wt", 6, 0 }, { "nc", 0, PF_NC },
    { "sync", 0, PF_SYNC }, { "arrive", 0, PF_ARRIVE }, { "wrap", 0, PF_WRAP },
    { "clamp", 0, PF_CLAMP }, { "to", 0, PF_TO }, { "shiftamt", 0, PF_SHIFTAMT },
    { "relu", 0, PF_RELU }, { "warp", 0, PF_WARPSYNC }, { "NaN", 0, PF_NAN },
    { "xorsign", 0, PF_XORSIGN }, { "abs", 0, PF_ABSMOD }, { "satfinite", 0, PF_SATFINITE },
    { "global", 1, PS_GLOBAL }, { "shared", 1, PS_SHARED }, { "shared::cta", 1, PS_SHARED },
    { "shared::cluster", 1, PS_SHARED },   /* any block's of the cluster: (rank + 1) << 24 |
                                              offset (ptx_cluster.h), else the block's own */
    { "bulk", 0, PF_BULK }, { "read", 6, 0 },   /* wait_group.read: waited as a full wait */ { "parity", 0, PF_PARITY },
    { "tensor", 0, PF_TENSOR }, { "wait", 6, 0 }, { "tile", 6, 0 }, { "prefetch", 5, PM_PREFETCH },
    { "L2", 6, 0 },
    { "bulk_group", 6, 0 }, { "mbarrier::complete_tx::bytes", 6, 0 }, { "proxy", 6, 0 },
    { "mbarrier_init", 6, 0 }, { "launch_dependents", 5, PM_GDC_LAUNCH },
    { "local", 1, PS_LOCAL }, { "param", 1, PS_PARAM }, { "const", 1, PS_CONST },
    { "eq", 2, PC_EQ }, { "ne", 2, PC_NE }, { "lt", 2, PC_LT }, { "le", 2, PC_LE },
    { "gt", 2, PC_GT }, { "ge", 2, PC_GE }, { "lo", 2, PC_LO }, { "ls", 2, PC_LS },
    { "hi", 2, PC_HI }, { "hs", 2, PC_HS }, { "equ", 2, PC_EQU }, { "neu", 2, PC_NEU },
    { "ltu", 2, PC_LTU }, { "leu", 2, PC_LEU }, { "gtu", 2, PC_GTU }, { "geu", 2, PC_GEU },
    { "num", 2, PC_NUM }, { "nan", 2, PC_NAN },
    { "rn", 3, PR_RN }, { "rz", 3, PR_RZ }, { "rm", 3, PR_RM }, { "rp", 3, PR_RP },
    { "rna", 3, PR_RNA }, { "rni", 3, PR_RNI }, { "rzi", 3, PR_RZI }, { "rmi", 3, PR_RMI }, { "rpi", 3, PR_RPI },
    { "add", 4, PA_ADD }, { "min", 4, PA_MIN }, { "max", 4, PA_MAX }, { "inc", 4, PA_INC },
    { "dec", 4, PA_DEC }, { "and", 4, PA_AND }, { "or", 4, PA_OR }, { "xor", 4, PA_XOR },
    { "exch", 4, PA_EXCH }, { "cas", 4, PA_CAS },
    { "up", 5, PM_UP }, { "down", 5, PM_DOWN }, { "bfly", 5, PM_BFLY }, { "idx", 5, PM_IDX },
    { "all", 5, PM_ALL }, { "any", 5, PM_ANY }, { "ballot", 5, PM_BALLOT },
    { "finite", 5, PM_FINITE }, { "infinite", 5, PM_INFINITE }, { "number", 5, PM_NUMBER },
    { "notanumber", 5, PM_NOTANUMBER }, { "normal", 5, PM_NORMAL },
    { "subnormal", 5, PM_SUBNORMAL }, { "l", 5, PM_L }, { "r", 5, PM_R },
    /* memory ordering and scope qualifiers: no effect in this model */
    { "relaxed", 6, 0 }, { "acquire", 6, 0 }, { "release", 6, 0 }, { "acq_rel", 6, 0 },
    { "sc", 6, 0 }, { "weak", 6, 0 }, { "strong", 6, 0 }, { "gpu", 6, 0 }, { "sys", 6, 0 },
    { "cta", 6, 0 }, { "gl", 6, 0 }, { "cluster", 6, 0 }, { "aligned", 6, 0 }, { "noftz", 6, 0 }, { "mmio", 6, 0 },
    { "L1::evict_last", 6, 0 }, { "L1::evict_first", 6, 0 }, { "L1::evict_normal", 6, 0 },
    { "L2::evict_first", 6, 0 }, { "L2::evict_unchanged", 6, 0 },   /* createpolicy, applypriority */
    { "L1::no_allocate", 6, 0 }, { "L2::64B", 6, 0 }, { "L2::128B", 6, 0 },
    { "L2::256B", 6, 0 }, { "L2::cache_hint", 6, 0 }, { "red", 6, 0 }, { "popc", 6, 0 },
    /* prefetch's cache levels and eviction priorities */
    { "L1", 6, 0 }, { "L2::evict_last", 6, 0 }, { "L2::evict_normal", 6, 0 },
};

/* ORDER SHAPE (enum ptx_shape) */
static const char *const shape_names[SH_COUNT] = {
    "", "m16n8k4", "m16n8k8", "m16n8k16", "m16n8k32", "m16n16k16", "m32n8k16", "m8n32k16",
    "m16n16k8", "m8n8", "m8n8k4"
};

/* The words of texture and surface instructions (tex, tld4, txq, suld,
 * sust, suq): the geometry into ins->shape, tex.level / .grad into
 * ins->mode, tld4's component, a surface's out-of-bounds mode and a
 * query into ins->frag.  1: not such a word (the common table decides). */
static int
apply_tex_mod(struct parser *ps, struct ptx_ins *ins, const char *w)
{
    static const char *const geoms[] = { "", "1d", "2d", "3d", "a1d", "a2d", "cube", "acube" };
    static const char *const queries[] = { "", "width", "height", "depth", "array_size",
                                           "normalized_coords", "filter_mode", "addr_mode_0",
                                           "addr_mode_1", "addr_mode_2", "num_mipmap_levels",
                                           "num_samples" };
    bool surf = ins->op == PTXOP_SULD || ins->op == PTXOP_SUST;
    for (unsigned i = 1; i < SIM_ARRAY_LEN(geoms); i++)
        if (strcmp(w, geoms[i]) == 0 && ins->op != PTXOP_TXQ && ins->op != PTXOP_SUQ) {
            if (surf && i >= TG_CUBE)
                break;
            ins->shape = (uint8_t)i;
            return SIM_OK;
        }
    if (ins->op == PTXOP_TXQ || ins->op == PTXOP_SUQ)
        for (unsigned i = 1; i < SIM_ARRAY_LEN(queries); i++)
            if (strcmp(w, queries[i]) == 0) {
                ins->frag = (uint8_t)i;
                return SIM_OK;
            }
    if (ins->op == PTXOP_TEX && (strcmp(w, "level") == 0 || strcmp(w, "grad") == 0)) {
        ins->mode = w[0] == 'l' ? PM_TEX_LEVEL : PM_TEX_GRAD;
        return SIM_OK;
    }
    if (ins->op == PTXOP_TEX && strcmp(w, "base") == 0)
        return SIM_OK;           /* level 0: what a texture without mipmaps has */
    if (ins->op == PTXOP_TLD4 && w[1] == '\0' && strchr("rgba", w[0]) != NULL) {
        ins->frag = (uint8_t)w[0];
        return SIM_OK;
    }
    if (surf && strcmp(w, "b") == 0)
        return SIM_OK;           /* unformatted: raw bits */
    if (surf && (strcmp(w, "trap") == 0 || strcmp(w, "clamp") == 0 || strcmp(w, "zero") == 0)) {
        ins->frag = (uint8_t)w[0];
        return SIM_OK;
    }
    if ((surf && strcmp(w, "p") == 0) || strcmp(w, "2dms") == 0 || strcmp(w, "a2dms") == 0 ||
        (ins->op == PTXOP_TXQ && strcmp(w, "level") == 0) || strncmp(w, "channel_", 8) == 0 ||
        strcmp(w, "force_unnormalized_coords") == 0)
        return ptx_parse_unsupported(ps, "unsupported %s form '.%s' (supported: unformatted "
                                     "surface access .b, textures of one level, sampled with "
                                     "their own sampler state; queries of size, array size, "
                                     "sampler state)", ptx_op_name(ins->op), w);
    return 1;
}

/* Apply one '.'-separated modifier of instruction ins. */
static int
apply_mod(struct parser *ps, struct ptx_ins *ins, const char *w, unsigned *ntypes)
{
    uint8_t t;
    char tw[64];
    snprintf(tw, sizeof tw, ".%s", w);
    bool mma = ins->op == PTXOP_MMA || ins->op == PTXOP_WMMA || ins->op == PTXOP_WGMMA;
    if (ptx_parse_type_word(tw, &t) == 0) {
        /* mma.dtype.atype.btype.ctype; wmma.mma.dtype.ctype (f16 inputs) */
        if (*ntypes == 0)
            ins->type = t;
        else if ((!mma && ins->op != PTXOP_VABSDIFF4) || *ntypes == 1)
            ins->type2 = t;
        else if (*ntypes == 2)
            ins->type3 = t;
        else if (*ntypes == 3)
            ins->type4 = t;
        else
            return ptx_parse_err(ps, "'%s': more than four types", ps->lx.tok);
        (*ntypes)++;
        if (ins->op == PTXOP_WMMA || ins->op == PTXOP_MMA)
            ins->vec = (uint8_t)*ntypes;
        return SIM_OK;
    }
    if (ins->op == PTXOP_TEX || ins->op == PTXOP_TLD4 || ins->op == PTXOP_TXQ ||
        ins->op == PTXOP_SULD || ins->op == PTXOP_SUST || ins->op == PTXOP_SUQ) {
        int rc = apply_tex_mod(ps, ins, w);
        if (rc != 1)
            return rc;
    }
    if (ins->op == PTXOP_WGMMA) {
        /* wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype; .fence,
         * .commit_group, .wait_group (.sync.aligned) */
        static const struct { const char *w; uint8_t mode; } wg[] = {
            { "mma_async", PM_WG_MMA }, { "fence", PM_WG_FENCE },
            { "commit_group", PM_WG_COMMIT }, { "wait_group", PM_WG_WAIT },
        };
        for (size_t i = 0; i < SIM_ARRAY_LEN(wg); i++)
            if (strcmp(w, wg[i].w) == 0 && ins->mode == PM_NONE) {
                ins->mode = wg[i].mode;
                return SIM_OK;
            }
        unsigned n, k;
        char tail;
        if (sscanf(w, "m64n%uk%u%c", &n, &k, &tail) == 2) {
            if (n < 8 || n > 256 || n % 8 != 0 || (k != 8 && k != 16 && k != 32))
                return ptx_parse_unsupported(ps, "unsupported wgmma shape '.%s' (m64nNkK: N a "
                                             "multiple of 8 up to 256, K 8, 16 or 32)", w);
            ins->shape = SH_M64;
            ins->vec = (uint8_t)(n / 8);
            ins->frag = (uint8_t)k;
            return SIM_OK;
        }
        if (strcmp(w, "sp") == 0)
            return ptx_parse_unsupported(ps, "unsupported instruction 'wgmma.mma_async.sp' (sparse "
                                         "warpgroup MMA)");
    }
    if (w[0] == 'm' && w[1] >= '0' && w[1] <= '9' &&
        (mma || ins->op == PTXOP_LDMATRIX || ins->op == PTXOP_STMATRIX)) {
        for (unsigned i = 1; i < SH_COUNT; i++)
            if (strcmp(w, shape_names[i]) == 0) {
                ins->shape = (uint8_t)i;
                return SIM_OK;
            }
        return ptx_parse_unsupported(ps, "unsupported shape '.%s' on '%s' (supported: mma .m16n8k4 "
                           ".m16n8k8 .m16n8k16 .m16n8k32, .m8n8k4 (.f64); wmma .m16n16k16 "
                           ".m32n8k16 .m8n32k16 .m16n16k8, .m8n8k4 (.f64); ldmatrix/stmatrix .m8n8)", w, ptx_op_name(ins->op));
    }
    if ((ins->op == PTXOP_LDMATRIX || ins->op == PTXOP_STMATRIX) && w[0] == 'x' &&
        (strcmp(w, "x1") == 0 || strcmp(w, "x2") == 0 || strcmp(w, "x4") == 0)) {
        ins->vec = (uint8_t)(w[1] - '0');
        return SIM_OK;
    }
    if (ins->op == PTXOP_WMMA) {
        /* wmma.load.a / .store.d / .mma, the layouts, the shape */
        if (strcmp(w, "load") == 0 || strcmp(w, "store") == 0 || strcmp(w, "mma") == 0) {
            ins->mode = w[0] == 'l' ? PM_WLOAD : w[0] == 's' ? PM_WSTORE : PM_WMMA;
            return SIM_OK;
        }
        if (w[1] == '\0' && w[0] >= 'a' && w[0] <= 'd') {
            ins->frag = (uint8_t)w[0];
            return SIM_OK;
        }
        if (strcmp(w, "row") == 0 || strcmp(w, "col") == 0) {
            if (ins->mode != PM_WMMA && w[0] == 'c')
                ins->flags |= PF_COLMAJOR;   /* mma's .alayout.blayout: the fragments' own */
            return SIM_OK;
        }
    }
    if (ins->op == PTXOP_CP && (ins->flags & PF_TENSOR) && w[0] >= '1' && w[0] <= '5' &&
        w[1] == 'd' && w[2] == '\0') {
        ins->vec = (uint8_t)(w[0] - '0');   /* cp.async.bulk.tensor.Nd */
        return SIM_OK;
    }
    if (ins->op == PTXOP_CP && (ins->flags & PF_TENSOR) &&
        (strcmp(w, "im2col") == 0 || strcmp(w, "im2col_no_offs") == 0)) {
        ins->xmod |= PX_IM2COL;       /* the offsets operand: ptx_decode.c */
        ins->frag = w[6] == '_' ? 'o' : 0;
        return SIM_OK;
    }
    if (ins->op == PTXOP_CP && (strncmp(w, "im2col", 6) == 0 || strncmp(w, "tile::", 6) == 0 ||
                                strncmp(w, "cta_group", 9) == 0))
        return ptx_parse_unsupported(ps, "unsupported cp.async.bulk form '.%s' (supported: "
                                     ".tile and .im2col tensor copies, .multicast::cluster)", w);
    if (ins->op == PTXOP_CP && ins->flags == 0 && ins->mode == PM_NONE &&
        strcmp(w, "mbarrier") == 0) {
        ins->mode = PM_CP_MB_ARRIVE;  /* cp.async.mbarrier.arrive{.noinc} */
        return SIM_OK;
    }
    if (ins->op == PTXOP_CP && (ins->mode == PM_CP_MB_ARRIVE || ins->mode == PM_CP_MB_NOINC)) {
        if (strcmp(w, "arrive") == 0 && !(ins->flags & PF_ARRIVE)) {
            ins->flags |= PF_ARRIVE;
            return SIM_OK;
        }
        if (strcmp(w, "noinc") == 0 && (ins->flags & PF_ARRIVE)) {
            ins->mode = PM_CP_MB_NOINC;
            return SIM_OK;
        }
        if (strcmp(w, "b64") != 0 && strcmp(w, "shared") != 0 && strcmp(w, "shared::cta") != 0)
            return ptx_parse_unsupported(ps, "unsupported cp.async.mbarrier form '.%s' "
                                         "(expected cp.async.mbarrier.arrive{.noinc}"
                                         "{.shared{::cta}}.b64 [addr])", w);
    }
    if (ins->op == PTXOP_CP && strcmp(w, "multicast::cluster") == 0) {
        ins->xmod |= PX_MULTICAST;
        return SIM_OK;
    }
    if (ins->op == PTXOP_CP && strcmp(w, "reduce") == 0 && ins->flags == 0 &&
        ins->mode == PM_NONE) {
        ins->xmod |= PX_REDUCE;   /* cp.reduce.async.bulk */
        return SIM_OK;
    }
    if (ins->op == PTXOP_PREFETCH && strcmp(w, "tensormap") == 0)
        return SIM_OK;           /* prefetch{.const|.param}.tensormap [a]: a TMA descriptor */
    if (ins->op == PTXOP_CREATEPOLICY &&
        (strcmp(w, "fractional") == 0 || strcmp(w, "range") == 0 || strcmp(w, "cvt") == 0)) {
        ins->frag = (uint8_t)w[0];   /* its operands: d{, fraction}; d, [a], size, size; d, p */
        return SIM_OK;
    }
    if (ins->op == PTXOP_FENCE && strcmp(w, "tensormap::generic") == 0) {
        ins->frag = 't';         /* fence.proxy.tensormap::generic.acquire.scope [a], 128 */
        return SIM_OK;
    }
    if ((ins->op == PTXOP_ST || ins->op == PTXOP_RED) && strcmp(w, "async") == 0) {
        ins->xmod |= PX_ASYNC;   /* st.async, red.async (sm_90) */
        return SIM_OK;
    }
    if (strcmp(w, "L2::cache_hint") == 0)
        ins->xmod |= PX_CACHE_HINT;   /* and on through the table (no other effect) */
    if (w[0] == 'v' && (strcmp(w, "v2") == 0 || strcmp(w, "v4") == 0)) {
        ins->vec = (uint8_t)(w[1] - '0');
        return SIM_OK;
    }
    if (ins->op == PTXOP_PRMT) {
        static const char *const pm[] = { "f4e", "b4e", "rc8", "ecl", "ecr", "rc16" };
        for (size_t i = 0; i < SIM_ARRAY_LEN(pm); i++)
            if (strcmp(w, pm[i]) == 0) {
                ins->mode = (uint8_t)(PM_PRMT_F4E + i);
                return SIM_OK;
            }
    }
    if (ins->op == PTXOP_GRIDDEPCONTROL && strcmp(w, "wait") == 0) {
        ins->mode = PM_GDC_WAIT;
        return SIM_OK;
    }
    if (ins->op == PTXOP_MBARRIER) {
        static const struct { const char *w; uint8_t mode; } mb[] = {
            { "init", PM_MB_INIT }, { "arrive", PM_MB_ARRIVE }, { "expect_tx", PM_MB_EXPECT_TX },
            { "complete_tx", PM_MB_COMPLETE_TX }, { "test_wait", PM_MB_TEST },
            { "try_wait", PM_MB_TRY }, { "inval", PM_MB_INVAL },
            { "pending_count", PM_MB_PENDING },
        };
        if (strcmp(w, "arrive_drop") == 0 && ins->mode == PM_NONE) {
            ins->mode = PM_MB_ARRIVE;     /* an arrive whose arrivals also drop out */
            ins->xmod |= PX_DROP;
            return SIM_OK;
        }
        for (size_t i = 0; i < SIM_ARRAY_LEN(mb); i++)
            if (strcmp(w, mb[i].w) == 0) {
                if (ins->mode == PM_MB_ARRIVE && mb[i].mode == PM_MB_EXPECT_TX)
                    ins->mode = PM_MB_ARRIVE_TX;       /* arrive.expect_tx */
                else if (ins->mode != PM_NONE)
                    return ptx_parse_unsupported(ps, "unsupported mbarrier form '.%s' after "
                                                 "another operation", w);
                else
                    ins->mode = mb[i].mode;
                return SIM_OK;
            }
        if (strcmp(w, "noComplete") == 0 && ins->mode == PM_MB_ARRIVE) {
            ins->xmod |= PX_NO_COMPLETE;
            return SIM_OK;
        }
    }
    unsigned op = ins->op;
    for (size_t i = 0; i < SIM_ARRAY_LEN(mods); i++) {
        if (strcmp(mods[i].w, w) != 0)
            continue;
        /* disambiguate words that mean different things per instruction */
        bool atomic_op = op == PTXOP_ATOM || op == PTXOP_RED || op == PTXOP_REDUX ||
                         (op == PTXOP_CP && (ins->xmod & PX_REDUCE)) ||
                         op == PTXOP_SETMAXNREG ||                  /* its .inc / .dec */
                         op == PTXOP_BAR || op == PTXOP_BARRIER ||  /* bar.red.and / .or */
                         op == PTXOP_VABSDIFF4;                     /* its .add (.min, .max) */
        bool boolean_op = op == PTXOP_SETP || op == PTXOP_SET || op == PTXOP_VOTE;
        switch (mods[i].kind) {
        case 0:
            if ((strcmp(w, "lo") == 0 || strcmp(w, "hi") == 0) &&
                (op == PTXOP_SETP || op == PTXOP_SET))
                continue;              /* the comparison .lo/.hi */
            if (strcmp(w, "uni") == 0 && op == PTXOP_VOTE) {
                ins->mode = PM_UNI;
                return SIM_OK;
            }
            ins->flags |= mods[i].v;
            return SIM_OK;
        case 1:
            if (ins->space != PS_GENERIC && op == PTXOP_CP && (ins->flags & PF_BULK))
                ins->space2 = (uint8_t)mods[i].v;   /* cp.async.bulk.dst.src */
            else
                ins->space = (uint8_t)mods[i].v;
            return SIM_OK;
        case 2:
            ins->cmp = (uint8_t)mods[i].v;
            return SIM_OK;
        case 3:
            ins->rnd = (uint8_t)mods[i].v;
            return SIM_OK;
        case 4:
            if (atomic_op) {
                ins->atom = (uint8_t)mods[i].v;
                return SIM_OK;
            }
            if (boolean_op && (mods[i].v == PA_AND || mods[i].v == PA_OR || mods[i].v == PA_XOR)) {
                ins->mode = mods[i].v == PA_AND ? PM_AND : mods[i].v == PA_OR ? PM_OR : PM_XOR;
                return SIM_OK;
            }
            if (op == PTXOP_MIN || op == PTXOP_MAX)
                return SIM_OK;
            break;
        case 5:
            ins->mode = (uint8_t)mods[i].v;
            return SIM_OK;
        default:
            return SIM_OK;
        }
    }
    return ptx_parse_unsupported(ps, "unsupported modifier '.%s' on '%s'", w, ptx_op_name(op));
}

/* The special register called w: a name of the table, %envreg0 .. 31,
 * %pm0 .. 7 or %pm0_64 .. %pm7_64; else SR_NONE. */
static uint8_t
sreg_lookup(const char *w)
{
    /* the second character first: most operands are registers (%r12),
     * which it tells from nearly every name without a call */
    for (size_t i = 0; i < SIM_ARRAY_LEN(sreg_names); i++)
        if (sreg_names[i].name[1] == w[1] && strcmp(sreg_names[i].name, w) == 0)
            return sreg_names[i].sreg;
    char *end;
    if (strncmp(w, "%envreg", 7) == 0 && isdigit((unsigned char)w[7])) {
        unsigned long i = strtoul(w + 7, &end, 10);
        if (i >= 32 || *end != '\0' || (w[7] == '0' && w[8] != '\0'))
            return SR_NONE;
        return i == 1 ? SR_ENVREG_GRID_HI : i == 2 ? SR_ENVREG_GRID_LO : SR_ENVREG;
    }
    if (strncmp(w, "%pm", 3) == 0 && w[3] >= '0' && w[3] <= '7')
        return w[4] == '\0' ? SR_PM : strcmp(w + 4, "_64") == 0 ? SR_PM64 : SR_NONE;
    return SR_NONE;
}

/* A register, special register or '_' in operand position. */
static int
parse_reg_operand(struct parser *ps, struct ptx_opnd *o)
{
    uint8_t sr = sreg_lookup(ps->lx.tok);
    if (sr != SR_NONE) {
        o->kind = PO_SREG;
        o->sreg = sr;
        return next(ps);
    }
    int32_t r = ptx_parse_find_reg(ps, ps->lx.tok);
    if (r < 0)
        return ptx_parse_err(ps, "undeclared register '%s'", ps->lx.tok);
    o->kind = PO_REG;
    o->reg = r;
    return next(ps);
}

/* Parse one operand.  in_branch: a bare name is a label. */
static int
ptx_parse_operand(struct parser *ps, struct ptx_opnd *o, bool in_branch, bool long_vec)
{
    memset(o, 0, sizeof *o);
    o->reg = -1;
    o->sym = -1;
    o->label = -1;
    if (is_punct(ps, '!')) {
        o->neg = 1;
        SIM_FORWARD_IF_ERROR(next(ps));
    }
    if (is_punct(ps, '{')) {
        SIM_FORWARD_IF_ERROR(next(ps));
        o->kind = PO_VEC;
        int32_t longv[PTX_MAX_LONG_VEC];
        for (;;) {
            if (o->nvec == PTX_MAX_VEC && !long_vec)
                return ptx_parse_err(ps, "vector operand with more than %d elements", PTX_MAX_VEC);
            if (o->nvec == PTX_MAX_LONG_VEC)
                return ptx_parse_err(ps, "vector operand with more than %d elements",
                                     PTX_MAX_LONG_VEC);
            int64_t v;
            if (o->nvec >= PTX_MAX_VEC) {
                /* a wgmma accumulator: registers only */
                int32_t r = ps->lx.kind == PTX_TK_WORD ? ptx_parse_find_reg(ps, ps->lx.tok) : -1;
                if (r < 0)
                    return ptx_parse_err(ps, "expected a register in a vector operand, found '%s'",
                                         ps->lx.tok);
                if (o->nvec == PTX_MAX_VEC) {
                    bool sink = false;
                    for (unsigned i = 0; i < PTX_MAX_VEC; i++)
                        sink = sink || o->regs[i] < 0;
                    if (o->vimm != 0 || sink)
                        return ptx_parse_err(ps, "a vector operand longer than %d holds registers "
                                             "only", PTX_MAX_VEC);
                    memcpy(longv, o->regs, sizeof o->regs);
                }
                longv[o->nvec++] = r;
                SIM_FORWARD_IF_ERROR(next(ps));
            } else
            if (ps->lx.kind == PTX_TK_WORD && strcmp(ps->lx.tok, "_") == 0) {
                o->regs[o->nvec++] = -1;
                SIM_FORWARD_IF_ERROR(next(ps));
            } else if (ps->lx.kind == PTX_TK_NUM && ptx_lex_int(ps->lx.tok, &v)) {
                o->vimm |= (uint8_t)(1u << o->nvec);
                o->regs[o->nvec++] = (int32_t)(uint32_t)v;
                SIM_FORWARD_IF_ERROR(next(ps));
            } else if (ps->lx.kind == PTX_TK_WORD && (ps->lx.tok[0] == '%' || ptx_parse_find_reg(ps, ps->lx.tok) >= 0)) {
                int32_t r = ptx_parse_find_reg(ps, ps->lx.tok);
                if (r < 0)
                    return ptx_parse_err(ps, "undeclared register '%s'", ps->lx.tok);
                o->regs[o->nvec++] = r;
                SIM_FORWARD_IF_ERROR(next(ps));
            } else {
                return ptx_parse_err(ps, "expected a register in a vector operand, found '%s'", ps->lx.tok);
            }
            if (is_punct(ps, ',')) {
                SIM_FORWARD_IF_ERROR(next(ps));
                continue;
            }
            break;
        }
        if (o->nvec > PTX_MAX_VEC) {
            struct ptx_kernel *k = ps->k;
            uint32_t cap = 256;        /* capacity: the least power of two >= n_vregs */
            while (cap < k->n_vregs)
                cap *= 2;
            if (k->vregs == NULL || k->n_vregs + o->nvec > cap)
                k->vregs = xrealloc(k->vregs, 2 * (size_t)cap * sizeof *k->vregs);
            memcpy(k->vregs + k->n_vregs, longv, o->nvec * sizeof *longv);
            o->imm = k->n_vregs;
            k->n_vregs += o->nvec;
        }
        return expect_punct(ps, '}');
    }
    if (is_punct(ps, '[')) {
        SIM_FORWARD_IF_ERROR(next(ps));
        o->kind = PO_MEM;
        if (ps->lx.kind == PTX_TK_WORD && (ps->lx.tok[0] == '%' || ptx_parse_find_reg(ps, ps->lx.tok) >= 0)) {
            int32_t r = ptx_parse_find_reg(ps, ps->lx.tok);
            if (r < 0)
                return ptx_parse_err(ps, "undeclared register '%s'", ps->lx.tok);
            o->reg = r;
            SIM_FORWARD_IF_ERROR(next(ps));
        } else if (ps->lx.kind == PTX_TK_WORD) {
            int32_t s = ptx_parse_find_sym(ps, ps->lx.tok);
            if (s == SYM_UNKNOWN)
                return ptx_parse_err(ps, "no register or variable called '%s'", ps->lx.tok);
            o->sym = s;
            SIM_FORWARD_IF_ERROR(next(ps));
        } else if (ps->lx.kind == PTX_TK_NUM) {
            if (!ptx_lex_int(ps->lx.tok, &o->imm))
                return ptx_parse_err(ps, "bad address '%s'", ps->lx.tok);
            SIM_FORWARD_IF_ERROR(next(ps));
            return expect_punct(ps, ']');
        } else {
            return ptx_parse_err(ps, "expected an address, found '%s'", ps->lx.tok);
        }
        if (is_punct(ps, '+') || is_punct(ps, '-')) {
            bool minus = is_punct(ps, '-');
            SIM_FORWARD_IF_ERROR(next(ps));
            if (is_punct(ps, '-')) {
                minus = !minus;
                SIM_FORWARD_IF_ERROR(next(ps));
            }
            int64_t off;
            if (ps->lx.kind != PTX_TK_NUM || !ptx_lex_int(ps->lx.tok, &off))
                return ptx_parse_err(ps, "bad address offset '%s'", ps->lx.tok);
            o->imm = minus ? -off : off;
            SIM_FORWARD_IF_ERROR(next(ps));
        }
        if (is_punct(ps, ',')) {
            /* [tensorMap, {c0, c1, ...}]: cp.async.bulk.tensor's coordinates */
            SIM_FORWARD_IF_ERROR(next(ps));
            if (!is_punct(ps, '{'))
                return ptx_parse_err(ps, "expected '{' and tensor coordinates after ',' in an "
                                     "address, found '%s'", ps->lx.tok);
            SIM_FORWARD_IF_ERROR(ptx_parse_operand(ps, &ps->coords, false, false));
            ps->has_coords = true;
        }
        return expect_punct(ps, ']');
    }
    if (is_punct(ps, '-') || ps->lx.kind == PTX_TK_NUM) {
        bool minus = false;
        if (is_punct(ps, '-')) {
            minus = true;
            SIM_FORWARD_IF_ERROR(next(ps));
        }
        if (ps->lx.kind != PTX_TK_NUM)
            return ptx_parse_err(ps, "expected a number after '-', found '%s'", ps->lx.tok);
        o->kind = PO_IMM;
        if (ptx_lex_float(ps->lx.tok, &o->imm, &o->fimm)) {
            if (minus) {
                if (o->fimm == 1)
                    o->imm ^= INT64_C(0x80000000);
                else
                    o->imm ^= INT64_MIN;
            }
        } else if (ptx_lex_int(ps->lx.tok, &o->imm)) {
            if (minus)
                o->imm = -o->imm;
        } else {
            return ptx_parse_err(ps, "bad number '%s'", ps->lx.tok);
        }
        return next(ps);
    }
    if (ps->lx.kind == PTX_TK_WORD && (ps->lx.tok[0] == '%' || ptx_parse_find_reg(ps, ps->lx.tok) >= 0))
        return parse_reg_operand(ps, o);
    if (ps->lx.kind == PTX_TK_WORD && strcmp(ps->lx.tok, "_") == 0) {
        o->kind = PO_SINK;
        return next(ps);
    }
    if (ps->lx.kind == PTX_TK_WORD) {
        if (in_branch) {
            o->kind = PO_LABEL;
            o->label = ptx_parse_find_label(ps, ps->lx.tok);
            return next(ps);
        }
        int32_t s = ptx_parse_find_sym(ps, ps->lx.tok);
        if (s == SYM_UNKNOWN && strcmp(ps->lx.tok, "WARP_SZ") == 0) {
            /* the ISA's one predefined constant (section 4.4, "Predefined
             * Identifiers"): the warp size, nvcc's spelling of warpSize */
            o->kind = PO_IMM;
            o->imm = 32;
            return next(ps);
        }
        int32_t fn = s == SYM_UNKNOWN ? ptx_module_func(ps->m, ps->lx.tok) : -1;
        if (fn >= 0) {
            o->kind = PO_FUNC;           /* a function's address */
            o->sym = fn;
            ps->m->funcs[fn].addr_taken = true;
            return next(ps);
        }
        if (s == SYM_UNKNOWN)
            return ptx_parse_err(ps, "no register or variable called '%s'", ps->lx.tok);
        o->kind = PO_SYM;
        o->sym = s;
        SIM_FORWARD_IF_ERROR(next(ps));
        if (is_punct(ps, '+')) {
            SIM_FORWARD_IF_ERROR(next(ps));
            if (ps->lx.kind != PTX_TK_NUM || !ptx_lex_int(ps->lx.tok, &o->imm))
                return ptx_parse_err(ps, "bad symbol offset '%s'", ps->lx.tok);
            SIM_FORWARD_IF_ERROR(next(ps));
        }
        return SIM_OK;
    }
    return ptx_parse_err(ps, "unexpected '%s' in an operand", ps->lx.tok);
}

/* Intern a mnemonic's text; returns its index. */
static int
intern_mnem(struct parser *ps, const char *text, uint16_t *out)
{
    int i = ptx_module_mnem(ps->m, text);
    if (i < 0)
        return ptx_parse_err(ps, "more than 65535 distinct instruction forms");
    *out = (uint16_t)i;
    return SIM_OK;
}

static int
find_op(const char *base)
{
    for (unsigned i = 0; i < PTXOP_COUNT; i++) {
        const char *n = ptx_op_name(i);
        if (n[0] == base[0] && strcmp(n, base) == 0)
            return (int)i;
    }
    return -1;
}

/* Minimum and maximum operand counts per instruction (destination included). */
static void
operand_range(const struct ptx_ins *ins, unsigned *lo, unsigned *hi)
{
    switch (ins->op) {
    case PTXOP_EXIT: case PTXOP_RET: case PTXOP_TRAP: case PTXOP_BRKPT: case PTXOP_FENCE:
    case PTXOP_MEMBAR:
        *lo = 0; *hi = ins->op == PTXOP_FENCE && ins->frag == 't' ? 2 : 0; return;
    case PTXOP_APPLYPRIORITY: case PTXOP_DISCARD:     /* [a], 128 */
        *lo = 2; *hi = 2; return;
    case PTXOP_CREATEPOLICY:
        *lo = ins->frag == 'r' ? 4 : ins->frag == 'c' ? 2 : 1;
        *hi = ins->frag == 'r' ? 4 : 2;
        return;
    case PTXOP_BRA: case PTXOP_NANOSLEEP: case PTXOP_ACTIVEMASK: case PTXOP_PREFETCH:
    case PTXOP_PREFETCHU:
        *lo = 1; *hi = 1; return;
    case PTXOP_BAR: case PTXOP_BARRIER:   /* bar.red: d, a{, b}, {!}c; barrier.cluster: none */
        *lo = ins->mode == PM_CL_ARRIVE || ins->mode == PM_CL_WAIT ? 0 : 1;
        *hi = ins->mode == PM_CL_ARRIVE || ins->mode == PM_CL_WAIT ? 0 : ins->atom != PA_NONE ? 4 : 2;
        return;
    case PTXOP_GETCTARANK:       /* d, a */
        *lo = 2; *hi = 2; return;
    case PTXOP_MAPA:             /* d, a, rank */
        *lo = 3; *hi = 3; return;
    case PTXOP_TXQ: case PTXOP_SUQ:   /* d, [h] */
        *lo = 2; *hi = 2; return;
    case PTXOP_TEX: case PTXOP_TLD4: case PTXOP_SULD: case PTXOP_SUST:
        /* d, [h], {c} (the coordinates count as an operand); sust: [h], {c}, v; tex.level:
           lod after; tex.grad: two gradients; forms with offsets or depth compare: more
           (ptx_tex.c refuses them by name) */
        *lo = 3; *hi = 6; return;
    case PTXOP_CVT:              /* cvt.rn.f16x2.f32 d, a, b packs two conversions (so do
                                    cvt.rn.satfinite.e4m3x2.f32 and .e5m2x2.f32) */
        *lo = *hi = (ins->type == PT_F16X2 || ins->type == PT_BF16X2 || ins->type == PT_E4M3X2 ||
                     ins->type == PT_E5M2X2) && ins->type2 == PT_F32 ? 3 : 2;
        return;
    case PTXOP_ABS: case PTXOP_NEG: case PTXOP_NOT: case PTXOP_CNOT: case PTXOP_MOV:
    case PTXOP_CVTA: case PTXOP_RCP: case PTXOP_SQRT: case PTXOP_RSQRT:
    case PTXOP_SIN: case PTXOP_COS: case PTXOP_EX2: case PTXOP_LG2: case PTXOP_TANH:
    case PTXOP_POPC: case PTXOP_CLZ: case PTXOP_BREV: case PTXOP_BFIND: case PTXOP_TESTP:
    case PTXOP_ISSPACEP:
    case PTXOP_LD: case PTXOP_LDU: case PTXOP_ST:
        *lo = *hi = (ins->xmod & PX_ASYNC) ? 3 : 2;   /* st.async: [a], b, [mbar] */
        return;
    case PTXOP_RED:
        *lo = *hi = (ins->xmod & PX_ASYNC) ? 3 : 2;
        return;
    case PTXOP_ATOM:
        *lo = 3; *hi = 4; return;
    case PTXOP_SETP: case PTXOP_SET:
        *lo = 3; *hi = 4; return;
    case PTXOP_VOTE:
        *lo = 2; *hi = 3; return;
    case PTXOP_REDUX: case PTXOP_MATCH:
        *lo = 3; *hi = 3; return;
    case PTXOP_SHFL:
        *lo = 4; *hi = 5; return;
    case PTXOP_FMA: case PTXOP_MAD: case PTXOP_MAD24: case PTXOP_MADC: case PTXOP_SELP:
    case PTXOP_DP4A: case PTXOP_DP2A:
    case PTXOP_SLCT: case PTXOP_BFE: case PTXOP_PRMT: case PTXOP_SAD: case PTXOP_SHF:
    case PTXOP_VABSDIFF4:
        *lo = 4; *hi = 4; return;
    case PTXOP_BFI: case PTXOP_LOP3:
        *lo = 5; *hi = 5; return;
    case PTXOP_MMA:
        *lo = 4; *hi = 4; return;
    case PTXOP_LDMATRIX: case PTXOP_STMATRIX:
        *lo = 2; *hi = 2; return;
    case PTXOP_WMMA:             /* load: d, [p][, stride]; store: [p], d[, stride]; mma: d, a, b, c */
        *lo = ins->mode == PM_WMMA ? 4 : 2;
        *hi = ins->mode == PM_WMMA ? 4 : 3;
        return;
    case PTXOP_MBARRIER:         /* init: [a], n; arrive: st, [a]{, n}; test/try_wait: p, [a], st;
                                    pending_count: d, st */
        *lo = ins->mode == PM_MB_INVAL ? 1 : 2;
        if (ins->mode == PM_MB_PENDING) {
            *hi = 2;
            return;
        }
        *hi = ins->mode == PM_MB_INVAL ? 1 : ins->mode == PM_MB_INIT || ins->mode == PM_MB_EXPECT_TX ||
              ins->mode == PM_MB_COMPLETE_TX ? 2 : ins->mode == PM_MB_ARRIVE ? 3 : 4;
        return;
    case PTXOP_WGMMA:            /* mma_async: d, a, b-desc, scale-d{, imm-scale-a, imm-scale-b
                                    {, imm-trans-a}, imm-trans-b}; wait_group: N */
        *lo = ins->mode == PM_WG_MMA ? 4 : ins->mode == PM_WG_WAIT ? 1 : 0;
        *hi = ins->mode == PM_WG_MMA ? 8 : ins->mode == PM_WG_WAIT ? 1 : 0;
        return;
    case PTXOP_ELECT:            /* d|p, membermask */
        *lo = 2; *hi = 2; return;
    case PTXOP_SETMAXNREG:       /* imm-reg-count */
        *lo = 1; *hi = 1; return;
    case PTXOP_GRIDDEPCONTROL:
        *lo = 0; *hi = 0; return;
    case PTXOP_CP:               /* copy: dst, src, size[, src-size[, policy]]; wait_group: N;
                                    bulk prefetch: [src], size or [tmap], {coords} */
        *lo = ins->mode == PM_NONE ? 3 : ins->mode == PM_WAIT ? 1 : ins->mode == PM_PREFETCH ? 2
              : ins->mode == PM_CP_MB_ARRIVE || ins->mode == PM_CP_MB_NOINC ? 1 : 0;
        *hi = ins->mode == PM_NONE ? 6 : ins->mode == PM_WAIT ? 1
              : ins->mode == PM_PREFETCH ? 3
              : ins->mode == PM_CP_MB_ARRIVE || ins->mode == PM_CP_MB_NOINC ? 1 : 0;
        return;
    default:
        *lo = 3; *hi = 3; return;
    }
}

/* ---- half precision, dp4a and dp2a: the forms ptxas accepts ------------ */

static bool
has_imm(const struct ptx_ins *in)
{
    for (unsigned i = 1; i < in->nops; i++)
        if (in->o[i].kind == PO_IMM)
            return true;
    return false;
}

static const char *
check_dot(const struct ptx_ins *in)
{
    bool ok_a = in->type == PT_U32 || in->type == PT_S32;
    bool ok_b = in->type2 == PT_U32 || in->type2 == PT_S32;
    if (!ok_a || !ok_b)
        return "expected two source types, each .u32 or .s32 (dp4a.atype.btype, "
               "dp2a.mode.atype.btype)";
    bool lohi = (in->flags & (PF_LO | PF_HI)) != 0;
    if (in->op == PTXOP_DP2A && !lohi)
        return "dp2a needs .lo or .hi (which two bytes of b)";
    if (in->op == PTXOP_DP4A && lohi)
        return "dp4a takes no .lo or .hi";
    return NULL;
}

static const char *
check_cvt(const struct ptx_ins *in)
{
    unsigned d = in->type, s = in->type2;
    bool hd = ptx_type_is_half(d);
    bool f8d = d == PT_E4M3X2 || d == PT_E5M2X2, f8s = s == PT_E4M3X2 || s == PT_E5M2X2;
    if (f8d || f8s) {            /* PTX ISA 9.7.9.21: the FP8 pairs */
        if (f8d && ((s != PT_F32 && s != PT_F16X2) || in->rnd != PR_RN ||
                    !(in->flags & PF_SATFINITE)))
            return "cvt to .e4m3x2 or .e5m2x2 is cvt.rn.satfinite{.relu} from two .f32 values "
                   "(d, a, b) or one .f16x2";
        if (f8s && (d != PT_F16X2 || in->rnd != PR_RN || (in->flags & PF_SATFINITE)))
            return "cvt from .e4m3x2 or .e5m2x2 is cvt.rn{.relu}.f16x2";
        return NULL;
    }
    if (d == PT_TF32 || s == PT_TF32) {   /* cvt.rna{.satfinite}, cvt.{rn,rz}{.relu}{.satfinite} */
        if (d != PT_TF32 || s != PT_F32 || (in->flags & PF_SAT) ||
            (in->rnd != PR_RNA && in->rnd != PR_RN && in->rnd != PR_RZ) ||
            (in->rnd == PR_RNA && (in->flags & PF_RELU)))
            return "cvt to .tf32 is cvt.rna{.satfinite}.tf32.f32 or cvt.{rn,rz}{.relu}"
                   "{.satfinite}.tf32.f32";
        return NULL;
    }
    if (in->rnd == PR_RNA)
        return ".rna rounds only cvt.rna.tf32.f32";
    if (!hd) {
        if (in->flags & (PF_RELU | PF_SATFINITE))
            return ".relu and .satfinite need a .f16, .bf16, .f16x2 or .bf16x2 destination";
        return NULL;
    }
    if (d == PT_F16X2 || d == PT_BF16X2) {
        if (s != PT_F32)
            return "cvt to .f16x2 or .bf16x2 converts two .f32 values (cvt.rn.f16x2.f32 d, a, b)";
        if (in->rnd != PR_RN && in->rnd != PR_RZ)
            return "cvt to .f16x2 or .bf16x2 needs the rounding .rn or .rz";
        return NULL;
    }
    bool narrowing = !ptx_type_is_float(s) || ptx_type_bytes(s) > 2 ||
                     (d == PT_BF16 && s == PT_F16) || (d == PT_F16 && s == PT_BF16);
    if (narrowing && (in->rnd == PR_NONE || in->rnd >= PR_RNI))
        return "a conversion to .f16 or .bf16 needs a rounding modifier (.rn, .rz, .rm, .rp)";
    if ((in->flags & (PF_RELU | PF_SATFINITE)) && (s != PT_F32 || (in->flags & PF_SAT)))
        return ".relu and .satfinite convert from .f32 and do not combine with .sat";
    return NULL;
}

static const char *
check_half(const struct ptx_ins *in)
{
    unsigned op = in->op, t = in->type;
    uint32_t fl = in->flags;
    if (op == PTXOP_DP4A || op == PTXOP_DP2A)
        return check_dot(in);
    if (op == PTXOP_CVT)
        return check_cvt(in);
    if (op == PTXOP_SET && ptx_type_is_half(in->type2)) {
        bool ok = in->type2 == PT_F16X2 || in->type2 == PT_BF16X2 ? t == PT_U32 || t == PT_S32 || t == in->type2
                                    : t != PT_F16X2 && t != PT_BF16X2;
        if (!ok)
            return "set with a .f16x2 (.bf16x2) source writes .u32, .s32 or .f16x2 (.bf16x2)";
        if (has_imm(in))
            return "half-precision operands must be registers";
        if ((fl & PF_FTZ) && (in->type2 == PT_BF16 || in->type2 == PT_BF16X2))
            return ".ftz is not allowed on .bf16 types";
        return NULL;
    }
    if ((fl & (PF_NAN | PF_XORSIGN | PF_ABSMOD)) && op != PTXOP_MIN && op != PTXOP_MAX)
        return ".NaN and .xorsign.abs belong to min and max";
    if ((fl & PF_XORSIGN) != 0 && !(fl & PF_ABSMOD))
        return ".xorsign needs .abs (min/max.xorsign.abs)";
    if ((fl & PF_ABSMOD) != 0 && !(fl & PF_XORSIGN))
        return ".abs needs .xorsign (min/max.xorsign.abs)";
    if (!ptx_type_is_half(t))
        return NULL;                 /* min/max .NaN, .xorsign.abs on .f32: ptx_alu.c */
    switch (op) {
    case PTXOP_ADD: case PTXOP_SUB: case PTXOP_MUL: case PTXOP_FMA: case PTXOP_NEG:
    case PTXOP_ABS: case PTXOP_MIN: case PTXOP_MAX: case PTXOP_SETP:
        break;
    default:
        return NULL;                 /* mov, ld, st; the decoder rejects the rest */
    }
    bool bf = t == PT_BF16 || t == PT_BF16X2;
    if (has_imm(in))
        return "half-precision operands must be registers";
    if ((fl & PF_FTZ) && bf)
        return ".ftz is not allowed on .bf16 types";
    bool arith = op == PTXOP_ADD || op == PTXOP_SUB || op == PTXOP_MUL || op == PTXOP_FMA;
    if ((fl & PF_SAT) && (bf || !arith))
        return ".sat is allowed on .f16/.f16x2 add, sub, mul and fma only";
    if ((fl & PF_RELU) && op != PTXOP_FMA)
        return ".relu is allowed on fma only";
    if ((fl & PF_RELU) && (fl & PF_SAT))
        return ".relu cannot be combined with .sat";
    if (in->rnd != PR_NONE && (in->rnd != PR_RN || !arith))
        return arith ? "the only rounding of half-precision arithmetic is .rn"
                     : "no rounding modifier is allowed here";
    if (op == PTXOP_FMA && in->rnd != PR_RN)
        return "fma needs the rounding modifier .rn";
    if (op == PTXOP_SETP && t != PT_F16X2 && t != PT_BF16X2 && in->nops > 0 &&
        in->o[0].kind == PO_VEC)
        return "setp on .f16/.bf16 writes one predicate (p|q is for .f16x2/.bf16x2)";
    return NULL;
}

/* One instruction statement; the current token is the mnemonic. */
static int
parse_instruction(struct parser *ps, int32_t guard, bool guard_neg, uint32_t line)
{
    struct ptx_ins ins;
    char mn[512];
    memset(&ins, 0, sizeof ins);
    ins.guard = guard;
    ins.guard_neg = guard_neg;
    ins.line = line;
    ins.target = -1;
    ins.reconv = -1;
    ins.vec = 1;
    if (ps->k->unsupported != NULL)
        return ptx_parse_skip_instruction(ps);   /* the kernel cannot run: the rest is not parsed */
    snprintf(mn, sizeof mn, "%s", ps->lx.tok);
    char *dot = strchr(mn, '.');
    if (dot != NULL)
        *dot = '\0';
    int op = find_op(mn);
    if (op < 0)
        return ptx_parse_unsupported(ps, "unsupported instruction '%s'", ps->lx.tok);
    ins.op = (uint16_t)op;
    SIM_FORWARD_IF_ERROR(intern_mnem(ps, ps->lx.tok, &ins.mnem));
    unsigned ntypes = 0;
    for (char *m = dot ? dot + 1 : NULL; m != NULL && *m;) {
        char *nd = strchr(m, '.');
        if (nd != NULL)
            *nd = '\0';
        int rc = apply_mod(ps, &ins, m, &ntypes);
        if (rc != SIM_OK)
            return rc;                 /* an error, or skipped (unsupported) */
        m = nd ? nd + 1 : NULL;
    }
    if (ins.op == PTXOP_LD || ins.op == PTXOP_LDU || ins.op == PTXOP_ST) {
        if (ins.type == PT_NONE)
            return ptx_parse_err(ps, "'%s' needs a data type", ps->lx.tok);
    }
    if ((ins.type == PT_U16X2 || ins.type == PT_S16X2) &&
        ins.op != PTXOP_ADD && ins.op != PTXOP_MIN && ins.op != PTXOP_MAX)
        return ptx_parse_unsupported(ps, "unsupported instruction '%s' (packed .u16x2 and .s16x2 "
                                     "are simulated on add, min and max)", ps->lx.tok);
    if (ins.op == PTXOP_VABSDIFF4) {
        /* vabsdiff4.dtype.atype.btype{.sat} d, a, b, c and .add: the forms
         * the CUDA headers' __vabsdiffu4 / __vsadu4 family emit */
        bool ok = ins.atom == PA_NONE || ins.atom == PA_ADD;
        for (unsigned i = 0; i < 3; i++) {
            uint8_t t = i == 0 ? ins.type : i == 1 ? ins.type2 : ins.type3;
            ok = ok && (t == PT_U32 || t == PT_S32);
        }
        if (!ok || (ins.atom == PA_ADD && (ins.flags & PF_SAT)))
            return ptx_parse_unsupported(ps, "unsupported instruction '%s' (vabsdiff4 is simulated "
                                         "as .u32/.s32 types, plain, .sat or .add)", ps->lx.tok);
    }
    if (ins.op == PTXOP_BARRIER && strstr(ps->lx.tok, ".cluster") != NULL) {
        /* barrier.cluster.arrive{.release|.relaxed}{.aligned}, .wait{.acquire}{.aligned} */
        bool arrive = (ins.flags & PF_ARRIVE) != 0, wait = strstr(ps->lx.tok, ".wait") != NULL;
        if (arrive == wait)
            return ptx_parse_err(ps, "'%s': barrier.cluster needs .arrive or .wait", ps->lx.tok);
        ins.mode = arrive ? PM_CL_ARRIVE : PM_CL_WAIT;
        ins.flags &= ~(uint32_t)PF_ARRIVE;
        if (strstr(ps->lx.tok, ".relaxed") != NULL)
            ins.flags |= PF_RELAXED;
    }
    if ((ins.op == PTXOP_BAR || ins.op == PTXOP_BARRIER) && strstr(ps->lx.tok, ".red") != NULL) {
        /* bar.red.popc.u32 / .and.pred / .or.pred: __syncthreads_count, _and, _or */
        if (strstr(ps->lx.tok, ".popc") != NULL)
            ins.atom = PA_ADD;
        if (ins.atom != PA_ADD && ins.atom != PA_AND && ins.atom != PA_OR)
            return ptx_parse_err(ps, "'%s': bar.red needs .popc, .and or .or", ps->lx.tok);
    }
    SIM_FORWARD_IF_ERROR(next(ps));
    if (ins.op == PTXOP_CALL) {
        int rc = ptx_parse_call(ps, &ins);
        if (rc != SIM_OK)
            return rc;
    }
    bool branch = ins.op == PTXOP_BRA;
    while (ins.op != PTXOP_CALL && !is_punct(ps, ';')) {
        if (ps->lx.kind == PTX_TK_EOF)
            return ptx_parse_err(ps, "missing ';' after '%s'", mn);
        if (ins.nops == PTX_MAX_OPNDS)
            return ptx_parse_err(ps, "too many operands for '%s'", mn);
        struct ptx_opnd *o = &ins.o[ins.nops];
        ps->has_coords = false;
        SIM_FORWARD_IF_ERROR(ptx_parse_operand(ps, o, branch, ins.op == PTXOP_WGMMA));
        if (ps->has_coords) {    /* [tensorMap, {coords}]: the coordinates follow it */
            if (ins.nops + 1 == PTX_MAX_OPNDS)
                return ptx_parse_err(ps, "too many operands for '%s'", mn);
            ins.o[++ins.nops] = ps->coords;
            ps->has_coords = false;
        }
        if (is_punct(ps, '|')) {
            /* a pair of destinations: %r|%p */
            SIM_FORWARD_IF_ERROR(next(ps));
            struct ptx_opnd second;
            SIM_FORWARD_IF_ERROR(ptx_parse_operand(ps, &second, false, false));
            if ((o->kind != PO_REG && o->kind != PO_SINK) ||
                (second.kind != PO_REG && second.kind != PO_SINK) ||
                (o->kind == PO_SINK && second.kind == PO_SINK))
                return ptx_parse_err(ps, "bad destination pair in '%s'", mn);
            o->regs[0] = o->kind == PO_REG ? o->reg : -1;   /* '_|p': elect.sync */
            o->kind = PO_VEC;
            o->nvec = 2;
            o->regs[1] = second.kind == PO_REG ? second.reg : -1;
        }
        ins.nops++;
        if (is_punct(ps, ','))
            SIM_FORWARD_IF_ERROR(next(ps));
        else if (!is_punct(ps, ';'))
            return ptx_parse_err(ps, "expected ',' or ';' after an operand of '%s', found '%s'", mn, ps->lx.tok);
    }
    if ((ins.xmod & PX_CACHE_HINT) && !(ins.flags & PF_BULK) && ins.nops > 0 &&
        (ins.op == PTXOP_LD || ins.op == PTXOP_LDU || ins.op == PTXOP_ST ||
         ins.op == PTXOP_ATOM || ins.op == PTXOP_RED || ins.op == PTXOP_CP)) {
        /* .L2::cache_hint: the last operand is a cache policy (createpolicy),
         * a hint with no effect on results or, here, on timing */
        const struct ptx_opnd *pol = &ins.o[ins.nops - 1];
        if (pol->kind != PO_REG && pol->kind != PO_IMM)
            return ptx_parse_err(ps, "'%s': expected a cache policy (a .b64 register or "
                                 "constant) as the last operand of .L2::cache_hint", mn);
        ins.nops--;
    }
    unsigned lo, hi;
    operand_range(&ins, &lo, &hi);
    if (ins.op != PTXOP_CALL && (ins.nops < lo || ins.nops > hi))
        /* a form smsim does not know: only its kernel fails */
        return lo == hi
               ? ptx_parse_unsupported(ps, "%s'%s' takes %u operand%s, found %u",
                                       ins.nops > hi ? "unsupported form: " : "", mn, lo,
                                       lo == 1 ? "" : "s", ins.nops)
               : ptx_parse_unsupported(ps, "%s'%s' takes %u to %u operands, found %u",
                                       ins.nops > hi ? "unsupported form: " : "", mn, lo, hi,
                                       ins.nops);
    if (branch && ins.o[0].kind != PO_LABEL)
        return ptx_parse_err(ps, "indirect branches are unsupported");
    for (unsigned i = 0; i < ins.nops; i++)
        if (ins.o[i].kind == PO_SREG && ins.o[i].sreg == SR_VECTOR)
            return ptx_parse_unsupported(ps, "unsupported operand: a whole vector special "
                                         "register (%%tid, %%ntid, %%ctaid, %%nctaid, the "
                                         "cluster ones) in '%s'; read its .x, .y and .z", mn);
    if ((ins.flags & (PF_NAN | PF_XORSIGN | PF_ABSMOD)) && !ptx_type_is_half(ins.type) &&
        ins.type != PT_F32 && (ins.op == PTXOP_MIN || ins.op == PTXOP_MAX))
        return ptx_parse_err(ps, "'%s': .NaN and .xorsign.abs are defined on .f32, .f16, .bf16, "
                             ".f16x2 and .bf16x2", ps->m->mnems[ins.mnem]);
    const char *why = check_half(&ins);
    if (why != NULL)
        return ptx_parse_err(ps, "'%s': %s", ps->m->mnems[ins.mnem], why);
    struct ptx_kernel *k = ps->k;
    if ((k->n_ins & (k->n_ins - 1)) == 0)   /* grow at powers of two */
        k->ins = xrealloc(k->ins, (k->n_ins ? 2 * k->n_ins : 16) * sizeof *k->ins);
    if (k->n_ins >= 10000000)
        return ptx_parse_err(ps, "more than 10 million instructions in a kernel");
    if (ps->nounroll)
        ins.flags |= PF_NOUNROLL;
    ps->nounroll = false;
    k->ins[k->n_ins++] = ins;
    return next(ps);
}

/* The body of a kernel or function; current token is the '{' after its
 * signature. */
int
ptx_parse_body(struct parser *ps)
{
    struct ptx_kernel *k = ps->k;
    int depth = 0;
    SIM_FORWARD_IF_ERROR(expect_punct(ps, '{'));
    SIM_FORWARD_IF_ERROR(ptx_parse_scope_open(ps));
    depth = 1;
    while (depth > 0) {
        if (ps->lx.kind == PTX_TK_EOF)
            return ptx_parse_err(ps, "%s %s: missing '}'", ptx_parse_body_kind(k), k->name);
        if (is_punct(ps, '{')) {
            depth++;
            SIM_FORWARD_IF_ERROR(ptx_parse_scope_open(ps));
            SIM_FORWARD_IF_ERROR(next(ps));
            continue;
        }
        if (is_punct(ps, '}')) {
            depth--;
            ptx_parse_scope_close(ps);
            SIM_FORWARD_IF_ERROR(next(ps));
            continue;
        }
        uint32_t line = ps->lx.line;
        if (ps->lx.kind == PTX_TK_WORD && ps->lx.tok[0] == '.') {
            char d[64];
            snprintf(d, sizeof d, "%s", ps->lx.tok);
            SIM_FORWARD_IF_ERROR(next(ps));
            if (strcmp(d, ".reg") == 0) {
                SIM_FORWARD_IF_ERROR(ptx_parse_reg_decl(ps));
            } else if (strcmp(d, ".shared") == 0) {
                SIM_FORWARD_IF_ERROR(ptx_parse_var_decl(ps, PS_SHARED, false, &k->syms, &k->n_syms));
            } else if (strcmp(d, ".local") == 0) {
                SIM_FORWARD_IF_ERROR(ptx_parse_var_decl(ps, PS_LOCAL, false, &k->syms, &k->n_syms));
            } else if (strcmp(d, ".pragma") == 0) {
                /* nvcc marks a loop it must not unroll: ptxas does not either */
                if (ps->lx.kind == PTX_TK_STRING && strcmp(ps->lx.tok, "nounroll") == 0)
                    ps->nounroll = true;
                SIM_FORWARD_IF_ERROR(ptx_lex_skip_statement(&ps->lx));
            } else if (strcmp(d, ".param") == 0) {
                /* a call's argument or return value, visible in its { } */
                SIM_FORWARD_IF_ERROR(ptx_parse_var_decl(ps, PS_PARAM, false, &k->syms, &k->n_syms));
            } else if (strcmp(d, ".callprototype") == 0) {
                /* label: .callprototype (ret) _ (params); the type of an indirect call */
                SIM_FORWARD_IF_ERROR(ptx_lex_skip_statement(&ps->lx));
            } else if (strcmp(d, ".loc") == 0) {
                /* debug line information (-lineinfo, -G): it runs to the end of its
                 * line, with no ';' (skipping to one would drop the instruction after) */
                while (ps->lx.kind != PTX_TK_EOF && ps->lx.line == line)
                    SIM_FORWARD_IF_ERROR(next(ps));
            } else if (strcmp(d, ".maxnreg") == 0 || strcmp(d, ".maxntid") == 0) {
                SIM_FORWARD_IF_ERROR(ptx_lex_skip_statement(&ps->lx));
            } else {
                return ptx_parse_err(ps, "unsupported directive '%s' in a kernel body", d);
            }
            continue;
        }
        if (ps->lx.kind == PTX_TK_WORD && (ps->lx.tok[0] == '$' || isalpha((unsigned char)ps->lx.tok[0]) ||
                                    ps->lx.tok[0] == '_')) {
            /* label?  peek for ':' */
            const char *save_p = ps->lx.p;
            uint32_t save_line = ps->lx.next_line;
            char name[sizeof ps->lx.tok];
            snprintf(name, sizeof name, "%s", ps->lx.tok);
            SIM_FORWARD_IF_ERROR(next(ps));
            if (is_punct(ps, ':')) {
                if (ptx_parse_define_label(ps, name) < 0)
                    return ps->lx.err->code;
                SIM_FORWARD_IF_ERROR(next(ps));
                continue;
            }
            /* not a label: rewind to the mnemonic */
            ps->lx.p = save_p;
            ps->lx.next_line = save_line;
            snprintf(ps->lx.tok, sizeof ps->lx.tok, "%s", name);
            ps->lx.kind = PTX_TK_WORD;
            ps->lx.line = line;
            SIM_FORWARD_IF_ERROR(parse_instruction(ps, -1, false, line));
            continue;
        }
        if (is_punct(ps, '@')) {
            SIM_FORWARD_IF_ERROR(next(ps));
            bool neg = false;
            if (is_punct(ps, '!')) {
                neg = true;
                SIM_FORWARD_IF_ERROR(next(ps));
            }
            int32_t g = ps->lx.kind == PTX_TK_WORD ? ptx_parse_find_reg(ps, ps->lx.tok) : -1;
            if (g < 0 || k->regs[g].rclass != RC_PRED)
                return ptx_parse_err(ps, "expected a predicate register after '@', found '%s'", ps->lx.tok);
            SIM_FORWARD_IF_ERROR(next(ps));
            if (ps->lx.kind != PTX_TK_WORD)
                return ptx_parse_err(ps, "expected an instruction after the guard, found '%s'", ps->lx.tok);
            SIM_FORWARD_IF_ERROR(parse_instruction(ps, g, neg, line));
            continue;
        }
        if (is_punct(ps, ';')) {
            SIM_FORWARD_IF_ERROR(next(ps));
            continue;
        }
        return ptx_parse_err(ps, "unexpected '%s' in %s %s", ps->lx.tok, ptx_parse_body_kind(k), k->name);
    }
    /* resolve labels */
    for (uint32_t i = 0; i < k->n_labels; i++) {
        if (k->label_at[i] >= 0)
            continue;
        uint32_t use = k->line;    /* the first branch to it, else the kernel */
        for (uint32_t j = 0; j < k->n_ins; j++)
            if (k->ins[j].op == PTXOP_BRA && k->ins[j].o[0].label == (int32_t)i) {
                use = k->ins[j].line;
                break;
            }
        return sim_error_set(ps->lx.err, SIM_ERR_FORMAT, "%s:%u: %s %s: undefined label %s",
                             ps->lx.path, use, ptx_parse_body_kind(k), k->name, k->labels[i]);
    }
    for (uint32_t i = 0; i < k->n_ins; i++) {
        struct ptx_ins *in = &k->ins[i];
        if (in->op == PTXOP_BRA)
            in->target = k->label_at[in->o[0].label];
    }
    return SIM_OK;
}

/* A call's return value or argument (current token: its first). */
static int
parse_call_operand(struct parser *ps, struct ptx_opnd *o, const char *what)
{
    SIM_FORWARD_IF_ERROR(ptx_parse_operand(ps, o, false, false));
    if (o->kind == PO_REG || o->kind == PO_IMM)
        return SIM_OK;
    if (o->kind == PO_SYM && o->sym >= 0 && ps->k->syms[o->sym].space == PS_PARAM && o->imm == 0)
        return SIM_OK;
    return ptx_parse_err(ps, "a call's %s must be a .param variable of the caller, a register "
                         "or a constant", what);
}

/* The operands of a call (current token: the first after the mnemonic):
 *   call{.uni} [(ret),] func[, (args)];
 *   call{.uni} [(ret),] %fptr, [(args),] prototype;   (through a function pointer)
 * into body k's calls; ins->target = its index.  Returns SIM_OK, an
 * error, or PARSE_SKIPPED for an unsupported form. */
int
ptx_parse_call(struct parser *ps, struct ptx_ins *ins)
{
    struct ptx_kernel *k = ps->k;
    struct ptx_call c = { .func = -1, .fptr = -1 };
    int rc = SIM_OK;
    if (is_punct(ps, '(')) {                 /* the return value */
        SIM_FORWARD_IF_ERROR(next(ps));
        SIM_FORWARD_IF_ERROR(parse_call_operand(ps, &c.ret, "return value"));
        if (c.ret.kind == PO_IMM)
            return ptx_parse_err(ps, "a call's return value cannot be a constant");
        c.has_ret = true;
        SIM_FORWARD_IF_ERROR(expect_punct(ps, ')'));
        SIM_FORWARD_IF_ERROR(expect_punct(ps, ','));
    }
    if (ps->lx.kind != PTX_TK_WORD || ps->lx.tok[0] == '.')
        return ptx_parse_err(ps, "expected the called function's name, found '%s'", ps->lx.tok);
    char callee[sizeof ps->lx.tok];
    snprintf(callee, sizeof callee, "%s", ps->lx.tok);
    int32_t reg = ptx_parse_find_reg(ps, callee);
    if (reg >= 0) {
        c.fptr = reg;
    } else {
        c.func = ptx_module_func(ps->m, callee);
        if (c.func < 0)
            return ptx_parse_err(ps, "call to undeclared function '%s' (a function is declared "
                                 "or defined before its first call)", callee);
    }
    SIM_FORWARD_IF_ERROR(next(ps));
    bool proto = false;
    while (is_punct(ps, ',')) {
        rc = next(ps);                       /* c.args may hold the arguments: no return */
        if (rc < 0)
            goto fail;
        if (is_punct(ps, '(') && c.nargs == 0 && c.args == NULL && !proto) {
            SIM_FORWARD_IF_ERROR(next(ps));
            c.args = xcalloc(1, sizeof *c.args);   /* an empty list: () */
            while (!is_punct(ps, ')')) {
                if (c.nargs >= 1024) {
                    rc = ptx_parse_err(ps, "more than 1024 arguments in a call");
                    goto fail;
                }
                c.args = ptx_parse_grow(c.args, c.nargs, sizeof *c.args);
                rc = parse_call_operand(ps, &c.args[c.nargs], "argument");
                if (rc < 0)
                    goto fail;
                c.nargs++;
                if (is_punct(ps, ','))
                    rc = next(ps);
                else if (!is_punct(ps, ')'))
                    rc = ptx_parse_err(ps, "expected ',' or ')' in a call's arguments, found "
                                       "'%s'", ps->lx.tok);
                if (rc < 0)
                    goto fail;
            }
            rc = next(ps);
        } else if (ps->lx.kind == PTX_TK_WORD && ps->lx.tok[0] != '.' && c.fptr >= 0 && !proto) {
            proto = true;                    /* the prototype (or call table) */
            rc = next(ps);
        } else {
            rc = ptx_parse_err(ps, "unexpected '%s' in a call (expected (arguments)%s)",
                               ps->lx.tok, c.fptr >= 0 ? " or a prototype" : "");
        }
        if (rc < 0)
            goto fail;
    }
    if (!is_punct(ps, ';')) {
        rc = ptx_parse_err(ps, "expected ';' after a call, found '%s'", ps->lx.tok);
        goto fail;
    }
    if (c.fptr >= 0 && !proto) {
        rc = ptx_parse_err(ps, "a call through a function pointer (%s) needs a prototype or "
                           "call table as its last operand", callee);
        goto fail;
    }
    if (c.func >= 0) {
        const struct ptx_kernel *f = &ps->m->funcs[c.func];
        uint32_t want = f->n_params - f->n_rets;
        if (c.nargs != want) {
            rc = ptx_parse_err(ps, "the call passes %u argument%s, function %s takes %u",
                               c.nargs, c.nargs == 1 ? "" : "s", f->name, want);
            goto fail;
        }
        if (c.has_ret && f->n_rets == 0) {
            rc = ptx_parse_err(ps, "the call expects a return value, function %s returns none",
                               f->name);
            goto fail;
        }
    }
    k->calls = ptx_parse_grow(k->calls, k->n_calls, sizeof *k->calls);
    ins->target = (int32_t)k->n_calls;
    k->calls[k->n_calls++] = c;
    return SIM_OK;
fail:
    free(c.args);
    return rc;
}
