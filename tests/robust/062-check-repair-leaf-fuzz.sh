#!/bin/bash
# btrfs check --repair on leaves with random bytes changed and a good
# checksum (the hostile input the leaf mending sees), in the fs tree leaf and
# the root tree leaf, fixed seeds.  Two kinds: "layout" changes only item
# offset/size bytes; "any" changes any byte of the item array or item data.
# Never a crash, sanitizer report or hang; a refusal (exit 1) leaves the
# image byte for byte as it was; a repair (exit 0) is clean for our check,
# and for Debian's after a layout change.  After an "any" change Debian's
# check may see what ours does not look at (a key it refuses, say): those
# are counted and shown, not failed, since the mending did not cause them.
. "$TOP/tests/lib/common.sh"
check_prereq python3
src=$T/src
mkdir -p "$src/d"
for i in 1 2 3 4 5 6; do echo "file $i" > "$src/d/f$i"; done
pattern_data 20000 "$src/big"
img0=$T/clean.img
run_check "$TOP/mkfs.btrfs" -q -f --csum crc32c -r "$src" -b 128M "$img0" > /dev/null
leaf_of() { "$BTRFS" inspect-internal dump-tree -t "$1" "$img0" | sed -n 's/^leaf \([0-9]*\) .*/\1/p' | head -n 1; }
fs=$(leaf_of 5)
root=$(leaf_of root)
{ [ -z "$fs" ] || [ -z "$root" ]; } && _fail "cannot find the leaves"

# IMAGE OUTDIR SEEDS BYTENR...: for each block, kind and seed, a copy with
# 1-3 bytes changed and its checksum redone, OUTDIR/BYTENR-KIND-SEED; also
# OUTDIR/BYTENR.copies, where its copies lie (file offset / 16384).  One python
# run for all: starting python per case would cost most of the test's time.
python3 - "$img0" "$T" 20 "$fs" "$root" "$TOP/tests/lib" <<'PY' || _fail "cannot make the mutated leaves"
import random, sys
sys.path.insert(0, sys.argv[-1])
from blockpatch import crc32c
img, out, seeds, blocks = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:-1]
ns, hdr, item = 16384, 101, 25
with open(img, 'rb') as f:
    data = f.read()
for bytenr in blocks:
    want = int(bytenr).to_bytes(8, 'little')
    copies = [o for o in range(0, len(data) - ns + 1, ns) if data[o + 0x30:o + 0x38] == want]
    with open('%s/%s.copies' % (out, bytenr), 'w') as f:
        f.write(' '.join(str(o // ns) for o in copies))
    for kind in ('layout', 'any'):
        for seed in range(1, seeds + 1):
            rnd = random.Random(seed)
            blk = bytearray(data[copies[0]:copies[0] + ns])
            nr = int.from_bytes(blk[0x60:0x64], 'little')
            for _ in range(rnd.randint(1, 3)):
                if kind == 'layout':        # offset or size of an item
                    pos = hdr + rnd.randrange(nr) * item + 17 + rnd.randrange(8)
                elif rnd.random() < 0.5:    # an item header: key, offset or size
                    pos = hdr + rnd.randrange(nr * item)
                else:                       # item data
                    pos = rnd.randrange(hdr + nr * item, ns)
                blk[pos] = rnd.randrange(256)
            blk[0:4] = crc32c(bytes(blk[32:])).to_bytes(4, 'little')
            with open('%s/%s-%s-%d' % (out, bytenr, kind, seed), 'wb') as f:
                f.write(blk)
PY

n=0 repaired=0 refused=0 clean=0 disagree=0
for run in "$fs layout" "$root layout" "$fs any" "$root any"; do
	read -r leaf kind <<< "$run"
	read -r -a blocks < "$T/$leaf.copies"
	[ ${#blocks[@]} -gt 0 ] || _fail "leaf $leaf not found in the image"
	for seed in $(seq 1 20); do
		cp --sparse=always "$img0" "$T/orig"
		for b in "${blocks[@]}"; do
			dd if="$T/$leaf-$kind-$seed" of="$T/orig" bs=16384 seek="$b" conv=notrunc status=none ||
				_fail "cannot write the mutated leaf $leaf"
		done
		cp --sparse=always "$T/orig" "$T/img"
		timeout 120 "$BTRFS" check --repair --force "$T/img" > "$T/out" 2> "$T/err"
		rc=$?
		if [ $rc -gt 1 ] || grep -q -e 'AddressSanitizer' -e 'runtime error:' -e 'LeakSanitizer' "$T/err"; then
			tail -n 20 "$T/err" >&2
			_fail "leaf $leaf $kind seed $seed: check --repair exit $rc"
		fi
		if [ $rc -eq 1 ]; then
			cmp -s "$T/orig" "$T/img" || _fail "leaf $leaf $kind seed $seed: repair refused but changed the image"
			refused=$((refused + 1))
		elif grep -q '^Repair committed' "$T/out"; then
			expect_exit 0 "$BTRFS" check "$T/img" > /dev/null 2>&1
			if [ -x /usr/bin/btrfs ] && ! /usr/bin/btrfs check "$T/img" > "$T/deb" 2>&1; then
				[ "$kind" = any ] ||
					{ cat "$T/out" "$T/deb" >&2; _fail "leaf $leaf $kind seed $seed: Debian's check finds errors after our repair"; }
				echo "Debian disagrees: leaf $leaf $kind seed $seed: $(grep -m1 -e ERROR -e WARNING "$T/deb")"
				disagree=$((disagree + 1))
			fi
			repaired=$((repaired + 1))
		else
			clean=$((clean + 1))    # the change hit bytes nothing checks
		fi
		n=$((n + 1))
	done
done
echo "$n mutated leaves: $repaired repaired (clean for our check; $disagree not for Debian's, all 'any'), $refused refused and unchanged, $clean found clean"
