#!/bin/sh
# Install what shmemq needs to build and test on Debian 12 / Ubuntu 22.04+.
set -e
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential autoconf automake libtool pkg-config ca-certificates \
  mpich libmpich-dev openmpi-bin libopenmpi-dev \
  libhwloc-dev googletest libgtest-dev cmake valgrind gdb >/dev/null
echo "dependencies installed"
