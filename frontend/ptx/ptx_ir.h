/*
 * ptx_ir.h - the parsed form of a PTX module (private to frontend/ptx_*.c).
 *
 * A module holds module-scope symbols (.global, .const, extern .shared),
 * kernels (.entry) and device functions (.func).  A kernel or function
 * (a "body") holds its parameters, its registers (each declared name -> a
 * class and an index in that class's register file), its own symbols
 * (.shared, .local, and the .param variables of its calls) and its
 * instructions, with branch targets resolved to instruction indices and,
 * after analysis, each branch's reconvergence point (immediate
 * post-dominator).  A call names its callee by index in the module's
 * functions; a function's registers, .local and .param space are its own
 * (ptx_call.c gives every activation a frame).
 */
#ifndef SMSIM_FRONTEND_PTX_IR_H
#define SMSIM_FRONTEND_PTX_IR_H

#include "sim/types.h"
#include "sim/error.h"

enum ptx_op {
#define PTXOP(id, name, nsrc, help) PTXOP_##id,
#include "frontend/ptx/ptx_ops.def"
#undef PTXOP
    PTXOP_COUNT
};

/* Data types.  ORDER PT (ptx_parse.c type_names). */
enum ptx_type {
    PT_NONE, PT_PRED, PT_B8, PT_U8, PT_S8, PT_B16, PT_U16, PT_S16, PT_F16, PT_F16X2, PT_BF16,
    PT_B32, PT_U32, PT_S32, PT_F32, PT_B64, PT_U64, PT_S64, PT_F64, PT_B128,
    PT_TF32,                     /* mma inputs: an f32 register read as tf32 */
    PT_BF16X2,                   /* two packed bfloat16 values (the low one in bits 0-15) */
    PT_U16X2, PT_S16X2,          /* two packed 16-bit integers (add, min, max; the low one in
                                    bits 0-15) */
    PT_E4M3X2, PT_E5M2X2,        /* two packed FP8 values (OCP E4M3 and E5M2; cvt only; the low
                                    one in bits 0-7) */
    PT_E4M3, PT_E5M2,            /* wgmma inputs: FP8 values, four to a register */
    PT_COUNT
};

enum ptx_space { PS_GENERIC, PS_REG, PS_CONST, PS_GLOBAL, PS_LOCAL, PS_PARAM, PS_SHARED, PS_TEX };

enum ptx_cmp { PC_NONE, PC_EQ, PC_NE, PC_LT, PC_LE, PC_GT, PC_GE, PC_LO, PC_LS, PC_HI, PC_HS,
               PC_EQU, PC_NEU, PC_LTU, PC_LEU, PC_GTU, PC_GEU, PC_NUM, PC_NAN };
enum ptx_rnd { PR_NONE, PR_RN, PR_RZ, PR_RM, PR_RP,
               PR_RNA,           /* nearest, ties away from zero (cvt.rna.tf32.f32) */
               PR_RNI, PR_RZI, PR_RMI, PR_RPI };   /* >= PR_RNI: to an integral value */
enum ptx_atom { PA_NONE, PA_ADD, PA_MIN, PA_MAX, PA_INC, PA_DEC, PA_AND, PA_OR, PA_XOR, PA_EXCH,
                PA_CAS };
