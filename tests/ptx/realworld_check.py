#!/usr/bin/env python3
"""realworld_check.py IN OUT - check the outputs of tests/ptx/realworld/*.launch.

IN holds each launch's initial buffers (smsim emulate --inputs IN/NAME), OUT
the output files the launch files name (out/*.bin under --output-dir).  Each
kernel of realworld.cu is recomputed here in plain Python: integer results
must match exactly, floating-point ones to rounding.  Prints one line per
kernel and exits 1 if any differs."""
import math
import struct
import sys

from checklib import inputs, rd

IN, OUT = sys.argv[1], sys.argv[2]
inp = inputs(IN)


def out(name, fmt):
    return rd('%s/%s.bin' % (OUT, name), fmt)


def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]


def f16(x):
    return struct.unpack('<e', struct.pack('<e', x))[0]


def s32(x):
    x &= 0xffffffff
    return x - 2 ** 32 if x >= 2 ** 31 else x


def tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def brev(v):
    return int('{:032b}'.format(v & 0xffffffff)[::-1], 2)


results = []


def report(name, ok, detail):
    results.append(ok)
    print('%-12s %s  %s' % (name, 'ok  ' if ok else 'FAIL', detail))


def cnd(d):
    k = 1 / (1 + 0.2316419 * abs(d))
    c = 0.3989422804 * math.exp(-0.5 * d * d) * (k * (0.31938153 + k * (-0.356563782 + k * (
        1.781477937 + k * (-1.821255978 + k * 1.330274429)))))
    return 1 - c if d > 0 else c


S, X, T = (inp('blackscholes', b, 'f') for b in 'SXT')
C = out('blackscholes_call', 'f')
e = 0
for s, x, t, c in zip(S, X, T, C):
    sq = math.sqrt(t)
    d1 = (math.log(s / x) + (0.02 + 0.5 * 0.3 * 0.3) * t) / (0.3 * sq)
    ref = s * cnd(d1) - x * math.exp(-0.02 * t) * cnd(d1 - 0.3 * sq)
    e = max(e, abs(c - ref) / max(1.0, abs(ref)))
report('blackscholes', e < 1e-4, 'largest error %.2g' % e)

e = 0
for x, o in zip(inp('dmath', 'in', 'd'), out('dmath', 'd')):
    ref = math.exp(x) / (1 + math.log(1 + x * x)) + x ** 1.5 + math.sqrt(x) / (x + 3)
    e = max(e, abs(o - ref) / abs(ref))
report('dmath', e < 1e-14, 'largest relative error %.2g' % e)

