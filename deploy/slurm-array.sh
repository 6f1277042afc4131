#!/usr/bin/env bash
# A fleetsim sweep split over a Slurm job array of 8 tasks: task
# $SLURM_ARRAY_TASK_ID runs shard ID/8 and writes
# $OUT/parts/part-000ID-of-0008.parquet. Submit with
#
#   sbatch deploy/slurm-array.sh
#
# then merge the parts with DuckDB (deploy/merge-parts.sql):
#
#   duckdb -c "SELECT * FROM read_parquet('$OUT/parts/*.parquet') ORDER BY point, pool_index"
#
#SBATCH --job-name=fleetsim-sweep
#SBATCH --array=0-7
#SBATCH --cpus-per-task=4
#SBATCH --mem=4G
#SBATCH --time=04:00:00
#SBATCH --output=fleetsim-sweep-%A_%a.log
set -euo pipefail
OUT="${OUT:-$PWD/sweep}"
N=8 # keep equal to the --array size

# fleetsim's workers default to GOMAXPROCS; give it the CPUs Slurm granted.
export GOMAXPROCS="${SLURM_CPUS_PER_TASK:-1}"
exec fleetsim sweep --shard "${SLURM_ARRAY_TASK_ID}/${N}" \
  --rates 100:2000:100 --pool-counts short=20:60:5 --seeds 1:4:1 \
  --pool short:a100:40:4096 --pool long:a100:120:65536 \
  --duration 300 --out "$OUT"
