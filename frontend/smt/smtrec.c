/*
 * smtrec.c - the .smt record codec.
 *
 * Layout of a record (all multi-byte integers are LEB128 varints unless
 * stated; "zz" = zigzag-coded signed value):
 *   u8    head      bit0 mask differs from previous (u32 LE follows)
 *                   bit1 memory part present
 *                   bit2 aux present
 *                   bit3 flags byte present
 *                   bit4 sync byte present (.smt 1.7)
 *                   bit5 bulk part present (.smt 1.7)
 *                   bit6 stall byte present (.smt 1.7)
 *                   bit7 must be zero
 *   zz    pc - previous pc
 *   var   opcode
 *   u8    opclass
 *   [u8   flags]
 *   [u8   stall]    cycles until the warp's next instruction may issue (the
 *                   control word's stall count, > 1; absent: 0)
 *   [u32  mask]
 *   u8    n_dst << 4 | n_src, then n_dst + n_src register ids (var)
 *   [var  aux]
 *   [u8   sync]     enum sim_sync (SIGNAL or WAIT) | sync object << 3; the
 *                   signal number is aux (sim/inst.h)
 *   [u8 space, u8 width, u8 mode, addresses]
 *         mode 0: one zz delta per active lane (lane order) from the
 *                 previous active lane's address (the first from 0)
 *         mode 1: var base, zz stride: active lane of rank k has base + k*stride
 *         mode 2 (.smt 1.2): no addresses, width 0: a constant-bank load whose
 *                 address the producer did not know (Accel-Sim's LDC lines)
 *         mode 3 (.smt 1.7): no lane addresses: a bulk copy, whose words follow
 *   [u8 bulk, words] enum sim_bulk, then its address words addr[0 ..] (var):
 *                 2 for a copy (address, bytes), 10 for a tensor copy
 *                 (address, row bytes, then count and stride of 4 dimensions)
 */
#include "frontend/smt/smtrec.h"

#include <string.h>

enum {
    HEAD_MASK = 1u << 0,
    HEAD_MEM = 1u << 1,
    HEAD_AUX = 1u << 2,
    HEAD_FLAGS = 1u << 3,
    HEAD_SYNC = 1u << 4,
    HEAD_BULK = 1u << 5,
    HEAD_STALL = 1u << 6,
    HEAD_RESERVED = 0x80u
};

/* Address words of a bulk record (sim/inst.h, enum sim_bulk). */
static unsigned
bulk_words(unsigned bulk)
{
    return bulk == SIM_BULK_TENSOR ? 10u : 2u;
}

void
smtrec_reset(struct smtrec_state *st)
{
    st->pc = 0;
    st->mask = 0xffffffffu;
}

