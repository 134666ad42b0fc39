#!/bin/sh
# with-sync.sh FILE CMD...: run CMD, then sync FILE's filesystem (sync -f):
# the time of a write including its writeback to the disk, for comparing a
# tool that flushes what it wrote (our restore) with one that does not.
f=$1
shift
"$@" || exit
exec sync -f "$f"