enum ptx_mode { PM_NONE, PM_UP, PM_DOWN, PM_BFLY, PM_IDX,            /* shfl */
                PM_ALL, PM_ANY, PM_UNI, PM_BALLOT,                   /* vote */
                PM_AND, PM_OR, PM_XOR,                               /* setp/set boolean op */
                PM_FINITE, PM_INFINITE, PM_NUMBER, PM_NOTANUMBER, PM_NORMAL, PM_SUBNORMAL, /* testp */
                PM_L, PM_R,                                          /* shf direction */
                PM_COMMIT, PM_WAIT, PM_WAITALL,                      /* cp.async groups */
                PM_WLOAD, PM_WSTORE, PM_WMMA,                        /* wmma operations */
                PM_MB_INIT, PM_MB_ARRIVE, PM_MB_ARRIVE_TX, PM_MB_EXPECT_TX, PM_MB_COMPLETE_TX,
                PM_MB_TEST, PM_MB_TRY, PM_MB_INVAL, PM_MB_PENDING,   /* mbarrier operations */
                PM_GDC_LAUNCH, PM_GDC_WAIT,                          /* griddepcontrol */
                PM_WG_MMA, PM_WG_FENCE, PM_WG_COMMIT, PM_WG_WAIT,    /* wgmma operations */
                PM_PREFETCH,                                         /* cp.async.bulk.prefetch */
                PM_CP_MB_ARRIVE, PM_CP_MB_NOINC,    /* cp.async.mbarrier.arrive{.noinc} */
                PM_CL_ARRIVE, PM_CL_WAIT,                            /* barrier.cluster */
                PM_TEX_LEVEL, PM_TEX_GRAD,                           /* tex.level, tex.grad */
                PM_PRMT_F4E, PM_PRMT_B4E, PM_PRMT_RC8, PM_PRMT_ECL, PM_PRMT_ECR,
                PM_PRMT_RC16 };                      /* prmt modes, in this order (ptx_alu.c) */

/* Texture and surface geometries (.1d ... .acube: ptx_ins.shape of tex,
 * tld4, suld, sust), and what txq / suq ask (ptx_ins.frag). */
enum ptx_tgeom { TG_NONE, TG_1D, TG_2D, TG_3D, TG_A1D, TG_A2D, TG_CUBE, TG_ACUBE };
enum ptx_tquery { TQ_NONE, TQ_WIDTH, TQ_HEIGHT, TQ_DEPTH, TQ_ARRAY_SIZE, TQ_NORMALIZED,
                  TQ_FILTER, TQ_ADDR0, TQ_ADDR1, TQ_ADDR2, TQ_MIPMAPS, TQ_SAMPLES };

/* Matrix shapes of mma, wmma, ldmatrix and stmatrix.  ORDER SHAPE
 * (ptx_parse.c shape_names, ptx_mma.c dims). */
enum ptx_shape { SH_NONE, SH_M16N8K4, SH_M16N8K8, SH_M16N8K16, SH_M16N8K32, SH_M16N16K16,
                 SH_M32N8K16, SH_M8N32K16, SH_M16N16K8, SH_M8N8, SH_M8N8K4, SH_COUNT,
                 SH_M64 = SH_COUNT };   /* wgmma .m64nNkK: N / 8 in ptx_ins.vec, K in frag */

/* Modifiers of bulk copies (ptx_ins.xmod). */
enum {
    PX_MULTICAST = 1u << 0,       /* cp.async.bulk{.tensor}....multicast::cluster: a ctaMask
                                     operand follows the mbarrier */
    PX_REDUCE = 1u << 1,          /* cp.reduce.async.bulk{.tensor}: the operation in .atom */
    PX_CACHE_HINT = 1u << 2,      /* .L2::cache_hint: a cache-policy operand comes last */
    PX_SHARED_DST = 1u << 3,      /* (decoded) a bulk copy from shared::cta to shared::cluster */
    PX_ASYNC = 1u << 4,           /* st.async / red.async: an mbarrier operand follows, whose
                                     transactions the store completes */
    PX_NO_COMPLETE = 1u << 5,     /* mbarrier.arrive{_drop}.noComplete: the arrive must not
                                     complete the phase */
    PX_DROP = 1u << 6,            /* mbarrier.arrive_drop{.expect_tx} (mode PM_MB_ARRIVE{_TX}): the
                                     arrivals also leave every later phase's expected count */
    PX_IM2COL = 1u << 7           /* cp.{reduce.}async.bulk{.prefetch}.tensor .im2col (frag 0:
                                     with an offsets operand) or .im2col_no_offs (frag 'o') */
};

