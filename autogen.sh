#!/bin/sh
# Regenerate configure and Makefile.in (never committed).
set -e
cd "$(dirname "$0")"
autoreconf -fi
