#!/bin/sh
# Produce ./configure from configure.ac (needs autoconf and pkg-config's pkg.m4).
set -e
cd "$(dirname "$0")"
autoreconf -fi
