#!/usr/bin/env python3
"""Times commands on a pseudo-terminal of a given size (Node has no pty of its own, and script(1) adds
a wait of its own to every run). Interleaved: each round runs every command once, in alternating
order. Prints one JSON line: {"ms": [[run, ...] per command]}, wall time from fork to exit.
  python3 bench/pty-time.py <columns> <runs> <warmup> <command as JSON array> [<command> ...]"""
import fcntl, json, os, pty, struct, sys, termios, time

columns, runs, warmup = (int(a) for a in sys.argv[1:4])
commands = [json.loads(a) for a in sys.argv[4:]]


def once(cmd):
    started = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(sys.stdout.fileno(), termios.TIOCSWINSZ, struct.pack('HHHH', 40, columns, 0, 0))
        os.execvp(cmd[0], cmd)
    while True:  # drain the output, or a full pty would stall the child
        try:
            if not os.read(fd, 65536):
                break
        except OSError:
            break
    _, status = os.waitpid(pid, 0)
    ms = (time.perf_counter() - started) * 1000
    os.close(fd)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f'{cmd} exited with {status}')
    return ms


times = [[] for _ in commands]
for i in range(warmup + runs):
    order = list(range(len(commands))) if i % 2 == 0 else list(reversed(range(len(commands))))
    for k in order:
        ms = once(commands[k])
        if i >= warmup:
            times[k].append(ms)
print(json.dumps({'ms': times}))
