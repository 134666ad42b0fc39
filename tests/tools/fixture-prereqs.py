#!/usr/bin/env python3
"""Every test that uses a ../shared fixture asks for it first, so that a clone
with no ../shared beside it skips the test (and says why) instead of failing,
and CI=true fails it (tests/lib/common.sh: check_prereq).  A test uses
  corpus       when it calls corpus_case or names $SHARED/corpus;
  fsck-images  when it names $SHARED/fsck-images;
  fuzz-images  when it names $SHARED/fuzz-images;
  tools        when it names $SHARED/tools (any fixture will do: they come together).
(each_hostile_image asks for its fixtures itself.)
Prints one line per test that uses a fixture before (or without) its
check_prereq line; exit 1 if any.
usage: tests/tools/fixture-prereqs.py [TEST.sh...]   (default: tests/*/*.sh)"""
import glob, re, sys

FIXTURES = ('corpus', 'fsck-images', 'fuzz-images', 'tools')


def uses(line):
    code = line.split('#', 1)[0] if not line.lstrip().startswith('#') else ''
    if not code:
        return set()
    need = set()
    if re.search(r'\bcorpus_case\b', code) or re.search(r'SHARED\}?"?/corpus', code):
        need.add('corpus')
    if re.search(r'SHARED\}?"?/fsck-images', code):
        need.add('fsck-images')
    if re.search(r'SHARED\}?"?/fuzz-images', code):
        need.add('fuzz-images')
    if re.search(r'SHARED\}?"?/tools', code):
        need.add('any')
    return need


def main():
    tests = sys.argv[1:] or sorted(t for t in glob.glob('tests/*/*.sh') if not t.startswith(('tests/lib/', 'tests/tools/')))
    bad = 0
    for t in tests:
        asked = set()
        for n, line in enumerate(open(t, errors='replace'), 1):
            if line.lstrip().startswith('#'):
                continue
            m = re.match(r'\s*check_prereq\s+(.*)', line)
            if m:
                asked |= set(m.group(1).split()) & set(FIXTURES)
            for need in sorted(uses(line)):
                if (need == 'any' and not asked) or (need != 'any' and need not in asked):
                    print('%s:%d: uses %s before check_prereq %s' %
                          (t, n, 'a ../shared tool' if need == 'any' else need,
                           'tools (or any fixture)' if need == 'any' else need))
                    bad = 1
                    asked.add(need)     # one line per fixture and test
    if not bad:
        print('fixture prereqs ok (%d tests)' % len(tests))
    return bad


sys.exit(main())
