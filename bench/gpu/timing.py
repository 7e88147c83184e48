# Start-up of commands, alternated: wall-clock and peak RSS (getrusage of each child), medians over ROUNDS.
#
#   python3 timing.py ROUNDS "NAME|COMMAND" ...
import os, statistics, sys, time
rounds = int(sys.argv[1]); cmds = [c.split("|", 1) for c in sys.argv[2:]]
res = {name: ([], []) for name, _ in cmds}
for _ in range(rounds):
    for name, cmd in cmds:
        t = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os.execvp("/bin/sh", ["/bin/sh", "-c", cmd + " >/dev/null 2>&1"])
        _, status, ru = os.wait4(pid, 0)
        res[name][0].append(time.perf_counter() - t); res[name][1].append(ru.ru_maxrss / 1024)
for name, (w, m) in res.items():
    print(f"{name}: wall median {statistics.median(w):.3f} s (min {min(w):.3f}, max {max(w):.3f}), peak RSS median {statistics.median(m):.1f} MiB")
