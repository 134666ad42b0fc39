#!/usr/bin/env python3
"""Power-cut replay: run one writing command with its write log on, then build
and judge the device states a power cut during it could leave.

usage: powercut.py --kind mkfs|change|replace [--mode sample|full] [--seed N]
                   [--max-states N] [--btrfs BIN] [--progs BIN] --name NAME
                   --dev PATH [--dev PATH...] -- COMMAND ARGS...

The devices must hold the state before the command (for mkfs: anything,
e.g. zeroes).  The command runs with BTRFS_KIT_WRITE_LOG set (format in
kernel-shared/read/dev-write.h) and must succeed.  Model of a disk: a write is durable
once a flush of its device follows it; at each crash point (just before each
flush, and the end of the log) the durable writes are in and any subset of
the others may be (the disk reorders them): the empty and the full subset,
random ones (seeded), in full mode every subset of up to 10 writes (else
singletons, all-but-one, prefixes and 32 random), and superblock writes torn
at 512 bytes (the first n sectors new).

The judge: kind mkfs: no device holds a valid superblock copy, or both checks
(ours on every device, btrfs-progs' on a single device) pass.  Kind change:
the primary superblocks are the old ones and our check says what it said
before the command (same exit code and lines), or they are the final ones and
both checks pass, or (an intermediate commit) both pass or our check reports
only errors it reported before.  Kind replace (a command that puts a new
filesystem over an old one: image restore onto a used target): every valid
superblock copy is either the old one, byte for byte, and both checks on it
(-s copy) give the old verdict, or the final one and both checks on it pass;
no valid copy at all is fine too.  Anything else is a failed state: its writes
are listed and the script exits 1.  With --degraded (kind change, several
devices) every state the judge accepts is judged again with each device left
out in turn: our check on the others (reading through parity or the other
copies) must pass, or, in the old state, say what it said of the old
filesystem with that device left out; a state where it does not is a write
hole (a torn read-modify-write of a RAID5/6 row left its parity out of step
with data the committed trees still use), listed as FAILED degraded.  With --mount the kernel must also mount
the final state (loop devices, under flock /tmp/btrfs-kit-loop.lock).
With --progs-each (kind change, loop devices) btrfs-progs' check runs on every
device in turn, each read by its own superblock.  With --resume N the command
runs again from up to N accepted states (a --resume-rate share of them, seeded),
each on a copy, and must exit 0 with both checks clean after.
One summary line per run:
  powercut NAME: writes W, flushes F, crash points P, states S, failed X
and with --degraded a second:
  powercut NAME: degraded checks C, failed X (per device left out)
"""
import argparse
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from crc32c import crc32c  # noqa: E402  (tests/lib/crc32c.py)

SUPER_OFFSETS = (65536, 64 << 20, 256 << 30)
SUPER_SIZE = 4096
MAGIC = b"_BHRfS_M"


def super_valid(sb):
    """A superblock copy with the real magic and a matching crc32c (the tests' csum type)."""
    if len(sb) < SUPER_SIZE or sb[64:72] != MAGIC:
        return False
    return struct.unpack_from("<I", sb, 0)[0] == crc32c(sb[32:SUPER_SIZE])


def generation(sb):
    return struct.unpack_from("<Q", sb, 72)[0]


def read_log(path):
    """[(tag, device path, offset, length, bytes or None)] in log order."""
    data = open(path, "rb").read()
    recs, i = [], 0
    while i < len(data):
        tag, plen, off, length = struct.unpack_from("<4sIQQ", data, i)
        i += 24
        dev = data[i:i + plen].decode()
        i += plen
        buf = None
        if tag == b"WRIT":
            buf = data[i:i + length]
            i += length
        elif tag == b"ZERO":
            buf = bytes(length)
        elif tag != b"FLSH":
            sys.exit(f"powercut: bad log record {tag!r} at {i}")
        recs.append((tag.decode(), dev, off, length, buf))
    return recs


