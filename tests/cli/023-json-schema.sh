#!/bin/bash
# Every corpus dump in --format json (dump-tree plain, -R, --dfs --csum-headers; dump-super
# -f -a) is valid against Documentation/json-schema.json, whose objects all describe some
# output; Documentation/json.rst is what the schema generates; keys carry their type's name
# as the text prints it; csum items carry one checksum per sector; header flags never hold
# the backref revision bits.
. "$TOP/tests/lib/common.sh"
check_prereq corpus python3
schema=$TOP/Documentation/json-schema.json
tool=$TOP/tests/tools/json-schema.py

python3 "$tool" "$schema" rst > "$T/json.rst" || _fail "json-schema.py rst failed"
diff -u "$TOP/Documentation/json.rst" "$T/json.rst" ||
	_fail "Documentation/json.rst does not match the schema (regenerate: tests/tools/json-schema.py $schema rst)"

trees=() supers=()
for c in $(cd "$SHARED/corpus" && ls); do
	dir=$(corpus_case "$c")
	devs=$(cd "$dir" && ls dev*.img | sort -V)
	for opts in "" "-R" "--dfs --csum-headers"; do
		f=$T/$c.tree${opts// /}.json
		(cd "$dir" && "$BTRFS" --format json inspect-internal dump-tree --noscan $opts $devs) > "$f" ||
			_fail "$c: dump-tree $opts --format json exit $?"
		trees+=("$f")
	done
	(cd "$dir" && "$BTRFS" --format json inspect-internal dump-super -f -a $devs) > "$T/$c.super.json" ||
		_fail "$c: dump-super --format json exit $?"
	supers+=("$T/$c.super.json")
	(cd "$dir" && "$BTRFS" inspect-internal dump-tree --noscan -t csum $devs) > "$T/$c.csum.txt" ||
		_fail "$c: dump-tree -t csum exit $?"
	python3 - "$T/$c.tree.json" "$T/$c.super.json" "$T/$c.csum.txt" <<'PY' || _fail "$c: keys, checksums or flags wrong"
import json, re, sys
doc = json.load(open(sys.argv[1]))
csum_size = json.load(open(sys.argv[2]))['superblocks'][0]['csum_size']
text = open(sys.argv[3]).read()
items = [i for t in doc['trees'] for b in t['blocks'] for i in b.get('items', [])]
blocks = [b for t in doc['trees'] for b in t['blocks']]
assert items and all(f in ('WRITTEN', 'RELOC') for b in blocks for f in b['flags'])
# the text's "item N key (OBJECTID TYPE OFFSET)" type names, in the order of the csum tree
tnames = re.findall(r'^\titem \d+ key \(\S+ (\S+) \d+\)', text, re.M)
csum_tree = [i for t in doc['trees'] if t['tree_id'] == 7 for b in t['blocks'] for i in b.get('items', [])]
assert tnames == [i['key']['type_name'] for i in csum_tree], (tnames[:3], len(csum_tree))
csums = [i for i in items if i['key']['type_name'] == 'EXTENT_CSUM']
for i in csums:
    assert len(i['data']['csum']) == i['size'] // csum_size, i['key']
    assert all(len(c) == 2 + 2 * csum_size for c in i['data']['csum']), i['key']
print(len(tnames), len(csums))
PY
done >> "$T/counts"
# an empty filesystem has no csum item: the corpus as a whole must have compared some
read -r names csums < <(awk '{ n += $1; c += $2 } END { print n + 0, c + 0 }' "$T/counts")
[ "$names" -gt 100 ] && [ "$csums" -gt 100 ] || _fail "only $names csum tree keys, $csums csum items compared"
python3 "$tool" "$schema" check dump-tree "${trees[@]}" || _fail "dump-tree JSON not valid against the schema"
python3 "$tool" "$schema" check dump-super "${supers[@]}" || _fail "dump-super JSON not valid against the schema"
