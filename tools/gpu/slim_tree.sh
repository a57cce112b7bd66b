#!/usr/bin/env bash
# The device tool sends the working tree, tracked files included, and refuses one over 64 MiB with
# the carried build; the committed results and evidence are more than that. Before a
# device call, `tools/gpu/slim_tree.sh out` moves every tracked file over 200 kB under results/,
# figures/, evidence/ and paper/ (none of which a batch reads) to $SLIM outside the repository;
# `tools/gpu/slim_tree.sh in` puts them back, right after the call. While they are out, `git
# status` shows them deleted: commit nothing then (`tools/gpu/slim_tree.sh status` says whether
# they are out). `out` refuses while files are already out, `in` never overwrites a file.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
SLIM=${SLIM:-/tmp/nbody-slim}
out_count() { [ -d "$SLIM" ] && find "$SLIM" -type f | wc -l || echo 0; }
case "${1:-}" in
  out)
    if [ "$(out_count)" -gt 0 ]; then
      echo "slim_tree: $(out_count) files are already out in $SLIM; run 'in' first" >&2
      exit 2
    fi
    moved=0
    while IFS= read -r -d '' f; do
      [ -f "$f" ] && [ "$(stat -c %s "$f")" -gt 200000 ] || continue
      mkdir -p "$SLIM/$(dirname "$f")"
      mv "$f" "$SLIM/$f"
      moved=$((moved + 1))
    done < <(git ls-files -z results figures evidence paper)
    echo "slim_tree: $moved files moved to $SLIM; tracked files now $(git ls-files -z | xargs -0 du -cb 2> /dev/null | tail -1 | cut -f1) bytes; run 'in' after the device call"
    ;;
  in)
    back=0
    if [ -d "$SLIM" ]; then
      while IFS= read -r -d '' f; do
        rel=${f#"$SLIM"/}
        if [ -e "$rel" ]; then
          echo "slim_tree: $rel exists in the tree; left in $SLIM" >&2
          continue
        fi
        mkdir -p "$(dirname "$rel")"
        mv "$f" "$rel"
        back=$((back + 1))
      done < <(find "$SLIM" -type f -print0)
      find "$SLIM" -depth -type d -empty -delete
    fi
    echo "slim_tree: $back files back; $(git status --porcelain | grep -c '^ D' || true) tracked files missing"
    ;;
  status)
    echo "slim_tree: $(out_count) files out in $SLIM"
    ;;
  *)
    echo "usage: tools/gpu/slim_tree.sh out|in|status (the large tracked files out of the tree for a device call, and back)" >&2
    exit 2
    ;;
esac