class Devices:
    """The working copies: durable writes applied for good, a subset applied and undone."""

    def __init__(self, paths):
        self.fds = {p: os.open(p, os.O_RDWR) for p in paths}
        self.undo = []

    def fd(self, dev):
        for p, fd in self.fds.items():
            if os.path.realpath(p) == dev:
                return fd
        sys.exit(f"powercut: the log writes {dev}, not one of the devices given")

    def apply(self, w, keep, length=None):
        _, dev, off, _, buf = w
        if length is not None:
            buf = buf[:length]
        fd = self.fd(dev)
        if not keep:
            self.undo.append((fd, off, os.pread(fd, len(buf), off)))
        os.pwrite(fd, buf, off)

    def revert(self):
        while self.undo:
            fd, off, old = self.undo.pop()
            os.pwrite(fd, old, off)

    def supers(self):
        return [os.pread(fd, SUPER_SIZE, SUPER_OFFSETS[0]) for fd in self.fds.values()]

    def copy(self, i, m):
        return os.pread(list(self.fds.values())[i], SUPER_SIZE, SUPER_OFFSETS[m])

    def valid_copies(self):
        """Per device, the superblock copy numbers that are valid."""
        res = []
        for fd in self.fds.values():
            size = os.fstat(fd).st_size
            res.append([m for m, off in enumerate(SUPER_OFFSETS)
                        if off + SUPER_SIZE <= size and super_valid(os.pread(fd, SUPER_SIZE, off))])
        return res


