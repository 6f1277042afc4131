package sim

// Record is one request's row in the per-request output. Times are seconds
// since the start of the run; durations are seconds. Column names carry
// their units. Fields of a rejected request that it never reached are NaN
// (times) or 0.
type Record struct {
	ID                  int64   `parquet:"id" json:"id"`
	Pool                string  `parquet:"pool" json:"pool"`
	Instance            int32   `parquet:"instance" json:"instance"`
	Category            string  `parquet:"category" json:"category"`
	ArrivalS            float64 `parquet:"arrival_s" json:"arrival_s"`
	AdmitS              float64 `parquet:"admit_s" json:"admit_s"`
	FirstTokenS         float64 `parquet:"first_token_s" json:"first_token_s"`
	FinishS             float64 `parquet:"finish_s" json:"finish_s"`
	QueueWaitS          float64 `parquet:"queue_wait_s" json:"queue_wait_s"`
	TTFTS               float64 `parquet:"ttft_s" json:"ttft_s"`
	TPOTS               float64 `parquet:"tpot_s" json:"tpot_s"`
	E2ES                float64 `parquet:"e2e_s" json:"e2e_s"`
	InputTokens         int32   `parquet:"input_tokens" json:"input_tokens"`
	OutputTokens        int32   `parquet:"output_tokens" json:"output_tokens"`
	OriginalInputTokens int32   `parquet:"original_input_tokens" json:"original_input_tokens"`
	EstimatedTokens     int32   `parquet:"estimated_tokens" json:"estimated_tokens"`
	Preemptions         int32   `parquet:"preemptions" json:"preemptions"`
	Retries             int32   `parquet:"retries" json:"retries"`
	Compressed          bool    `parquet:"compressed" json:"compressed"`
	Warmup              bool    `parquet:"warmup" json:"warmup"`
	Rejected            bool    `parquet:"rejected" json:"rejected"`
	// RejectedReason is one of RejectReasons ("" when served);
	// RejectedDetail says what exactly (lengths, limits, the pool).
	RejectedReason string `parquet:"rejected_reason" json:"rejected_reason"`
	RejectedDetail string `parquet:"rejected_detail" json:"rejected_detail"`
	// Ext holds the columns written only by runs with a prefix cache or a
	// disaggregated pool (Config.ExtendedRecords; recordext.go).
	Ext RecordExt `parquet:"-" json:"-"`
}

// Sink receives records as requests leave the fleet, in completion order.
// Write must not keep r after it returns.
type Sink interface {
	Write(r *Record) error
}

// SlotSink is a Sink that lends the storage of the record it writes next,
// so that a record can be built in place instead of being copied in by
// Write. Run uses it only when the sink is also a ConcurrentSink and the
// records are written on the record goroutine (recwriter.go), and there
// for served requests only: each is one Slot call, the record built in its
// storage, then one WriteSlot call, with no Write in between; rejected
// requests still go through Write.
type SlotSink interface {
	Sink
	// Slot returns storage for the next record, valid until WriteSlot. It
	// may hold an earlier record: the caller sets every field (Ext's
	// included). The sink neither reads it nor hands it on before
	// WriteSlot; once the sink has failed, Slot still returns storage
	// (which WriteSlot discards, returning the error).
	Slot() *Record
	// WriteSlot writes the record built in the storage Slot returned, as
	// Write would write a copy of it (the same error included); the
	// storage is the sink's again.
	WriteSlot() error
}
