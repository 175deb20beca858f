#!/usr/bin/env python3
"""conform_check.py IN OUT... - check the outputs of tests/ptx/conform/*.launch.

IN holds each launch's initial buffers (smsim emulate --inputs IN/NAME); each
OUT is one run's --output-dir (its out/*.bin, and sleepy.stdout: what the
kernel printed).  Every kernel of conform.cu is recomputed here in plain
Python, from the CUDA semantics (cooperative groups' tiles are consecutive
thread ranks, shuffles with a width stay in their segment, ...), not from
smsim's code: integers must match exactly, correctly rounded floating-point
results to the bit, approximate ones (__expf, __sincosf, __fdividef,
__logf, __powf) within a stated tolerance.  fatomics' float sums depend on
the order of the atomics (a test: order-dependent launch) and are compared
within a tolerance.  Prints one line per kernel and output directory and
exits 1 if any differs."""
import math
import struct
import sys
from fractions import Fraction

from checklib import inputs, rd

IN, OUTS = sys.argv[1], sys.argv[2:]
M32, M64 = 2 ** 32 - 1, 2 ** 64 - 1
inp = inputs(IN)


def s32(x):
    x &= M32
    return x - 2 ** 32 if x >> 31 else x


def s64(x):
    x &= M64
    return x - 2 ** 64 if x >> 63 else x


def rnd(x, p, emin, emax, mode='rn'):
    """x (exact) rounded to a binary format of p significand bits, normal
    exponents emin .. emax: round to nearest even ('rn'), toward zero
    ('rz'), up ('ru') or down ('rd'); overflow gives infinity (rn)."""
    x = Fraction(x)
    if x == 0:
        return 0.0
    s, a = (-1, -x) if x < 0 else (1, x)
    e = math.frexp(float(a))[1] - 1
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    q = Fraction(2) ** (max(e, emin) - p + 1)
    n = a / q
    if mode == 'rn':
        r = round(n)
    elif mode == 'rz' or (mode == 'ru' and s < 0) or (mode == 'rd' and s > 0):
        r = math.floor(n)
    else:
        r = math.ceil(n)
    v = r * q
    if v >= Fraction(2) ** (emax + 1):
        return s * math.inf
    return s * float(v)


def f32(x, mode='rn'):
    return rnd(x, 24, -126, 127, mode)


def f16(x, mode='rn'):
    return rnd(x, 11, -14, 15, mode)


def bf16(x, mode='rn'):
    return rnd(x, 8, -126, 127, mode)


def bf16_bits(b):
    return struct.unpack('<f', struct.pack('<I', b << 16))[0]


def fbits(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]


results = []


def report(name, where, ok, detail):
    results.append(ok)
    print('%-10s %-22s %s  %s' % (name, where, 'ok  ' if ok else 'FAIL', detail))


def tiles(vals, n):
    """The tile of n consecutive ranks each index is in, as a list of lists."""
    return [vals[i - i % n:i - i % n + n] for i in range(len(vals))]


def check(name, want, got, where):
    bad = [i for i in range(len(want)) if want[i] != got[i]]
    report(name, where, not bad and len(want) == len(got),
           '%d wrong%s' % (len(bad), ' (first at %d: %r, expected %r)' % (bad[0], got[bad[0]], want[bad[0]]) if bad else ''))


