#!/usr/bin/env python3
"""Kill replay: run one writing command with its write log on, then build the
device states a kill -9 at every write boundary leaves, judge each, and rerun
the command from some of them (killed again there, and rerun once more).

usage: killreplay.py [--states N] [--resume N] [--resume-states N] [--seed S]
                     [--mount] [--kernel-rw] [--sums FILE] [--btrfs BIN]
                     [--progs BIN] --name NAME --dev PATH [--dev PATH...]
                     -- COMMAND ARGS...

A kill leaves every write the process made (the page cache keeps them; a
power cut is tests/tools/powercut.py's model): state k is the devices before
the command plus the first k writes of its log.  States: every boundary
(--states 0) or N of them, chosen to include every write between two
superblock writes of one commit (some devices at the new generation, some
at the old) and spread over the rest.

The judge of a state: our check on all the devices is clean, btrfs-progs'
check of each device in turn is clean (it reads the superblock of the device
it is given, so a device left at an older generation must still name whole
trees; on loop devices, read-only), and with --mount the kernel mounts it
read-only with every file of --sums (sha256sum -c list, relative paths)
unchanged.

Resume (--resume N): from N of the states (the superblock-split ones first),
on a copy: with --kernel-rw, every other time, the kernel first mounts it
read-write and reads every file (it may commit), then the command runs again and must succeed,
and its final state must pass the judge; its own log is replayed the same
way on another copy (--resume-states of its boundaries), and from one of
those the command runs a third time, to a state the judge passes.

The devices must be image files holding a clean filesystem.  One summary line:
  killreplay NAME: writes W, states S, resumed R (states T), failed X
Anything else that fails is a line starting with FAILED; exit 1.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from powercut import SUPER_OFFSETS, SUPER_SIZE, is_super, loop_run, read_log, run, super_valid  # noqa: E402

def copy_set(src, dst):
    for s, d in zip(src, dst):
        subprocess.run(["cp", "--sparse=always", s, d], check=True)


class Replay:
    """Apply a log's writes in order onto a set of image files."""

    def __init__(self, recs, names, paths):
        self.writes = [r for r in recs if r[0] != "FLSH"]
        self.done = 0
        self.fds = {}
        for n, p in zip(names, paths):
            self.fds[os.path.realpath(n)] = os.open(p, os.O_RDWR)

    def to(self, k):
        while self.done < k:
            _, dev, off, _, buf = self.writes[self.done]
            if dev not in self.fds:
                sys.exit(f"killreplay: the log writes {dev}, not one of the devices given")
            os.pwrite(self.fds[dev], buf, off)
            self.done += 1
        for fd in self.fds.values():
            os.fsync(fd)

    def close(self):
        for fd in self.fds.values():
            os.close(fd)


def split_points(writes):
    """Boundaries between two superblock writes of one commit (the run of them)."""
    pts, run_start = set(), None
    for i, w in enumerate(writes):
        sup = is_super(w)
        if sup and run_start is None:
            run_start = i
        if not sup and run_start is not None:
            pts.update(range(run_start + 1, i))
            run_start = None
    if run_start is not None:
        pts.update(range(run_start + 1, len(writes)))
    return pts


