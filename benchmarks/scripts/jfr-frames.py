#!/usr/bin/env python3
"""Where one thread's CPU samples lie: the output of `jfr print --events jdk.ExecutionSample --stack-depth 40 FILE`
aggregated by frame, for the samples of the thread named THREAD whose stacks hold none of the EXCLUDE substrings.

usage: jfr-frames.py SAMPLES.txt THREAD [EXCLUDE,...]
Prints the share of samples with each frame on top (self) and anywhere on the stack (inclusive)."""
import collections
import re
import sys


def samples(path):
    cur, in_stack = None, False
    for line in open(path):
        s = line.strip()
        if s.startswith('jdk.ExecutionSample'):
            if cur:
                yield cur
            cur, in_stack = {'thread': None, 'frames': []}, False
        elif s.startswith('sampledThread'):
            m = re.search(r'"(.*)"', s)
            cur['thread'] = m.group(1) if m else None
        elif s.startswith('stackTrace = ['):
            in_stack = True
        elif in_stack and s == ']':
            in_stack = False
        elif in_stack and s and s != '...':
            cur['frames'].append(re.sub(r'\(.*\)', '', re.sub(r'\s+line:.*', '', s)))
    if cur:
        yield cur


def main():
    path, thread = sys.argv[1], sys.argv[2]
    exclude = [e for e in (sys.argv[3].split(',') if len(sys.argv) > 3 else []) if e]
    chosen = [x for x in samples(path) if x['thread'] == thread and x['frames']
              and not any(e in f for e in exclude for f in x['frames'])]
    n = len(chosen)
    print(f'{n} samples of {thread}' + (f' without {", ".join(exclude)}' if exclude else ''))
    if n == 0:
        return
    top = collections.Counter(x['frames'][0] for x in chosen)
    anywhere = collections.Counter(f for x in chosen for f in set(x['frames']))
    print('self:')
    for f, c in top.most_common(15):
        print(f'{100 * c / n:5.1f}% {f}')
    print('inclusive:')
    for f, c in anywhere.most_common(40):
        print(f'{100 * c / n:5.1f}% {f}')


if __name__ == '__main__':
    main()