def ref_cg_tiles():
    I, out = inp('cg_tiles', 'in', 'i'), []
    for i, v in enumerate(I):
        t = i % 128
        t4, t8, t16, t32 = (tiles(I, n)[i] for n in (4, 8, 16, 32))
        and_ = or_ = xor = None
        r16, r32 = t % 16, t % 32
        a, o, x = M32, 0, 0
        for u in t32:
            a &= u
            o |= u
        for u in t16:
            x ^= u
        sd = t16[r16 + 1] if r16 + 1 < 16 else v
        su = t16[r16 - 2] if r16 >= 2 else v
        out += [sum(t4), min(t8), max(t16), s32(a), s32(o), s32(x),
                s32(t8[3] + 3 * sd + 7 * t4[(t % 4) ^ 1]),
                16000 + t % 16 + 100000 * (t // 4), t + 128000 + 16000000,
                sum(u & 1 for u in t32) + 100 * any(u > 900 for u in t16) + 1000 * all(u > 100 for u in t8),
                r32 + 1600 + (i // 128) * 10000, su - t32[31]]
    return {'cg_tiles': (out, 'i')}


def scan(vals, op, incl):
    r, acc = [], None
    for v in vals:
        if incl:
            acc = v if acc is None else op(acc, v)
            r.append(acc)
        else:
            r.append(0 if acc is None else acc)
            acc = v if acc is None else op(acc, v)
    return r


def ref_cg_scan():
    I, out = inp('cg_scan', 'in', 'i'), []
    add = lambda a, b: a + b
    for i, v in enumerate(I):
        k = lambda n: i % n
        t8, t16, t32 = (tiles(I, n)[i] for n in (8, 16, 32))
        out += [scan(t32, add, 1)[k(32)], scan(t32, add, 0)[k(32)], scan(t8, add, 1)[k(8)],
                scan(t8, add, 0)[k(8)], scan(t16, lambda a, b: a | b, 1)[k(16)],
                scan(t32, max, 1)[k(32)], scan(t16, min, 1)[k(16)],
                scan(t32, lambda a, b: a ^ b, 1)[k(32)]]
    return {'cg_scan': (out, 'i')}


def ref_cg_part():
    I, out = inp('cg_part', 'in', 'i'), []
    for i, v in enumerate(I):
        w = tiles(I, 32)[i]
        lane = i % 32
        def grp(f):
            return [j for j in range(32) if f(w[j]) == f(v)]
        lg = grp(lambda u: u % 3)
        bg = grp(lambda u: u & 1)
        o = [sum(w[j] for j in lg), len(lg) * 100 + lg.index(lane),
             max(w[j] for j in bg) * 100 + len(bg), -1, -1]
        if v % 5 == 0:
            ct = grp(lambda u: u % 5 == 0)
            o[3] = len(ct) * 100 + ct.index(lane)
            o[4] = w[ct[0]] + sum(w[j] for j in ct) * 1000
        out += o + [sum(w[:lane + 1]) + 32]
    return {'cg_part': (out, 'i')}


def ref_cg_memcpy():
    I = inp('cg_memcpy', 'in', 'i')
    out = []
    for b in range(2):
        s = I[512 * b:512 * b + 512]
        out += [s32(s[t] + 3 * s[511 - t] + 7 * s[t ^ 31]) for t in range(128)]
    return {'cg_memcpy': (out, 'i')}


def ref_cg_tilemem():
    I = inp('cg_tilemem', 'in', 'i')
    out = []
    for b in range(2):
        s = I[256 * b:256 * b + 256]
        out += [s[t ^ 63] + 3 * s[t ^ 127] + 1000 * (t // 64) + 10000 * (t % 128) + 40000000
                for t in range(256)]
    return {'cg_tilemem': (out, 'i')}


def ref_warpsz():
    I = inp('warpsz', 'in', 'i')
    out = []
    for i in range(256):
        t, lane = i % 128, i % 32
        out.append((sum(tiles(I, 32)[i]) if lane == 0 else 0) + 3200000 + (t // 32) * 1000 + lane)
    return {'warpsz': (out, 'i')}


def ref_ldst():
    I, Q, n = inp('ldst', 'in', 'i'), inp('ldst', 'in4', 'i'), 256
    g = lambda k: I[k % n]
    return {'ldst_o1': ([s32(g(i) + 2 * g(i + 1)) for i in range(n)], 'i'),
            'ldst_o2': ([s32(g(i + 2) - g(i + 3) + g(i + 5)) for i in range(n)], 'i'),
            'ldst_o3': ([g(i + 7) ^ g(i) for i in range(n)], 'i'),
            'ldst_o4': ([s32(Q[j] + j % 4 + 1) for j in range(n)], 'i')}


def ref_iatomics(outs):
    """Deterministic results; the exchanges by multiset (the values taken
    out and the last one left are the first one and every one put in)."""
    I = inp('iatomics', 'in', 'i')
    ia, ua = inp('iatomics', 'ia', 'i'), inp('iatomics', 'ua', 'I')
    ull, ll = inp('iatomics', 'ull', 'Q'), inp('iatomics', 'll', 'q')
    w_ia = [s32(ia[0] + sum(I)), s32(ia[1] - sum(I)), min([ia[2]] + [v - 500 for v in I]),
            max([ia[3]] + [v - 500 for v in I])]
    a, o, x = ia[4], ia[5], ia[6]
    for v in I:
        a &= ~(1 << (v & 31))
        o |= 1 << (v & 31)
        x ^= v
    w_ia += [s32(a), s32(o), s32(x)]
    inc, dec = ua[3], ua[4]
    for v in I:
        inc = 0 if inc >= 37 else inc + 1
        dec = 53 if dec == 0 or dec > 53 else dec - 1
    w_ua = [(ua[0] + 3 * sum(I)) & M32, min([ua[1]] + [v + 7 for v in I]),
            max([ua[2]] + [v * 5 for v in I]), inc, dec]
    a, o, x, m = ull[3], ull[4], ull[5], ull[7]
    for v in I:
        a &= ~(1 << (v & 63))
        o |= 1 << (v & 63)
        x ^= (v * 0x9e3779b97f4a7c15) & M64
        m = m * (v % 97 + 2) % 1000003
    w_ull = [(ull[0] + sum(v << 20 for v in I)) & M64,
             min([ull[1]] + [v * 0x100000001 for v in I]),
             max([ull[2]] + [v * 0x100000001 for v in I]), a & M64, o, x]
    w_ll = [min([ll[0]] + [(v - 500) * 100000000000 for v in I]),
            max([ll[1]] + [(v - 500) * 100000000000 for v in I])]
    blk = [sum(I[128 * b:128 * b + 128]) for b in range(4)]
    for b in range(4):
        o = 0
        for v in I[128 * b:128 * b + 128]:
            o |= 1 << (v & 31)
        blk.append(s32(o))
    blk += [512, max([0] + I)]
    for d in outs:
        where = d.split('/')[-1]
        g_ia, g_ua = rd(d + '/out/iatomics_ia.bin', 'i'), rd(d + '/out/iatomics_ua.bin', 'I')
        g_ull, g_ll = rd(d + '/out/iatomics_ull.bin', 'Q'), rd(d + '/out/iatomics_ll.bin', 'q')
        eo, eo64 = rd(d + '/out/iatomics_exch_old.bin', 'i'), rd(d + '/out/iatomics_exch_old64.bin', 'Q')
        fo = rd(d + '/out/iatomics_fexch_old.bin', 'I')
        ok = (g_ia[:7] == w_ia and g_ua == w_ua and g_ull[:6] == w_ull and g_ll == w_ll and
              g_ull[7] == m and rd(d + '/out/iatomics_blk.bin', 'i') == blk and
              rd(d + '/out/iatomics_us.bin', 'H') == [5 + 512] and
              sorted(eo + [g_ia[7]]) == sorted([ia[7]] + I) and
              sorted(eo64 + [g_ull[6]]) == sorted([ull[6]] + [v * 0x10001 for v in I]) and
              sorted(fo + [g_ia[8] & M32]) == sorted([ia[8] & M32] + [fbits(v * 0.5) for v in I]))
        report('iatomics', where, ok, 'ia %r' % (g_ia[:4],))


def ref_fatomics(outs):
    """test: order-dependent: the float sums within 1e-4 (f32: 512 terms of
    |x| <= 1), the double within 1e-12, the half sum within 0.02."""
    I = inp('fatomics', 'in', 'f')
    for d in outs:
        where = d.split('/')[-1]
        fs, ds = rd(d + '/out/fatomics_fs.bin', 'f'), rd(d + '/out/fatomics_ds.bin', 'd')
        h2, dm = rd(d + '/out/fatomics_h2.bin', 'e'), rd(d + '/out/fatomics_dmax.bin', 'd')
        ok = (abs(fs[0] - sum(I)) < 1e-4 and abs(fs[1] - sum(I)) < 1e-4 and
              abs(ds[0] - sum(I) * 0.25) < 1e-12 and abs(h2[0] - sum(I) * 0.01) < 0.02 and
              h2[1] == 512.0 and dm[0] == max(I))
        report('fatomics', where, ok, 'sum %.6g (Python %.6g), half %.4g' % (fs[0], sum(I), h2[0]))


def ref_sleepy(outs):
    I = inp('sleepy', 'in', 'i')
    want = ''.join('conform %d: v=%d f=%.2f %s %5.1e\n' % (i, I[i], 1.5 * i, 'ok', I[i] * 1e3)
                   for i in range(3))
    for d in outs:
        got = open(d + '/sleepy.stdout').read()
        check('sleepy', [2 * v + 1 for v in I], rd(d + '/out/sleepy.bin', 'i'), d.split('/')[-1])
        report('sleepy', d.split('/')[-1] + ' printf', got == want, repr(got[:40]))


def ref_warpintr():
    I, out = inp('warpintr', 'in', 'i'), []
    for i, v in enumerate(I):
        w, lane = tiles(I, 32)[i], i % 32
        def shfl(src, width):
            return w[lane - lane % width + src % width]
        def up(dl, width):
            return w[lane - dl] if lane % width >= dl else v
        def down(dl, width):
            return w[lane + dl] if lane % width + dl < width else v
        mask_any = sum(1 << j for j in range(32) if w[j] % 4 == v % 4)
        out += [s32(shfl((lane + 3) & 7, 8) + 3 * up(2, 16)), s32(down(3, 8) + 3 * w[lane ^ 5]),
                s32(sum((w[j] & 1) << j for j in range(32))), 0xfffff if lane < 20 else 0,
                s32(mask_any), sum(w), w[lane ^ 1] + 3 * w[lane ^ 2] if lane < 16 else 0,
                w[31 - lane] - up(1, 32)]
    return {'warpintr': (out, 'i')}


def brev(v, n):
    return int('{:0{}b}'.format(v, n)[::-1], 2)


def ffs(v, n):
    v &= (1 << n) - 1
    return 0 if v == 0 else (v & -v).bit_length()


def clz(v, n):
    return n - v.bit_length()


def ref_intintr():
    out = []
    for w in inp('intintr', 'in', 'Q'):
        a, b = w & M32, w >> 32
        sa, sb = s32(a), s32(b)
        fl = lambda lo, hi, s: (((hi << 32 | lo) << s) >> 32) & M32
        perm = lambda x, y, s: sum(((y << 32 | x) >> 8 * ((s >> 4 * k) & 7) & 255) << 8 * k
                                   for k in range(4))
        vabs = lambda sg: sum(abs((s32(a << (24 - 8 * k)) >> 24 if sg else a >> 8 * k & 255) -
                                  (s32(b << (24 - 8 * k)) >> 24 if sg else b >> 8 * k & 255)) % 256
                              << 8 * k for k in range(4))
        m24 = lambda x: s32(x << 8) >> 8
        o = [fl(a, b, sb & 31),
             ((((b << 32 | a) >> (sa & 31)) & M32) + (fl(b, a, min(a, 32)) << 32)) & M64,
             perm(a, b, b & 0x7777) + (b << 32),
             brev(w, 64),
             bin(w).count('1') + 100 * clz(w >> (a & 63), 64) + 10000 * ffs(sa, 32) +
             1000000 * ffs(w >> 7, 64),
             ((s64(w) * s64(w * 0x9e3779b97f4a7c15)) >> 64) & M64,
             (w * (w ^ 0x5555555555555555)) >> 64,
             ((a * b) >> 32) + ((((sa * sb) >> 32) & M32) << 32),
             ((abs(sa - sb) + 7) & M32) + (((abs(a - b) + 3) & M32) << 32),
             vabs(False) + (vabs(True) << 32),
             ((sa + sb) >> 1 & M32) + (((sa + sb + 1) >> 1 & M32) << 32),
             ((a + b) >> 1) + (((a + b + 1) >> 1) << 32),
             brev(a, 32) + (bin(b).count('1') << 32) + (clz(a, 32) << 40),
             (s32(m24(a) * m24(b)) & M64) ^ ((((a & 0xffffff) * (b & 0xffffff)) & M32) << 32),
             (sa * sb + (sa >> (b & 31))) & M64,
             ((s32(a << 16) >> 16) + ((s32(b << 24) >> 24) << 40)) & M64]
        out += [v & M64 for v in o]
    return {'intintr': (out, 'Q')}


def ulps(x, y):
    """The distance of two f32 values in units in the last place."""
    if x == y:
        return 0
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or math.isinf(y):
        return 1 << 30
    k = lambda f: (lambda u: u if u < 2 ** 31 else 2 ** 31 - u)(fbits(f))
    return abs(k(x) - k(y))


def ref_fltintr(outs):
    I = inp('fltintr', 'in', 'f')
    for d in outs:
        F, K = rd(d + '/out/fltintr_f.bin', 'f'), rd(d + '/out/fltintr_i.bin', 'q')
        bad = []
        for i, x in enumerate(I):
            y = I[(i + 1) % 128]
            f, k = F[12 * i:12 * i + 12], K[10 * i:10 * i + 10]
            z = f32(x * 1000)
            exact = [(1, None), (1, min(max(x, 0.0), 1.0)), (2, None), (3, None), (4, None),
                     (5, None), (1, f32(round(f32(x * 3.5)))), (1, f32(Fraction(x) + Fraction(y), 'rz')),
                     (1, f32(Fraction(x) * Fraction(y), 'ru')), (1, f32(math.sqrt(abs(y)))),
                     (1, f32(1 / Fraction(y))), (6, None)]
            appr = [x / y, None, 1 / math.sqrt(f32(abs(x) + 0.5)), math.exp(x), math.sin(x),
                    math.cos(x), None, None, None, None, None,
                    math.log(f32(abs(x) + 1)) + math.sqrt(f32(abs(y) + 1))]
            for j in range(12):
                kind, want = exact[j]
                if kind == 1:
                    ok = f[j] == want
                elif kind == 2:             # correctly rounded: within one ulp of the double
                    ok = ulps(f[j], f32(appr[j])) <= 1
                else:                       # approximate: relative (exp, div) or absolute error
                    ok = abs(f[j] - appr[j]) <= (2e-6 * abs(appr[j]) if kind in (1, 3) else 2e-5)
                if j == 0:
                    ok = abs(f[j] - appr[j]) <= 2e-6 * abs(appr[j])
                if not ok:
                    bad.append((i, j, f[j], want if want is not None else appr[j]))
            wk = [round(z), round(z), int(z), math.ceil(z), math.floor(z), round(abs(z)),
                  math.floor(f32(z * 1e6)), round(f32(z * 0.5)), math.ceil(abs(z)),
                  s32(fbits(x)) ^ (i * 7)]
            bad += [(i, 12 + j, k[j], wk[j]) for j in range(10) if k[j] != wk[j]]
        report('fltintr', d.split('/')[-1], not bad, '%d wrong %s' % (len(bad), bad[:2]))


def ref_halfarith():
    HA, FA = inp('halfarith', 'ha', 'e'), inp('halfarith', 'fa', 'f')
    ho, bo, io = [], [], []
    F = Fraction
    for i in range(128):
        a, b = HA[2 * i], HA[2 * i + 1]
        x, y = bf16(FA[2 * i]), bf16(FA[2 * i + 1])
        ho += [f16(a + b), f16(f16(a * b) - b), f16(F(a) * F(b) + F(a)), f16(F(a) / F(b)),
               max(a, b), f16(F(a) * F(b) + F(a)), f16(a * b), f16(f16(a * 3) - i)]
        bo += [bf16(x + y), bf16(x * y), bf16(F(x) * F(y) + F(x)), bf16(x - y), bf16(x * x),
               bf16(y * y), min(x, y), bf16(x * 1.5, 'rz')]
        hb = struct.unpack('<H', struct.pack('<e', a))[0]
        yb = struct.unpack('<I', struct.pack('<f', y))[0] >> 16
        io += [(a < b) + 2 * (a >= b) + 4 + 8 * (x > y), int(f16(a * 10)), round(x * 4),
               s32(hb ^ (yb << 16))]
    return {'halfarith_h': (ho, 'e'), 'halfarith_b': (bo, 'bf16'), 'halfarith_i': (io, 'i')}


refs = {}
for f in (ref_cg_tiles, ref_cg_scan, ref_cg_part, ref_cg_memcpy, ref_cg_tilemem, ref_warpsz,
          ref_ldst, ref_warpintr, ref_intintr, ref_halfarith):
    refs.update(f())
for d in OUTS:
    for name, (want, fmt) in sorted(refs.items()):
        if fmt == 'bf16':
            got = [bf16_bits(v) for v in rd('%s/out/%s.bin' % (d, name), 'H')]
        else:
            got = rd('%s/out/%s.bin' % (d, name), fmt)
        check(name, want, got, d.split('/')[-1])
ref_iatomics(OUTS)
ref_fatomics(OUTS)
ref_sleepy(OUTS)
ref_fltintr(OUTS)
sys.exit(0 if all(results) else 1)
