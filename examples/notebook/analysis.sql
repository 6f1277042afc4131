-- The same analysis as analysis.py, in DuckDB SQL. Run from the repository
-- root after
--   fleetsim simulate --out out
--   fleetsim sweep --rates 20,40,60 --router length,token-budget --requests 2000 --out sweep
-- with: duckdb < examples/notebook/analysis.sql
-- (tools/duckcheck runs every statement of this file in CI, on its own runs.)

-- 1. Latency per pool over the served post-warm-up requests (seconds).
--    Rows are in completion order; ORDER BY id gives arrival order.
SELECT pool,
       count(*)                     AS served,
       quantile_cont(ttft_s, 0.50)  AS ttft_p50_s,
       quantile_cont(ttft_s, 0.99)  AS ttft_p99_s,
       quantile_cont(tpot_s, 0.99)  AS tpot_p99_s,
       quantile_cont(e2e_s, 0.99)   AS e2e_p99_s
FROM read_parquet('out/requests.parquet')
WHERE NOT warmup AND NOT rejected
GROUP BY pool
ORDER BY pool;

-- 2. Rejected requests by pool and reason.
SELECT pool, rejected_reason, count(*) AS requests
FROM read_parquet('out/requests.parquet')
WHERE rejected
GROUP BY ALL
ORDER BY ALL;

-- 3. The first ten requests in arrival order.
SELECT id, pool, arrival_s, ttft_s, e2e_s
FROM read_parquet('out/requests.parquet')
ORDER BY id
LIMIT 10;

-- 4. The time series: per pool, the busiest interval (longest queue) and
--    the peak KV cache use.
SELECT pool,
       max(queue)                                  AS max_queue,
       arg_max(interval_start_s, queue)            AS max_queue_at_s,
       max(kv_blocks_used / kv_blocks_total)       AS peak_kv_use,
       sum(arrivals)                               AS arrivals
FROM read_parquet('out/timeseries.parquet')
GROUP BY pool
ORDER BY pool;

-- 5. The run behind the files: the footer's metadata.
SELECT decode(key) AS key, left(decode(value), 60) AS value
FROM parquet_kv_metadata('out/requests.parquet')
ORDER BY key;

-- 6. The sweep's cost–SLO Pareto front: fleet rows no other point beats on
--    both cost per million requests and SLO attainment.
WITH fleet AS (
  SELECT label, usd_per_million_requests AS usd, slo_attainment AS slo
  FROM read_parquet('sweep/sweep.parquet')
  WHERE fleet AND usd_per_million_requests IS NOT NULL AND slo_attainment IS NOT NULL
)
SELECT a.label, a.usd, a.slo
FROM fleet a
WHERE NOT EXISTS (
  SELECT 1 FROM fleet b
  WHERE b.usd <= a.usd AND b.slo >= a.slo AND (b.usd < a.usd OR b.slo > a.slo)
)
ORDER BY a.usd;
