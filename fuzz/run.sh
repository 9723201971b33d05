#!/usr/bin/env bash
# Runs fuzz targets for a while each, seeded from seeds/<target> (checked in) into the
# working corpus corpus/<target> (not checked in), with conversion_review.dict for the
# review target. Usage: fuzz/run.sh SECONDS [TARGET...]   (default: every target)
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`) and a nightly compiler, or the
# stable one with RUSTC_BOOTSTRAP=1 (what the figures in README.md were made with).
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-240}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(parse_machine_pool conversion_review contract_check split_documents load_tree validate)
fi
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t"
  extra=()
  if [ -f "$t.dict" ]; then extra+=("-dict=$t.dict"); fi
  cargo fuzz run -O "$t" "corpus/$t" "seeds/$t" -- \
    -max_total_time="$seconds" -print_final_stats=1 -max_len=262144 -timeout=20 -rss_limit_mb=4096 "${extra[@]}" \
    2>&1 | tee "logs/$t.log" | grep -E "DONE|ERROR|panicked|stat::number_of_executed_units|stat::peak_rss_mb" || true
done
