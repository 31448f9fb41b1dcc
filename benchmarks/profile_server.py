"""A sampling profile of the whole server (py-spy) while `loadclient` plays flat out.

Run: `pip install -e '.[bench]' && python -m benchmarks.profile_server --gil --out /tmp/p`
(writes `/tmp/p.speedscope.json`, for https://www.speedscope.app, and `/tmp/p.txt`:
the server's CPU per action by thread, read from /proc, then the event loop's
thread's functions by share of its samples, self and total). `--gil` samples only
the thread holding the GIL (what the loop's thread really spends); `--native` adds
the C frames (py-spy then stops the process at each sample); `--root FOLDER` runs
another version's server (`benchmarks.serve.export`).

The real server (`python -m hollywood_gin`, as `bench_server` starts it) and the
bare echo server are started; `py-spy record --pid` is attached to the app, then the
load client plays T tables flat out for `--seconds` (the set-up before that, table
creation and connections, is in the profile too, a few % of it at T = 100).
py-spy needs ptrace rights over the server (root, or `kernel.yama.ptrace_scope` 0).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.serve import REPO, app_server, echo_server, raise_open_files


def summary(speedscope: Path, top: int) -> str:
    """Each thread's samples, then the event loop's thread's functions by share of its
    samples: self (the frame on top) and total (anywhere in the stack). Samples waiting
    in `epoll_pwait` (the loop idle; with `--native` only) are left out."""
    doc = json.loads(speedscope.read_text())
    frames = doc["shared"]["frames"]
    lines = ["samples (seconds) by thread:"]
    own: collections.Counter[str] = collections.Counter()
    anywhere: collections.Counter[str] = collections.Counter()
    samples = 0.0
    for profile in doc["profiles"]:
        lines.append(f"  {profile['name']}: {sum(profile['weights']):.2f}")
        if "MainThread" not in profile["name"]:
            continue
        for stack, weight in zip(profile["samples"], profile["weights"], strict=True):
            names = [
                f"{frames[i]['name']} ({Path(frames[i].get('file', '?')).name})" for i in stack
            ]
            if not names or names[-1].startswith("epoll_pwait"):
                continue
            samples += weight
            own[names[-1]] += weight
            for name in set(names):
                anywhere[name] += weight
    lines += ["", f"event loop's thread, busy: {samples:.2f}", "", "self %  function"]
    lines += [f"{100 * n / samples:6.1f}  {name}" for name, n in own.most_common(top)]
    lines += ["", "total %  function"]
    lines += [f"{100 * n / samples:7.1f}  {name}" for name, n in anywhere.most_common(top)]
    return "\n".join(lines)


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds of `pid`'s threads (Linux /proc): the event loop's (the main
    thread) and all the others'."""
    out: dict[str, float] = collections.defaultdict(float)
    tick = os.sysconf("SC_CLK_TCK")
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = "event loop" if task.name == str(pid) else "other threads"
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[name] += (int(fields[11]) + int(fields[12])) / tick
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("/tmp/server-profile"))
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20.0, help="flat-out play")
    parser.add_argument("--rate", type=int, default=250, help="samples per second")
    parser.add_argument("--native", action="store_true", help="C frames too")
    parser.add_argument("--gil", action="store_true", help="only the thread holding the GIL")
    parser.add_argument("--top", type=int, default=45)
    parser.add_argument(
        "--root", type=Path, default=REPO, help="the folder whose server runs (see `serve.export`)"
    )
    args = parser.parse_args()
    spy = shutil.which("py-spy")
    if spy is None:
        print("py-spy is not installed (pip install py-spy)", file=sys.stderr)
        return 2
    raise_open_files()
    speedscope = args.out.with_suffix(".speedscope.json")
    env = {"HOLLYWOOD_GIN_WS_PER_MESSAGE_DEFLATE": "false"}
    with app_server(env, args.root) as (app, proc), echo_server() as (echo, echo_proc):
        record = [spy, "record", "--pid", str(proc.pid), "--rate", str(args.rate)]
        record += ["--format", "speedscope", "-o", str(speedscope)]
        # --native needs the process stopped at each sample; without it, it runs on.
        record.append("--native" if args.native else "--nonblocking")
        if args.gil:
            record.append("--gil")
        spying = subprocess.Popen(record)
        cmd = [
            sys.executable, "-m", "benchmarks.loadclient",
            "--app", app, "--app-pid", str(proc.pid),
            "--echo", echo, "--echo-pid", str(echo_proc.pid),
            "--tables", str(args.tables), "--seconds", "0",
            "--flat-seconds", str(args.seconds), "--repeats", "1", "--modes", "app",
        ]  # fmt: skip
        before = thread_cpu(proc.pid)
        with tempfile.TemporaryFile() as sink:
            subprocess.run(cmd, cwd=REPO, stdout=sink, check=True, timeout=600)
            sink.seek(0)
            phase = json.loads(sink.read())["phases"][-1]
        after = thread_cpu(proc.pid)
        spying.send_signal(signal.SIGINT)
        spying.wait(timeout=120)
    actions = phase["actions"]
    cpu = "\n".join(
        f"  {name}: {(after[name] - before.get(name, 0.0)) / actions * 1e6:.1f} µs per action"
        for name in sorted(after, key=lambda n: before.get(n, 0.0) - after[n])
        if after[name] - before.get(name, 0.0) > 0
    )
    text = (
        f"flat out: {phase['per_second']:.0f} actions/s, server CPU by thread over the whole "
        f"run (set-up too) per action played ({actions}):\n{cpu}\n\n"
        + summary(speedscope, args.top)
    )
    args.out.with_suffix(".txt").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