def run(cmd, log=None):
    """(exit code, output) of cmd, its write log to log (None: none)."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       env=dict(os.environ, BTRFS_KIT_WRITE_LOG=log or ""))
    return p.returncode, p.stdout.decode(errors="replace")


def error_lines(out):
    return {l for l in out.splitlines() if l.startswith(("ERROR", "error", "corrupt", "ref mismatch"))
            or "mismatch" in l or "missing" in l}


class Judge:
    def __init__(self, args, devs):
        self.args = args
        self.devs = devs
        # btrfs-progs finds the other members of a file-backed filesystem only on loop devices
        self.progs = len(args.dev) == 1 and args.progs

    def checks(self, copy=0, devs=None):
        devs = devs or self.args.dev
        opt = ["-s", str(copy)] if copy else []
        rc, out = run([self.args.btrfs, "check"] + opt + devs)
        if self.args.progs_each and not copy:
            prc = 0 if loop_run("check", devs, self.args.progs)[0] else 1
        else:
            prc = run([self.args.progs, "check"] + opt + devs[:1])[0] if self.progs else 0
        return rc, out, prc

    def degraded(self, i):
        """Our check with device i left out: (exit code, error lines)."""
        rc, out = run([self.args.btrfs, "check"] + self.args.dev[:i] + self.args.dev[i + 1:])
        return rc, error_lines(out)

    def degraded_verdict(self, old):
        """The devices that, left out, make our check fail where it should not."""
        old_state = self.devs.supers() == old["supers"]
        torn = [0 not in c for c in self.devs.valid_copies()]
        bad = []
        for i in range(len(self.args.dev)):
            got = self.degraded(i)
            if got[0] == 0 or (old_state and got == old["degraded"][i]):
                continue
            # a torn primary left in: refused naming it, as without a device left out
            if any(t for j, t in enumerate(torn) if j != i) and any("superblock" in l for l in got[1]):
                continue
            bad.append(i)
        return bad

    def verdict(self, old, new_supers):
        """(ok, kind) of the state on the devices now."""
        copies = self.devs.valid_copies()
        if self.args.kind == "mkfs":
            # no copy a tool could use, or every copy of the first device leads to a good filesystem
            if not any(copies):
                return True, "none"
            kind = "fs"
            for m in sorted(set(sum(copies, []))):
                have = [d for d, c in zip(self.args.dev, copies) if m in c]
                if len(have) < len(self.args.dev):
                    # several devices: their superblocks cannot be written at once, so a
                    # state where some carry copy m and some not is unavoidable; what our
                    # check makes of those that do is counted apart (degraded or not)
                    rc = run([self.args.btrfs, "check"] + (["-s", str(m)] if m else []) + have)[0]
                    kind = "some-devices-" + ("degraded-ok" if rc == 0 else "incomplete")
                    continue
                if generation(self.devs.copy(0, m)) != generation(new_supers[0]):
                    return False, f"fs (copy {m} looks finished, generation of an earlier commit)"
                rc, out, prc = self.checks(m)
                if rc or prc:
                    return False, f"fs (copy {m})"
            return True, kind
        if self.args.kind == "replace":
            return self.replace_verdict(old, new_supers, copies)
        if not all(0 in c for c in copies):
            # a torn or missing primary: the tools must refuse it (the copies hold a
            # committed generation for btrfs rescue super-recover)
            rc, out, prc = self.checks()
            if not self.progs and len(self.args.dev) > 1:
                # one device of several with its primary torn: our check reads the
                # filesystem from the other devices' superblocks (it must find it
                # clean) or refuses it naming the bad superblock
                if rc == 0:
                    return True, "bad-primary-others-ok"
                return any("superblock" in l for l in error_lines(out)), "bad-primary-refused"
            return rc != 0 and prc != 0, "bad-primary"
        supers = self.devs.supers()
        rc, out, prc = self.checks()
        if supers == old["supers"]:
            return (rc, out, prc) == (old["rc"], old["out"], old["prc"]), "old"
        if supers == new_supers:
            return rc == 0 and prc == 0, "new"
        if rc == 0 and prc == 0:
            return True, "mid"
        return rc != 0 and error_lines(out) <= error_lines(old["out"]), "mid"


    def replace_verdict(self, old, new_supers, copies):
        if not any(copies):
            return True, "none"
        kinds = set()
        for m in copies[0]:
            sb = self.devs.copy(0, m)
            rc, out, prc = self.checks(m)
            if sb == old["copies"].get(m):
                if (rc, prc) != old["verdict"][m] or error_lines(out) != old["errors"][m]:
                    return False, f"old (copy {m} is the old superblock, the old filesystem is not intact)"
                kinds.add("old")
            elif generation(sb) == generation(new_supers[0]) and sb[64:] == new_supers[0][64:]:
                if rc or prc:
                    return False, f"new (copy {m} looks finished, the filesystem is not)"
                kinds.add("new")
            else:
                return False, f"copy {m} is neither the old superblock nor the new one"
        return True, "+".join(sorted(kinds))


LOCK = "/tmp/btrfs-kit-loop.lock"


def under_loop_lock(cmd):
    """cmd under the machine-wide loop lock; as it is when this process runs under that
    lock already (tests/run.sh holds it for a test that uses loop devices and says so in
    BTRFS_KIT_LOOP_LOCKED: a second flock would wait for ever on the test's own lock)."""
    if os.environ.get("BTRFS_KIT_LOOP_LOCKED") == LOCK:
        return cmd
    return ["flock", LOCK] + cmd


# Loop devices of image files, under the loop lock (machine-wide), mode:
#   check   btrfs-progs' check of every device in turn (read-only loops: it reads
#           the superblock of the device it is given, so each must name whole trees)
#   mount   the same, then the kernel mounts them read-only (files of SUMS intact,
#           a sha256sum -c list of relative paths, or every file listed)
#   rw      the kernel mounts them read-write and reads every file (it may commit)
LOOP_SCRIPT = r"""
mode=$1 sums=$2 progs=$3; shift 3
m=$(mktemp -d); loops=""; opts=""
cleanup() { umount "$m" 2>/dev/null; for l in $loops; do losetup -d "$l"; done; rmdir "$m"; }
trap cleanup EXIT
ro=-r; [ "$mode" = rw ] && ro=
for d in "$@"; do
	l=$(losetup -f --show $ro "$d") || exit 1
	loops="$loops $l"; opts="$opts,device=$l"
done
set -- $loops
if [ "$mode" != rw ]; then
	for l in "$@"; do
		out=$("$progs" check "$l" 2>&1) || { echo "btrfs-progs check of $l:"; echo "$out" | head -n 30; exit 1; }
	done
fi
[ "$mode" = check ] && exit 0
o=ro; [ "$mode" = rw ] && o=rw
mount -t btrfs -o "$o$opts" "$1" "$m" || { echo "mount ($o) failed"; dmesg | tail -n 5; exit 1; }
if [ -n "$sums" ]; then
	(cd "$m" && sha256sum -c --quiet "$sums") || { echo "files changed"; exit 1; }
else
	ls -R "$m" > /dev/null || exit 1
fi
"""




def loop_run(mode, devs, progs, sums=None):
    """(ok, output) of LOOP_SCRIPT in mode on the image files devs."""
    cmd = under_loop_lock(["sh", "-c", LOOP_SCRIPT, "sh", mode, sums or "", progs or "false"] + devs)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return p.returncode == 0, p.stdout.decode(errors="replace")


# Mount the devices read-only on loop devices (machine-wide: under the loop lock).
MOUNT_SCRIPT = r"""
m=$(mktemp -d); loops=""; opts=ro
cleanup() { umount "$m" 2>/dev/null; for l in $loops; do losetup -d "$l"; done; rmdir "$m"; }
trap cleanup EXIT
for d in "$@"; do
	l=$(losetup -f --show "$d") || exit 1
	loops="$loops $l"; opts="$opts,device=$l"
done
set -- $loops
mount -t btrfs -o "$opts" "$1" "$m" && ls -R "$m" > /dev/null
"""


def kernel_mounts(devs):
    p = subprocess.run(under_loop_lock(["sh", "-c", MOUNT_SCRIPT, "sh"] + devs),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return p.returncode == 0, p.stdout.decode(errors="replace")


def subsets(pending, mode, rng):
    n = len(pending)
    out = [[], list(range(n))]
    if mode == "full":
        if n <= 10:
            out = [[i for i in range(n) if m >> i & 1] for m in range(1 << n)]
        else:
            out += [[i] for i in range(n)]
            out += [[j for j in range(n) if j != i] for i in range(n)]
            out += [list(range(i)) for i in range(1, n)]
            out += [sorted(rng.sample(range(n), rng.randint(1, n - 1))) for _ in range(32)]
    elif n > 1:
        out += [sorted(rng.sample(range(n), rng.randint(1, n - 1))) for _ in range(2)]
    seen, res = set(), []
    for s in out:
        if tuple(s) not in seen:
            seen.add(tuple(s))
            res.append(s)
    return res


def state_writes(pending, chosen, tear):
    """The writes of the crash interval a state holds, for a FAILED line."""
    what = [f"{w[0]} {os.path.basename(w[1])}@{w[2]}+{w[3]}"
            for j, (_, w) in enumerate(pending) if j in chosen]
    if tear:
        what.append(f"torn {pending[tear[0]][1][2]} first {tear[1]} bytes")
    return ", ".join(what) or "nothing"


def is_super(w):
    return w[0] == "WRIT" and w[2] in SUPER_OFFSETS and w[3] == SUPER_SIZE


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kind", choices=("mkfs", "change", "replace"), required=True)
    ap.add_argument("--mode", choices=("sample", "full"), default="sample")
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--max-states", type=int, default=0, help="0: no limit")
    ap.add_argument("--btrfs", default="./btrfs")
    ap.add_argument("--progs", default="/usr/bin/btrfs" if os.path.exists("/usr/bin/btrfs") else "")
    ap.add_argument("--name", required=True)
    ap.add_argument("--mount", action="store_true",
                    help="the kernel must mount the final state (loop devices, under flock)")
    ap.add_argument("--degraded", action="store_true",
                    help="judge each accepted state again with each device left out (kind change)")
    ap.add_argument("--progs-each", action="store_true",
                    help="btrfs-progs' check of every device in turn (loop devices; kind change)")
    ap.add_argument("--resume", type=int, default=0,
                    help="rerun the command from up to N accepted states (kind change): it must "
                         "succeed and leave both checks clean")
    ap.add_argument("--resume-rate", type=float, default=0.1,
                    help="the share of accepted states resumed from, until --resume is reached")
    ap.add_argument("--dev", action="append", required=True)
    ap.add_argument("command", nargs="+")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    resume_rng = random.Random(args.seed + 1)

    tmp = tempfile.mkdtemp(prefix="powercut.", dir=os.path.dirname(os.path.abspath(args.dev[0])))
    try:
        log = os.path.join(tmp, "log")
        before = []
        for i, d in enumerate(args.dev):
            b = os.path.join(tmp, f"before{i}")
            subprocess.run(["cp", "--sparse=always", d, b], check=True)
            before.append(b)
        p = subprocess.run(args.command, env=dict(os.environ, BTRFS_KIT_WRITE_LOG=log),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode != 0:
            sys.exit(f"powercut {args.name}: the command failed ({p.returncode}):\n{p.stdout.decode()}")
        recs = read_log(log) if os.path.exists(log) else []
        devs = Devices(args.dev)
        new_supers = devs.supers()
        for d, b in zip(args.dev, before):
            subprocess.run(["cp", "--sparse=always", b, d], check=True)
        judge = Judge(args, devs)
        old = None
        if args.kind == "change":
            rc, out, prc = judge.checks()
            old = {"supers": devs.supers(), "rc": rc, "out": out, "prc": prc}
            if args.degraded:
                old["degraded"] = [judge.degraded(i) for i in range(len(args.dev))]
        if args.kind == "replace":
            old = {"copies": {}, "verdict": {}, "errors": {}}
            for m in devs.valid_copies()[0]:
                rc, out, prc = judge.checks(m)
                old["copies"][m] = devs.copy(0, m)
                old["verdict"][m] = (rc, prc)
                old["errors"][m] = error_lines(out)

        writes = [r for r in recs if r[0] != "FLSH"]
        flushes = sum(1 for r in recs if r[0] == "FLSH")
        pending = []            # (log index, record) not yet flushed on their device
        points = states = failed = resumed = 0
        kinds = {}
        resume_devs = [os.path.join(tmp, f"resume{i}") for i in range(len(args.dev))]

        def resume_from_here():
            """Rerun the command on a copy of the state: None, or why it failed."""
            for d, r in zip(args.dev, resume_devs):
                subprocess.run(["cp", "--sparse=always", d, r], check=True)
            cmd = [resume_devs[args.dev.index(a)] if a in args.dev else a for a in args.command]
            rc, out = run(cmd)
            if rc:
                return f"the rerun exits {rc}:\n{out}"
            rc, out, prc = judge.checks(devs=resume_devs)
            if rc or prc:
                return f"after the rerun our check exits {rc}, btrfs-progs' {prc}:\n{out}"
            return None
        deg_checks, deg_failed = 0, [0] * len(args.dev)
        for idx in range(len(recs) + 1):
            rec = recs[idx] if idx < len(recs) else None
            if rec is None or rec[0] == "FLSH":
                points += 1
                plan = [(s, None) for s in subsets(pending, args.mode, rng)]
                supers = [i for i, (_, w) in enumerate(pending) if is_super(w)]
                tears = supers if args.mode == "full" else supers[:1]
                for i in tears:
                    for n in (range(1, 8) if args.mode == "full" else (rng.randint(1, 7),)):
                        plan.append(([j for j in range(len(pending)) if j != i], (i, n * 512)))
                for chosen, tear in plan:
                    if args.max_states and states >= args.max_states:
                        break
                    for j in chosen:
                        devs.apply(pending[j][1], keep=False)
                    if tear:
                        devs.apply(pending[tear[0]][1], keep=False, length=tear[1])
                    ok, kind = judge.verdict(old, new_supers)
                    holes = []
                    if ok and args.degraded and args.kind == "change":
                        holes = judge.degraded_verdict(old)
                        deg_checks += len(args.dev)
                        for i in holes:
                            deg_failed[i] += 1
                    if ok and args.kind == "change" and resumed < args.resume and \
                            resume_rng.random() < args.resume_rate:
                        resumed += 1
                        why = resume_from_here()
                        if why:
                            failed += 1
                            print(f"FAILED rerun from a state ({kind}) at crash point {points}: {why}")
                    devs.revert()
                    states += 1
                    key = kind + ("/torn" if tear else "")
                    kinds[key] = kinds.get(key, 0) + 1
                    if not ok:
                        failed += 1
                        what = state_writes(pending, chosen, tear)
                        print(f"FAILED state ({kind}) at crash point {points}: durable writes before "
                              f"log record {idx}, plus: {what}")
                    if holes:
                        failed += 1
                        what = state_writes(pending, chosen, tear)
                        print(f"FAILED degraded state ({kind}, check fails without "
                              f"{', '.join(os.path.basename(args.dev[i]) for i in holes)}) at crash point "
                              f"{points}: durable writes before log record {idx}, plus: "
                              f"{what}")
                if rec is None:
                    break
                # the flush makes its device's pending writes durable
                still = []
                for j, w in pending:
                    if w[1] == rec[1]:
                        devs.apply(w, keep=True)
                    else:
                        still.append((j, w))
                pending = still
            else:
                pending.append((idx, rec))
        for _, w in pending:
            devs.apply(w, keep=True)
        if args.mount:
            ok, out = kernel_mounts(args.dev)
            if not ok:
                failed += 1
                print(f"FAILED: the kernel does not mount the final state:\n{out}")
            else:
                print(f"powercut {args.name}: the kernel mounts the final state")
        print(f"powercut {args.name}: writes {len(writes)}, flushes {flushes}, crash points {points}, "
              f"states {states}, failed {failed} ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))})")
        if args.resume:
            print(f"powercut {args.name}: resumed {resumed}")
        if args.degraded:
            print(f"powercut {args.name}: degraded checks {deg_checks}, failed {sum(deg_failed)} ("
                  f"{', '.join(f'without {os.path.basename(d)} {n}' for d, n in zip(args.dev, deg_failed))})")
        sys.exit(1 if failed else 0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
