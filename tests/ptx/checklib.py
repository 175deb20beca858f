"""checklib.py - what realworld_check.py and conform_check.py share: reading
the little-endian arrays smsim writes (its outputs, and the initial buffers
of smsim emulate --inputs DIR/NAME)."""
import struct


def rd(path, fmt):
    """The file at path as a list of struct format fmt ('i', 'f', 'Q', ...)."""
    b = open(path, 'rb').read()
    n = len(b) // struct.calcsize(fmt)
    return list(struct.unpack('<%d%s' % (n, fmt), b))


def inputs(indir):
    """inp(launch, buf, fmt): buffer buf of launch file launch as it started."""
    return lambda launch, buf, fmt: rd('%s/%s/%s.bin' % (indir, launch, buf), fmt)
