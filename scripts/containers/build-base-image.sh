#!/usr/bin/env bash
# Builds a local stand-in for `node:22-slim` when Docker Hub cannot be reached: a minimal Debian root filesystem
# (debootstrap, from Debian's own mirror) plus the Node 22 binary the `node` npm package installed in node_modules and
# the host's npm, imported as one layer. Usage: build-base-image.sh <tag>. Needs root, debootstrap and a running
# Docker engine; installs nothing on the host.
set -euo pipefail
tag="$1"
repository="$(cd "$(dirname "$0")/../.." && pwd)"
node_binary="$(readlink -f "$repository/node_modules/.bin/node")"
npm_directory="$(dirname "$(readlink -f "$(command -v npm)")")/.."
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
suite="${DEBIAN_SUITE:-bookworm}"

[ "$(id -u)" = 0 ] || { echo "build-base-image: debootstrap needs root" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "build-base-image: debootstrap is not installed (apt-get install -y debootstrap)" >&2; exit 1; }
"$node_binary" --version | grep -q '^v22\.' || { echo "build-base-image: $node_binary is not Node 22 (run npm install)" >&2; exit 1; }

root="$(mktemp -d /tmp/node-base-rootfs.XXXXXX)"
trap 'rm -rf "$root"' EXIT
# mktemp makes the directory 0700, and it becomes the image's /: an unprivileged user could not reach anything.
chmod 0755 "$root"
debootstrap --variant=minbase --include=ca-certificates "$suite" "$root" "$mirror" >/dev/null
# The base trusts what this machine trusts (Debian's bundle plus any local CA, e.g. a TLS-inspecting proxy's), so that
# `npm install` in the image's build works wherever it works on the host. HOST_CA_BUNDLE= (empty) keeps Debian's own.
ca_bundle="${HOST_CA_BUNDLE-/etc/ssl/certs/ca-certificates.crt}"
if [ -n "$ca_bundle" ] && [ -f "$ca_bundle" ]; then install -m 0644 "$ca_bundle" "$root/etc/ssl/certs/ca-certificates.crt"; fi
install -m 0755 "$node_binary" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules"
cp -a "$(readlink -f "$npm_directory")" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
# The same unprivileged user as the official image (uid/gid 1000, named node).
echo 'node:x:1000:' >>"$root/etc/group"
echo 'node:x:1000:1000::/home/node:/bin/sh' >>"$root/etc/passwd"
echo 'node:*:19000:0:99999:7:::' >>"$root/etc/shadow"
mkdir -p "$root/home/node" && chown 1000:1000 "$root/home/node"
# What a container never reads: documentation, manuals, locales, package caches.
rm -rf "$root"/usr/share/{doc,man,info,locale} "$root"/var/cache/apt/* "$root"/var/lib/apt/lists/* "$root"/var/log/*
tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_VERSION=22' \
  --change 'CMD ["node"]' \
  - "$tag" >/dev/null
echo "build-base-image: $tag built ($("$node_binary" --version), Debian $suite)"
