# Sourced by the build-foreign-*.sh scripts. The cache (~/.cache/errscope) is shared by every checkout on the
# machine (worktrees, CI jobs), each with its own sources and so its own build key: a build is owned by the checkout
# that made it, and a script removes only its own checkout's superseded builds, never another's (which that checkout
# would rebuild, or is running right now).

# claim_build DIR ROOT: record ROOT (the checkout's absolute path) as the owner of the build in DIR.
claim_build() {
  printf '%s\n' "$2" > "$1/.owner"
}

# prune_own_builds PARENT NAME KEEP ROOT: remove PARENT/NAME-* builds other than PARENT/KEEP that ROOT owns. A build
# with no owner recorded (made before owners were) or another owner stays.
prune_own_builds() {
  local parent="$1" name="$2" keep="$3" root="$4" dir
  for dir in "$parent/$name"-*; do
    [ -d "$dir" ] && [ "$dir" != "$parent/$keep" ] || continue
    [ -f "$dir/.owner" ] && [ "$(cat "$dir/.owner")" = "$root" ] || continue
    rm -rf -- "$dir"
  done
}