/* Modifier flags. */
enum {
    PF_APPROX = 1u << 0, PF_FULL = 1u << 1, PF_FTZ = 1u << 2, PF_SAT = 1u << 3,
    PF_HI = 1u << 4, PF_LO = 1u << 5, PF_WIDE = 1u << 6, PF_UNI = 1u << 7,
    PF_CC = 1u << 8,              /* sets the carry flag */
    PF_BYPASS_L1 = 1u << 9,       /* .cg .cv .volatile .cs .lu: not cached in L1 */
    PF_SYNC = 1u << 10, PF_ARRIVE = 1u << 11, PF_WRAP = 1u << 12, PF_CLAMP = 1u << 13,
    PF_TO = 1u << 14,             /* cvta.to.space */
    PF_NC = 1u << 15,             /* ld.global.nc */
    PF_SHIFTAMT = 1u << 16, PF_RELU = 1u << 17,
    PF_WARPSYNC = 1u << 18,       /* bar.warp.sync (__syncwarp) */
    PF_SHSYM = 1u << 19,          /* (decoded) mov of a .shared variable's address */
    PF_NOUNROLL = 1u << 20,       /* the first instruction of a loop under .pragma "nounroll" */
    PF_COLMAJOR = 1u << 21,       /* wmma.load/store: the matrix is column-major in memory */
    PF_TRANS = 1u << 22,          /* ldmatrix/stmatrix .trans */
    PF_NAN = 1u << 23,            /* min/max.NaN: a NaN input gives NaN */
    PF_XORSIGN = 1u << 24,        /* min/max.xorsign.abs (the pair; ptx_half.c checks both) */
    PF_ABSMOD = 1u << 25,         /* the .abs of .xorsign.abs */
    PF_SATFINITE = 1u << 26,      /* .satfinite: cvt, overflow gives the largest finite value;
                                     mma/wmma s32, the sums saturate */
    PF_BULK = 1u << 28,           /* cp.async.bulk */
    PF_RELAXED = 1u << 29,        /* barrier.cluster.arrive.relaxed (no release ordering) */
    PF_PARITY = 1u << 30,         /* mbarrier.test_wait/try_wait.parity */
    PF_TENSOR = 1u << 31,         /* cp.async.bulk.tensor (its dimensions in ptx_ins.vec) */
    PF_FRAME = 1u << 27           /* (decoded) the address is relative to the running
                                     function's frame (its .local and .param variables) */
};

/* Special registers (PTX ISA chapter 10).  %envreg1 and %envreg2 are the
 * high and low halves of the grid-sync workspace's address a cooperative
 * launch gets (SR_ENVREG_GRID_HI, _LO: 0 otherwise); the other %envreg0 .. 31 share SR_ENVREG,
 * %pm0 .. 7 SR_PM, %pm0_64 .. %pm7_64 SR_PM64 (one value each: see
 * ptx_exec.c).  SR_VECTOR: a whole vector register (%tid, ...) as an operand,
 * which is not supported. */
