#!/usr/bin/env bash
# The whole test suite, on a fresh Debian machine: installs what is missing, builds, and runs
# every test against the real Secret Service (a private, unlocked gnome-keyring) and the real
# portal-emulator over HTTPS on loopback.
#   scripts/test.sh [extra swift test arguments, e.g. --filter StorageTests]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# One format (.swift-format, 120 columns): CI keeps it.
swift format lint --strict --recursive --parallel Sources Plugins Tests Benchmarks Fuzz Package.swift
swift build --build-tests
exec scripts/with-keyring.sh swift test --skip-build "$@"
