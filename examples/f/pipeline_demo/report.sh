# pipeline
# on datatable://main/daily_rollup
# debounce 5s
# asset write volume://reports/latest.txt
# Bash: runs after the rollup table changes (several quick changes → one run).
partition="$1"
echo "rollup updated for ${partition:-(no partition)}"
echo "report for ${partition:-latest} at $(date -u +%FT%TZ)" | wmill write-volume reports "latest.txt"
echo '{"reported": true}'