enum ptx_sreg {
    SR_NONE, SR_TID_X, SR_TID_Y, SR_TID_Z, SR_NTID_X, SR_NTID_Y, SR_NTID_Z,
    SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z, SR_NCTAID_X, SR_NCTAID_Y, SR_NCTAID_Z,
    SR_LANEID, SR_WARPID, SR_NWARPID, SR_SMID, SR_NSMID, SR_GRIDID,
    SR_CLOCK, SR_CLOCK64, SR_LANEMASK_EQ, SR_LANEMASK_LT, SR_LANEMASK_LE, SR_LANEMASK_GT,
    SR_LANEMASK_GE, SR_DYN_SMEM, SR_TOTAL_SMEM, SR_GLOBALTIMER,
    SR_CLOCK_HI, SR_GLOBALTIMER_LO, SR_GLOBALTIMER_HI, SR_AGGR_SMEM,
    SR_RSV_BEGIN, SR_RSV_END, SR_RSV_CAP, SR_RSV_0, SR_RSV_1,
    SR_CLUSTERID_X, SR_CLUSTERID_Y, SR_CLUSTERID_Z,
    SR_NCLUSTERID_X, SR_NCLUSTERID_Y, SR_NCLUSTERID_Z,
    SR_CLUSTER_CTAID_X, SR_CLUSTER_CTAID_Y, SR_CLUSTER_CTAID_Z,
    SR_CLUSTER_NCTAID_X, SR_CLUSTER_NCTAID_Y, SR_CLUSTER_NCTAID_Z,
    SR_CLUSTER_CTARANK, SR_CLUSTER_NCTARANK, SR_ENVREG, SR_ENVREG_GRID_HI, SR_ENVREG_GRID_LO,
    SR_PM, SR_PM64,
    SR_CURRENT_GRAPH_EXEC, SR_IS_EXPLICIT_CLUSTER, SR_COUNT,
    SR_VECTOR = 0xff
};

/* Register classes: which file a register lives in. */
enum ptx_rclass { RC_PRED, RC_32, RC_64 };

enum ptx_okind { PO_NONE, PO_REG, PO_IMM, PO_SREG, PO_SYM, PO_MEM, PO_LABEL, PO_VEC, PO_SINK,
                 PO_FUNC /* a function's address: sym = its index in the module's funcs */ };

/* The address a function's name stands for (mov.u64 %rd, f; a function
 * table's initialiser): PTX_FUNC_BASE + 16 x its index in the module's
 * funcs, outside every memory window. */
#define PTX_FUNC_BASE UINT64_C(0x0000300000000000)

/* Registers in a vector operand { } held in the operand (a wmma fragment
 * has 8); a longer one (a wgmma accumulator: up to PTX_MAX_LONG_VEC) keeps
 * its registers in the kernel's vregs (ptx_vec_reg). */
#define PTX_MAX_VEC 8
#define PTX_MAX_LONG_VEC 128

struct ptx_opnd {
    uint8_t kind;                /* enum ptx_okind */
    uint8_t neg;                 /* '!' before a predicate */
    uint8_t sreg;                /* PO_SREG */
    uint8_t nvec;                /* PO_VEC: registers in regs[] */
    uint8_t fimm;                /* PO_IMM: 0 integer, 1 f32 bit pattern, 2 f64 bit pattern */
    uint8_t vimm;                /* PO_VEC: bit i set: regs[i] is an integer constant's low
                                    32 bits, not a register ({0, %rs1} in cuda_bf16.h's asm) */
    int32_t reg;                 /* PO_REG, and PO_MEM base register (-1 if none) */
    int32_t regs[PTX_MAX_VEC];   /* PO_VEC */
    int32_t sym;                 /* PO_SYM, PO_MEM with a symbol base (-1 if none) */
    int32_t label;               /* PO_LABEL: label index, then resolved to an instruction */
    int64_t imm;                 /* PO_IMM value (bit pattern for floats); PO_MEM offset;
                                    PO_VEC longer than PTX_MAX_VEC: where its registers start
                                    in the kernel's vregs */
};

#define PTX_MAX_OPNDS 8          /* wgmma d, a, b, scale-d, imm-scale-a, -b, imm-trans-a, -b */
/* Newest PTX ISA major version accepted (nvcc 13.0 emits .version 9.0). */
#define PTX_MAX_VERSION_MAJOR 9
/* Deepest nesting of { } blocks in a kernel body (inline asm opens one). */
#define PTX_MAX_SCOPES 64

