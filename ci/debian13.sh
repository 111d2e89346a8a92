#!/bin/bash
# The suite on Debian 13 (trixie): MPICH 4.2.1, the first MPICH that allows
# MPI_Win_shared_query on MPI_Win_allocate windows, and Open MPI 5.0.7 -- what clusters
# run now -- from a Debian 12 machine. debootstrap makes a trixie root with the build
# dependencies (once: kept in $SHMEMQ_CACHE/debian13-root and reused while its stamp is
# there), the working tree is copied into it, and ci/test.sh runs there with
# SHMEMQ_CI_MPIS="mpich openmpi" (make check for both) and no memory checks; both with
# ci/test.sh's smaller PE matrix (1 and 2 PEs, 2 off the node, two nodes of two).
# Needs root (or sudo) for debootstrap, chroot and the bind mounts of /proc, /sys, /dev.
# Prints the inner run's output; exits with its status.
set -u
cd "$(dirname "$0")/.." || exit 1
say() { echo "debian13: $*"; }
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
cache="${SHMEMQ_CACHE:-$HOME/.cache/shmemq}"
root="${SHMEMQ_DEBIAN13_ROOT:-$cache/debian13-root}"
mirror="${SHMEMQ_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
pkgs="build-essential,autoconf,automake,libtool,pkg-config,ca-certificates,mpich,libmpich-dev"
pkgs="$pkgs,openmpi-bin,libopenmpi-dev,libhwloc-dev,googletest,libgtest-dev,cmake,python3,gdb"

if ! command -v debootstrap >/dev/null 2>&1; then
  $SUDO apt-get install -y -qq --no-install-recommends debootstrap >/dev/null ||
    { say "cannot install debootstrap"; exit 1; }
fi
if [ ! -f "$root/.shmemq-stamp" ]; then
  say "debootstrap trixie into $root (about a minute)"
  $SUDO rm -rf "$root"
  mkdir -p "$(dirname "$root")"
  t0=$SECONDS
  if ! $SUDO debootstrap --variant=minbase --include="$pkgs" trixie "$root" "$mirror" \
      >"$root.log" 2>&1; then
    tail -30 "$root.log"
    say "debootstrap FAILED ($root.log)"
    exit 1
  fi
  echo "trixie $(date -u +%F)" | $SUDO tee "$root/.shmemq-stamp" >/dev/null
  say "root made in $((SECONDS - t0)) s"
fi

mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do $SUDO umount -l "${mounted[$i]}" 2>/dev/null; done
}
trap cleanup EXIT
for d in proc sys dev dev/pts dev/shm; do
  if ! mountpoint -q "$root/$d"; then
    $SUDO mkdir -p "$root/$d"
    $SUDO mount --bind "/$d" "$root/$d" || { say "cannot bind-mount /$d"; exit 1; }
    mounted+=("$root/$d")
  fi
done
$SUDO cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null

# the working tree as it is (tracked and untracked files git does not ignore)
$SUDO rm -rf "$root/root/shmemq"
$SUDO mkdir -p "$root/root/shmemq"
git ls-files -co --exclude-standard -z | tar --null -cf - -T - | $SUDO tar -xf - -C "$root/root/shmemq"
say "$($SUDO chroot "$root" sh -c 'mpichversion | head -1; ompi_info --version 2>/dev/null | head -1' | tr -s ' \n' ' ')"
$SUDO chroot "$root" env HOME=/root SHMEMQ_CI_MPIS="mpich openmpi" SHMEMQ_CI_CHECKS="" SHMEMQ_CI_SCALE=openmpi \
  SHMEMQ_CI_FULL="" SHMEMQ_CI_CTEST="" bash -c 'cd /root/shmemq && bash ci/test.sh'
