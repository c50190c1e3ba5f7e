# Sourced by the scripts: as_root CMD... runs CMD as root: directly when already root, else
# through sudo when it exists, else stops with a clear message (nothing else needs root).
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else echo "dpagg: '$*' needs root: run this script as root, or install sudo" >&2; return 1
  fi
}