struct ptx_ins {
    uint16_t op;                 /* enum ptx_op */
    uint8_t type;                /* main data type */
    uint8_t type2;               /* cvt: source type; others: second type if any */
    uint8_t space;               /* enum ptx_space (ld/st/atom/red/cvta) */
    uint8_t space2;              /* a second state-space word (cp.async.bulk's source) */
    uint8_t cmp;                 /* enum ptx_cmp */
    uint8_t rnd;                 /* enum ptx_rnd */
    uint8_t atom;                /* enum ptx_atom */
    uint8_t mode;                /* enum ptx_mode */
    uint8_t vec;                 /* vector width of ld/st (1, 2, 4); wmma: its type words;
                                    ldmatrix/stmatrix: matrices (.x1, .x2, .x4); wgmma: N / 8 */
    uint8_t frag;                /* wmma.load/store: matrix 'a', 'b', 'c' or 'd'; wgmma: K;
                                    cp...tensor.im2col_no_offs: 'o' */
    uint8_t shape;               /* enum ptx_shape (mma, wmma, ldmatrix, stmatrix) */
    uint8_t type3, type4;        /* mma/wmma.mma .dtype.atype.btype.ctype: B's and C's (type:
                                    D's, type2: A's) */
    uint8_t nops;
    uint8_t guard_neg;
    uint8_t xmod;                /* PX_* (words that fit no other field) */
    int32_t guard;               /* predicate register guarding it, -1 if none */
    uint32_t flags;              /* PF_* */
    uint32_t line;               /* source line */
    uint16_t mnem;               /* index of the mnemonic text in the module's table */
    int32_t target;              /* bra: instruction index of the target; call: index in the
                                    body's calls */
    int32_t reconv;              /* bra: reconvergence point (IPDOM), -1 = exit */
    struct ptx_opnd o[PTX_MAX_OPNDS];
};

struct ptx_reg {
    char *name;
    uint8_t rclass;              /* enum ptx_rclass */
    uint8_t type;                /* declared type */
    uint32_t index;              /* index in its class's file */
};

struct ptx_sym {
    char *name;
    uint8_t space;               /* PS_GLOBAL, PS_CONST, PS_SHARED, PS_LOCAL, PS_PARAM */
    bool external;               /* extern .shared: dynamic shared memory */
    uint32_t align;              /* bytes */
    uint64_t size;               /* bytes (0 for extern shared) */
    uint64_t offset;             /* in its space: shared/local offset, param offset */
    uint8_t *init;               /* initial contents (global/const), size bytes, or NULL */
    uint8_t type;                /* element type (params) */
    bool hidden;                 /* a .param variable of a call whose { } scope has closed */
    bool managed;                /* .global .attribute(.managed): __managed__, the host's too */
};

/* The operands of a call instruction (ptx_kernel.calls):
 * call{.uni} (ret), func, (args);  or, through a function pointer,
 * call{.uni} (ret), %rd, (args), prototype; */
struct ptx_call {
    int32_t func;                /* callee: index in the module's funcs; -1: indirect */
    int32_t fptr;                /* indirect: the register holding the address, else -1 */
    bool has_ret;
    struct ptx_opnd ret;         /* receives the return value: a .param variable or register */
    struct ptx_opnd *args;       /* .param variables, registers or immediates */
    uint32_t nargs;
};

