MemcpyHtoD,0x00007f0000000000,65536
MemcpyHtoD,0x00007f0000100000,65536
kernel-1.traceg
kernel-2.traceg.xz
