#!/usr/bin/env python3
"""gen-long-ptx.py N DIR - a straight-line PTX kernel of N instructions.

Writes DIR/longN.ptx and DIR/longN.launch: one basic block of N
floating-point and integer instructions (fma, mul, add, xor, cvt) each
reading values from the 20 before it, over 4,000 registers of each class
reused in turn (as a code generator or a fully unrolled loop gives), then a
store of one value per thread; 2 blocks of 64 threads.  For measuring that
the sm_90 lowering and scheduling stay linear in a kernel's length
(make bench, doc/robustness.md).  Deterministic (seed 1).
"""
import os
import random
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n")[0])
    n, out = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(1)
    regs = 4000

    def F(v):
        return v if v < 3 else 3 + (v - 3) % regs

    lines = [".version 9.0", ".target sm_90", ".address_size 64",
             ".visible .entry k(.param .u64 p0, .param .u64 p1)", "{",
             "    .reg .pred %%p<8>;\n    .reg .f32 %%f<%d>;\n    .reg .b32 %%r<%d>;\n"
             "    .reg .b64 %%rd<16>;" % (regs + 16, regs + 16),
             "    ld.param.u64 %rd1, [p0];", "    ld.param.u64 %rd2, [p1];",
             "    cvta.to.global.u64 %rd3, %rd1;", "    cvta.to.global.u64 %rd4, %rd2;",
             "    mov.u32 %r1, %tid.x;", "    mul.wide.u32 %rd5, %r1, 4;",
             "    add.s64 %rd6, %rd3, %rd5;", "    add.s64 %rd7, %rd4, %rd5;",
             "    ld.global.f32 %f1, [%rd6];", "    cvt.rn.f32.u32 %f2, %r1;",
             "    add.s32 %r2, %r1, 7;"]
    f = r = 3
    for _ in range(n):
        k = rng.random()
        pick_f = lambda: rng.randrange(max(1, f - 20), f)
        pick_r = lambda: rng.randrange(max(2, r - 20), r)
        if k < 0.4:
            a, b = pick_f(), pick_f()
            lines.append("    fma.rn.f32 %%f%d, %%f%d, 0f3F800347, %%f%d;" % (F(f), F(a), F(b)))
            f += 1
        elif k < 0.6:
            c = rng.choice(["0f3F000000", "0f3F7FFFFF", "0f40000000"])
            lines.append("    mul.f32 %%f%d, %%f%d, %s;" % (F(f), F(pick_f()), c))
            f += 1
        elif k < 0.8:
            lines.append("    add.s32 %%r%d, %%r%d, %d;" % (F(r), F(pick_r()),
                                                          rng.randrange(1, 100000)))
            r += 1
        elif k < 0.9:
            a, b = pick_r(), pick_r()
            lines.append("    xor.b32 %%r%d, %%r%d, %%r%d;" % (F(r), F(a), F(b)))
            r += 1
        else:
            lines.append("    cvt.rn.f32.s32 %%f%d, %%r%d;" % (F(f), F(pick_r())))
            f += 1
    lines += ["    cvt.rn.f32.s32 %%f%d, %%r%d;" % (F(f), F(r - 1)),
              "    add.f32 %%f%d, %%f%d, %%f%d;" % (F(f + 1), F(f), F(f - 1)),
              "    st.global.f32 [%%rd7], %%f%d;" % F(f + 1), "    ret;", "}"]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "long%d.ptx" % n), "w") as fp:
        fp.write("\n".join(lines) + "\n")
    with open(os.path.join(out, "long%d.launch" % n), "w") as fp:
        fp.write("ptx = long%d.ptx\nkernel = k\ngrid = 2\nblock = 64\nregs = 32\n"
                 "arg = a buffer f32 128 random -1 1\narg = b buffer f32 128 zeros\n"
                 "output = b long%d.bin\n" % (n, n))


if __name__ == "__main__":
    main()
