#!/usr/bin/env python3
"""sass-ops.py - the SASS opcodes ptxas makes of a PTX file, without cuobjdump.

    scripts/sass-ops.py CUBIN                  per kernel: static operations by opcode
    scripts/sass-ops.py --compare LAUNCH...    ptxas's static operations against the
                                               ones `smsim sass` lowers (sm_90)
    scripts/sass-ops.py --learn DIR            print the opcode map from DIR/*.sass

A cubin's kernels are its .text.NAME sections: 16 bytes per instruction on
sm_90, the opcode in bits 0-11 of the first 64-bit word.  The map from
those bits to mnemonics is learned from cuobjdump listings (--learn; the
committed one, validation/measured/h100-sxm5/sass-opcodes.tsv, comes from
the measured H100 kernels); a code it lacks prints as UNKxxx.  The trailing
self-branch and NOP padding are dropped.  --compare compiles each launch
file's PTX with ptxas -arch=sm_90 (it must be on PATH) and counts smsim's
operations with `smsim sass` (SMSIM, default build/smsim).  Counts are
static (each instruction once), not dynamic: a loop ptxas unrolls has more.
"""
import collections
import glob
import os
import re
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = '''# sm_90 SASS opcode field (bits 0-11 of an instruction's first 64-bit word) -> base mnemonic,
# learned from every instruction of the ptxas 13.0 sm_90 listings of the measured kernels
# (shared/measured/h100/sass/*.sass: cuobjdump -sass of the H100 runs; 91 codes, none ambiguous).
# Regenerate: scripts/sass-ops.py --learn ../shared/measured/h100/sass > this file
'''
MAP = os.path.join(ROOT, 'validation', 'measured', 'h100-sxm5', 'sass-opcodes.tsv')


def learn(directory):
    codes = collections.defaultdict(collections.Counter)
    for path in sorted(glob.glob(os.path.join(directory, '*.sass'))):
        for m in re.finditer(r'/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)[^;]*;\s+'
                             r'/\* (0x[0-9a-f]+) \*/', open(path).read()):
            codes[int(m.group(2), 16) & 0xfff][m.group(1)] += 1
    ambiguous = [c for c, v in codes.items() if len(v) > 1]
    if ambiguous:
        sys.exit('sass-ops: codes with several mnemonics: %s' % ', '.join('%#x' % c for c in ambiguous))
    return {c: v.most_common(1)[0][0] for c, v in codes.items()}


def load_map():
    out = {}
    for line in open(MAP):
        if line.startswith('#') or line.startswith('code'):
            continue
        code, name = line.split()
        out[int(code, 16)] = name
    return out


def kernels(path, opmap):
    """{kernel: [base mnemonic, ...]} of an ELF64 cubin."""
    b = open(path, 'rb').read()
    if b[:4] != b'\x7fELF' or b[4] != 2:
        sys.exit('sass-ops: %s: not a 64-bit ELF cubin' % path)
    shoff, = struct.unpack_from('<Q', b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)
    secs = [struct.unpack_from('<IIQQQQ', b, shoff + i * shentsize) for i in range(shnum)]
    stroff = secs[shstrndx][4]
    out = {}
    for name, _, _, _, off, size in secs:
        end = b.index(b'\0', stroff + name)
        sname = b[stroff + name:end].decode()
        if not sname.startswith('.text.'):
            continue
        ops = []
        for i in range(off, off + size, 16):
            code = struct.unpack_from('<Q', b, i)[0] & 0xfff
            ops.append(opmap.get(code, 'UNK%03x' % code))
        while ops and ops[-1] == 'NOP':
            ops.pop()
        if ops and ops[-1] == 'BRA':
            ops.pop()
        out[sname[len('.text.'):]] = ops
    return out


def smsim_ops(launch):
    smsim = os.environ.get('SMSIM', os.path.join(ROOT, 'build', 'smsim'))
    res = subprocess.run([smsim, 'sass', '--config', 'h100', '--launch', launch],
                         capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit('sass-ops: %s: %s' % (launch, res.stderr.strip()))
    ops = []
    for line in res.stdout.split('\n')[1:]:
        f = line.split()
        if len(f) < 3 or 'folded' in line:
            continue
        ops.append(f[3 if f[2] == '@' else 2].split('.')[0])
    return ops


def compare(launches, opmap):
    cache = {}
    for launch in launches:
        keys = dict(re.findall(r'^(\w+)\s*=\s*(\S+)', open(launch).read(), re.M))
        ptx = os.path.join(os.path.dirname(launch), keys['ptx'])
        if ptx not in cache:
            cubin = tempfile.NamedTemporaryFile(suffix='.cubin', delete=False).name
            subprocess.run(['ptxas', '-arch=sm_90', '-o', cubin, ptx], check=True)
            cache[ptx] = kernels(cubin, opmap)
            os.unlink(cubin)
        ref = cache[ptx][keys['kernel']]
        mine = smsim_ops(launch)
        a, b = collections.Counter(mine), collections.Counter(ref)
        worst = sorted(set(a) | set(b), key=lambda k: -abs(a[k] - b[k]))[:5]
        print('%-28s smsim %5d  ptxas %5d  ratio %.2f  %s' % (
            os.path.basename(launch), len(mine), len(ref), len(mine) / max(1, len(ref)),
            ' '.join('%s %d/%d' % (k, a[k], b[k]) for k in worst)))


def main(argv):
    if len(argv) == 2 and argv[0] == '--learn':
        print(HEADER, end='')
        print('code\tmnemonic')
        for code, name in sorted(learn(argv[1]).items()):
            print('%#05x\t%s' % (code, name))
        return
    opmap = load_map()
    if argv and argv[0] == '--compare' and len(argv) > 1:
        compare(argv[1:], opmap)
        return
    if len(argv) != 1:
        sys.exit(__doc__.strip().split('\n\n')[0])
    for name, ops in sorted(kernels(argv[0], opmap).items()):
        top = collections.Counter(ops).most_common(8)
        print('%-24s %5d  %s' % (name, len(ops), ' '.join('%s:%d' % t for t in top)))


if __name__ == '__main__':
    main(sys.argv[1:])
