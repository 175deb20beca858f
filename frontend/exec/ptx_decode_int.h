/*
 * ptx_decode_int.h - what ptx_decode.c shares with its tensor-core part,
 * ptx_decode_mma.c, and the texture instructions' decoding in ptx_tex.c
 * (private to those files).
 *
 * struct dctx is the state of one kernel's decoding: the run it fills in,
 * the body being decoded and the constant slots made so far.  The helpers
 * turn PTX operands into slots (ptx_dc_opnd, ptx_dc_mem_operand), list the
 * timing model's register ids (ptx_dc_add_dst/src) and report an error at
 * the instruction being decoded (ptx_dc_err: "path:line: message").
 */
#ifndef SMSIM_FRONTEND_PTX_DECODE_INT_H
#define SMSIM_FRONTEND_PTX_DECODE_INT_H

#include "frontend/exec/ptx_run.h"

struct dctx {
    struct ptx_run *r;
    struct sim_error *err;
    const struct ptx_kernel *body;   /* the kernel or function being decoded */
    const struct xfunc *f;       /* its r->funcs entry */
    bool func;                   /* a function (not the kernel) */
    uint32_t line;
    union r32 *c32;
    uint32_t n_c32, cap_c32;
    union r64 *c64;
    uint32_t n_c64, cap_c64;
    uint32_t *h32, *h64;         /* open-addressed indexes of c32, c64: position + 1 (0 free),
                                    2 * cap entries */
    uint32_t *cp;
    uint32_t n_cp, cap_cp;
    bool reserved_smem;          /* an instruction reads a %reserved_smem_offset_* */
};

int ptx_dc_err(struct dctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ptx_decode_const.c: the slot of constant v (32-bit, 64-bit, or a
 * predicate all true or all false), added to the kernel's if new.  The
 * slots number after the variables (and, 32-bit, the special registers),
 * in the order values first appear; a hash index keeps the lookups of a
 * kernel with thousands of them linear. */
uint32_t ptx_dc_const32(struct dctx *c, uint32_t v);
uint32_t ptx_dc_const64(struct dctx *c, uint64_t v);
uint32_t ptx_dc_constp(struct dctx *c, bool v);

/* Decode operand o to a slot of class want for a value of type t.
 * allow_sink: '_' is accepted (a destination that is discarded). */
int ptx_dc_opnd(struct dctx *c, const struct ptx_opnd *o, uint8_t want, unsigned t,
                struct slot *out, bool allow_sink);

/* Memory operand [base + off] / [sym + off] / [abs] into x->base, x->off
 * (x->space decides how a symbol resolves). */
int ptx_dc_mem_operand(struct dctx *c, const struct ptx_opnd *o, struct xop *x);

/* Add slot s to x's destination / source register ids (constants and
 * special registers are none). */
void ptx_dc_add_dst(struct ptx_run *r, struct xop *x, const struct slot *s);
void ptx_dc_add_src(struct ptx_run *r, struct xop *x, const struct slot *s);

/* ptx_decode_mma.c: mma.sync and wmma.mma; wmma.load/.store; ldmatrix and
 * stmatrix; wgmma.mma_async, .fence, .commit_group, .wait_group. */
int ptx_dc_mma(struct dctx *c, const struct ptx_ins *in, struct xop *x);
int ptx_dc_wmma_mem(struct dctx *c, const struct ptx_ins *in, struct xop *x);
int ptx_dc_ldmatrix(struct dctx *c, const struct ptx_ins *in, struct xop *x);
int ptx_dc_wgmma(struct dctx *c, const struct ptx_ins *in, struct xop *x);

/* ptx_tex.c: tex, tld4, txq, suld, sust, suq. */
int ptx_dc_tex(struct dctx *c, const struct ptx_ins *in, struct xop *x);

/* Element i of vector operand vo: a register, a constant (PO_IMM) or '_'
 * (PO_SINK). */
static inline struct ptx_opnd
ptx_dc_vec_elem(const struct ptx_opnd *vo, unsigned i)
{
    if (vo->vimm & (1u << i))
        return (struct ptx_opnd){ .kind = PO_IMM, .imm = (int64_t)(uint32_t)vo->regs[i] };
    if (vo->regs[i] < 0)
        return (struct ptx_opnd){ .kind = PO_SINK, .reg = -1 };
    return (struct ptx_opnd){ .kind = PO_REG, .reg = vo->regs[i] };
}

#endif /* SMSIM_FRONTEND_PTX_DECODE_INT_H */
