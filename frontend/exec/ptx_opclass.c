/*
 * ptx_opclass.c - the timing class (sim/opclass.def) of a PTX instruction
 * (ptx_opclass.h): what ptx_decode.c gives each decoded instruction
 * before the lowering (lower/) picks its SASS operations.
 */
#include "frontend/exec/ptx_opclass.h"

#include "sim/inst.h"

bool
ptx_opclass_sreg_is_clock(unsigned s)
{
    return s == SR_CLOCK || s == SR_CLOCK64 || s == SR_CLOCK_HI || s == SR_GLOBALTIMER ||
           s == SR_GLOBALTIMER_LO || s == SR_GLOBALTIMER_HI;
}

static unsigned
float_class(unsigned t, unsigned c32, unsigned c64, unsigned cint)
{
    if (t == PT_F32)
        return c32;
    if (t == PT_F64)
        return c64;
    if (ptx_type_is_half(t))
        return SIM_OPC_FP16;
    return cint;
}

/* An integer multiply that needs the high half of a 32-bit product (.wide,
 * .hi) is IMAD.WIDE / IMAD.HI in SASS: class int_wide, its own rate.  A
 * 16-bit one fits a 32-bit IMAD. */
static unsigned
int_mul_class(const struct ptx_ins *in)
{
    return (in->flags & (PF_WIDE | PF_HI)) && ptx_type_bytes(in->type) >= 4 ? SIM_OPC_INT_WIDE
                                                                            : SIM_OPC_INT_MUL;
}

