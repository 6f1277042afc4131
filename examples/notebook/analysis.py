"""The same analysis as analysis.sql, with polars (or pandas when polars is
missing). Run from the repository root after

    fleetsim simulate --out out
    fleetsim sweep --rates 20,40,60 --router length,token-budget --requests 2000 --out sweep

with: python3 examples/notebook/analysis.py

Needs polars, or pandas with pyarrow (pip install polars / pandas pyarrow).
Not run in CI: the CI machine has no Python package registry
(tools/duckcheck runs analysis.sql instead).
"""

import json

try:
    import polars as pl
except ImportError:  # pandas + pyarrow
    pl = None
    import pandas as pd
    import pyarrow.parquet as pq

REQ, TS, SWEEP = "out/requests.parquet", "out/timeseries.parquet", "sweep/sweep.parquet"


def with_polars():
    req = pl.read_parquet(REQ)
    served = req.filter(~pl.col("warmup") & ~pl.col("rejected"))
    q = lambda c, p: pl.col(c).quantile(p, interpolation="linear")
    print("1. latency per pool, s")
    print(served.group_by("pool").agg(
        pl.len().alias("served"), q("ttft_s", 0.50).alias("ttft_p50_s"), q("ttft_s", 0.99).alias("ttft_p99_s"),
        q("tpot_s", 0.99).alias("tpot_p99_s"), q("e2e_s", 0.99).alias("e2e_p99_s")).sort("pool"))
    print("2. rejections")
    print(req.filter(pl.col("rejected")).group_by("pool", "rejected_reason").agg(pl.len().alias("requests")).sort("pool", "rejected_reason"))
    print("3. first ten requests in arrival order")
    print(req.sort("id").select("id", "pool", "arrival_s", "ttft_s", "e2e_s").head(10))
    ts = pl.read_parquet(TS)
    print("4. time series")
    print(ts.group_by("pool").agg(
        pl.col("queue").max().alias("max_queue"),
        pl.col("interval_start_s").sort_by("queue").last().alias("max_queue_at_s"),
        (pl.col("kv_blocks_used") / pl.col("kv_blocks_total")).max().alias("peak_kv_use"),
        pl.col("arrivals").sum()).sort("pool"))
    print("5. metadata")
    meta = pl.read_parquet_metadata(REQ)
    for k in sorted(meta):
        print(f"  {k}: {meta[k][:60]}")
    sw = pl.read_parquet(SWEEP).filter(pl.col("fleet"))
    sw = sw.drop_nulls(["usd_per_million_requests", "slo_attainment"]).select(
        "label", pl.col("usd_per_million_requests").alias("usd"), pl.col("slo_attainment").alias("slo"))
    print("6. Pareto front")
    print(pareto(sw.rows()))


def with_pandas():
    req = pd.read_parquet(REQ)
    served = req[~req.warmup & ~req.rejected]
    print("1. latency per pool, s")
    print(served.groupby("pool").agg(
        served=("id", "size"), ttft_p50_s=("ttft_s", lambda s: s.quantile(0.50)),
        ttft_p99_s=("ttft_s", lambda s: s.quantile(0.99)), tpot_p99_s=("tpot_s", lambda s: s.quantile(0.99)),
        e2e_p99_s=("e2e_s", lambda s: s.quantile(0.99))))
    print("2. rejections")
    print(req[req.rejected].groupby(["pool", "rejected_reason"]).size().rename("requests"))
    print("3. first ten requests in arrival order")
    print(req.sort_values("id")[["id", "pool", "arrival_s", "ttft_s", "e2e_s"]].head(10))
    ts = pd.read_parquet(TS)
    ts["kv_use"] = ts.kv_blocks_used / ts.kv_blocks_total
    print("4. time series")
    g = ts.groupby("pool")
    print(pd.DataFrame({"max_queue": g.queue.max(), "max_queue_at_s": ts.loc[g.queue.idxmax(), ["pool", "interval_start_s"]].set_index("pool").interval_start_s,
                        "peak_kv_use": g.kv_use.max(), "arrivals": g.arrivals.sum()}))
    print("5. metadata")
    meta = pq.read_metadata(REQ).metadata
    for k in sorted(meta):
        print(f"  {k.decode()}: {meta[k].decode()[:60]}")
    sw = pd.read_parquet(SWEEP)
    sw = sw[sw.fleet].dropna(subset=["usd_per_million_requests", "slo_attainment"])
    print("6. Pareto front")
    print(pareto(list(zip(sw.label, sw.usd_per_million_requests, sw.slo_attainment))))


def pareto(points):
    """Points (label, usd, slo) no other point beats on both, cheapest first."""
    front = [a for a in points if not any(
        b[1] <= a[1] and b[2] >= a[2] and (b[1] < a[1] or b[2] > a[2]) for b in points)]
    return sorted(front, key=lambda p: p[1])


if __name__ == "__main__":
    with_polars() if pl is not None else with_pandas()
