-- Merge the parts of a sharded `fleetsim sweep` (one part per shard,
-- written as DIR/parts/part-IIII-of-NNNN.parquet) into the table the
-- unsharded sweep writes to DIR/sweep.parquet: the same rows, in the same
-- order. Replace 'sweep/parts/*.parquet' with your DIR (local path, s3://,
-- gs:// or https:// glob). tools/duckcheck runs this exact query in CI.
SELECT * FROM read_parquet('sweep/parts/*.parquet') ORDER BY point, pool_index;
