#!/usr/bin/env bash
# Makes sure Debian's Chromium is at /usr/bin/chromium, where the browser tests launch it
# (libs/shared/testing/src/browser.ts). Playwright's own browser downloads are not used: the
# browser comes from apt like PostgreSQL and Java do.
#
# Idempotent: returns at once when Chromium is there. Otherwise installs it with apt-get when
# running as root, and otherwise says how, exiting 1.
set -euo pipefail

readonly CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "ensure-chromium: $CHROMIUM is missing; the browser tests need it. Install it as root:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium fonts-dejavu-core fonts-liberation" >&2
  exit 1
fi

# Fonts named explicitly: without recommends nothing else brings any, and a page rendered
# without fonts shows boxes in every screenshot.
echo "ensure-chromium: installing Debian's chromium package" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core fonts-liberation >&2

if [ ! -x "$CHROMIUM" ]; then
  echo "ensure-chromium: apt-get finished but $CHROMIUM is still missing" >&2
  exit 1
fi
echo "ensure-chromium: $("$CHROMIUM" --version 2>/dev/null | head -n 1)" >&2
