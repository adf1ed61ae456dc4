#!/usr/bin/env python3
"""A lone writer's msyncs into a shared mapping, as the journal's appender makes them: into the holes of a sparse
file, or into pages prepared as the journal's Pretoucher prepares them (fallocate, each page touched through a
mapping with random-access advice, msync). Prints syncs a second, time a sync, and per sync the disk's completed
writes, flushes and sectors (/proc/diskstats) and this process's kernel CPU.

usage: lone-msync.py sparse|prepared SYNCS BYTES_PER_SYNC [DIR] [DEVICE]
e.g.:  lone-msync.py sparse 4000 5600 /tmp vda; lone-msync.py prepared 4000 5600 /tmp vda
"""
import mmap
import os
import sys
import time

mode, n, chunk = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
path = os.path.join(sys.argv[4] if len(sys.argv) > 4 else '/tmp', 'lone-msync.dat')
device = sys.argv[5] if len(sys.argv) > 5 else 'vda'
size = 64 << 20
span = n * chunk + 8192
assert span <= size, 'SYNCS * BYTES_PER_SYNC must stay under 64 MiB'
if os.path.exists(path):
    os.remove(path)
fd = os.open(path, os.O_RDWR | os.O_CREAT)
os.ftruncate(fd, size)
m = mmap.mmap(fd, size)
m.madvise(mmap.MADV_RANDOM)
if mode == 'prepared':
    os.posix_fallocate(fd, 0, span)
    for p in range(0, span, 4096):
        m[p] = 0  # the page is a hole here, so this writes the zero it holds
    m.flush(0, span)
elif mode != 'sparse':
    sys.exit('mode: sparse or prepared')


def disk():
    for line in open('/proc/diskstats'):
        f = line.split()
        if f[2] == device:
            return int(f[7]), int(f[9]), int(f[18])  # writes completed, sectors written, flushes completed
    sys.exit('no device ' + device + ' in /proc/diskstats')


a, t0 = disk(), os.times()
data = b'x' * chunk
pos = 0
start = time.perf_counter()
for _ in range(n):
    m[pos:pos + chunk] = data
    page = pos & ~4095
    m.flush(page, pos + chunk - page)  # msync(MS_SYNC) of the pages the bytes touched
    pos += chunk
elapsed = time.perf_counter() - start
b, t1 = disk(), os.times()
m.close()
os.close(fd)
os.remove(path)
print(f'{mode}: {n / elapsed:,.0f} syncs/s, {elapsed / n * 1e6:.0f} us a sync; per sync {(b[0] - a[0]) / n:.2f} writes, '
      f'{(b[2] - a[2]) / n:.2f} flushes, {(b[1] - a[1]) / n:.1f} sectors, '
      f'{(t1.system - t0.system) / n * 1e6:.0f} us of kernel CPU')