unsigned
ptx_opclass_of(const struct ptx_ins *in)
{
    unsigned t = in->type;
    bool approx = (in->flags & PF_APPROX) != 0;
    switch (in->op) {
    case PTXOP_LD: case PTXOP_LDU: case PTXOP_ST: case PTXOP_ATOM: case PTXOP_RED:
        return in->space == PS_PARAM ? SIM_OPC_INT : SIM_OPC_MEM;
    case PTXOP_BRA: case PTXOP_EXIT: case PTXOP_RET: case PTXOP_CALL: case PTXOP_TRAP:
    case PTXOP_BRKPT:
        return SIM_OPC_BRANCH;
    case PTXOP_BAR: case PTXOP_BARRIER:
        return (in->flags & PF_WARPSYNC) || in->mode == PM_CL_ARRIVE || in->mode == PM_CL_WAIT
               ? SIM_OPC_NOP : SIM_OPC_BARRIER;
    case PTXOP_MAPA: case PTXOP_GETCTARANK: case PTXOP_TXQ: case PTXOP_SUQ:
        return SIM_OPC_INT;
    case PTXOP_TEX: case PTXOP_TLD4: case PTXOP_SULD: case PTXOP_SUST:
        return SIM_OPC_MEM;      /* through the L1 (texture) cache: sim/ldst.c */
    case PTXOP_PREFETCH: case PTXOP_PREFETCHU:   /* an issue slot, no memory traffic modelled */
    case PTXOP_APPLYPRIORITY: case PTXOP_DISCARD: case PTXOP_CREATEPOLICY:
        return SIM_OPC_INT;
    case PTXOP_MEMBAR: case PTXOP_FENCE: case PTXOP_NANOSLEEP: case PTXOP_SETMAXNREG:
    case PTXOP_GRIDDEPCONTROL:
        return SIM_OPC_NOP;
    case PTXOP_CP:
        return in->mode == PM_NONE ? SIM_OPC_MEM : SIM_OPC_NOP;
    case PTXOP_MMA:
        return in->type == PT_F64 ? SIM_OPC_TENSOR_DP : SIM_OPC_TENSOR;
    case PTXOP_WGMMA:
        return in->mode == PM_WG_MMA ? SIM_OPC_WGMMA : SIM_OPC_NOP;
    case PTXOP_WMMA:
        return in->mode != PM_WMMA ? SIM_OPC_MEM
               : in->type == PT_F64 ? SIM_OPC_TENSOR_DP : SIM_OPC_TENSOR;
    case PTXOP_MBARRIER:         /* pending_count reads a register, not the barrier */
        return in->mode == PM_MB_PENDING ? SIM_OPC_INT : SIM_OPC_MEM;
    case PTXOP_LDMATRIX: case PTXOP_STMATRIX:
        return SIM_OPC_MEM;
    case PTXOP_ELECT:
        return SIM_OPC_WARP;
    case PTXOP_SHFL: case PTXOP_VOTE: case PTXOP_ACTIVEMASK: case PTXOP_REDUX: case PTXOP_MATCH:
        return SIM_OPC_WARP;
    case PTXOP_MOV:
        if (in->nops == 2 && in->o[1].kind == PO_SREG) {
            unsigned s = in->o[1].sreg;
            if ((s >= SR_TID_X && s <= SR_TID_Z) || (s >= SR_CTAID_X && s <= SR_CTAID_Z) ||
                s == SR_LANEID || s == SR_WARPID || s == SR_SMID || s == SR_GRIDID ||
                ptx_opclass_sreg_is_clock(s) || (s >= SR_CLUSTERID_X && s <= SR_CLUSTERID_Z) ||
                (s >= SR_CLUSTER_CTAID_X && s <= SR_CLUSTER_CTAID_Z) ||
                s == SR_CLUSTER_CTARANK || s == SR_PM || s == SR_PM64)
                return SIM_OPC_SREG;
        }
        return SIM_OPC_INT;
    case PTXOP_CVTA: case PTXOP_ISSPACEP:
        return SIM_OPC_INT;
    case PTXOP_CVT: {
        unsigned s = in->type2;
        bool fd = ptx_type_is_float(t), fs = ptx_type_is_float(s);
        if (!fd && !fs)
            return SIM_OPC_INT;
        if (ptx_type_bytes(t) == 8 || ptx_type_bytes(s) == 8)
            return (fd && fs && t == s) ? SIM_OPC_FP64 : SIM_OPC_CONV64;
        if (fd && fs && t == s)
            return float_class(t, SIM_OPC_FP32, SIM_OPC_FP64, SIM_OPC_INT);
        return SIM_OPC_CONV;
    }
    case PTXOP_ADD: case PTXOP_SUB: case PTXOP_MIN: case PTXOP_MAX: case PTXOP_ABS:
    case PTXOP_NEG: case PTXOP_COPYSIGN: case PTXOP_TESTP: case PTXOP_ADDC: case PTXOP_SUBC:
        return float_class(t, SIM_OPC_FP32, SIM_OPC_FP64, SIM_OPC_INT);
    case PTXOP_SETP:
        /* ISETP writes a predicate (FSETP / DSETP keep their units' classes;
         * on sm_90, ptx_lower.c makes FSETP a setp too, as the SASS is) */
        return float_class(t, SIM_OPC_FP32, SIM_OPC_FP64, SIM_OPC_SETP);
    case PTXOP_SET:
        return float_class(in->type2, SIM_OPC_FP32, SIM_OPC_FP64, SIM_OPC_INT);
    case PTXOP_MUL:
        return float_class(t, SIM_OPC_FP32, SIM_OPC_FP64, int_mul_class(in));
    case PTXOP_MAD: case PTXOP_FMA: case PTXOP_MADC:
        return float_class(t, SIM_OPC_FP32_FMA, SIM_OPC_FP64_FMA, int_mul_class(in));
    case PTXOP_MUL24: case PTXOP_MAD24: case PTXOP_SAD: case PTXOP_DP4A: case PTXOP_DP2A:
        return SIM_OPC_INT_MUL;
    case PTXOP_VABSDIFF4:
        return SIM_OPC_INT;
    case PTXOP_DIV:
        if (t == PT_F32)
            return (approx || (in->flags & PF_FULL)) ? SIM_OPC_SFU : SIM_OPC_FP32_DIV;
        if (t == PT_F64)
            return SIM_OPC_FP64_DIV;
        return SIM_OPC_FP32_DIV;     /* integer division: a multi-instruction sequence */
    case PTXOP_REM:
        return SIM_OPC_FP32_DIV;
    case PTXOP_RCP:
        if (approx)
            return SIM_OPC_SFU;
        return t == PT_F64 ? SIM_OPC_FP64_DIV : SIM_OPC_FP32_RCP;
    case PTXOP_SQRT:
        if (approx)
            return SIM_OPC_SFU;
        return t == PT_F64 ? SIM_OPC_FP64_DIV : SIM_OPC_FP32_SQRT;
    case PTXOP_EX2:
        return SIM_OPC_SFU_EX2;
    case PTXOP_RSQRT: case PTXOP_SIN: case PTXOP_COS: case PTXOP_LG2:
    case PTXOP_TANH: case PTXOP_POPC: case PTXOP_CLZ: case PTXOP_BREV: case PTXOP_BFIND:
        return SIM_OPC_SFU;
    default:
        return SIM_OPC_INT;
    }
}