static inline uint8_t *
put_var(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static inline uint64_t
zz_enc(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t
zz_dec(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Read a varint; returns NULL on overrun or overlong encoding. */
static inline const uint8_t *
get_var(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (p >= end)
            return NULL;
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return p;
        }
    }
    return NULL;
}

const char *
smtrec_check(const struct warp_inst *wi)
{
    if (wi->opclass >= SIM_OPC_COUNT)
        return "opcode class out of range";
    if (wi->space >= SIM_SPACE_COUNT)
        return "memory space out of range";
    if (wi->n_dst > SIM_MAX_DST || wi->n_src > SIM_MAX_SRC)
        return "too many register operands";
    if (wi->space != SIM_SPACE_NONE && wi->width > 64)
        return "memory access width must be 1..64 bytes";
    if (wi->space != SIM_SPACE_NONE && wi->width == 0 && wi->space != SIM_SPACE_CONST &&
        wi->space != SIM_SPACE_PARAM)
        return "memory access width must be 1..64 bytes (0 only for a constant-bank load)";
    if (wi->sync != SIM_SYNC_NONE && wi->sync != SIM_SYNC_SIGNAL && wi->sync != SIM_SYNC_WAIT &&
        wi->sync != SIM_SYNC_SIGNAL_ASYNC)
        return "a sync operation must be a signal or a wait (polled waits are decided first)";
    if (wi->sync != SIM_SYNC_NONE && (wi->sync_obj >= SIM_SYNC_OBJS || wi->aux == 0))
        return "sync object or signal number out of range";
    if (wi->bulk > SIM_BULK_DSMEM || (wi->bulk != SIM_BULK_NONE && wi->space == SIM_SPACE_NONE))
        return "bulk copy kind out of range, or a bulk copy without a memory space";
    if (wi->remote || wi->rsig_mask != 0)
        return "unsupported: operations on other blocks of a cluster (distributed shared "
               "memory, remote signals) cannot be stored";
    return NULL;
}

size_t
smtrec_encode(struct smtrec_state *st, const struct warp_inst *wi, uint8_t *out)
{
    uint8_t *p = out + 1;
    uint8_t head = 0;
    bool mem = wi->space != SIM_SPACE_NONE;

    if (wi->active_mask != st->mask)
        head |= HEAD_MASK;
    if (mem)
        head |= HEAD_MEM;
    if (wi->aux != 0)
        head |= HEAD_AUX;
    if (wi->flags != 0)
        head |= HEAD_FLAGS;
    if (wi->sync != SIM_SYNC_NONE)
        head |= HEAD_SYNC;
    if (wi->bulk != SIM_BULK_NONE)
        head |= HEAD_BULK;
    if (wi->stall > 1)           /* 0 and 1 both mean the next cycle */
        head |= HEAD_STALL;
    p = put_var(p, zz_enc((int64_t)wi->pc - (int64_t)st->pc));
    p = put_var(p, wi->opcode);
    *p++ = wi->opclass;
    if (head & HEAD_FLAGS)
        *p++ = wi->flags;
    if (head & HEAD_STALL)
        *p++ = wi->stall;
    if (head & HEAD_MASK) {
        uint32_t m = wi->active_mask;
        p[0] = (uint8_t)m;
        p[1] = (uint8_t)(m >> 8);
        p[2] = (uint8_t)(m >> 16);
        p[3] = (uint8_t)(m >> 24);
        p += 4;
    }
    *p++ = (uint8_t)(wi->n_dst << 4 | wi->n_src);
    for (unsigned i = 0; i < wi->n_dst; i++)
        p = put_var(p, wi->dst[i]);
    for (unsigned i = 0; i < wi->n_src; i++)
        p = put_var(p, wi->src[i]);
    if (head & HEAD_AUX)
        p = put_var(p, wi->aux);
    if (head & HEAD_SYNC)
        *p++ = (uint8_t)(wi->sync | wi->sync_obj << 3);
    if (head & HEAD_BULK) {
        *p++ = wi->space;
        *p++ = wi->width;
        *p++ = 3;                /* no lane addresses: the bulk part's words */
        *p++ = wi->bulk;
        for (unsigned i = 0; i < bulk_words(wi->bulk); i++)
            p = put_var(p, wi->addr[i]);
    } else if (mem) {
        uint32_t m = wi->active_mask;
        unsigned n = inst_popc(m);
        sim_addr_t a[SIM_WARP_SIZE];
        unsigned k = 0;
        for (unsigned lane = 0; lane < SIM_WARP_SIZE; lane++)
            if (m & (1u << lane))
                a[k++] = wi->addr[lane];
        bool strided = n >= 1;
        int64_t stride = n >= 2 ? (int64_t)(a[1] - a[0]) : 0;
        for (unsigned i = 2; i < n && strided; i++)
            strided = (int64_t)(a[i] - a[i - 1]) == stride;
        *p++ = wi->space;
        *p++ = wi->width;
        if (wi->width == 0) {
            *p++ = 2;            /* no addresses */
        } else if (strided) {
            *p++ = 1;
            p = put_var(p, a[0]);
            p = put_var(p, zz_enc(stride));
        } else {
            *p++ = 0;
            sim_addr_t prev = 0;
            for (unsigned i = 0; i < n; i++) {
                p = put_var(p, zz_enc((int64_t)(a[i] - prev)));
                prev = a[i];
            }
        }
    }
    out[0] = head;
    st->pc = wi->pc;
    st->mask = wi->active_mask;
    return (size_t)(p - out);
}

size_t
smtrec_decode(struct smtrec_state *st, const uint8_t *p0, const uint8_t *end,
              struct warp_inst *wi, const char **why)
{
    const uint8_t *p = p0;
    uint64_t v;
    uint8_t head;

#define NEED(n) do { if ((size_t)(end - p) < (size_t)(n)) { *why = "record runs past the chunk end"; return 0; } } while (0)
#define VAR(dst) do { p = get_var(p, end, &v); if (p == NULL) { *why = "bad varint"; return 0; } (dst) = v; } while (0)
    NEED(1);
    head = *p++;
    if (head & HEAD_RESERVED) {
        *why = "reserved record header bits set";
        return 0;
    }
    uint64_t dpc;
    VAR(dpc);
    wi->pc = (uint32_t)((int64_t)st->pc + zz_dec(dpc));
    wi->sync = SIM_SYNC_NONE;
    wi->sync_obj = 0;
    wi->bulk = SIM_BULK_NONE;
    wi->remote = 0;              /* cluster operations are not stored */
    wi->rsig_mask = 0;
    uint64_t opc;
    VAR(opc);
    if (opc > UINT16_MAX) {
        *why = "opcode id out of range";
        return 0;
    }
    wi->opcode = (uint16_t)opc;
    NEED(1);
    wi->opclass = *p++;
    if (wi->opclass >= SIM_OPC_COUNT) {
        *why = "opcode class out of range";
        return 0;
    }
    wi->flags = 0;
    if (head & HEAD_FLAGS) {
        NEED(1);
        wi->flags = *p++;
    }
    wi->stall = 0;
    if (head & HEAD_STALL) {
        NEED(1);
        wi->stall = *p++;
        if (wi->stall < 2) {
            *why = "stall byte below 2 (0 and 1 are written as no byte)";
            return 0;
        }
    }
    if (head & HEAD_MASK) {
        NEED(4);
        wi->active_mask = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                          (uint32_t)p[3] << 24;
        p += 4;
    } else {
        wi->active_mask = st->mask;
    }
    NEED(1);
    wi->n_dst = *p >> 4;
    wi->n_src = *p & 0xf;
    p++;
    if (wi->n_dst > SIM_MAX_DST || wi->n_src > SIM_MAX_SRC) {
        *why = "too many register operands";
        return 0;
    }
    for (unsigned i = 0; i < wi->n_dst; i++) {
        VAR(v);
        if (v >= SIM_MAX_REGS) {
            *why = "register id out of range";
            return 0;
        }
        wi->dst[i] = (uint16_t)v;
    }
    for (unsigned i = 0; i < wi->n_src; i++) {
        VAR(v);
        if (v >= SIM_MAX_REGS) {
            *why = "register id out of range";
            return 0;
        }
        wi->src[i] = (uint16_t)v;
    }
    wi->aux = 0;
    if (head & HEAD_AUX) {
        VAR(v);
        if (v > UINT32_MAX) {
            *why = "aux value out of range";
            return 0;
        }
        wi->aux = (uint32_t)v;
    }
    if (head & HEAD_SYNC) {
        NEED(1);
        unsigned kind = *p & 7u, obj = (unsigned)(*p >> 3);
        p++;
        if ((kind != SIM_SYNC_SIGNAL && kind != SIM_SYNC_WAIT && kind != SIM_SYNC_SIGNAL_ASYNC) ||
            obj >= SIM_SYNC_OBJS || wi->aux == 0) {
            *why = "malformed sync byte (a signal, wait or signal after copies of objects 0..31, "
                   "signal number >= 1)";
            return 0;
        }
        wi->sync = (uint8_t)kind;
        wi->sync_obj = (uint8_t)obj;
    }
    if ((head & HEAD_BULK) && !(head & HEAD_MEM)) {
        *why = "a bulk copy record without its memory part";
        return 0;
    }
    wi->space = SIM_SPACE_NONE;
    wi->width = 0;
    if (head & HEAD_MEM) {
        NEED(3);
        wi->space = p[0];
        wi->width = p[1];
        uint8_t mode = p[2];
        p += 3;
        if (wi->space == SIM_SPACE_NONE || wi->space >= SIM_SPACE_COUNT) {
            *why = "memory space out of range";
            return 0;
        }
        if ((mode == 3) != ((head & HEAD_BULK) != 0)) {
            *why = "address mode 3 is for bulk copies, and only it";
            return 0;
        }
        if (wi->width > 64 || (mode != 3 && (wi->width == 0) != (mode == 2)) ||
            (mode == 2 && wi->space != SIM_SPACE_CONST && wi->space != SIM_SPACE_PARAM)) {
            *why = "memory access width out of range";
            return 0;
        }
        uint32_t m = wi->active_mask;
        if (mode == 3) {
            NEED(1);
            wi->bulk = *p++;
            if (wi->bulk == SIM_BULK_NONE || wi->bulk > SIM_BULK_DSMEM) {
                *why = "bulk copy kind out of range";
                return 0;
            }
            memset(wi->addr, 0, sizeof wi->addr);
            for (unsigned i = 0; i < bulk_words(wi->bulk); i++)
                VAR(wi->addr[i]);
        } else if (mode == 2) {
            /* a constant-bank load without addresses: one word for all lanes */
            memset(wi->addr, 0, sizeof wi->addr);
        } else if (mode == 1) {
            uint64_t base, zs;
            VAR(base);
            VAR(zs);
            int64_t stride = zz_dec(zs);
            unsigned k = 0;
            for (unsigned lane = 0; lane < SIM_WARP_SIZE; lane++)
                if (m & (1u << lane))
                    wi->addr[lane] = base + (uint64_t)((int64_t)k++ * stride);
        } else if (mode == 0) {
            sim_addr_t prev = 0;
            for (unsigned lane = 0; lane < SIM_WARP_SIZE; lane++) {
                if (!(m & (1u << lane)))
                    continue;
                VAR(v);
                prev += (uint64_t)zz_dec(v);
                wi->addr[lane] = prev;
            }
        } else {
            *why = "unknown address mode";
            return 0;
        }
    }
#undef NEED
#undef VAR
    st->pc = wi->pc;
    st->mask = wi->active_mask;
    return (size_t)(p - p0);
}
