# dump-tree against Debian's btrfs-progs, for interop tests (source after common.sh).
#
# compare_with_progs IMAGE NAME
#   runs our dump-tree and $PROGS' (Debian 6.2) on IMAGE with --noscan, keeps
#   $T/NAME.ours, $T/NAME.progs, fails when our stderr is not empty (every
#   block must read verified) or when the outputs differ after normalise_62.
# check_json_against_text IMAGE NAME
#   --format json must be one document; every item's key and every leaf
#   header field must match $T/NAME.ours.

# Differences between btrfs-progs 6.2 (Debian) and 6.19 (what we print) are
# rewritten by tests/lib/normalise-619-to-62.py, which documents each rule
# (inline ref prefixes, the DEV_REPLACE item's decoded lines, escaped names
# and xattr data, unconvertible dates).  Everything else (balance item,
# qgroups, orphan, log tree and dir-log items, shared and keyed refs, dev
# stats, ...) must be identical.
normalise_62() {
	python3 "$TOP/tests/lib/normalise-619-to-62.py" -t < "$1"
}
normalise_ours() {
	python3 "$TOP/tests/lib/normalise-619-to-62.py" < "$1"
}

# 6.19's inline ref prefix: type matches the ref kind, the offset is the root
# (tree block), the parent (shared refs) or, for extent data refs, a hash.  (6.19 prints
# the owner ref as "\t(172 0xROOT) textent owner root ROOT", one tab: a typo scripts see.)
check_inline_ref_prefix() {
	python3 - "$1" <<'PY'
import re, sys
want = {'tree block backref root': 176, 'shared block backref parent': 182,
        'extent data backref root': 178, 'shared data backref parent': 184,
        'textent owner root': 172}
n = bad = 0
for line in open(sys.argv[1], errors='replace'):
    m = re.match(r'\t\t?\((\d+) 0x([0-9a-f]+)\) (.*)', line)
    if not m:
        continue
    n += 1
    t, off, rest = int(m[1]), int(m[2], 16), m[3]
    kind = next((k for k in want if rest.startswith(k)), None)
    val = rest[len(kind):].split()[0] if kind else ''
    ok = kind is not None and want[kind] == t
    if ok and t in (176, 182, 184, 172) and val.isdigit():
        ok = int(val) == off
    if not ok:
        bad += 1
        print('bad inline ref prefix:', line.rstrip())
print(n, 'inline ref prefixes,', bad, 'bad')
sys.exit(1 if bad or not n else 0)
PY
}

compare_with_progs() {
	local img=$1 name=$2
	"$BTRFS" inspect-internal dump-tree --noscan "$img" > "$T/$name.ours" 2> "$T/$name.ours.err"
	local rc=$?
	[ $rc -eq 0 ] || { cat "$T/$name.ours.err" >&2; _fail "$name: our dump-tree exit $rc"; }
	[ ! -s "$T/$name.ours.err" ] || { cat "$T/$name.ours.err" >&2; _fail "$name: messages on stderr"; }
	"$PROGS" inspect-internal dump-tree --noscan "$img" > "$T/$name.progs" 2> "$T/$name.progs.err" ||
		_fail "$name: Debian's dump-tree failed"
	normalise_62 "$T/$name.progs" > "$T/$name.progs.norm"
	normalise_ours "$T/$name.ours" > "$T/$name.ours.norm"
	check_inline_ref_prefix "$T/$name.ours" || _fail "$name: inline ref prefixes"
	if ! diff "$T/$name.progs.norm" "$T/$name.ours.norm" > "$T/$name.diff"; then
		head -n 40 "$T/$name.diff" >&2
		_fail "$name: $(grep -c '^[<>]' "$T/$name.diff") lines differ from Debian's dump-tree"
	fi
	echo "ok $name: $(wc -l < "$T/$name.ours") lines as Debian's dump-tree"
}

check_json_against_text() {
	local img=$1 name=$2
	"$BTRFS" --format json inspect-internal dump-tree --noscan "$img" > "$T/$name.json" ||
		_fail "$name: dump-tree --format json failed"
	python3 "$TOP/tests/lib/json-vs-text.py" "$T/$name.json" "$T/$name.ours" ||
		_fail "$name: json does not match the text output"
}