/* A kernel (.entry) or a device function (.func). */
struct ptx_kernel {
    char *name;
    uint32_t line;
    uint32_t cluster[3];         /* kernel: .reqnctapercluster (0: none given) */
    bool explicit_cluster;       /* kernel: .explicitcluster (a launch must give a cluster) */
    bool is_func;                /* a .func */
    bool defined;                /* .func: it has a body (else only declared: .extern, or a
                                    prototype before its definition) */
    bool addr_taken;             /* .func: its address is taken (mov, a table's initialiser):
                                    a call through a function pointer may reach it */
    struct ptx_sym *params;      /* kernel: its parameters; .func: return parameters
                                    params[0 .. n_rets), then the arguments */
    uint32_t n_params;
    uint32_t n_rets;             /* .func: return parameters (0 or 1) */
    uint64_t param_bytes;        /* bytes of the .param parameters (offsets in that block) */
    struct ptx_reg *regs;
    uint32_t n_regs;
    uint32_t n_rclass[3];        /* registers per class */
    struct ptx_sym *syms;        /* kernel-scope .shared and .local */
    uint32_t n_syms;
    uint64_t shared_bytes;       /* static shared memory (kernel + module .shared used) */
    uint64_t local_bytes;        /* .local per thread */
    uint64_t callsite_bytes;     /* the body's own .param variables (call arguments and return
                                    values; each its own offset) */
    struct ptx_call *calls;      /* the call instructions' operands */
    uint32_t n_calls;
    struct ptx_ins *ins;
    uint32_t n_ins;
    char *unsupported;           /* the first unsupported instruction's message
                                  * ("path:line: kernel|function NAME: ..."), or NULL: the
                                  * kernel (or a kernel calling the function) cannot be
                                  * launched, the module's others can */
    int32_t *vregs;              /* the registers of vector operands longer than PTX_MAX_VEC */
    uint32_t n_vregs;
    char **labels;               /* label names, index = label id */
    int32_t *label_at;           /* label id -> instruction index */
    uint32_t n_labels;
};

struct ptx_module {
    char *path;
    char version[16];
    char target[32];
    uint32_t address_size;
    struct ptx_sym *syms;        /* module-scope .global, .const, .shared */
    uint32_t n_syms;
    struct ptx_kernel *kernels;
    uint32_t n_kernels;
    struct ptx_kernel *funcs;    /* device functions, declared or defined, in order */
    uint32_t n_funcs;
    char **mnems;                /* distinct mnemonics as written ("ld.global.f32") */
    uint32_t n_mnems;
    uint32_t *mnem_slots;        /* hash index of mnems: 1 + index per slot, 0 empty */
    uint32_t n_mnem_slots;       /* a power of two, more than twice n_mnems (or 0) */
};

/* Type helpers. */
unsigned ptx_type_bytes(unsigned t);
bool ptx_type_is_float(unsigned t);
/* Is t one of .f16, .bf16, .f16x2, .bf16x2? */
bool ptx_type_is_half(unsigned t);
bool ptx_type_is_signed(unsigned t);
const char *ptx_type_name(unsigned t);
const char *ptx_op_name(unsigned op);

/* Index of mnemonic text in m's table, added if new; -1 when the table
 * is full (65535 entries). */
int ptx_module_mnem(struct ptx_module *m, const char *text);

/* Set every branch's reconvergence point: the first instruction of the
 * immediate post-dominator of its basic block (-1 = the exit).  Errors
 * name path and the kernel. */
int ptx_ir_reconvergence(struct ptx_kernel *k, const char *path, struct sim_error *err);

/* Release what body k owns, and zero it (ptx_module_free frees them all). */
void ptx_body_free(struct ptx_kernel *k);

/* The module's function called name, or -1. */
int32_t ptx_module_func(const struct ptx_module *m, const char *name);

/* Free a module (every body, name and table it owns). */
void ptx_module_free(struct ptx_module *m);

/* The kernel called name: its exact .entry name, or a mangled name whose
 * C++ identifier is name (e.g. "vecadd" finds _Z6vecaddPKfS0_Pfi).  NULL if
 * none or ambiguous. */
struct ptx_kernel *ptx_module_find(struct ptx_module *m, const char *name);

/* Register i of vector operand o of an instruction of kernel k (-1: '_'). */
static inline int32_t
ptx_vec_reg(const struct ptx_kernel *k, const struct ptx_opnd *o, unsigned i)
{
    return o->nvec > PTX_MAX_VEC ? k->vregs[o->imm + i] : o->regs[i];
}

#endif /* SMSIM_FRONTEND_PTX_IR_H */