bad = 0
for v, o in zip(inp('i64ops', 'in', 'Q'), out('i64ops', 'Q')):
    s, d = v - 12345, -7919
    ref = (v // (d % 2 ** 64) + v % 977 + tdiv(s, d) % 2 ** 64 + (s - 13 * tdiv(s, 13)) % 2 ** 64)
    bad += ref % 2 ** 64 != o
report('i64ops', bad == 0, '%d wrong' % bad)

I, O = inp('localsort', 'in', 'i'), out('localsort', 'i')
n = len(I)
bad = sum(O[i] != (lambda a: a[I[i] & 15] + a[0] + a[15])(sorted(I[(i * 16 + k) % n]
                                                                   for k in range(16)))
          for i in range(n))
report('localsort', bad == 0, '%d wrong' % bad)

D, B = inp('histo', 'data', 'B'), out('histo', 'I')
ref = [0] * 256
for v in D:
    ref[v] += 1
report('histo', B == ref, '%d in all' % sum(B))

I = inp('fatomics', 'in', 'f')
m = out('fatomics_mx', 'f')[0]
report('fatomics', m == max(I), 'max %g' % m)

I, O = inp('warpops', 'in', 'i'), out('warpops', 'i')
n, bad = 4000, 0
for w in range(0, len(I), 32):
    vs = [I[i] if i < n else 0 for i in range(w, w + 32)]
    s, b = sum(vs), sum(v & 1 for v in vs)
    an, al = any(v > 100 for v in vs), all(v >= 0 for v in vs)
    for k, v in enumerate(vs):
        clz = 32 if v == 0 else 32 - v.bit_length()
        ffs = 0 if v == 0 else (v & -v).bit_length()
        if w + k < n:
            bad += O[w + k] != s + b + an * 2 + al * 4 + clz + ffs
report('warpops', bad == 0, '%d wrong' % bad)

bad = 0
for v, o in zip(inp('control', 'in', 'i'), out('control', 'i')):
    r = k = 0
    while v != 1 and k < 200:
        c = v & 3
        r = s32(r + (v >> 2) if c == 0 else r ^ s32(v * 7) if c == 1 else
                r - int(v / 3) if c == 2 else r + (brev(v) & 0xff))
        v = s32(3 * v + 1) if v & 1 else int(v / 2)
        k += 1
    bad += o != s32(r + k)
report('control', bad == 0, '%d wrong' % bad)

I, O = inp('stencil2d', 'in', 'f'), out('stencil2d', 'f')
w, h, e = 128, 120, 0


def at(x, y):
    return I[min(max(y, 0), h - 1) * w + min(max(x, 0), w - 1)]


for y in range(h):
    for x in range(w):
        ref = 0.2 * (at(x, y) + at(x, y - 1) + at(x, y + 1) + at(x - 1, y) + at(x + 1, y))
        e = max(e, abs(O[y * w + x] - ref))
report('stencil2d', e < 1e-6, 'largest error %.2g' % e)

A, B2, O = inp('hmath', 'a', 'e'), inp('hmath', 'b', 'e'), out('hmath', 'e')
bad = sum(o != f16(f16(a * b) + f16(math.sqrt(abs(a)))) for a, b, o in zip(A, B2, O))
report('hmath', bad == 0, '%d wrong' % bad)


def poly(x, a, b, c, d):
    return (((a * x + b) * x + c) * x + d) / (x * x + 1)


e = max(abs(o - poly(x, 1, 2, 3, 4) - poly(2 * x, .5, .25, .125, 1)) / max(1, abs(o))
        for x, o in zip(inp('calls2', 'in', 'f'), out('calls2', 'f')))
report('calls2', e < 1e-6, 'largest error %.2g' % e)

e = 0
for x, o in zip(inp('libm', 'in', 'f'), out('libm', 'f')):
    s, c = math.sin(x), math.cos(x)
    ref = (s * c + math.tanh(x) + math.erf(x) + math.fmod(f32(x * 10), 3) + round(f32(x * 4)) +
           math.atan2(s, c) + x ** (1 / 3))
    e = max(e, abs(o - ref))
report('libm', e < 1e-4, 'largest error %.2g' % e)

I = inp('atomics2', 'in', 'i')
got = (out('atomics2_dsum', 'd')[0], out('atomics2_imin', 'i')[0], out('atomics2_imax', 'i')[0],
       out('atomics2_inc', 'I')[0])
report('atomics2', got == (sum(I) * 0.5, min(I), max(I), len(I)), repr(got))

bad = 0
for x, y, o in zip(inp('intdiv', 'a', 'i'), inp('intdiv', 'b', 'i'), out('intdiv', 'i')):
    ux, uy = x & 0xffffffff, (y | 1) & 0xffffffff
    bs = list(struct.pack('<I', ux)) + list(struct.pack('<I', y & 0xffffffff))
    perm = sum(bs[(0x5140 >> (4 * k)) & 7] << (8 * k) for k in range(4))
    fun = ((((y & 0xffffffff) << 32 | ux) << (y & 31)) >> 32) & 0xffffffff
    shl = ((((x & 0xffffffffffffffff) << (y & 63)) & 0xffffffffffffffff) >> 7) & 0xffffffff
    m24 = [(v & 0xffffff) - (1 << 24) if v & 0x800000 else v & 0xffffff for v in (x, y)]
    ref = (tdiv(x, y) + x - y * tdiv(x, y) + ux // uy + ux % uy + perm + fun + brev(x) + shl +
           round(f32(f32(float(x)) * f32(0.37))) + m24[0] * m24[1] + (ux * uy >> 32) +
           abs(x - y) + 3)
    bad += s32(ref) != o
report('intdiv', bad == 0, '%d wrong' % bad)

O = out('grid3d', 'i')
bad = sum(O[(z * 32 + y) * 32 + x] != x + 10 * y + 100 * z + 3
          for z in range(6) for y in range(32) for x in range(32))
report('grid3d', bad == 0, '%d wrong' % bad)

I, O = inp('bigunroll', 'in', 'f'), out('bigunroll', 'f')
n, e = len(I), 0
for i in range(n):
    acc = [I[(i + k) % n] for k in range(32)]
    e = max(e, abs(O[i] - sum(acc[k] * acc[(k + r) & 31] for r in range(8) for k in range(32))))
report('bigunroll', e < 1e-3, 'largest error %.2g' % e)

I, O = inp('spill', 'in', 'i'), out('spill', 'i')
n = len(I)
bad = sum(O[i] != sum(I[(i * 7 + (k * 31 + I[i] & 255)) % n] for k in range(256))
          for i in range(n))
report('spill', bad == 0, '%d wrong' % bad)

O = out('printfs', 'i')
report('printfs', O == [2 * i for i in range(128)], 'its stores (its lines: printfs.expected)')

I, O = inp('warpsync', 'in', 'i'), out('warpsync', 'i')
n, bad = 4000, 0
for w in range(0, len(I), 32):
    vs = [I[i] if i < n else 0 for i in range(w, w + 32)]
    and_ = 0xffffffff
    or_ = xor = 0
    for v in vs:
        and_ &= v | 1
        or_ |= v & 6
        xor ^= v
    r = sum(vs) + min(vs) + max(v - 50 for v in vs) + and_ + or_ + xor
    all_ = len(set(v >> 30 for v in vs)) == 1
    for k, v in enumerate(vs):
        if w + k < n:
            anyc = sum(1 for u in vs if u & 7 == v & 7)
            bad += O[w + k] != s32(r + sum(vs) + anyc + all_ + 2 * all_)
report('warpsync', bad == 0, '%d wrong' % bad)

I, O = inp('syncreduce', 'in', 'i'), out('syncreduce', 'i')
bad = 0
for blk in range(0, len(I), 128):
    vs = I[blk:blk + 128]
    c = sum(sum(v > 25 * r for v in vs) << (8 * r) for r in range(4))
    ref = s32(c + (any(v > 98 for v in vs) << 30) + (all(v >= 1 for v in vs) << 29))
    bad += sum(o != ref for o in O[blk:blk + 128])
report('syncreduce', bad == 0, '%d wrong' % bad)


def bf16s(name):
    b = open('%s/%s.bin' % (OUT, name), 'rb').read()
    return [struct.unpack('<f', b'\0\0' + b[i:i + 2])[0] for i in range(0, len(b), 2)]


t = sum(range(22))         # integers below 256: every partial sum exact in f16 and bf16
got = (out('halfatomics_h', 'e'), out('halfatomics_h2', 'e'), bf16s('halfatomics_b'),
       bf16s('halfatomics_b2'))
report('halfatomics', got == ([t], [1 + t, 1 - t], [t], [t, t]), repr(got))

# Rodinia-style kernels
E, M = inp('bfs1', 'edges', 'i'), inp('bfs1', 'mask', 'B')
cost, upd, mask = out('bfs1_cost', 'i'), out('bfs1_updating', 'B'), out('bfs1_mask', 'B')
rc, ru = [0] * 4096, [0] * 4096
for t in range(4096):
    if M[t]:
        for e in range(4 * t, 4 * t + 4):
            if not M[E[e]]:
                rc[E[e]], ru[E[e]] = 1, 1
report('bfs1', (cost, upd, mask) == (rc, ru, [0] * 4096), '%d reached' % sum(ru))

W, S, D = inp('pathfinder', 'wall', 'i'), inp('pathfinder', 'src', 'i'), out('pathfinder', 'i')
bad = 0
for x in range(4000):          # every column is some block's thread 1 .. 254
    l, r = S[x - 1] if x > 0 else S[x], S[x + 1] if x < 3999 else S[x]
    bad += D[x] != min(S[x], l, r) + W[3 * 4000 + x]
report('pathfinder', bad == 0, '%d wrong' % bad)

F, C, Mb = inp('kmeans', 'feat', 'f'), inp('kmeans', 'clusters', 'f'), out('kmeans', 'i')
bad = 0
for p in range(4096):
    ds = []
    for c in range(5):
        d = 0.0
        for f in range(34):
            t = f32(F[f * 4096 + p] - C[c * 34 + f])
            d = f32(d + f32(t * t))
        ds.append(d)
    best = min(range(5), key=lambda c: (ds[c], c))
    bad += Mb[p] != best
report('kmeans', bad == 0, '%d wrong' % bad)

J, Cs, dE = inp('srad', 'J', 'f'), out('srad_C', 'f'), out('srad_dE', 'f')
e = 0
for i in range(128):
    for j in range(128):
        k, jc = i * 128 + j, J[i * 128 + j]
        n, s = J[max(i - 1, 0) * 128 + j] - jc, J[min(i + 1, 127) * 128 + j] - jc
        w, ea = J[i * 128 + max(j - 1, 0)] - jc, J[i * 128 + min(j + 1, 127)] - jc
        g2 = (n * n + s * s + w * w + ea * ea) / (jc * jc)
        lap = (n + s + w + ea) / jc
        q = (0.5 * g2 - lap * lap / 16) / (1 + 0.25 * lap) ** 2
        c = 1 / (1 + (q - 0.05) / (0.05 * 1.05))
        c = min(max(c, 0), 1)
        e = max(e, abs(Cs[k] - c), abs(dE[k] - ea))
report('srad', e < 1e-4, 'largest error %.2g' % e)

sys.exit(0 if all(results) else 1)