def choose(n_writes, want, writes, rng):
    every = list(range(n_writes + 1))
    if not want or want >= len(every):
        return every
    split = sorted(split_points(writes))
    rest = [k for k in every if k not in set(split)]
    pick = set(split[:want // 2] if len(split) > want // 2 else split)
    pick.update({0, n_writes})
    others = sorted(rng.sample(rest, min(len(rest), max(0, want - len(pick)))))
    pick.update(others)
    return sorted(pick)


def primary_valid(path):
    with open(path, "rb") as f:
        f.seek(SUPER_OFFSETS[0])
        return super_valid(f.read(SUPER_SIZE))


def same_content(got, want):
    """Two sets of image files equal byte for byte (holes read as zeroes), but for a
    backup superblock copy that got has where want has none: a rerun onto a file that
    the interrupted run grew past it writes it, as any restore onto a file reaching it."""
    for x, y in zip(got, want):
        if os.path.getsize(x) != os.path.getsize(y):
            return False
        p = subprocess.run(["cmp", "-l", x, y], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        if p.returncode == 0:
            continue
        if p.returncode > 1:
            return False
        with open(y, "rb") as f:
            absent = []
            for off in SUPER_OFFSETS[1:]:
                f.seek(off)
                absent.append(not any(f.read(SUPER_SIZE)))
        for line in p.stdout.split(b"\n"):
            if not line.strip():
                continue
            at = int(line.split()[0]) - 1
            if not any(a and off <= at < off + SUPER_SIZE for a, off in zip(absent, SUPER_OFFSETS[1:])):
                return False
    return True


class Judge:
    def __init__(self, args):
        self.args = args
        self.no_super = 0
        self.partial = 0

    def loops(self, mode, devs):
        return loop_run(mode, devs, self.args.progs, self.args.sums)

    def __call__(self, devs, mount=False):
        """None, or why the state is bad."""
        if self.args.allow_no_super and not any(primary_valid(d) for d in devs):
            self.no_super += 1
            return None
        partial = self.args.allow_partial_super and not all(primary_valid(d) for d in devs)
        if partial:
            # the superblocks of several devices are written one after another: the
            # filesystem as the devices that have one assemble it, degraded (by our
            # check alone: btrfs-progs cannot read RAID6 with two devices missing, a
            # kernel-made filesystem neither)
            devs = [d for d in devs if primary_valid(d)]
            self.partial += 1
        rc, out = run([self.args.btrfs, "check"] + devs)
        if rc:
            return "our check: exit %d\n%s" % (rc, "\n".join(out.splitlines()[-15:]))
        if self.args.progs and not partial:
            ok, out = self.loops("mount" if mount and self.args.mount else "check", devs)
            if not ok:
                return out
        return None

    def kernel_rw(self, devs):
        ok, out = self.loops("rw", devs)
        return None if ok else "kernel read-write mount: " + out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--states", type=int, default=0, help="0: every write boundary")
    ap.add_argument("--resume", type=int, default=0)
    ap.add_argument("--resume-states", type=int, default=12)
    ap.add_argument("--seed", type=int, default=37)
    ap.add_argument("--mount", action="store_true")
    ap.add_argument("--kernel-rw", action="store_true")
    ap.add_argument("--sums")
    ap.add_argument("--allow-no-super", action="store_true",
                    help="a state where no device has a valid primary superblock passes (a restore's)")
    ap.add_argument("--allow-partial-super", action="store_true",
                    help="a state where some devices have no valid primary superblock is judged "
                         "on the devices that have one (a multi-device restore's)")
    ap.add_argument("--identical", action="store_true",
                    help="every completed rerun leaves the devices byte for byte as the uninterrupted run")
    ap.add_argument("--btrfs", default="./btrfs")
    ap.add_argument("--progs", default="/usr/bin/btrfs" if os.path.exists("/usr/bin/btrfs") else "")
    ap.add_argument("--verbose", action="store_true", help="a line for every state judged")
    ap.add_argument("--name", required=True)
    ap.add_argument("--dev", action="append", required=True)
    ap.add_argument("command", nargs="+")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    judge = Judge(args)
    if args.sums:
        args.sums = os.path.abspath(args.sums)
    failed = 0

    def bad(what, why):
        nonlocal failed
        failed += 1
        print(f"FAILED {what}: {why}", flush=True)

    def note(what):
        if args.verbose:
            print(what, flush=True)

    tmp = tempfile.mkdtemp(prefix="killreplay.", dir=os.path.dirname(os.path.abspath(args.dev[0])))
    names = [os.path.basename(d) for d in args.dev]
    sets = {}

    def image_set(name):
        if name not in sets:
            os.mkdir(os.path.join(tmp, name))
            sets[name] = [os.path.join(tmp, name, n) for n in names]
        return sets[name]

    def command_on(devs):
        return [devs[args.dev.index(a)] if a in args.dev else a for a in args.command]

    def logged_run(devs, log):
        if os.path.exists(log):
            os.unlink(log)
        rc, out = run(command_on(devs), log)
        # the log names each device by the path the command opened
        recs = read_log(log) if os.path.exists(log) else []
        return rc, out, recs

    try:
        before = image_set("before")
        copy_set(args.dev, before)
        why = judge(before)
        if why:
            sys.exit(f"killreplay {args.name}: the filesystem before the command is not clean:\n{why}")
        work = image_set("first")
        copy_set(before, work)
        rc, out, recs = logged_run(work, os.path.join(tmp, "log"))
        if rc:
            sys.exit(f"killreplay {args.name}: the command failed ({rc}):\n{out}")
        final = image_set("final")
        copy_set(work, final)
        copy_set(before, work)
        rep = Replay(recs, work, work)
        n = len(rep.writes)
        points = choose(n, args.states, rep.writes, rng)
        for k in points:
            rep.to(k)
            why = judge(work, mount=k in (points[len(points) // 2], n))
            if why:
                bad(f"kill state {k} of {n}", why)
            note(f"kill state {k} of {n}: {'bad' if why else 'ok'}")
        rep.close()
        # which states to resume from: superblock-split ones first, then others
        split = sorted(split_points(rep.writes))
        starts = split[:: max(1, len(split) // max(1, args.resume // 2))][: args.resume // 2]
        others = [k for k in range(1, n) if k not in set(split)]
        starts += rng.sample(others, min(len(others), args.resume - len(starts)))
        resumed_states = 0
        for nth, k in enumerate(sorted(starts)):
            state = image_set("state")
            copy_set(before, state)
            r = Replay(recs, work, state)
            r.to(k)
            r.close()
            # every other resume: the kernel first (its commit also brings every superblock up)
            if args.kernel_rw and nth % 2:
                why = judge.kernel_rw(state)
                if why:
                    bad(f"kill state {k}: kernel", why)
                    continue
            snap = image_set("snap")
            copy_set(state, snap)
            rc, out, recs2 = logged_run(state, os.path.join(tmp, "log2"))
            if rc:
                bad(f"rerun from kill state {k}", f"exit {rc}\n{out}")
                continue
            why = judge(state, mount=True)
            if why:
                bad(f"rerun from kill state {k}: final state", why)
            elif args.identical and not same_content(state, final):
                bad(f"rerun from kill state {k}", "the devices differ from the uninterrupted run's")
            # the rerun killed in turn (its log replayed on a copy of the state it started from)
            w2 = image_set("second")
            copy_set(snap, w2)
            r2 = Replay(recs2, state, w2)
            pts2 = choose(len(r2.writes), args.resume_states, r2.writes, rng)
            third = rng.choice(pts2)
            for k2 in pts2:
                r2.to(k2)
                resumed_states += 1
                why = judge(w2)
                note(f"kill state {k2} of {len(r2.writes)} of the rerun from {k}: {'bad' if why else 'ok'}")
                if why:
                    bad(f"kill state {k2} of the rerun from {k}", why)
                    continue
                if k2 == third:
                    w3 = image_set("third")
                    copy_set(w2, w3)
                    rc, out = run(command_on(w3))
                    why = f"exit {rc}\n{out}" if rc else judge(w3, mount=True)
                    if not why and args.identical and not same_content(w3, final):
                        why = "the devices differ from the uninterrupted run's"
                    if why:
                        bad(f"third run from kill state {k2} of the rerun from {k}", why)
            r2.close()
        nosup = f", no superblock {judge.no_super}" if args.allow_no_super else ""
        if args.allow_partial_super:
            nosup += f", partial {judge.partial}"
        print(f"killreplay {args.name}: writes {n}, states {len(points)}, resumed {len(starts)} "
              f"(states {resumed_states}){nosup}, failed {failed}", flush=True)
        sys.exit(1 if failed else 0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
