#!/usr/bin/env bash
# Makes sure Debian's python3-matplotlib is importable by /usr/bin/python3 (apt-get as root).
set -euo pipefail
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    echo "(installing python3-matplotlib with apt-get)"
    apt-get install -y python3-matplotlib >/dev/null ||
      { apt-get update >/dev/null && apt-get install -y python3-matplotlib >/dev/null; }
  else
    echo "python3-matplotlib is missing; as root: apt-get install -y python3-matplotlib" >&2
    exit 1
  fi
fi
