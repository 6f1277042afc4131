package sim

// Quantiles are P50/P90/P99 of a latency, seconds.
type Quantiles struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
}

// PoolMetrics are one pool's (or the fleet's) measured metrics over the
// post-warm-up requests.
type PoolMetrics struct {
	Name string `json:"name"`
	GPU  string `json:"gpu,omitempty"`
	// GPUs are the physical GPUs: Instances × the GPUs of one instance
	// (its tensor-parallel degree; 1 for a profile that does not state it).
	GPUs int `json:"gpus"`
	// Instances are the serving instances (the pool's count), set only when
	// they are not the GPUs (tensor-parallel instances; for the fleet, when
	// a pool has them): 0 means Instances = GPUs, so the summaries of other
	// runs are unchanged. InstanceCount reads it.
	Instances       int       `json:"instances,omitempty"`
	MaxContext      int       `json:"max_ctx,omitempty"`
	Slots           int       `json:"slots,omitempty"`
	Arrived         int64     `json:"arrived"`
	Completed       int64     `json:"completed"`
	Rejected        int64     `json:"rejected"`
	InFlight        int64     `json:"in_flight"`
	Preemptions     int64     `json:"preemptions"`
	SlotUtilization float64   `json:"slot_utilization"` // time-averaged busy slots / slots, in [0, 1]
	ArrivalRPS      float64   `json:"arrival_rps"`      // post-warm-up arrivals per second of the measurement window
	ThroughputRPS   float64   `json:"throughput_rps"`   // completions per second
	TTFT            Quantiles `json:"ttft_s"`
	TPOT            Quantiles `json:"tpot_s"`
	E2E             Quantiles `json:"e2e_s"`
	QueueWait       Quantiles `json:"queue_wait_s"`
	SLOAttainment   float64   `json:"slo_attainment"`     // fraction of completed requests meeting both SLO targets
	Overloaded      bool      `json:"overloaded"`         // offered load above what the pool serves
	BacklogGrowth   float64   `json:"backlog_growth_rps"` // growth of the waiting line, requests per second
	Backlog         int64     `json:"backlog"`            // requests waiting at the end of the measurement window
	// OSD is the over-saturation detector's verdict (absent with --osd off).
	OSD OSDVerdict `json:"osd,omitzero"`
	// PrefixCache reports the prefix cache (absent when the pool, or for
	// the fleet every pool, has none; prefixmetrics.go).
	PrefixCache *PrefixCacheMetrics `json:"prefix_cache,omitempty"`
	// Disagg reports a disaggregated pool's stages and KV transfers
	// (disagg.go; absent otherwise).
	Disagg *DisaggMetrics `json:"disaggregated,omitempty"`
}

// PercentileMethod says how the latency quantiles of a summary were
// computed and how close they are to the exact ones.
type PercentileMethod struct {
	// Method names the estimator: "log-linear histogram" (see sketch.go).
	Method string `json:"method"`
	// RelativeError bounds |reported − exact| / exact, the exact value
	// being the order statistic of rank ceil(q·n) (SketchRelativeError).
	RelativeError float64 `json:"relative_error"`
	// MinS and MaxS bound the values resolved, s: smaller values count as
	// 0 (absolute error below MinS), larger ones as about MaxS.
	MinS float64 `json:"min_s"`
	MaxS float64 `json:"max_s"`
}

// Percentiles is the PercentileMethod of every summary.
var Percentiles = PercentileMethod{Method: "log-linear histogram", RelativeError: SketchRelativeError, MinS: SketchMinS, MaxS: SketchMaxS}

// Summary is the result of a run.
type Summary struct {
	Version  string  `json:"version"`
	Config   Config  `json:"config"`
	Requests int64   `json:"requests"`
	SimTimeS float64 `json:"sim_time_s"`
	// WarmupRequests is the number of leading arrivals flagged warm-up.
	WarmupRequests int64 `json:"warmup_requests"`
	// WindowStartS and WindowEndS bound the measurement window: the first
	// post-warm-up arrival and the last arrival, s.
	WindowStartS float64 `json:"window_start_s"`
	WindowEndS   float64 `json:"window_end_s"`
	// Percentiles describes the quantiles' estimator and error bound.
	Percentiles PercentileMethod `json:"percentiles"`
	Fleet       PoolMetrics      `json:"fleet"`
	Pools       []PoolMetrics    `json:"pools"`
	// OSDStop is set when an enforce-mode detector stopped the run.
	OSDStop *OSDStop `json:"osd_stop,omitempty"`
	// Scaling is the cost and service of an autoscaled run (absent for a
	// fixed fleet; scalesummary.go).
	Scaling *ScalingSummary `json:"scaling,omitempty"`
}
