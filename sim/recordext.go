package sim

// RecordExt is the part of a Record that the per-request outputs carry only
// when the run has a pool with a prefix cache or a disaggregated pool
// (Config.ExtendedRecords): the columns are then appended after
// rejected_detail, so that every other run keeps its schema byte for byte.
type RecordExt struct {
	// CachedTokens is the prompt tokens served from the prefix cache at the
	// request's first admission (engine.Result.Cached), tokens.
	CachedTokens int32 `parquet:"cached_tokens" json:"cached_tokens"`
	// PrefillInstance and DecodeInstance are the instances (indexes in the
	// pool) that prefilled and decoded the request: both the serving
	// instance in a colocated pool, -1 when none.
	PrefillInstance int32 `parquet:"prefill_instance" json:"prefill_instance"`
	DecodeInstance  int32 `parquet:"decode_instance" json:"decode_instance"`
	// KVTransferS is the time the request's KV cache spent moving from the
	// prefill to the decode instance, s: 0 in a colocated pool (and for a
	// request rejected there), NaN (NULL) in a disaggregated pool for a
	// request that never got there.
	KVTransferS float64 `parquet:"kv_transfer_s" json:"kv_transfer_s"`
}

// ExtendedRecords reports whether the run's per-request outputs carry the
// RecordExt columns: some pool has a prefix cache or is disaggregated.
func (c *Config) ExtendedRecords() bool {
	for i := range c.Pools {
		if c.Pools[i].PrefixCache != nil || c.Pools[i].Disaggregated != nil {
			return true
		}
	}
	return false
}
